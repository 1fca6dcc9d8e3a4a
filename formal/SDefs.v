(** * Paper S, the definitions: row softmax with multiplicities, ℓ1 distances, rank_ε.

    Paper S: "The Approximation Rank of Softmax Attention" (arXiv 2608.28150).
    Each definition quotes the paper's words as the project reads them
    (docs/softmax_rank.*.md, theorems/softmax_rank/_definitions.py) and names
    the Python function it mirrors.  No proof lives in this file.  Plain lists:
    a row is a [list R], a matrix a list of rows. *)

From Coq Require Import Reals List.
Import ListNotations.
Open Scope R_scope.

(** Finite sums over lists. *)
Definition ssum (l : list R) : R := fold_right Rplus 0 l.

(** The weighted exponentials [w_j e^{l_j}] of a logit row [l] with column
    multiplicities [w] (positive integers; default 1). *)
Definition weighted (w : list nat) (l : list R) : list R :=
  map (fun p => INR (fst p) * exp (snd p)) (combine w l).

(** "attention [A_ij = m_j e^{L_ij} / Σ_k m_k e^{L_ik}]" on one row: the row
    softmax of [l] with multiplicities [w], i.e. [rowsoftmax(l + log w)], kept
    exact by carrying [w] as weights.
    Python: [softmax_rank._definitions.attention] (one row of it). *)
Definition softmax (w : list nat) (l : list R) : list R :=
  map (fun x => x / ssum (weighted w l)) (weighted w l).

(** [sumn n f = Σ_{i<n} f i], a finite sum over indices (a matrix read as a
    function of its indices). *)
Fixpoint sumn (n : nat) (f : nat -> R) : R :=
  match n with O => 0 | S m => sumn m f + f m end.

(** The ℓ1 distance of two rows, [||a − b||_1 = Σ_j |a_j − b_j|].
    Python: one row of [row_errors]. *)
Definition l1 (a b : list R) : R :=
  ssum (map (fun p => Rabs (fst p - snd p)) (combine a b)).

(** "max_i ||A_i − B_i||_1", the max-row-ℓ1 distance of two matrices (lists
    of rows; 0 for no rows).  Python: [max(row_errors(...))]. *)
Definition maxrow_l1 (A B : list (list R)) : R :=
  fold_right Rmax 0 (map (fun p => l1 (fst p) (snd p)) (combine A B)).

(** B has the shape of A: as many rows, and each row as many entries. *)
Definition same_shape (A B : list (list R)) : Prop :=
  length A = length B /\ Forall2 (fun a b => length a = length b) A B.

