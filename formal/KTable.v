(** * Paper K, general lemmas: readout tables, the linearisation, restriction.

    Proved once, for every parameter:
    - the readout-table lemma ([output_table], [poutput_table]): a head's
      output is [Σ_j κ(q,x_j) U(q,x_j) / Σ_j κ(q,x_j)] with
      [U(q,x) = <a(q), v(x)> + b(q)]; conversely every nonnegative feature
      pair and every table U is a head (one-hot values), so [solvable] is the
      table formulation ([solvable_table], [psolvable_table]);
    - the linearisation ("cone"): a solving head gives, for each query q,
      weights [k = κ(q,·) >= 0] and numerators [P = k U(q,·)] satisfying the
      strict rows lo/hi of every sequence ([solves_cone], [psolves_cone]);
    - restriction by zero padding ([solvable_restrict], [psolvable_restrict]),
      tokenwise heads are positional heads ([solvable_psolvable]),
      monotonicity in the rank ([solvable_rank_mono], [psolvable_rank_mono]),
      and the every-prefix reading has the final position's rows
      ([csolvable_psolvable]). *)

From Coq Require Import Reals List Lia Lra Bool.
From AttnProof Require Import KDefs.
Import ListNotations.
Open Scope R_scope.

(** ** Finite sums *)

Lemma sumR_nil : sumR [] = 0.
Proof. reflexivity. Qed.

Lemma sumR_cons a l : sumR (a :: l) = a + sumR l.
Proof. reflexivity. Qed.

Lemma sumR_app l1 l2 : sumR (l1 ++ l2) = sumR l1 + sumR l2.
Proof.
  induction l1 as [|a l1 IH]; simpl app; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_ext {A} (f g : A -> R) l :
  (forall x, In x l -> f x = g x) -> sumR (map f l) = sumR (map g l).
Proof. intro H; now rewrite (map_ext_in f g l H). Qed.

Lemma sumR_map_plus {A} (f g : A -> R) l :
  sumR (map (fun x => f x + g x) l) = sumR (map f l) + sumR (map g l).
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_minus {A} (f g : A -> R) l :
  sumR (map (fun x => f x - g x) l) = sumR (map f l) - sumR (map g l).
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_scal {A} (c : R) (f : A -> R) l :
  sumR (map (fun x => c * f x) l) = c * sumR (map f l).
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_scal_r {A} (c : R) (f : A -> R) l :
  sumR (map (fun x => f x * c) l) = sumR (map f l) * c.
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_zero {A} (l : list A) : sumR (map (fun _ => 0) l) = 0.
Proof.
  induction l as [|a l IH]; simpl map; rewrite ?sumR_nil, ?sumR_cons; [ring|].
  rewrite IH; ring.
Qed.

Lemma sumR_map_map {A B} (f : B -> R) (g : A -> B) l :
  sumR (map f (map g l)) = sumR (map (fun x => f (g x)) l).
Proof. now rewrite map_map. Qed.

Lemma sumR_swap {A B} (f : A -> B -> R) (la : list A) (lb : list B) :
  sumR (map (fun a => sumR (map (fun b => f a b) lb)) la) =
  sumR (map (fun b => sumR (map (fun a => f a b) la)) lb).
Proof.
  induction la as [|a la IH]; simpl map; rewrite ?sumR_nil.
  - symmetry; apply sumR_map_zero.
  - rewrite sumR_cons, IH, <- sumR_map_plus. reflexivity.
Qed.

Lemma sumR_nonneg {A} (f : A -> R) l :
  (forall x, In x l -> 0 <= f x) -> 0 <= sumR (map f l).
Proof.
  induction l as [|a l IH]; intro H; simpl map; rewrite ?sumR_nil, ?sumR_cons; [lra|].
  assert (0 <= f a) by (apply H; left; reflexivity).
  assert (0 <= sumR (map f l)) by (apply IH; intros; apply H; right; assumption).
  lra.
Qed.

Lemma sumR_pos {A} (f : A -> R) l a :
  (forall x, In x l -> 0 <= f x) -> In a l -> 0 < f a -> 0 < sumR (map f l).
Proof.
  induction l as [|b l IH]; intros H Ha Hf; [destruct Ha|].
  simpl map; rewrite sumR_cons.
  assert (0 <= f b) by (apply H; left; reflexivity).
  assert (0 <= sumR (map f l)) by (apply sumR_nonneg; intros; apply H; right; assumption).
  destruct Ha as [<-|Ha]; [lra|].
  assert (0 < sumR (map f l)) by (apply IH; auto; intros; apply H; right; assumption).
  lra.
Qed.

(** A one-hot sum over a duplicate-free list. *)
Lemma sumR_onehot {A} (dec : forall x y : A, {x = y} + {x <> y}) (L : list A) (f : A -> R) a :
  NoDup L -> In a L -> sumR (map (fun b => f b * (if dec b a then 1 else 0)) L) = f a.
