(** * Paper K's results, as theorems of Coq.

    Each statement uses only the definitions of [KDefs.v] (tokens, [target],
    [head], [solves_within], [solvable], [psolvable], [csolvable],
    [min_feature_rank]); the proofs are in the files named beside them.  The
    report shows these statements verbatim.  [Print Assumptions] of each is
    recorded in docs/formal.md and checked by a test. *)

From Coq Require Import Reals Lia.
From AttnProof Require Import KDefs KTable KWitness KLower KRankTwo KRankTwoStar.

(** K1 (KLower): for every m, one head of feature rank one solves exact
    lengths 1 and 2 at once, with error exactly 0. *)
Theorem K1_lengths_one_and_two : forall m : nat,
  exists h : head 1, solves_within 0 m 1 h /\ solves_within 0 m 2 h.
Proof. exact k1_exact. Qed.

(** K3 (KWitness, KLower): at exact length 3, feature rank one suffices iff m <= 3. *)
Theorem K3_rank_one_iff : forall m : nat, (1 <= m)%nat ->
  (solvable 1 m 3 <-> (m <= 3)%nat).
Proof.
  intros m Hm; split.
  - intros Hs. destruct (Nat.le_gt_cases m 3) as [Hle | Hgt]; [exact Hle |].
    exfalso. exact (k3_lower m Hgt Hs).
  - intros Hle.
    destruct m as [| [| [| [| m]]]]; try lia.
    + exact k3_witness_m1.
    + exact k3_witness_m2.
    + exact k3_witness_m3.
Qed.

(** The same threshold at exact length 4, tokenwise (KWitness; KLower through
    positions: a tokenwise head is a position-dependent one). *)
Theorem K3_length_four : forall m : nat, (1 <= m)%nat ->
  (solvable 1 m 4 <-> (m <= 3)%nat).
Proof.
  intros m Hm; split.
  - intros Hs. destruct (Nat.le_gt_cases m 3) as [Hle | Hgt]; [exact Hle |].
    exfalso. exact (k5_lower m 4 Hgt (le_S _ _ (le_n 3)) (solvable_psolvable 1 m 4 Hs)).
  - intros Hle.
    destruct m as [| [| [| [| m]]]]; try lia.
    + exact len4_witness_m1.
    + exact len4_witness_m2.
    + exact len4_witness_m3.
Qed.

(** K5 (KLower): with position-dependent maps and a final causal query, rank
    one fails at every m >= 4 and every exact length n >= 3, also in the
    every-prefix reading of causal attention ... *)
Theorem K5_positions_fail : forall m n : nat, (4 <= m)%nat -> (3 <= n)%nat ->
  ~ psolvable 1 m n /\ ~ csolvable 1 m n.
Proof. intros m n Hm Hn. split; [exact (k5_lower m n Hm Hn) | exact (k5_lower_causal m n Hm Hn)]. Qed.

(** ... and (KWitness) solves lengths 3 and 4 for m <= 3, and every prefix of
    length <= 3 for m <= 3. *)
Theorem K5_positions_solve : forall m : nat, (1 <= m <= 3)%nat ->
  psolvable 1 m 3 /\ psolvable 1 m 4 /\ csolvable 1 m 3.
Proof.
  intros m Hm.
  destruct m as [| [| [| [| m]]]]; try lia.
  - exact (conj pos_witness_m1_n3 (conj pos_witness_m1_n4 causal_witness_m1_n3)).
  - exact (conj pos_witness_m2_n3 (conj pos_witness_m2_n4 causal_witness_m2_n3)).
  - exact (conj pos_witness_m3_n3 (conj pos_witness_m3_n4 causal_witness_m3_n3)).
Qed.

(** The minimum feature rank at length three: r*(4) = 2 (KWitness, KLower) ... *)
Theorem r_star_4_is_2 : min_feature_rank 4 3 2.
Proof.
  split; [exact rank2_witness_m4 |].
  intros r Hr Hs.
  apply (k3_lower 4 (le_n 4)).
  exact (solvable_rank_mono r 1 4 3 Hs ltac:(lia)).
Qed.

(** ... r*(5) = 3 (KRankTwo, KWitness) ... *)
Theorem r_star_5_is_3 : min_feature_rank 5 3 3.
Proof. exact r_star_5. Qed.

(** ... and r*(m) >= 3 for every m >= 5 (KRankTwo). *)
Theorem rank_two_fails_from_5 : forall m : nat, (5 <= m)%nat -> ~ solvable 2 m 3.
Proof. exact rank_two_fails. Qed.
