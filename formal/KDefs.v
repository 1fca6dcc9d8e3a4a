(** * Paper K, the definitions: tokens, the Min-IP target, kernel heads, "solves".

    Paper K: "Three Tokens Force Exponential Feature Rank in Nonnegative
    Kernel Attention" (arXiv 2608.11427).  Each definition quotes the
    paper's words (the abstract's, as the project reads them; see
    docs/formal.md) and names the Python function it mirrors.  No proof
    lives in this file. *)

From Coq Require Import Reals List.
Import ListNotations.
Open Scope R_scope.

(** "m-bit tokens": [x ∈ {0,1}^m], a list of m booleans, coordinate 1 first.
    Python: [theorems/attention.py] stores a token as an int, bit i-1 =
    coordinate i; the token with index x is [map (Nat.testbit x) (seq 0 m)]. *)
Definition token := list bool.
Definition is_token (m : nat) (x : token) : Prop := length x = m.

(** [<x, y> = |x ∧ y|], the number of coordinates where both tokens are 1.
    Python: [attention.inner]. *)
Fixpoint ip (x y : token) : nat :=
  match x, y with
  | a :: x', b :: y' => ((if andb a b then 1 else 0) + ip x' y')%nat
  | _, _ => 0%nat
  end.

(** A sequence [X = (x_1, …, x_n)] is written as its context [ctx = (x_1,
    …, x_{n-1})] and its query [q = x_n], the final token.
    "Min-IP": [T(X) = min_{1 ≤ j ≤ n} <x_j, q>], the query's own [<q,q> = |q|]
    included (it bounds the others, so it changes nothing for n ≥ 2 and makes
    n = 1 defined).  Python: [attention.min_ip_target]. *)
Definition target (ctx : list token) (q : token) : nat :=
  fold_right (fun x t => Nat.min (ip x q) t) (ip q q) ctx.

(** Finite sums over lists, and the inner product of two vectors of width r
    (a vector of width r is a function [nat -> R] read at [0 .. r-1]). *)
Definition sumR (l : list R) : R := fold_right Rplus 0 l.
Definition dot (r : nat) (u v : nat -> R) : R := sumR (map (fun i => u i * v i) (seq 0 r)).

(** ** Tokenwise heads

    "one normalized nonnegative kernel-attention head … with arbitrary
    finite-dimensional tokenwise values and query-dependent affine readouts":
    feature maps [φ, ψ : {0,1}^m → R^r_{≥0}] (r the feature rank), the kernel
    [κ(q, x) = <φ(q), ψ(x)>], values [v : {0,1}^m → R^p] and a readout
    [y = <a(q), h> + b(q)] of the normalised average
    [h(X) = Σ_j κ(q, x_j) v(x_j) / Σ_j κ(q, x_j)] at the final position, the
    query attending to all n tokens, itself included.
    Python: [attention.KernelHead], [attention.AffineReadout]. *)