Proof.
  induction L as [|b L IH]; intros Hnd Hin; [destruct Hin|].
  inversion Hnd as [|? ? Hnot Hnd']; subst.
  simpl map; rewrite sumR_cons.
  destruct (dec b a) as [->|Hne].
  - rewrite (sumR_map_ext _ (fun _ => 0)), sumR_map_zero; [ring|].
    intros x Hx; destruct (dec x a) as [->|]; [contradiction|ring].
  - destruct Hin as [->|Hin]; [contradiction|].
    rewrite IH; auto; ring.
Qed.

Lemma map_nth_seq {A B} (g : A -> B) (L : list A) (d : A) :
  map (fun k => g (nth k L d)) (seq 0 (length L)) = map g L.
Proof.
  induction L as [|a L IH]; [reflexivity|].
  simpl length; simpl seq; simpl map; f_equal.
  rewrite <- seq_shift, map_map. exact IH.
Qed.

Lemma map_combine_snd {A B C} (f : B -> C) (l : list A) (X : list B) :
  length l = length X -> map (fun jx => f (snd jx)) (combine l X) = map f X.
Proof.
  revert X; induction l as [|a l IH]; intros [|x X] H; simpl in H; try discriminate; [reflexivity|].
  simpl; f_equal; apply IH; lia.
Qed.

Lemma map_combine_map_r {A B C} (f : A -> B -> C) (g : B -> B) (l : list A) (X : list B) :
  map (fun jx => f (fst jx) (snd jx)) (combine l (map g X)) =
  map (fun jx => f (fst jx) (g (snd jx))) (combine l X).
Proof.
  revert X; induction l as [|a l IH]; intros [|x X]; simpl; try reflexivity.
  f_equal; apply IH.
Qed.

(** ** Inner products of feature vectors *)

Lemma dot_nonneg r u v :
  (forall i, (i < r)%nat -> 0 <= u i /\ 0 <= v i) -> 0 <= dot r u v.
Proof.
  intro H; unfold dot; apply sumR_nonneg; intros i Hi.
  apply in_seq in Hi; destruct (H i) as [H1 H2]; [lia|].
  apply Rmult_le_pos; assumption.
Qed.

(** Zero features beyond r: the inner product at width [r' >= r] is the one at r. *)
Definition widen (r : nat) (u : nat -> R) : nat -> R := fun i => if (i <? r)%nat then u i else 0.

Lemma dot_widen r r' u v : (r <= r')%nat -> dot r' (widen r u) (widen r v) = dot r u v.
Proof.
  intro Hr; unfold dot.
  replace r' with (r + (r' - r))%nat by lia.
  rewrite seq_app, map_app, sumR_app.
  rewrite (sumR_map_ext _ (fun i => u i * v i) (seq 0 r)).
  2:{ intros i Hi; apply in_seq in Hi; unfold widen.
      replace (i <? r)%nat with true by (symmetry; apply Nat.ltb_lt; lia). reflexivity. }
  rewrite (sumR_map_ext _ (fun _ => 0) (seq (0 + r) _)), sumR_map_zero; [ring|].
  intros i Hi; apply in_seq in Hi; unfold widen.
  replace (i <? r)%nat with false by (symmetry; apply Nat.ltb_ge; lia). ring.
Qed.

(** ** The readout-table lemma *)

(** The normalised average of any values, read out affinely, is the average of
    the readout table [<a, v(y)> + b]. *)
Lemma readout_avg {A} (L : list A) (w : A -> R) (p : nat) (a : nat -> R) (v : A -> nat -> R) (b : R) :
  sumR (map w L) <> 0 ->
  dot p a (fun c => sumR (map (fun y => w y * v y c) L) / sumR (map w L)) + b
  = sumR (map (fun y => w y * (dot p a (v y) + b)) L) / sumR (map w L).
Proof.
  intro HD. set (D := sumR (map w L)) in *.
  unfold dot.
  rewrite (sumR_map_ext _ (fun c => (a c * sumR (map (fun y => w y * v y c) L)) * / D)).
  2:{ intros; unfold Rdiv; ring. }
  rewrite sumR_map_scal_r.
  rewrite (sumR_map_ext (fun c => a c * sumR (map (fun y => w y * v y c) L))
             (fun c => sumR (map (fun y => a c * (w y * v y c)) L))).
  2:{ intros; symmetry; apply sumR_map_scal. }
  rewrite sumR_swap.
  rewrite (sumR_map_ext (fun y => w y * (sumR (map (fun i => a i * v y i) (seq 0 p)) + b))
             (fun y => sumR (map (fun c => a c * (w y * v y c)) (seq 0 p)) + w y * b)).
  2:{ intros y _. rewrite Rmult_plus_distr_l, <- sumR_map_scal.
      f_equal. apply sumR_map_ext; intros; ring. }
  rewrite sumR_map_plus, sumR_map_scal_r. fold D.
  unfold Rdiv. field. exact HD.
Qed.

(** [U(q, x) = <a(q), v(x)> + b(q)]: the head's readout table. *)
Definition utable {r} (h : head r) (q x : token) : R := dot (vdim h) (ra h q) (value h x) + rb h q.

(** [Σ_{x ∈ X} k(x) U(x) / Σ_{x ∈ X} k(x)]. *)
Definition ratio (k U : token -> R) (X : list token) : R :=
  sumR (map (fun x => k x * U x) X) / sumR (map k X).

Theorem output_table {r} (h : head r) ctx q :
  0 < sumR (map (kernel h q) (ctx ++ [q])) ->
  output h ctx q = ratio (kernel h q) (utable h q) (ctx ++ [q]).
Proof. intro H; unfold output, ratio, utable. apply readout_avg. lra. Qed.

Lemma kernel_nonneg {r} m (h : head r) q x :
  valid m h -> is_token m q -> is_token m x -> 0 <= kernel h q x.
Proof.
  intros [Hv _] Hq Hx; unfold kernel; apply dot_nonneg; intros i Hi.
  split; [apply (Hv q i Hq Hi) | apply (Hv x i Hx Hi)].
Qed.

Lemma den_pos {r} m (h : head r) ctx q :
  valid m h -> is_token m q -> Forall (is_token m) ctx -> 0 < sumR (map (kernel h q) (ctx ++ [q])).
Proof.
  intros Hv Hq Hc. apply (sumR_pos _ _ q).
  - intros x Hx; apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]].
    + apply (kernel_nonneg m); auto. rewrite Forall_forall in Hc; auto.
    + apply (kernel_nonneg m); auto.
  - apply in_or_app; right; left; reflexivity.
  - apply (proj2 Hv); assumption.