(** "rank B ≤ k": [B = L · R] with inner dimension k, over the reals;
    [L : n × k] and [R : k × N] are read as functions of their indices.
    Python: [upper]'s [B = F G] ([product]). *)
Definition rank_le (k : nat) (B : list (list R)) : Prop :=
  exists (L Rt : nat -> nat -> R),
    forall i j, (i < length B)%nat -> (j < length (nth i B []))%nat ->
      nth j (nth i B []) 0 = ssum (map (fun t => L i t * Rt t j) (seq 0 k)).

(** "rank_ε(A) = min { rank B : B real n × N, max_i ||A_i − B_i||_1 ≤ ε }"
    (B unrestricted).  [approx_rank_ge A eps r] is rank_ε(A) ≥ r: no B of
    A's shape within ε has rank at most k < r (for r ≥ 1: not rank_le (r−1) B).
    Python: the [lower] certificate's claim [rank_eps(A) >= |R|]. *)
Definition approx_rank_ge (A : list (list R)) (eps : R) (r : nat) : Prop :=
  forall B, same_shape A B -> maxrow_l1 A B <= eps ->
    forall k, (k < r)%nat -> ~ rank_le k B.

(** rank_ε(A) ≤ r: some B of A's shape within ε has rank at most r.
    Python: the [upper] certificate's claim [rank_eps(A) <= k]. *)
Definition approx_rank_le (A : list (list R)) (eps : R) (r : nat) : Prop :=
  exists B, same_shape A B /\ maxrow_l1 A B <= eps /\ rank_le r B.

(** For the duality (S1): the dot product of a row with a vector, the ℓ1
    norm of a row, and the sign vector [sign(M_i) ∈ {−1, 1}^N] (sign 0 = 1). *)
Definition rdot (m v : list R) : R := ssum (map (fun p => fst p * snd p) (combine m v)).
Definition l1norm (m : list R) : R := ssum (map Rabs m).
Definition sgn (x : R) : R := if Rle_dec 0 x then 1 else -1.
Definition sign_vector (m : list R) : list R := map sgn m.

(** * Instances: self-attention on points, as the claims build them. *)

(** "the attention of the logits L with column multiplicities m": every row's
    softmax.  Python: [softmax_rank._definitions.attention]; the trusted
    checker's [A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}]. *)
Definition attention (w : list nat) (L : list (list R)) : list (list R) :=
  map (softmax w) L.

(** "self-attention on the points X at inverse temperature β": the logits
    [L = β X X^T], i.e. [L_ij = β <x_i, x_j>].  Python: the [-points] kinds'
    [L = beta X X^T] ([intervals._instance]). *)
Definition gram_logits (beta : R) (X : list (list R)) : list (list R) :=
  map (fun x => map (fun y => beta * rdot x y) X) X.

(** "X lies on the unit sphere S^{d−1}": every point has d coordinates and
    [|x|^2 = 1] exactly.  Python: the judgments' field [sphere: d]. *)
Definition on_sphere (d : nat) (X : list (list R)) : Prop :=
  Forall (fun x => length x = d /\ rdot x x = 1) X.

(** "every point lies in the closed unit ball B^d": [|x|^2 ≤ 1].  Python: the
    judgments' field [ball: d]. *)
Definition in_ball (d : nat) (X : list (list R)) : Prop :=
  Forall (fun x => length x = d /\ rdot x x <= 1) X.

(** * Residuals (S6): perturbing logits, and the oscillation of a row. *)

(** Entrywise sum and difference of two rows ([l + e], [L − L']). *)
Definition vadd (a b : list R) : list R := map (fun p => fst p + snd p) (combine a b).
Definition vsub (a b : list R) : list R := map (fun p => fst p - snd p) (combine a b).

(** Unit multiplicities: the plain row softmax [rowsoftmax(l)] is
    [softmax (ones (length l)) l]. *)
Definition ones (n : nat) : list nat := repeat 1%nat n.

(** The largest and smallest entry of a row (0 for the empty row), and its
    oscillation [osc(d) = max_j d_j − min_j d_j] (the row range).  Python:
    [osc_i] of the [residual-bound] kind. *)
Definition lmax (d : list R) : R := fold_right Rmax (hd 0 d) d.
Definition lmin (d : list R) : R := fold_right Rmin (hd 0 d) d.
Definition osc (d : list R) : R := lmax d - lmin d.

(** * Exact ranks, the row softmax, and the duality's maximum. *)

(** "rowsoftmax(L)": every row's plain softmax (unit multiplicities).
    Python: [rowsoftmax] of the [row-shift], [attention-differs] and
    [residual-bound] kinds. *)
Definition rowsoftmax (L : list (list R)) : list (list R) :=
  map (fun l => softmax (ones (length l)) l) L.

(** "rank A ≥ k": no factorisation [A = L · R] of inner dimension below k.
    Python: the judgment [rank-at-least]. *)
Definition rank_ge (k : nat) (A : list (list R)) : Prop :=
  forall k', (k' < k)%nat -> ~ rank_le k' A.

(** "max_i ||M_i||_1", the largest row ℓ1 norm (0 for no rows).  Python: the
    [duality] kind's left side. *)
Definition max_row_l1 (M : list (list R)) : R := fold_right Rmax 0 (map l1norm M).

(** S1 as the project states it: "max_i ||M_i||_1 = max over v ∈ [−1,1]^N of
    max_i |(M v)_i|" — every v in the cube gives [|M_i · v| ≤ max_i ||M_i||_1]
    on every row, and some row and vertex of the cube attain it.  Python: the
    judgment [duality]. *)
Definition duality_holds (M : list (list R)) : Prop :=
  (forall v, Forall (fun x => Rabs x <= 1) v ->
     forall i, (i < length M)%nat -> Rabs (rdot (nth i M []) v) <= max_row_l1 M) /\
  (M <> [] -> exists i v, (i < length M)%nat /\ length v = length (nth i M []) /\
     Forall (fun s => s = 1 \/ s = -1) v /\ Rabs (rdot (nth i M []) v) = max_row_l1 M).

(** "every row of rowsoftmax(L) within 2 tanh(osc_i / 4) of rowsoftmax(L')",
    [osc_i] the range of row i of [L − L'].  Python: the judgment
    [residual-within]. *)
Definition residual_within (L L' : list (list R)) : Prop :=
  forall i, (i < length L)%nat ->
    l1 (nth i (rowsoftmax L) []) (nth i (rowsoftmax L') [])
    <= 2 * tanh (osc (vsub (nth i L []) (nth i L' [])) / 4).

(** * Singular values above τ *)

(** "L P, P = I − 11^T/N": the row-centred logits, each row minus its mean
    (N = the row's length).  Python: the trusted checker's [K = s L P] of the
    kind [visible-dimension] ([solvers/trusted/ranks.py], [_visible_dimension]),
    which is [L P] scaled by a positive integer s. *)
Definition centered (L : list (list R)) : list (list R) :=
  map (fun l => map (fun x => x - ssum l / INR (length l)) l) L.

(** The number N of columns of a matrix (the length of its first row). *)
Definition ncols (M : list (list R)) : nat := length (hd [] M).

(** [M x], one entry per row ([(M x)_i = <M_i, x>]), and [||x||² = <x, x>]. *)
Definition mat_apply (M : list (list R)) (x : list R) : list R := map (fun r => rdot r x) M.
Definition sqnorm (x : list R) : R := rdot x x.

(** [V c = Σ_{t<k} c_t v_t ∈ R^N]: the combination, with coefficients
    [c_0, ..., c_{k−1}], of the k vectors [v_t = (V 0 t, ..., V (N−1) t)]
    (V read as an N × k matrix, a function of its indices). *)
Definition combo (N k : nat) (V : nat -> nat -> R) (c : nat -> R) : list R :=
  map (fun j => sumn k (fun t => V j t * c t)) (seq 0 N).

(** "at least k singular values of M are greater than τ": some k vectors of
    R^N (N = ncols M) such that [||M x||² > τ² ||x||²] for every [x = V c]
    with c ∈ R^k nonzero.  The k vectors may be any: the strict inequality at
    every nonzero c already makes them independent ([V c = 0] would give
    [0 > 0]), so they span a k-dimensional subspace on which
    [x^T (M^T M) x > τ² ||x||²] for [x ≠ 0]. *)
Definition sv_count_ge (M : list (list R)) (tau : R) (k : nat) : Prop :=
  exists V : nat -> nat -> R,
    forall c : nat -> R, (exists t, (t < k)%nat /\ c t <> 0) ->
      sqnorm (mat_apply M (combo (ncols M) k V c)) > tau ^ 2 * sqnorm (combo (ncols M) k V c).

(** "at most k singular values of M are greater than τ": k ≤ N, and some
    N − k vectors [w_t = (W 0 t, ..., W (N−1) t)] of R^N, linearly independent
    (they have a left inverse Z: [Σ_j Z_sj W_jt = 1] if s = t, 0 otherwise),
    such that [||M x||² ≤ τ² ||x||²] for every [x = W c] in their span. *)
Definition sv_count_le (M : list (list R)) (tau : R) (k : nat) : Prop :=
  (k <= ncols M)%nat /\
  exists W Z : nat -> nat -> R,
    (forall s t, (s < ncols M - k)%nat -> (t < ncols M - k)%nat ->
       sumn (ncols M) (fun j => Z s j * W j t) = if Nat.eqb s t then 1 else 0) /\
    forall c : nat -> R,
      sqnorm (mat_apply M (combo (ncols M) (ncols M - k) W c))
      <= tau ^ 2 * sqnorm (combo (ncols M) (ncols M - k) W c).

(** "#{i : σ_i(M) > τ} = k": M is a real matrix (every row of length N),
    τ ≥ 0 (the trusted checker requires it), and exactly k of the singular
    values [σ_1 ≥ ... ≥ σ_N ≥ 0] of M — the square roots of the eigenvalues
    [λ_1 ≥ ... ≥ λ_N] of [M^T M] — exceed τ, i.e. exactly k eigenvalues of
    [M^T M] exceed τ².  The two halves are the Courant–Fischer
    characterisation (standard linear algebra, not proved here): [λ_k > τ²]
    iff [x^T M^T M x > τ² ||x||²] on the nonzero vectors of some
    k-dimensional subspace ([sv_count_ge]), and [λ_{k+1} ≤ τ²] iff
    [||M x||² ≤ τ² ||x||²] on some (N − k)-dimensional subspace
    ([sv_count_le]).  At τ = 0 the count is the rank of M.
    Python: the judgment [singular-values-above {logits, tau, count}] of the
    kind [visible-dimension] ([_visible_dimension]: "#{i : sigma_i(L P) > tau}
    = count exactly, P = I − 11^T/N"), stated of [M = centered L]. *)
Definition sv_count (M : list (list R)) (tau : R) (k : nat) : Prop :=
  0 <= tau /\ Forall (fun r => length r = ncols M) M /\
  sv_count_ge M tau k /\ sv_count_le M tau k.
