(** * Implications between judgments, for the obligations Coq checks.

    An obligation of a claim is discharged in Coq by a certificate's theorem
    either as it stands or through one of these lemmas — the Coq form of the
    trusted checker's implication rules ("every m >= 4 covers m >= 5"; a
    head with positions may do what a tokenwise head does).  Each is proved
    once, for every parameter. *)

From Coq Require Import Reals Lia.
From AttnProof Require Import KDefs KTable.

(** No position-dependent head solves ⇒ no tokenwise head solves (a
    tokenwise head is a position-dependent one). *)
Lemma unsolvable_of_positional (r M N : nat) :
  (forall m, (M <= m)%nat -> ~ psolvable r m N) ->
  forall m, (M <= m)%nat -> ~ solvable r m N.
Proof. intros H m Hm S. exact (H m Hm (solvable_psolvable r m N S)). Qed.

(** "every m >= M'" covers "every m >= M" when M' <= M. *)
Lemma unsolvable_from (r M' M N : nat) :
  (M' <= M)%nat ->
  (forall m, (M' <= m)%nat -> ~ solvable r m N) ->
  forall m, (M <= m)%nat -> ~ solvable r m N.
Proof. intros Hle H m Hm. apply H. lia. Qed.

Lemma punsolvable_from (r M' M N : nat) :
  (M' <= M)%nat ->
  (forall m, (M' <= m)%nat -> ~ psolvable r m N) ->
  forall m, (M <= m)%nat -> ~ psolvable r m N.
Proof. intros Hle H m Hm. apply H. lia. Qed.

From Coq Require Import QArith Qreals.
From AttnProof Require Import KLower.

(** K1 with its tolerance written as an exact rational, as exported statements write it. *)
Lemma k1_exact_q (m : nat) :
  exists h : head 1, solves_within (Q2R (0#1)) m 1 h /\ solves_within (Q2R (0#1)) m 2 h.
Proof.
  replace (Q2R (0#1)) with 0%R by (unfold Q2R; simpl; field).
  exact (k1_exact m).
Qed.