Qed.

Theorem output_table_valid {r} m (h : head r) ctx q :
  valid m h -> is_token m q -> Forall (is_token m) ctx ->
  output h ctx q = ratio (kernel h q) (utable h q) (ctx ++ [q]).
Proof. intros; apply output_table, (den_pos m); assumption. Qed.

(** *** Positions *)

Definition putable {r} (h : pos_head r) (q : token) (j : nat) (x : token) : R :=
  dot (pvdim h) (pra h q) (pvalue h j x) + prb h q.

(** [Σ_j f_j(x_j)] over the positions [j = 1..n] of [ctx ++ [q]]. *)
Definition psum (f : nat -> token -> R) (ctx : list token) (q : token) : R :=
  sumR (map (fun jx => f (fst jx) (snd jx)) (combine (seq 1 (S (length ctx))) (ctx ++ [q]))).

Definition pratio (k U : nat -> token -> R) (ctx : list token) (q : token) : R :=
  psum (fun j x => k j x * U j x) ctx q / psum k ctx q.

Theorem poutput_table {r} (h : pos_head r) ctx q :
  0 < psum (pkernel h (S (length ctx)) q) ctx q ->
  poutput h ctx q = pratio (pkernel h (S (length ctx)) q) (putable h q) ctx q.
Proof.
  intro H; unfold poutput, pratio, psum, putable in *.
  apply (readout_avg _ (fun jx => pkernel h (S (length ctx)) q (fst jx) (snd jx)) (pvdim h) (pra h q)
           (fun jx => pvalue h (fst jx) (snd jx)) (prb h q)).
  lra.
Qed.

Lemma in_pos_combine (ctx : list token) (q : token) (j : nat) (x : token) :
  In (j, x) (combine (seq 1 (S (length ctx))) (ctx ++ [q])) ->
  (1 <= j <= S (length ctx))%nat /\ In x (ctx ++ [q]).
Proof.
  intro H; split.
  - apply in_combine_l, in_seq in H; lia.
  - apply in_combine_r in H; exact H.
Qed.

Lemma in_pos_combine_last_gen (l : list token) (q : token) s :
  In (s + length l, q)%nat (combine (seq s (S (length l))) (l ++ [q])).
Proof.
  revert s; induction l as [|a l IH]; intro s; simpl.
  - left; f_equal; lia.
  - right. replace (s + S (length l))%nat with (S s + length l)%nat by lia. apply IH.
Qed.

Lemma in_pos_combine_last (ctx : list token) (q : token) :
  In (S (length ctx), q) (combine (seq 1 (S (length ctx))) (ctx ++ [q])).
Proof. exact (in_pos_combine_last_gen ctx q 1). Qed.

Lemma pkernel_nonneg {r} m n (h : pos_head r) q j x :
  pvalid_at m n h -> is_token m q -> is_token m x -> (1 <= j <= n)%nat -> 0 <= pkernel h n q j x.
Proof.
  intros [Hv _] Hq Hx Hj; unfold pkernel; apply dot_nonneg; intros i Hi.
  split; [apply (Hv j q i Hq Hj Hi) | apply (Hv j x i Hx Hj Hi)].
Qed.

Lemma psum_nonneg m (f : nat -> token -> R) ctx q :
  (forall j x, (1 <= j <= S (length ctx))%nat -> is_token m x -> 0 <= f j x) ->
  is_token m q -> Forall (is_token m) ctx -> 0 <= psum f ctx q.
Proof.
  intros Hf Hq Hc; unfold psum; apply sumR_nonneg; intros [j x] Hjx.
  apply in_pos_combine in Hjx as [Hj Hx]; apply Hf; auto.
  apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]]; auto.
  rewrite Forall_forall in Hc; auto.
Qed.

Lemma psum_pos m (f : nat -> token -> R) ctx q :
  (forall j x, (1 <= j <= S (length ctx))%nat -> is_token m x -> 0 <= f j x) ->
  0 < f (S (length ctx)) q ->
  is_token m q -> Forall (is_token m) ctx -> 0 < psum f ctx q.
Proof.
  intros Hf Hpos Hq Hc; unfold psum.
  apply (sumR_pos _ _ (S (length ctx), q)); [| apply in_pos_combine_last | exact Hpos].
  intros [j x] Hjx.
  apply in_pos_combine in Hjx as [Hj Hx]; apply Hf; auto.
  apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]]; auto.
  rewrite Forall_forall in Hc; auto.
Qed.

Lemma pden_pos {r} m (h : pos_head r) ctx q :
  pvalid_at m (S (length ctx)) h -> is_token m q -> Forall (is_token m) ctx ->
  0 < psum (pkernel h (S (length ctx)) q) ctx q.
