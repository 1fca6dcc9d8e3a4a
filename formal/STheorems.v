(** * Paper S's results, as theorems of Coq.

    Each statement uses only the definitions of [SDefs.v] (row [softmax] with
    multiplicities, [l1], [maxrow_l1], [approx_rank_ge] = rank_ε ≥ r, [rank_le],
    [tanh] of the standard library, [osc], [duality_holds]); the proofs are in
    the files named beside them.  The report shows these statements verbatim.
    [Print Assumptions] of each is recorded in docs/formal.md and checked by a
    test.  Instance certificates (rank_ε of explicit points, residual rows,
    two-point perturbations, exact ranks) are exported by [attnproof export
    --coq] and proved from these and from [SInstances.v]. *)

From Coq Require Import Reals List Lia.
From AttnProof Require Import SDefs.
From AttnProof Require SLemmas SGrouped SResidual.
Import ListNotations.
Open Scope R_scope.

(** S6 (SResidual): for every row of logits l, multiplicities w ≥ 1 and
    perturbation e with [|e_j| ≤ δ], the softmax moves by at most
    [2 tanh(δ/2)] in ℓ1 (the two-block reduction). *)
Theorem S6_residual_bound : forall (w : list nat) (l e : list R) (delta : R),
  0 <= delta -> length w = length l -> length e = length l -> Forall (fun x => (1 <= x)%nat) w ->
  Forall (fun x => Rabs x <= delta) e ->
  l1 (softmax w l) (softmax w (vadd l e)) <= 2 * tanh (delta / 2).
Proof. exact SResidual.S6_residual_bound. Qed.

(** S6 is sharp (SResidual): for every δ ≥ 0 a two-entry row attains it. *)
Theorem S6_sharp : forall delta, 0 <= delta ->
  exists l e : list R, length l = 2%nat /\ length e = 2%nat /\
    Forall (fun x => Rabs x <= delta) e /\
    l1 (softmax (ones 2) l) (softmax (ones 2) (vadd l e)) = 2 * tanh (delta / 2).
Proof. exact SResidual.S6_sharp. Qed.

(** The tempting variant with [tanh δ] in place of [2 tanh(δ/2)] is false. *)
Theorem S6_tanh_refuted : ~ (forall (l e : list R) (delta : R),
  0 <= delta -> length e = length l -> Forall (fun x => Rabs x <= delta) e ->
  l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) <= tanh delta).
Proof. exact SResidual.S6_tanh_refuted. Qed.

(** S6 on one row as the checker uses it (SResidual): two logit rows whose
    difference has range [osc], softmax within [2 tanh(osc/4)]. *)
Theorem residual_within_row : forall l l' : list R, length l' = length l ->
  l1 (softmax (ones (length l)) l) (softmax (ones (length l')) l') <= 2 * tanh (osc (vsub l l') / 4).
Proof. exact SResidual.residual_within_row. Qed.

(** The grouped-columns lower bound (SGrouped, SRank): chosen rows R of A,
    pairwise disjoint column groups inside the rows, and on every chosen row
    the group's mass beating the other groups' absolute masses by more than ε,
    give rank_ε(A) ≥ |R| (strict diagonal dominance ⇒ full rank). *)
Theorem grouped_lower_bound : forall (A : list (list R)) (eps : R) (rows : list nat) (groups : list (list nat)),
  length groups = length rows ->
  NoDup (concat groups) ->
  (forall i, (i < length rows)%nat ->
     (nth i rows O < length A)%nat /\
     forall c, In c (concat groups) -> (c < length (nth (nth i rows O) A []))%nat) ->
  (forall i, (i < length rows)%nat ->
     let mass g := ssum (map (fun c => nth c (nth (nth i rows O) A []) 0) g) in
     mass (nth i groups []) - sumn (length rows) (fun j => if (j =? i)%nat then 0 else Rabs (mass (nth j groups []))) > eps) ->
  approx_rank_ge A eps (length rows).
Proof. exact SGrouped.grouped_lower_bound. Qed.

(** The multiplicity lemma (SLemmas), on one row: a column of multiplicity
    [w1 + w2] has the softmax mass of two copies with multiplicities w1, w2. *)
Theorem multiplicity_lemma : forall (wa wb : list nat) (la lb : list R) (w1 w2 : nat) (x : R),
  length wa = length la ->
  let s := softmax (wa ++ w1 :: w2 :: wb) (la ++ x :: x :: lb) in
  let k := length wa in
  softmax (wa ++ (w1 + w2)%nat :: wb) (la ++ x :: lb)
  = firstn k s ++ (nth k s 0 + nth (S k) s 0) :: skipn (S (S k)) s.
Proof. exact SLemmas.multiplicity_lemma. Qed.

(** S4, the row-scalar quotient (SLemmas): a constant added to a row of
    logits leaves its softmax unchanged. *)
Theorem S4_row_scalar_quotient : forall (w : list nat) (l : list R) (c : R),
  softmax w (map (fun x => x + c) l) = softmax w l.
Proof. exact SLemmas.S4_row_scalar_quotient. Qed.

(** S1, the ℓ1 duality (SLemmas): for every matrix M,
    [max_i ||M_i||_1 = max over v ∈ [−1,1]^N of max_i |(M v)_i|], attained at
    a sign vector. *)
Theorem S1_duality : forall M : list (list R), duality_holds M.
Proof. exact SLemmas.S1_duality. Qed.

(** S4, the visible part (SLemmas): the attention sees the logits only through
    their row-centred part L P, whose rank is the visible interaction
    dimension. *)
Theorem S4_visible : forall L : list (list R), rowsoftmax (centered L) = rowsoftmax L.
Proof.
  intro L. unfold rowsoftmax, centered. rewrite map_map. apply map_ext. intro l.
  rewrite map_length.
  rewrite (map_ext (fun x => x - ssum l / INR (length l)) (fun x => x + - (ssum l / INR (length l))))
    by (intro; ring).
  apply SLemmas.S4_row_scalar_quotient.
Qed.