Record head (r : nat) := {
  phi : token -> nat -> R;        (** query features, width r *)
  psi : token -> nat -> R;        (** key features, width r *)
  vdim : nat;                     (** p, the values' dimension *)
  value : token -> nat -> R;      (** v(x), width p *)
  ra : token -> nat -> R;         (** a(q), width p *)
  rb : token -> R                 (** b(q) *)
}.
Arguments phi {r}. Arguments psi {r}. Arguments vdim {r}.
Arguments value {r}. Arguments ra {r}. Arguments rb {r}.

Definition kernel {r} (h : head r) (q x : token) : R := dot r (phi h q) (psi h x).

(** The head's output on the sequence [ctx ++ [q]]. *)
Definition output {r} (h : head r) (ctx : list token) (q : token) : R :=
  let X := ctx ++ [q] in
  let den := sumR (map (kernel h q) X) in
  dot (vdim h) (ra h q) (fun k => sumR (map (fun x => kernel h q x * value h x k) X) / den)
  + rb h q.

(** "nonnegative": [φ, ψ ≥ 0] on every token of {0,1}^m; and [κ(q, q) > 0],
    so every denominator is positive. *)
Definition valid {r} (m : nat) (h : head r) : Prop :=
  (forall x i, is_token m x -> (i < r)%nat -> 0 <= phi h x i /\ 0 <= psi h x i) /\
  (forall q, is_token m q -> 0 < kernel h q q).

(** An error bound with tolerance t, as the project's certificates state it:
    "error < t" for t > 0, "error exactly 0" for t = 0. *)
Definition error_bound (t e : R) : Prop := (t = 0 /\ e = 0) \/ Rabs e < t.

(** The head's error on every sequence of exact length n over {0,1}^m is
    within tolerance t. *)
Definition solves_within {r} (t : R) (m n : nat) (h : head r) : Prop :=
  valid m h /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    error_bound t (output h ctx q - INR (target ctx q)).

(** "error strictly below 1/2 on every input" of exact length n over {0,1}^m. *)
Definition solves {r} (m n : nat) (h : head r) : Prop :=
  valid m h /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    Rabs (output h ctx q - INR (target ctx q)) < 1/2.

(** Some head of feature rank (at most) r solves exact length n over {0,1}^m. *)
Definition solvable (r m n : nat) : Prop := exists h : head r, solves m n h.

(** [r*(m)], "the minimum feature rank" at length three, as a relation. *)
Definition min_feature_rank (m n k : nat) : Prop :=
  solvable k m n /\ forall r, (r < k)%nat -> ~ solvable r m n.

(** ** Position-dependent heads ("the bounds survive positions")

    [φ_k, ψ_j, v_j] may depend on the position (1-based): the query at
    position k uses [φ_k(q)], the token at position j is read through
    [ψ_j(x_j)] and [v_j(x_j)]; [κ_j(q, x) = <φ_k(q), ψ_j(x)>].  The readout
    [y = <a(q), h> + b(q)] as before.  "Final causal query": the output at the
    final position, which attends to positions 1..n, is the one scored.
    Python: [KernelHead.from_features(..., positional=True)]. *)
Record pos_head (r : nat) := {
  pphi : nat -> token -> nat -> R;     (** φ_k(q) *)
  ppsi : nat -> token -> nat -> R;     (** ψ_j(x) *)
  pvdim : nat;
  pvalue : nat -> token -> nat -> R;   (** v_j(x) *)
  pra : token -> nat -> R;
  prb : token -> R
}.
Arguments pphi {r}. Arguments ppsi {r}. Arguments pvdim {r}.
Arguments pvalue {r}. Arguments pra {r}. Arguments prb {r}.

Definition pkernel {r} (h : pos_head r) (k : nat) (q : token) (j : nat) (x : token) : R :=
  dot r (pphi h k q) (ppsi h j x).

(** The output at the final position k = n of [X = ctx ++ [q]], positions 1..n. *)
Definition poutput {r} (h : pos_head r) (ctx : list token) (q : token) : R :=
  let X := combine (seq 1 (S (length ctx))) (ctx ++ [q]) in
  let k := S (length ctx) in
  let den := sumR (map (fun jx => pkernel h k q (fst jx) (snd jx)) X) in
  dot (pvdim h) (pra h q)
      (fun c => sumR (map (fun jx => pkernel h k q (fst jx) (snd jx) * pvalue h (fst jx) (snd jx) c) X) / den)
  + prb h q.

(** The output at position k reads [φ_k] and [ψ_j] for j ≤ k: those are
    nonnegative on every token, and [κ_k(q, q) > 0] (the query's own term keeps
    the denominator positive). *)
Definition pvalid_at {r} (m k : nat) (h : pos_head r) : Prop :=
  (forall j x i, is_token m x -> (1 <= j <= k)%nat -> (i < r)%nat ->
     0 <= pphi h k x i /\ 0 <= ppsi h j x i) /\
  (forall q, is_token m q -> 0 < pkernel h k q k q).

(** Exact length n, only the final position scored. *)
Definition psolves {r} (m n : nat) (h : pos_head r) : Prop :=
  pvalid_at m n h /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    Rabs (poutput h ctx q - INR (target ctx q)) < 1/2.

Definition psolvable (r m n : nat) : Prop := exists h : pos_head r, psolves m n h.

(** The every-prefix reading of causal attention: one position-dependent head
    whose output at every position k ≤ n solves the prefix [x_1..x_k] (its
    query [x_k]). *)
Definition csolves {r} (m n : nat) (h : pos_head r) : Prop :=
  (forall k, (1 <= k <= n)%nat -> pvalid_at m k h) /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> (1 <= S (length ctx) <= n)%nat ->
    Rabs (poutput h ctx q - INR (target ctx q)) < 1/2.

Definition csolvable (r m n : nat) : Prop := exists h : pos_head r, csolves m n h.