Proof.
  intros Hv Hq Hc; apply (psum_pos m); auto.
  - intros; apply (pkernel_nonneg m); auto.
  - apply (proj2 Hv); assumption.
Qed.

Theorem poutput_table_valid {r} m (h : pos_head r) ctx q :
  pvalid_at m (S (length ctx)) h -> is_token m q -> Forall (is_token m) ctx ->
  poutput h ctx q = pratio (pkernel h (S (length ctx)) q) (putable h q) ctx q.
Proof. intros; apply poutput_table, (pden_pos m); assumption. Qed.

(** ** The linearisation: strict rows lo/hi *)

(** For a positive denominator, error < 1/2 is the pair of strict rows. *)
Lemma ratio_rows (num den T : R) :
  0 < den ->
  (Rabs (num / den - T) < 1/2 <->
   num - (T - 1/2) * den > 0 /\ (T + 1/2) * den - num > 0).
Proof.
  intro Hd.
  assert (Hn : num = (num / den) * den) by (field; lra).
  set (y := num / den) in *.
  split.
  - intro H; apply Rabs_def2 in H as [H1 H2].
    rewrite Hn; split.
    + replace (y * den - (T - 1/2) * den) with ((y - T + 1/2) * den) by ring.
      apply Rmult_lt_0_compat; lra.
    + replace ((T + 1/2) * den - y * den) with ((T + 1/2 - y) * den) by ring.
      apply Rmult_lt_0_compat; lra.
  - intros [H1 H2]; rewrite Hn in H1, H2.
    replace (y * den - (T - 1/2) * den) with ((y - T + 1/2) * den) in H1 by ring.
    replace ((T + 1/2) * den - y * den) with ((T + 1/2 - y) * den) in H2 by ring.
    apply Rabs_def1.
    + apply (Rmult_lt_reg_r den); lra.
    + apply (Rmult_lt_reg_r den); lra.
Qed.

(** The two rows force a positive denominator. *)
Lemma rows_den_pos (num den T : R) :
  num - (T - 1/2) * den > 0 -> (T + 1/2) * den - num > 0 -> 0 < den.
Proof. intros; lra. Qed.

(** The cone of one query q at exact length n: weights [k >= 0] on tokens,
    [k q > 0], and numerators P with the strict rows
    [lo: Σ_j P(x_j) − (T − 1/2) Σ_j k(x_j) > 0],
    [hi: (T + 1/2) Σ_j k(x_j) − Σ_j P(x_j) > 0]
    on every context of length n − 1 (sums over [ctx ++ [q]]). *)
Definition in_cone_len (m n : nat) (q : token) (k P : token -> R) : Prop :=
  0 < k q /\
  (forall x, is_token m x -> 0 <= k x) /\
  forall ctx, Forall (is_token m) ctx -> S (length ctx) = n ->
    sumR (map P (ctx ++ [q])) - (INR (target ctx q) - 1/2) * sumR (map k (ctx ++ [q])) > 0 /\
    (INR (target ctx q) + 1/2) * sumR (map k (ctx ++ [q])) - sumR (map P (ctx ++ [q])) > 0.

(** Length three: contexts of length two. *)
Definition in_cone (m : nat) (q : token) (k P : token -> R) : Prop := in_cone_len m 3 q k P.

Theorem solves_cone_len {r} m n (h : head r) q :
  solves m n h -> is_token m q ->
  in_cone_len m n q (kernel h q) (fun x => kernel h q x * utable h q x).
Proof.
  intros [Hv Hs] Hq; split; [|split].
  - apply (proj2 Hv); assumption.
  - intros x Hx; apply (kernel_nonneg m); auto.
  - intros ctx Hc Hn.
    pose proof (Hs ctx q Hq Hc Hn) as H.
    rewrite (output_table_valid m) in H by assumption.
    unfold ratio in H.
    apply ratio_rows in H; [exact H|]. apply (den_pos m); assumption.
Qed.

Theorem solves_cone {r} m (h : head r) q :
  solves m 3 h -> is_token m q ->
  in_cone m q (kernel h q) (fun x => kernel h q x * utable h q x).
Proof. apply solves_cone_len. Qed.

(** Positions: weights [k j x] and numerators [P j x] per position j = 1..n;
    [k n q > 0] (the query's own term, final position). *)
Definition in_pcone (m n : nat) (q : token) (k P : nat -> token -> R) : Prop :=
  0 < k n q /\
  (forall j x, (1 <= j <= n)%nat -> is_token m x -> 0 <= k j x) /\
  forall ctx, Forall (is_token m) ctx -> S (length ctx) = n ->
    psum P ctx q - (INR (target ctx q) - 1/2) * psum k ctx q > 0 /\
    (INR (target ctx q) + 1/2) * psum k ctx q - psum P ctx q > 0.

Theorem psolves_cone {r} m n (h : pos_head r) q :
  psolves m n h -> is_token m q ->
  in_pcone m n q (pkernel h n q) (fun j x => pkernel h n q j x * putable h q j x).
Proof.
  intros [Hv Hs] Hq; split; [|split].
  - apply (proj2 Hv); assumption.
  - intros j x Hj Hx; apply (pkernel_nonneg m); auto.
  - intros ctx Hc Hn.
    pose proof (Hs ctx q Hq Hc Hn) as H. subst n.
    rewrite (poutput_table_valid m) in H by assumption.
    unfold pratio in H.
    apply ratio_rows in H; [exact H|]. apply (pden_pos m); assumption.
Qed.

(** ** Every table is a head: one-hot values *)

Fixpoint all_tokens (m : nat) : list token :=
  match m with
  | O => [[]]
  | S m' => map (cons false) (all_tokens m') ++ map (cons true) (all_tokens m')
  end.

Lemma all_tokens_complete m x : is_token m x -> In x (all_tokens m).
Proof.
  unfold is_token; revert x; induction m as [|m IH]; intros [|b x] H; simpl in H; try discriminate.
  - left; reflexivity.
  - simpl; apply in_or_app; injection H as H.
    destruct b; [right|left]; apply in_map, IH, H.
Qed.

Definition token_dec : forall x y : token, {x = y} + {x <> y} := list_eq_dec bool_dec.

Definition pair_dec : forall x y : nat * token, {x = y} + {x <> y}.
Proof. decide equality; [apply token_dec | apply Nat.eq_dec]. Defined.

(** The tokens of {0,1}^m, each once. *)
Definition token_list (m : nat) : list token := nodup token_dec (all_tokens m).

(** The head of features (φ, ψ) and readout table U: values one-hot over the
    tokens of {0,1}^m, readout [a(q) = (U(q, x))_x], [b = 0]. *)
Definition table_head (r m : nat) (ph ps : token -> nat -> R) (U : token -> token -> R) : head r :=
  {| phi := ph; psi := ps; vdim := length (token_list m);
     value := fun x c => if token_dec (nth c (token_list m) []) x then 1 else 0;
     ra := fun q c => U q (nth c (token_list m) []);
     rb := fun _ => 0 |}.

Lemma table_head_utable r m ph ps U q x :
  is_token m x -> utable (table_head r m ph ps U) q x = U q x.
Proof.
  intro Hx; unfold utable, dot; simpl vdim; simpl ra; simpl value; simpl rb.
  rewrite Rplus_0_r.
  transitivity (sumR (map (fun y => U q y * (if token_dec y x then 1 else 0)) (token_list m))).
  - f_equal. apply (map_nth_seq (fun y => U q y * (if token_dec y x then 1 else 0))).
  - apply sumR_onehot; [apply NoDup_nodup|].
    apply nodup_In, all_tokens_complete, Hx.
Qed.

(** The table formulation of "solves": nonnegative features with a positive
    [κ(q,q)], and a table U with [|Σ κ U / Σ κ − T| < 1/2]. *)
Definition table_solves (r m n : nat) (ph ps : token -> nat -> R) (U : token -> token -> R) : Prop :=
  (forall x i, is_token m x -> (i < r)%nat -> 0 <= ph x i /\ 0 <= ps x i) /\
  (forall q, is_token m q -> 0 < dot r (ph q) (ps q)) /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    Rabs (ratio (fun x => dot r (ph q) (ps x)) (U q) (ctx ++ [q]) - INR (target ctx q)) < 1/2.

Theorem solves_table {r} m n (h : head r) :
  solves m n h <-> table_solves r m n (phi h) (psi h) (utable h).
Proof.
  split.
  - intros [Hv Hs]; split; [exact (proj1 Hv)|split; [exact (proj2 Hv)|]].
    intros ctx q Hq Hc Hn. change (fun x => dot r (phi h q) (psi h x)) with (kernel h q).
    rewrite <- (output_table_valid m); auto.
  - intros [H1 [H2 H3]]. assert (Hv : valid m h) by (split; assumption).
    split; [exact Hv|].
    intros ctx q Hq Hc Hn. rewrite (output_table_valid m); auto. apply H3; assumption.
Qed.

Theorem table_head_solves r m n ph ps U :
  table_solves r m n ph ps U -> solves m n (table_head r m ph ps U).
Proof.
  intros [H1 [H2 H3]].
  assert (Hv : valid m (table_head r m ph ps U)) by (split; assumption).
  split; [exact Hv|].
  intros ctx q Hq Hc Hn. rewrite (output_table_valid m); auto.
  unfold ratio in *. specialize (H3 ctx q Hq Hc Hn).
  replace (sumR (map (fun x => kernel (table_head r m ph ps U) q x *
                                utable (table_head r m ph ps U) q x) (ctx ++ [q])))
    with (sumR (map (fun x => dot r (ph q) (ps x) * U q x) (ctx ++ [q]))); [exact H3|].
  apply sumR_map_ext; intros x Hx.
  rewrite table_head_utable; [reflexivity|].
  apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]]; auto.
  rewrite Forall_forall in Hc; auto.
Qed.

(** "any affine readout = any table U". *)
Theorem solvable_table r m n :
  solvable r m n <-> exists ph ps U, table_solves r m n ph ps U.
Proof.
  split.
  - intros [h Hh]; exists (phi h), (psi h), (utable h). apply solves_table, Hh.
  - intros (ph & ps & U & H). exists (table_head r m ph ps U). apply table_head_solves, H.
Qed.

(** *** Positions: values one-hot over (position, token) *)

Definition ptoken_list (m n : nat) : list (nat * token) :=
  nodup pair_dec (list_prod (seq 1 n) (all_tokens m)).

Definition ptable_head (r m n : nat) (ph ps : nat -> token -> nat -> R) (U : nat -> token -> token -> R) : pos_head r :=
  {| pphi := ph; ppsi := ps; pvdim := length (ptoken_list m n);
     pvalue := fun j x c => if pair_dec (nth c (ptoken_list m n) (O, [])) (j, x) then 1 else 0;
     pra := fun q c => U (fst (nth c (ptoken_list m n) (O, []))) q (snd (nth c (ptoken_list m n) (O, [])));
     prb := fun _ => 0 |}.

Lemma ptable_head_putable r m n ph ps U q j x :
  (1 <= j <= n)%nat -> is_token m x -> putable (ptable_head r m n ph ps U) q j x = U j q x.
Proof.
  intros Hj Hx; unfold putable, dot; simpl pvdim; simpl pra; simpl pvalue; simpl prb.
  rewrite Rplus_0_r.
  set (g := fun y : nat * token => U (fst y) q (snd y) * (if pair_dec y (j, x) then 1 else 0)).
  transitivity (sumR (map g (ptoken_list m n))).
  - f_equal. apply (map_nth_seq g).
  - unfold g; rewrite (sumR_onehot pair_dec _ (fun y => U (fst y) q (snd y)) (j, x)); [reflexivity| apply NoDup_nodup|].
    apply nodup_In, in_prod; [apply in_seq; lia | apply all_tokens_complete, Hx].
Qed.

Definition ptable_solves (r m n : nat) (ph ps : nat -> token -> nat -> R) (U : nat -> token -> token -> R) : Prop :=
  (forall j x i, is_token m x -> (1 <= j <= n)%nat -> (i < r)%nat -> 0 <= ph n x i /\ 0 <= ps j x i) /\
  (forall q, is_token m q -> 0 < dot r (ph n q) (ps n q)) /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    Rabs (pratio (fun j x => dot r (ph n q) (ps j x)) (fun j x => U j q x) ctx q - INR (target ctx q)) < 1/2.

Theorem psolves_table {r} m n (h : pos_head r) :
  psolves m n h <-> ptable_solves r m n (pphi h) (ppsi h) (fun j q x => putable h q j x).
Proof.
  split.
  - intros [Hv Hs]; split; [exact (proj1 Hv)|split; [exact (proj2 Hv)|]].
    intros ctx q Hq Hc Hn. subst n.
    change (fun j x => dot r (pphi h (S (length ctx)) q) (ppsi h j x)) with (pkernel h (S (length ctx)) q).
    change (fun j x => putable h q j x) with (putable h q).
    rewrite <- (poutput_table_valid m); auto.
  - intros [H1 [H2 H3]]. assert (Hv : pvalid_at m n h) by (split; assumption).
    split; [exact Hv|].
    intros ctx q Hq Hc Hn. subst n. rewrite (poutput_table_valid m); auto. apply H3; auto.
Qed.

Theorem ptable_head_psolves r m n ph ps U :
  ptable_solves r m n ph ps U -> psolves m n (ptable_head r m n ph ps U).
Proof.
  intros [H1 [H2 H3]].
  assert (Hv : pvalid_at m n (ptable_head r m n ph ps U)) by (split; assumption).
  split; [exact Hv|].
  intros ctx q Hq Hc Hn. subst n. rewrite (poutput_table_valid m); auto.
  unfold pratio in *. specialize (H3 ctx q Hq Hc eq_refl).
  replace (psum (fun j x => pkernel (ptable_head r m (S (length ctx)) ph ps U) (S (length ctx)) q j x *
                            putable (ptable_head r m (S (length ctx)) ph ps U) q j x) ctx q)
    with (psum (fun j x => dot r (ph (S (length ctx)) q) (ps j x) * U j q x) ctx q); [exact H3|].
  unfold psum; apply sumR_map_ext; intros [j x] Hjx.
  apply in_pos_combine in Hjx as [Hj Hx]; simpl fst; simpl snd.
  rewrite ptable_head_putable; [reflexivity|exact Hj|].
  apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]]; auto.
  rewrite Forall_forall in Hc; auto.
Qed.

Theorem psolvable_table r m n :
  psolvable r m n <-> exists ph ps U, ptable_solves r m n ph ps U.
Proof.
  split.
  - intros [h Hh]; eexists _, _, _. apply psolves_table, Hh.
  - intros (ph & ps & U & H). exists (ptable_head r m n ph ps U). apply ptable_head_psolves, H.
Qed.

(** ** Restriction: zero padding *)

Definition padz (d : nat) (x : token) : token := x ++ repeat false d.

Lemma ip_app x y x' y' : length x = length y -> ip (x ++ x') (y ++ y') = (ip x y + ip x' y')%nat.
Proof.
  revert y; induction x as [|a x IH]; intros [|b y] H; simpl in H; try discriminate; [reflexivity|].
  simpl; rewrite IH by lia; lia.
Qed.

Lemma ip_zeros_l d y : ip (repeat false d) y = 0%nat.
Proof. revert y; induction d as [|d IH]; intros [|b y]; simpl; auto. Qed.

Lemma ip_padz d x y : length x = length y -> ip (padz d x) (padz d y) = ip x y.
Proof. intro H; unfold padz; rewrite ip_app, ip_zeros_l by exact H; lia. Qed.

Lemma target_map (g : token -> token) ctx q :
  (forall x, In x ctx -> ip (g x) (g q) = ip x q) -> ip (g q) (g q) = ip q q ->
  target (map g ctx) (g q) = target ctx q.
Proof.
  intros H Hq; unfold target; induction ctx as [|x ctx IH]; simpl; [exact Hq|].
  rewrite IH, H; [reflexivity| left; reflexivity |].
  intros; apply H; right; assumption.
Qed.

Lemma target_padz m d ctx q :
  is_token m q -> Forall (is_token m) ctx -> target (map (padz d) ctx) (padz d q) = target ctx q.
Proof.
  intros Hq Hc; apply target_map; [|apply ip_padz; reflexivity].
  intros x Hx; apply ip_padz. rewrite Forall_forall in Hc.
  unfold is_token in *; rewrite (Hc x Hx), Hq; reflexivity.
Qed.

Lemma padz_token m d x : is_token m x -> is_token (m + d) (padz d x).
Proof. unfold is_token, padz; intro H; rewrite app_length, repeat_length; lia. Qed.

(** The head read through a map of tokens. *)
Definition head_comp {r} (h : head r) (g : token -> token) : head r :=
  {| phi := fun x => phi h (g x); psi := fun x => psi h (g x); vdim := vdim h;
     value := fun x => value h (g x); ra := fun q => ra h (g q); rb := fun q => rb h (g q) |}.

Lemma output_comp {r} (h : head r) g ctx q :
  output (head_comp h g) ctx q = output h (map g ctx) (g q).
Proof.
  unfold output; simpl.
  change (map g ctx ++ [g q]) with (map g ctx ++ map g [q]).
  rewrite <- map_app. f_equal. unfold dot. f_equal. apply map_ext; intro c.
  rewrite !map_map. reflexivity.
Qed.

Theorem solves_restrict {r} m d n (h : head r) :
  solves (m + d) n h -> solves m n (head_comp h (padz d)).
Proof.
  intros [[Hv1 Hv2] Hs]; split; [split|].
  - intros x i Hx Hi; apply (Hv1 (padz d x) i (padz_token m d x Hx) Hi).
  - intros q Hq; apply (Hv2 (padz d q) (padz_token m d q Hq)).
  - intros ctx q Hq Hc Hn. rewrite output_comp, <- (target_padz m d ctx q) by assumption.
    apply Hs; [apply padz_token; assumption| |rewrite map_length; assumption].
    rewrite Forall_forall in *; intros x Hx; apply in_map_iff in Hx as (y & <- & Hy).
    apply padz_token; auto.
Qed.

Theorem solvable_restrict r m m' n : solvable r m' n -> (m <= m')%nat -> solvable r m n.
Proof.
  intros [h Hh] Hm. replace m' with (m + (m' - m))%nat in Hh by lia.
  exists (head_comp h (padz (m' - m))). apply solves_restrict, Hh.
Qed.

Definition pos_head_comp {r} (h : pos_head r) (g : token -> token) : pos_head r :=
  {| pphi := fun k x => pphi h k (g x); ppsi := fun j x => ppsi h j (g x); pvdim := pvdim h;
     pvalue := fun j x => pvalue h j (g x); pra := fun q => pra h (g q); prb := fun q => prb h (g q) |}.

Lemma poutput_comp {r} (h : pos_head r) g ctx q :
  poutput (pos_head_comp h g) ctx q = poutput h (map g ctx) (g q).
Proof.
  unfold poutput; cbn [pvdim pra prb pvalue pos_head_comp]. rewrite map_length.
  change (map g ctx ++ [g q]) with (map g ctx ++ map g [q]).
  rewrite <- map_app. f_equal. unfold dot. f_equal. apply map_ext; intro c.
  f_equal. f_equal; symmetry; f_equal.
  - exact (map_combine_map_r (fun j x => pkernel h (S (length ctx)) (g q) j x * pvalue h j x c) g _ _).
  - exact (map_combine_map_r (fun j x => pkernel h (S (length ctx)) (g q) j x) g _ _).
Qed.

Theorem psolves_restrict {r} m d n (h : pos_head r) :
  psolves (m + d) n h -> psolves m n (pos_head_comp h (padz d)).
Proof.
  intros [[Hv1 Hv2] Hs]; split; [split|].
  - intros j x i Hx Hj Hi. apply (Hv1 j (padz d x) i (padz_token m d x Hx) Hj Hi).
  - intros q Hq; apply (Hv2 (padz d q) (padz_token m d q Hq)).
  - intros ctx q Hq Hc Hn. rewrite poutput_comp, <- (target_padz m d ctx q) by assumption.
    apply Hs; [apply padz_token; assumption| |rewrite map_length; assumption].
    rewrite Forall_forall in *; intros x Hx; apply in_map_iff in Hx as (y & <- & Hy).
    apply padz_token; auto.
Qed.

Theorem psolvable_restrict r m m' n : psolvable r m' n -> (m <= m')%nat -> psolvable r m n.
Proof.
  intros [h Hh] Hm. replace m' with (m + (m' - m))%nat in Hh by lia.
  exists (pos_head_comp h (padz (m' - m))). apply psolves_restrict, Hh.
Qed.

(** ** A tokenwise head is a positional head *)

Definition head_pos {r} (h : head r) : pos_head r :=
  {| pphi := fun _ => phi h; ppsi := fun _ => psi h; pvdim := vdim h;
     pvalue := fun _ => value h; pra := ra h; prb := rb h |}.

Lemma poutput_head_pos {r} (h : head r) ctx q : poutput (head_pos h) ctx q = output h ctx q.
Proof.
  assert (Hl : length (seq 1 (S (length ctx))) = length (ctx ++ [q]))
    by (rewrite seq_length, app_length; simpl; lia).
  unfold poutput, output; simpl pvdim; simpl pra; simpl prb.
  f_equal. unfold dot. f_equal. apply map_ext; intro c. f_equal. f_equal; f_equal.
  - exact (map_combine_snd (fun x => kernel h q x * value h x c) _ _ Hl).
  - exact (map_combine_snd (fun x => kernel h q x) _ _ Hl).
Qed.

Theorem solves_psolves {r} m n (h : head r) : solves m n h -> psolves m n (head_pos h).
Proof.
  intros [[Hv1 Hv2] Hs]; split; [split|].
  - intros j x i Hx _ Hi; apply (Hv1 x i Hx Hi).
  - intros q Hq; apply (Hv2 q Hq).
  - intros ctx q Hq Hc Hn; rewrite poutput_head_pos; apply Hs; assumption.
Qed.

Theorem solvable_psolvable r m n : solvable r m n -> psolvable r m n.
Proof. intros [h Hh]; exists (head_pos h); apply solves_psolves, Hh. Qed.

(** ** Monotonicity in the rank: zero features *)

Definition head_widen {r} (r' : nat) (h : head r) : head r' :=
  {| phi := fun x => widen r (phi h x); psi := fun x => widen r (psi h x); vdim := vdim h;
     value := value h; ra := ra h; rb := rb h |}.

Lemma kernel_widen {r} r' (h : head r) q x :
  (r <= r')%nat -> kernel (head_widen r' h) q x = kernel h q x.
Proof. intro H; unfold kernel; simpl; apply dot_widen, H. Qed.

Lemma widen_nonneg r (u : nat -> R) i :
  (forall i, (i < r)%nat -> 0 <= u i) -> 0 <= widen r u i.
Proof.
  intro H; unfold widen; destruct (Nat.ltb_spec i r); [apply H; assumption | lra].
Qed.

Theorem solves_rank_mono {r} r' m n (h : head r) :
  (r <= r')%nat -> solves m n h -> solves m n (head_widen r' h).
Proof.
  intros Hr [[Hv1 Hv2] Hs]; split; [split|].
  - intros x i Hx _; simpl; split; apply widen_nonneg; intros j Hj; apply (Hv1 x j Hx Hj).
  - intros q Hq; rewrite kernel_widen by exact Hr; apply Hv2, Hq.
  - intros ctx q Hq Hc Hn.
    replace (output (head_widen r' h) ctx q) with (output h ctx q); [apply Hs; assumption|].
    unfold output. simpl vdim; simpl ra; simpl rb; simpl value.
    f_equal. unfold dot. f_equal. apply map_ext; intro c. f_equal. f_equal; f_equal.
    + apply map_ext; intro x; rewrite kernel_widen by exact Hr; reflexivity.
    + apply map_ext; intro x; rewrite kernel_widen by exact Hr; reflexivity.
Qed.

Theorem solvable_rank_mono r r' m n : solvable r m n -> (r <= r')%nat -> solvable r' m n.
Proof. intros [h Hh] Hr; exists (head_widen r' h); apply solves_rank_mono; assumption. Qed.

Definition pos_head_widen {r} (r' : nat) (h : pos_head r) : pos_head r' :=
  {| pphi := fun k x => widen r (pphi h k x); ppsi := fun j x => widen r (ppsi h j x); pvdim := pvdim h;
     pvalue := pvalue h; pra := pra h; prb := prb h |}.

Lemma pkernel_widen {r} r' (h : pos_head r) k q j x :
  (r <= r')%nat -> pkernel (pos_head_widen r' h) k q j x = pkernel h k q j x.
Proof. intro H; unfold pkernel; simpl; apply dot_widen, H. Qed.

Theorem psolves_rank_mono {r} r' m n (h : pos_head r) :
  (r <= r')%nat -> psolves m n h -> psolves m n (pos_head_widen r' h).
Proof.
  intros Hr [[Hv1 Hv2] Hs]; split; [split|].
  - intros j x i Hx Hj _; simpl; split; apply widen_nonneg; intros i' Hi'; apply (Hv1 j x i' Hx Hj Hi').
  - intros q Hq; rewrite pkernel_widen by exact Hr; apply Hv2, Hq.
  - intros ctx q Hq Hc Hn.
    replace (poutput (pos_head_widen r' h) ctx q) with (poutput h ctx q); [apply Hs; assumption|].
    unfold poutput. simpl pvdim; simpl pra; simpl prb; simpl pvalue.
    f_equal. unfold dot. f_equal. apply map_ext; intro c. f_equal. f_equal; f_equal.
    + apply map_ext; intro x; rewrite pkernel_widen by exact Hr; reflexivity.
    + apply map_ext; intro x; rewrite pkernel_widen by exact Hr; reflexivity.
Qed.

Theorem psolvable_rank_mono r r' m n : psolvable r m n -> (r <= r')%nat -> psolvable r' m n.
Proof. intros [h Hh] Hr; exists (pos_head_widen r' h); apply psolves_rank_mono; assumption. Qed.

(** ** The every-prefix reading has the final position's rows *)

Theorem csolves_psolves {r} m n (h : pos_head r) : (1 <= n)%nat -> csolves m n h -> psolves m n h.
Proof.
  intros Hn [Hv Hs]; split; [apply Hv; lia|].
  intros ctx q Hq Hc Hlen; apply Hs; auto; lia.
Qed.

Theorem csolvable_psolvable r m n : (1 <= n)%nat -> csolvable r m n -> psolvable r m n.
Proof. intros Hn [h Hh]; exists h; apply csolves_psolves; assumption. Qed.
