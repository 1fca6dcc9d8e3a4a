(** * Paper K, the reflective evaluator: heads given by tables of exact rationals.

    A *table head* over {0,1}^m is given by tables indexed by the token's
    index (the token with index x is [tok m x = map (Nat.testbit x) (seq 0 m)],
    coordinate 1 = bit 0, as in [theorems/attention.py]): feature tables
    [Phi], [Psi] (2^m rows of r rationals) and a readout table [U]
    (2^m x 2^m, [U[q][x]]).  It denotes the [head r] of KDefs with one-hot
    values [v(x) = e_x], readout [a(q) = U[q]], [b = 0] ([table_head]), whose
    output is [Σ_j κ(q,x_j) U[q][x_j] / Σ_j κ(q,x_j)] ([table_head_output]).
    A *positional table head* ([pos_table_head], the Python kind
    [rank-one-positional-witness]) has [φ = 1], [ψ_j(x) = Psi[j-1][x]] and
    readout tables [U_j[q][x]], read through one-hot values over (position,
    token) pairs.

    [exhaustive_check] and [positional_check] evaluate such a head exactly on
    every sequence (every ordered context, the query last: no symmetry is
    used), in integers.  The ratio is unchanged by a positive factor per
    query, so each query's kernel row is made integral (ψ(x) scaled by the lcm
    [B_x] of its denominators times [Bpsi / B_x], φ(q) by its own lcm: one
    integer product per entry) and its readout row is scaled by the lcm of its
    denominators, as the trusted Python checker does; every scaled entry is
    re-checked against the rational it stands for, so nothing about lcm's is
    trusted.  The soundness theorems ([exhaustive_sound], [positional_sound],
    and the corollaries [exhaustive_solves], [exhaustive_solvable],
    [exhaustive_exists], [positional_psolvable], [positional_csolvable]) are
    what the witness files apply before [vm_compute].  [table_outputs] lists
    the exact output of every sequence; [table_outputs_sound] ties it to
    [output] (the test comparing the Coq model with the Python one reads it).

    Measured (coqc, user CPU): the K3 witness at m = 3 (512 sequences) is
    checked in under 0.01 s; the rank-3 head at m = 5 (32,768 sequences,
    kernel rows of ~400-bit integers) in 2.3 s, and as much again when [Qed]
    re-checks the computation; a rank-22 head at m = 6 (262,144 sequences) in
    1 s. *)

From Coq Require Import Reals QArith Qreals ZArith List Lia Lra.
From AttnProof Require Import KDefs.
Import ListNotations.
Open Scope R_scope.

(** ** Tokens and their indices *)

(** The index of a token, coordinate 1 = bit 0 (Python: the token as an int). *)
Fixpoint idx (x : token) : nat :=
  match x with
  | [] => 0%nat
  | b :: x' => ((if b then 1 else 0) + 2 * idx x')%nat
  end.

(** The token with index x (Python: the int x), coordinate 1 = bit 0. *)
Definition tok (m x : nat) : token := map (Nat.testbit x) (seq 0 m).

Lemma tok_S m x : tok (S m) x = Nat.odd x :: tok m (Nat.div2 x).
Proof.
  unfold tok. simpl. f_equal. rewrite <- seq_shift, map_map. reflexivity.
Qed.

Lemma idx_lt m x : is_token m x -> (idx x < 2 ^ m)%nat.
Proof.
  unfold is_token. revert m. induction x as [|b x IH]; intros m H; simpl in H; subst m; simpl.
  - lia.
  - specialize (IH (length x) eq_refl). destruct b; lia.
Qed.

Lemma tok_idx m x : is_token m x -> tok m (idx x) = x.
Proof.
  unfold is_token. revert m. induction x as [|b x IH]; intros m H; simpl in H; subst m.
  - reflexivity.
  - rewrite tok_S. destruct b; cbn [idx].
    + replace (1 + 2 * idx x)%nat with (S (2 * idx x)) by lia.
      rewrite Nat.div2_succ_double, (IH (length x) eq_refl). f_equal.
      replace (S (2 * idx x)) with (1 + 2 * idx x)%nat by lia. rewrite Nat.odd_add_mul_2. reflexivity.
    + replace (0 + 2 * idx x)%nat with (2 * idx x)%nat by lia.
      rewrite Nat.div2_double, (IH (length x) eq_refl). f_equal. rewrite Nat.odd_mul, Nat.odd_2. reflexivity.
Qed.

Lemma tok_length m x : is_token m (tok m x).
Proof. unfold is_token, tok. rewrite map_length, seq_length. reflexivity. Qed.

Lemma idx_tok m x : (x < 2 ^ m)%nat -> idx (tok m x) = x.
Proof.
  revert x. induction m as [|m IH]; intros x Hx.
  - simpl in Hx. simpl. lia.
  - rewrite tok_S. simpl idx. rewrite IH.
    + pose proof (Nat.div2_odd x) as E. destruct (Nat.odd x); simpl in *; lia.
    + rewrite Nat.div2_div. apply Nat.div_lt_upper_bound; simpl in Hx; lia.
Qed.

(** ** Sums and rationals *)

Definition sumZ (l : list Z) : Z := fold_right Z.add 0%Z l.

Lemma IZR_sumZ {A} (f : A -> Z) l : IZR (sumZ (map f l)) = sumR (map (fun y => IZR (f y)) l).
Proof. induction l; simpl; [reflexivity|]. rewrite plus_IZR, IHl. reflexivity. Qed.

Lemma sumR_app l1 l2 : sumR (l1 ++ l2) = sumR l1 + sumR l2.
Proof. induction l1; simpl; [ring|]. rewrite IHl1. ring. Qed.

Lemma sumR_map_add {A} (f g : A -> R) l :
  sumR (map (fun y => f y + g y) l) = sumR (map f l) + sumR (map g l).
Proof. induction l; simpl; [ring|]. rewrite IHl. ring. Qed.

Lemma sumR_map_scale {A} (c : R) (f : A -> R) l :
  sumR (map (fun y => c * f y) l) = c * sumR (map f l).
Proof. induction l; simpl; [ring|]. rewrite IHl. ring. Qed.

Lemma sumR_map_ext {A} (f g : A -> R) l :
  (forall y, In y l -> f y = g y) -> sumR (map f l) = sumR (map g l).
Proof.
  intros H. induction l; simpl; [reflexivity|].
  rewrite H by (left; reflexivity). rewrite IHl by (intros; apply H; right; assumption). reflexivity.
Qed.

Lemma sumR_map_zero {A} (l : list A) : sumR (map (fun _ => 0) l) = 0.
Proof. induction l; simpl; [reflexivity|]. rewrite IHl. ring. Qed.

(** Entry i of a row of rationals, as a real (0 past the end). *)
Definition QR (l : list Q) (i : nat) : R := Q2R (nth i l 0%Q).

(** Row i of a table ([] past the end). *)
Definition row {A} (M : list (list A)) (i : nat) : list A := nth i M [].

(** The inner product of two rows, in Q. *)
Fixpoint Qdot (a b : list Q) : Q :=
  match a, b with
  | x :: a', y :: b' => (x * y + Qdot a' b')%Q
  | _, _ => 0%Q
  end.

Lemma dot_Qdot r a b : length a = r -> length b = r -> dot r (QR a) (QR b) = Q2R (Qdot a b).
Proof.
  revert r b. induction a as [|x a IH]; intros r b Ha Hb; destruct b as [|y b]; simpl in Ha, Hb; subst r;
    try discriminate.
  - unfold dot. simpl. unfold Q2R. simpl. field.
  - unfold dot in *. simpl. rewrite <- seq_shift, map_map.
    change (map (fun i => QR (x :: a) (S i) * QR (y :: b) (S i)) (seq 0 (length a)))
      with (map (fun i => QR a i * QR b i) (seq 0 (length a))).
    rewrite (IH (length a) b eq_refl) by (injection Hb; auto). rewrite Q2R_plus, Q2R_mult. reflexivity.
Qed.

Definition qnonneg (x : Q) : bool := (0 <=? Qnum x)%Z.
Definition qpos (x : Q) : bool := (0 <? Qnum x)%Z.

Lemma qnonneg_sound x : qnonneg x = true -> 0 <= Q2R x.
Proof.
  unfold qnonneg, Q2R. intros H. apply Z.leb_le in H. apply IZR_le in H.
  apply Rmult_le_pos; [assumption|]. apply Rlt_le, Rinv_0_lt_compat, IZR_lt. reflexivity.
Qed.

Lemma qpos_sound x : qpos x = true -> 0 < Q2R x.
Proof.
  unfold qpos, Q2R. intros H. apply Z.ltb_lt in H. apply IZR_lt in H.
  apply Rmult_lt_0_compat; [assumption|]. apply Rinv_0_lt_compat, IZR_lt. reflexivity.
Qed.

Lemma nonneg_table M : forallb (forallb qnonneg) M = true -> forall i j, 0 <= QR (row M i) j.
Proof.
  intros H i j. unfold QR, row.
  destruct (Nat.lt_ge_cases i (length M)) as [Hi|Hi]; [|rewrite (nth_overflow M [] Hi); destruct j; unfold Q2R; simpl; lra].
  assert (Hrow : forallb qnonneg (nth i M []) = true) by (rewrite forallb_forall in H; apply H, nth_In, Hi).
  destruct (Nat.lt_ge_cases j (length (nth i M []))) as [Hj|Hj].
  - apply qnonneg_sound. rewrite forallb_forall in Hrow. apply Hrow, nth_In, Hj.
  - rewrite nth_overflow by assumption. unfold Q2R. simpl. lra.
Qed.

Lemma nth_map_lt {A B} (f : A -> B) l n d d' : (n < length l)%nat -> nth n (map f l) d' = f (nth n l d).
Proof. intros H. rewrite (nth_indep _ _ (f d)) by (rewrite map_length; assumption). apply map_nth. Qed.

(** ** Scaling a row of rationals to integers, checked entry by entry *)

(** The lcm of the denominators (a positive multiple of each when the row is
    nonempty; [scaled_ok] re-checks what is used). *)
Definition scale (l : list Q) : Z :=
  fold_right (fun k acc => let d := Zpos (Qden k) in (d / Z.gcd d (acc mod d) * acc)%Z) 1%Z l.

Definition scaled (s : Z) (l : list Q) : list Z := map (fun k => (Qnum k * (s / Zpos (Qden k)))%Z) l.

(** [z = s k] exactly, in integers. *)
Definition scale_ok (s : Z) (k : Q) (z : Z) : bool := Z.eqb (Zpos (Qden k) * z) (Qnum k * s).

Definition scaled_ok (s : Z) (l : list Q) : bool :=
  (0 <? s)%Z && forallb (fun k => scale_ok s k (Qnum k * (s / Zpos (Qden k)))%Z) l.

Lemma scale_ok_sound s k z : scale_ok s k z = true -> IZR z = IZR s * Q2R k.
Proof.
  unfold scale_ok, Q2R. intros H. apply Z.eqb_eq in H. apply (f_equal IZR) in H.
  rewrite !mult_IZR in H.
  assert (Hd : IZR (Zpos (Qden k)) <> 0) by (apply not_0_IZR; discriminate).
  apply (Rmult_eq_reg_l (IZR (Zpos (Qden k)))); [|assumption].
  rewrite H. field. assumption.
Qed.

Lemma scaled_ok_pos s l : scaled_ok s l = true -> 0 < IZR s.
Proof. unfold scaled_ok. intros H. apply andb_prop in H as [H _]. apply Z.ltb_lt in H. apply IZR_lt, H. Qed.

Lemma scaled_ok_nth s l i : scaled_ok s l = true -> (i < length l)%nat ->
  IZR (nth i (scaled s l) 0%Z) = IZR s * Q2R (nth i l 0%Q).
Proof.
  unfold scaled_ok, scaled. intros H Hi. apply andb_prop in H as [_ H].
  rewrite (nth_map_lt _ _ _ 0%Q) by assumption.
  apply scale_ok_sound. rewrite forallb_forall in H. apply H, nth_In, Hi.
Qed.

Lemma scaled_length s l : length (scaled s l) = length l.
Proof. apply map_length. Qed.

(** ** The per-sequence test, in integers *)

(** A row entry: (scaled kernel weight, scaled weight times readout, <x, q>). *)
Definition qentry : Type := (Z * Z * nat)%type.
Definition edflt : qentry := (0%Z, 0%Z, 0%nat).
Definition ed (e : qentry) : Z := fst (fst e).
Definition ep (e : qentry) : Z := snd (fst e).
Definition et (e : qentry) : nat := snd e.

(** With [y = p / d] ([d > 0]) and target t: "error < tol", or "error = 0" when
    the tolerance is 0, as [error_bound] says. *)
Definition leaf_ok (tol : Q) (d p : Z) (t : nat) : bool :=
  (0 <? d)%Z &&
  (let e := (p - Z.of_nat t * d)%Z in
   if Z.eqb (Qnum tol) 0 then Z.eqb e 0 else Z.ltb (Zpos (Qden tol) * Z.abs e) (Qnum tol * d)).

Lemma leaf_ok_sound tol d p t c D P :
  leaf_ok tol d p t = true -> 0 < c -> IZR d = c * D -> IZR p = c * P ->
  0 < D /\ error_bound (Q2R tol) (P / D - INR t).
Proof.
  unfold leaf_ok. intros H Hc Hd Hp. apply andb_prop in H as [Hpos H].
  apply Z.ltb_lt, IZR_lt in Hpos. rewrite Hd in Hpos.
  assert (HD : 0 < D) by (apply (Rmult_lt_reg_l c); lra).
  split; [assumption|].
  assert (He : P / D - INR t = IZR (p - Z.of_nat t * d) / IZR d).
  { rewrite minus_IZR, mult_IZR, <- INR_IZR_INZ, Hd, Hp. field. lra. }
  rewrite He. unfold error_bound.
  destruct (Z.eqb_spec (Qnum tol) 0) as [H0|H0].
  - left. apply Z.eqb_eq in H. rewrite H. unfold Q2R. rewrite H0. split; simpl; field.
    + apply not_0_IZR. discriminate.
    + rewrite Hd. apply Rgt_not_eq, Rlt_gt, Rmult_lt_0_compat; assumption.
  - right. apply Z.ltb_lt, IZR_lt in H. rewrite !mult_IZR, abs_IZR in H.
    assert (Hdp : 0 < IZR d) by (rewrite Hd; apply Rmult_lt_0_compat; assumption).
    assert (Htd : 0 < IZR (Zpos (Qden tol))) by (apply IZR_lt; reflexivity).
    unfold Rdiv. rewrite Rabs_mult, (Rabs_right (/ IZR d)) by (apply Rle_ge, Rlt_le, Rinv_0_lt_compat, Hdp).
    unfold Q2R.
    apply (Rmult_lt_reg_r (IZR d * IZR (Zpos (Qden tol)))); [apply Rmult_lt_0_compat; assumption|].
    replace (Rabs (IZR (p - Z.of_nat t * d)) * / IZR d * (IZR d * IZR (Zpos (Qden tol))))
      with (IZR (Zpos (Qden tol)) * Rabs (IZR (p - Z.of_nat t * d))) by (field; lra).
    replace (IZR (Qnum tol) * / IZR (Zpos (Qden tol)) * (IZR d * IZR (Zpos (Qden tol))))
      with (IZR (Qnum tol) * IZR d) by (field; lra).
    assumption.
Qed.

(** Every context: one entry per position, taken from that position's row;
    the accumulators start at the query's own entry. *)
Fixpoint check_ctx (leaf : Z -> Z -> nat -> bool) (rows : list (list qentry)) (d p : Z) (t : nat) : bool :=
  match rows with
  | [] => leaf d p t
  | r :: rows' => forallb (fun e => check_ctx leaf rows' (d + ed e) (p + ep e) (Nat.min (et e) t)) r
  end.

Lemma fold_min_swap a t l : fold_right Nat.min (Nat.min a t) l = Nat.min a (fold_right Nat.min t l).
Proof. induction l; simpl; [reflexivity|]. rewrite IHl. lia. Qed.

Lemma check_ctx_sound leaf rows d p t :
  check_ctx leaf rows d p t = true ->
  forall es, Forall2 (@In qentry) es rows ->
  leaf (d + sumZ (map ed es))%Z (p + sumZ (map ep es))%Z (fold_right Nat.min t (map et es)) = true.
Proof.
  revert d p t. induction rows as [|r rows IH]; intros d p t H es Hes.
  - inversion Hes; subst. simpl in *. rewrite !Z.add_0_r. assumption.
  - inversion Hes as [|x l r' rows' Hx Hl]; subst. simpl in *.
    rewrite forallb_forall in H. specialize (H _ Hx).
    specialize (IH _ _ _ H _ Hl). rewrite fold_min_swap in IH.
    replace (d + (ed x + sumZ (map ed r')))%Z with (d + ed x + sumZ (map ed r'))%Z by ring.
    replace (p + (ep x + sumZ (map ep r')))%Z with (p + ep x + sumZ (map ep r'))%Z by ring.
    assumption.
Qed.

Lemma Forall2_In_combine {A B C} (js : list A) (ctx : list B) (g : A -> B -> C) (rowf : A -> list C) :
  length js = length ctx ->
  (forall j x, In j js -> In x ctx -> In (g j x) (rowf j)) ->
  Forall2 (@In C) (map (fun jx => g (fst jx) (snd jx)) (combine js ctx)) (map rowf js).
Proof.
  revert ctx. induction js as [|j js IH]; intros ctx Hl H; destruct ctx as [|x ctx]; simpl in *;
    try discriminate; constructor.
  - apply H; left; reflexivity.
  - apply IH; [lia|]. intros; apply H; right; assumption.
Qed.

Lemma map_combine_snd {A B C} (f : B -> C) (js : list A) (ctx : list B) :
  length js = length ctx -> map (fun jx => f (snd jx)) (combine js ctx) = map f ctx.
Proof.
  revert ctx. induction js; intros [|x ctx] H; simpl in *; try discriminate; [reflexivity|].
  rewrite IHjs by lia. reflexivity.
Qed.

Lemma fold_min_target ctx q :
  fold_right Nat.min (ip q q) (map (fun x => ip x q) ctx) = target ctx q.
Proof. induction ctx; simpl; [reflexivity|]. rewrite IHctx. reflexivity. Qed.

(** From the integer test at the end of a walk to the error bound on the
    real ratio: [c] the (positive) scale of the row, [Y] the context. *)
Lemma accumulate_sound {A} tol (c : R) (Y : list A) (ent : A -> qentry) (kap uu : A -> R)
    (own : qentry) (k0 u0 : R) :
  0 < c ->
  (forall y, In y Y -> IZR (ed (ent y)) = c * kap y /\ IZR (ep (ent y)) = c * (kap y * uu y)) ->
  IZR (ed own) = c * k0 -> IZR (ep own) = c * (k0 * u0) ->
  leaf_ok tol (ed own + sumZ (map ed (map ent Y)))%Z (ep own + sumZ (map ep (map ent Y)))%Z
          (fold_right Nat.min (et own) (map et (map ent Y))) = true ->
  0 < sumR (map kap Y) + k0 /\
  error_bound (Q2R tol) ((sumR (map (fun y => kap y * uu y) Y) + k0 * u0) / (sumR (map kap Y) + k0)
                         - INR (fold_right Nat.min (et own) (map et (map ent Y)))).
Proof.
  intros Hc HY Hd Hp H. eapply leaf_ok_sound; [exact H|exact Hc|..].
  - rewrite plus_IZR, map_map, IZR_sumZ, Hd.
    rewrite (sumR_map_ext _ (fun y => c * kap y)) by (intros y Hy; apply HY, Hy).
    rewrite sumR_map_scale. ring.
  - rewrite plus_IZR, map_map, IZR_sumZ, Hp.
    rewrite (sumR_map_ext _ (fun y => c * (kap y * uu y))) by (intros y Hy; apply HY, Hy).
    rewrite sumR_map_scale. ring.
Qed.

(** ** One-hot values: the readout picks one entry *)

Lemma sum_onehot (a : nat -> R) D k : (k < D)%nat ->
  sumR (map (fun c => a c * (if Nat.eqb c k then 1 else 0)) (seq 0 D)) = a k.
Proof.
  induction D as [|D IH]; intros Hk; [lia|].
  rewrite seq_S, map_app, sumR_app. simpl.
  destruct (Nat.eq_dec k D) as [->|Hne].
  - rewrite Nat.eqb_refl.
    rewrite (sumR_map_ext _ (fun _ => 0)), sumR_map_zero; [ring|].
    intros c Hc. apply in_seq in Hc. destruct (Nat.eqb_spec c D); [lia|ring].
  - rewrite IH by lia. destruct (Nat.eqb_spec D k); [lia|ring].
Qed.

Lemma dot_onehot {A} D (a : nat -> R) (X : list A) (w : A -> R) (f : A -> nat) (den : R) :
  (forall y, In y X -> (f y < D)%nat) ->
  dot D a (fun c => sumR (map (fun y => w y * (if Nat.eqb c (f y) then 1 else 0)) X) / den)
  = sumR (map (fun y => w y * a (f y)) X) / den.
Proof.
  unfold dot. intros HX. induction X as [|y X IH]; simpl.
  - rewrite (sumR_map_ext _ (fun _ => 0)), sumR_map_zero; [unfold Rdiv; ring|]. intros; unfold Rdiv; ring.
  - rewrite (sumR_map_ext _ (fun c => (w y / den) * (a c * (if Nat.eqb c (f y) then 1 else 0))
                                    + a c * (sumR (map (fun y0 => w y0 * (if Nat.eqb c (f y0) then 1 else 0)) X) / den))).
    + rewrite sumR_map_add, sumR_map_scale, sum_onehot by (apply HX; left; reflexivity).
      rewrite IH by (intros; apply HX; right; assumption). unfold Rdiv. ring.
    + intros c _. unfold Rdiv. ring.
Qed.

(** ** Table heads *)

(** The feature rank of a feature table: the length of its first row. *)
Definition rank_of (Phi : list (list Q)) : nat := length (hd [] Phi).

(** The head of feature rank r given by tables: [φ(q) = Phi[q]], [ψ(x) =
    Psi[x]], one-hot values [v(x) = e_x] (p = 2^m), readout [a(q) = U[q]],
    [b = 0]. *)
Definition table_head_r (r m : nat) (Phi Psi U : list (list Q)) : head r :=
  Build_head r (fun q => QR (row Phi (idx q))) (fun x => QR (row Psi (idx x))) (2 ^ m)
    (fun x k => if Nat.eqb k (idx x) then 1 else 0) (fun q => QR (row U (idx q))) (fun _ => 0).

(** The same, at the rank of its feature table. *)
Definition table_head (m : nat) (Phi Psi U : list (list Q)) : head (rank_of Phi) :=
  table_head_r (rank_of Phi) m Phi Psi U.

(** The output of a table head: [Σ_j κ(q,x_j) U[q][x_j] / Σ_j κ(q,x_j)]. *)
Theorem table_head_output r m Phi Psi U ctx q :
  is_token m q -> Forall (is_token m) ctx ->
  output (table_head_r r m Phi Psi U) ctx q =
  sumR (map (fun x => kernel (table_head_r r m Phi Psi U) q x * QR (row U (idx q)) (idx x)) (ctx ++ [q]))
  / sumR (map (kernel (table_head_r r m Phi Psi U) q) (ctx ++ [q])).
Proof.
  intros Hq Hctx. unfold output. simpl vdim. simpl rb. rewrite Rplus_0_r.
  apply (dot_onehot (2 ^ m) _ (ctx ++ [q]) _ idx).
  intros y Hy. apply in_app_or in Hy as [Hy|[<-|[]]].
  - apply idx_lt. rewrite Forall_forall in Hctx. apply Hctx, Hy.
  - apply idx_lt, Hq.
Qed.

(** Dimensions, nonnegative features, [κ(q,q) > 0]: the head is [valid]. *)
Definition table_valid (r m : nat) (Phi Psi U : list (list Q)) : bool :=
  let N := (2 ^ m)%nat in
  Nat.eqb (length Phi) N && Nat.eqb (length Psi) N && Nat.eqb (length U) N &&
  forallb (fun l => Nat.eqb (length l) r) Phi && forallb (fun l => Nat.eqb (length l) r) Psi &&
  forallb (fun l => Nat.eqb (length l) N) U &&
  forallb (forallb qnonneg) Phi && forallb (forallb qnonneg) Psi &&
  forallb (fun q => qpos (Qdot (row Phi q) (row Psi q))) (seq 0 N).

Definition tokens (m : nat) : list token := map (tok m) (seq 0 (2 ^ m)).

(** A query's row of entries: token x gives [(s κ', κ' u', <x, q>)] with
    [κ'] the scaled kernel row and [u'] the readout row scaled by s. *)
Definition entries (toks : list token) (tq : token) (s : Z) (kz uz : list Z) : list qentry :=
  map (fun xku => ((s * fst (snd xku))%Z, (snd (snd xku) * fst (snd xku))%Z, ip (fst xku) tq))
      (combine toks (combine kz uz)).

Lemma entries_nth toks tq s kz uz x :
  length kz = length toks -> length uz = length toks -> (x < length toks)%nat ->
  nth x (entries toks tq s kz uz) edflt =
  ((s * nth x kz 0)%Z, (nth x uz 0 * nth x kz 0)%Z, ip (nth x toks []) tq).
Proof.
  intros H1 H2 Hx. unfold entries.
  rewrite (nth_map_lt _ _ _ (([] : token), (0%Z, 0%Z))) by (rewrite combine_length, combine_length; lia).
  rewrite combine_nth by (rewrite combine_length; lia). rewrite combine_nth by lia. reflexivity.
Qed.

Lemma entries_length toks tq s kz uz :
  length kz = length toks -> length uz = length toks -> length (entries toks tq s kz uz) = length toks.
Proof. intros. unfold entries. rewrite map_length, !combine_length. lia. Qed.

Lemma tokens_nth m x : (x < 2 ^ m)%nat -> nth x (tokens m) [] = tok m x.
Proof. intros. unfold tokens. rewrite (nth_map_lt _ _ _ 0%nat) by (rewrite seq_length; assumption). rewrite seq_nth; auto. Qed.

Lemma tokens_length m : length (tokens m) = (2 ^ m)%nat.
Proof. unfold tokens. rewrite map_length, seq_length. reflexivity. Qed.

(** Query q, given its kernel row in integers [kz] (a positive multiple [C]
    of κ(q, ·), established apart: [kernel_rowZ]) and the scale [sU] of its
    readout row (checked here): every context of every length. *)
Definition table_query_with (m : nat) (toks : list token) (lengths : list nat) (U : list (list Q))
    (tol : Q) (q : nat) (kz : list Z) (sU : Z) : bool :=
  let urow := row U q in
  scaled_ok sU urow &&
  (let rw := entries toks (tok m q) sU kz (scaled sU urow) in
   let own := nth q rw edflt in
   forallb (fun n => check_ctx (leaf_ok tol) (map (fun _ => rw) (seq 1 (n - 1))) (ed own) (ep own) (et own))
           lengths).

Lemma forallb_seq f N i : forallb f (seq 0 N) = true -> (i < N)%nat -> f i = true.
Proof. intros H Hi. rewrite forallb_forall in H. apply H, in_seq. lia. Qed.

Lemma forallb_nth {A} f (l : list A) i d : forallb f l = true -> (i < length l)%nat -> f (nth i l d) = true.
Proof. intros H Hi. rewrite forallb_forall in H. apply H, nth_In, Hi. Qed.

Lemma table_valid_facts r m Phi Psi U : table_valid r m Phi Psi U = true ->
  length Phi = (2 ^ m)%nat /\ length Psi = (2 ^ m)%nat /\ length U = (2 ^ m)%nat /\
  (forall i, (i < 2 ^ m)%nat -> length (row Phi i) = r) /\
  (forall i, (i < 2 ^ m)%nat -> length (row Psi i) = r) /\
  (forall i, (i < 2 ^ m)%nat -> length (row U i) = (2 ^ m)%nat) /\
  forallb (forallb qnonneg) Phi = true /\ forallb (forallb qnonneg) Psi = true /\
  (forall q, (q < 2 ^ m)%nat -> qpos (Qdot (row Phi q) (row Psi q)) = true).
Proof.
  unfold table_valid. intros H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[[[[[H1 H2] H3] H4] H5] H6] H7] H8] H9].
  apply Nat.eqb_eq in H1. apply Nat.eqb_eq in H2. apply Nat.eqb_eq in H3.
  repeat split; try assumption.
  - intros i Hi. apply Nat.eqb_eq. apply (forallb_nth (fun l => Nat.eqb (length l) r)); [assumption|lia].
  - intros i Hi. apply Nat.eqb_eq. apply (forallb_nth (fun l => Nat.eqb (length l) r)); [assumption|lia].
  - intros i Hi. apply Nat.eqb_eq. apply (forallb_nth (fun l => Nat.eqb (length l) (2 ^ m))); [assumption|lia].
  - intros q Hq. apply (forallb_seq (fun q => qpos (Qdot (row Phi q) (row Psi q))) (2 ^ m)); assumption.
Qed.

Lemma table_kernel r m Phi Psi U q x :
  table_valid r m Phi Psi U = true -> is_token m q -> is_token m x ->
  kernel (table_head_r r m Phi Psi U) q x = Q2R (Qdot (row Phi (idx q)) (row Psi (idx x))).
Proof.
  intros H Hq Hx. apply table_valid_facts in H as (_ & _ & _ & H4 & H5 & _).
  apply idx_lt in Hq. apply idx_lt in Hx.
  unfold kernel. simpl. apply dot_Qdot; auto.
Qed.

Lemma table_valid_sound r m Phi Psi U :
  table_valid r m Phi Psi U = true -> valid m (table_head_r r m Phi Psi U).
Proof.
  intros Hv. split.
  - intros x i _ _. simpl. apply table_valid_facts in Hv as (_ & _ & _ & _ & _ & _ & H7 & H8 & _).
    split; apply nonneg_table; assumption.
  - intros q Hq. rewrite table_kernel by assumption.
    apply table_valid_facts in Hv as (_ & _ & _ & _ & _ & _ & _ & _ & H9).
    apply qpos_sound, H9, idx_lt, Hq.
Qed.

(** The integer walk is sound, whatever scales it was given. *)
Lemma exhaustive_sound_core r m lengths Phi Psi U tol :
  table_valid r m Phi Psi U = true ->
  (forall q, (q < 2 ^ m)%nat -> exists kz C sU,
     0 < C /\ length kz = (2 ^ m)%nat /\
     (forall x, (x < 2 ^ m)%nat -> IZR (nth x kz 0%Z) = C * Q2R (Qdot (row Phi q) (row Psi x))) /\
     table_query_with m (tokens m) lengths U tol q kz sU = true) ->
  forall n, In n lengths -> solves_within (Q2R tol) m n (table_head_r r m Phi Psi U).
Proof.
  intros Hv Hq n Hn.
  split; [apply table_valid_sound, Hv|].
  intros ctx q Htq Hctx Hlen.
  pose proof (table_valid_facts _ _ _ _ _ Hv) as (HPhiN & HPsiN & HUN & HPhir & HPsir & HUrow & _).
  pose proof (idx_lt _ _ Htq) as Hqi.
  destruct (Hq _ Hqi) as (kz & C & sU & HC & Hkl & Hkz & Hqc). unfold table_query_with in Hqc.
  set (urow := row U (idx q)) in Hqc.
  apply andb_prop in Hqc as [HsU Hall].
  set (rw := entries (tokens m) (tok m (idx q)) sU kz (scaled sU urow)) in Hall.
  assert (Hul : length urow = (2 ^ m)%nat).
  { apply HUrow, Hqi. }
  (* the entry of a token *)
  assert (Hent : forall x, is_token m x ->
    IZR (ed (nth (idx x) rw edflt)) = IZR sU * C * kernel (table_head_r r m Phi Psi U) q x /\
    IZR (ep (nth (idx x) rw edflt)) = IZR sU * C * (kernel (table_head_r r m Phi Psi U) q x * QR (row U (idx q)) (idx x)) /\
    et (nth (idx x) rw edflt) = ip x q).
  { intros x Hx. pose proof (idx_lt _ _ Hx) as Hxi.
    unfold rw. rewrite entries_nth by (rewrite ?scaled_length, ?tokens_length; lia).
    unfold ed, ep, et. simpl fst. simpl snd.
    rewrite tokens_nth by assumption. rewrite !tok_idx by assumption.
    rewrite !mult_IZR, scaled_ok_nth, Hkz by (assumption || lia).
    rewrite table_kernel by assumption. unfold QR. fold urow.
    repeat split; ring. }
  assert (Hin : In n lengths) by assumption.
  rewrite forallb_forall in Hall. specialize (Hall n Hn).
  set (own := nth (idx q) rw edflt) in Hall.
  set (Y := combine (seq 1 (n - 1)) ctx).
  set (ent := fun jx : nat * token => nth (idx (snd jx)) rw edflt).
  assert (HYl : length (seq 1 (n - 1)) = length ctx) by (rewrite seq_length; lia).
  pose proof (check_ctx_sound _ _ _ _ _ Hall (map ent Y)) as Hleaf.
  assert (HF : Forall2 (@In qentry) (map ent Y) (map (fun _ => rw) (seq 1 (n - 1)))).
  { apply (Forall2_In_combine _ _ (fun _ x => nth (idx x) rw edflt) (fun _ => rw)); [assumption|].
    intros j x _ Hx. apply nth_In. unfold rw. rewrite entries_length by (rewrite ?scaled_length, ?tokens_length; lia).
    rewrite tokens_length. apply idx_lt. rewrite Forall_forall in Hctx. apply Hctx, Hx. }
  specialize (Hleaf HF).
  set (h := table_head_r r m Phi Psi U) in *.
  assert (Hc : 0 < IZR sU * C) by (apply Rmult_lt_0_compat; [eapply scaled_ok_pos; eassumption|assumption]).
  destruct (Hent q Htq) as [Hd0 [Hp0 Ht0]].
  pose proof (accumulate_sound tol _ Y ent (fun jx => kernel h q (snd jx)) (fun jx => QR (row U (idx q)) (idx (snd jx)))
    own (kernel h q q) (QR (row U (idx q)) (idx q)) Hc) as Hacc.
  destruct Hacc as [_ Herr].
  - intros [j x] Hy. apply in_combine_r in Hy. rewrite Forall_forall in Hctx.
    destruct (Hent x (Hctx x Hy)) as [A1 [A2 _]]. split; assumption.
  - exact Hd0.
  - exact Hp0.
  - exact Hleaf.
  - unfold h. rewrite table_head_output by assumption. fold h.
    rewrite !map_app, !sumR_app. simpl.
    replace (fold_right Nat.min (et own) (map et (map ent Y))) with (target ctx q) in Herr.
    + unfold Y in Herr.
      rewrite (map_combine_snd (fun x => kernel h q x)) in Herr by assumption.
      rewrite (map_combine_snd (fun x => kernel h q x * QR (row U (idx q)) (idx x))) in Herr by assumption.
      replace (sumR (map (fun x => kernel h q x * QR (row U (idx q)) (idx x)) ctx) + (kernel h q q * QR (row U (idx q)) (idx q) + 0))
        with (sumR (map (fun x => kernel h q x * QR (row U (idx q)) (idx x)) ctx) + kernel h q q * QR (row U (idx q)) (idx q)) by ring.
      replace (sumR (map (kernel h q) ctx) + (kernel h q q + 0)) with (sumR (map (kernel h q) ctx) + kernel h q q) by ring.
      exact Herr.
    + rewrite <- fold_min_target. unfold own. rewrite Ht0. rewrite map_map. unfold Y, ent.
      rewrite (map_combine_snd (fun x => et (nth (idx x) rw edflt))) by assumption.
      f_equal. apply map_ext_in. intros x Hx. rewrite Forall_forall in Hctx.
      destruct (Hent x (Hctx x Hx)) as [_ [_ E]]. symmetry. exact E.
Qed.

(** ** The kernel rows in integers

    [ψ(x)] is scaled by the lcm [B_x] of its denominators, [φ(q)] by [A_q];
    with [Bpsi] a common multiple of the [B_x] and [c_x = Bpsi / B_x],
    [κ'(q, x) = (A_q φ(q) · B_x ψ(x)) c_x = A_q Bpsi κ(q, x)]: one integer
    product per entry, every scale re-checked. *)

Fixpoint Zdot (a b : list Z) : Z :=
  match a, b with
  | x :: a', y :: b' => (x * y + Zdot a' b')%Z
  | _, _ => 0%Z
  end.

(** A common multiple (the lcm, when the checks pass) of positive integers. *)
Definition zlcm (l : list Z) : Z := fold_right (fun d acc => (d / Z.gcd d (acc mod d) * acc)%Z) 1%Z l.

Definition kernel_rowZ (a : list Z) (psiZ : list (list Z)) (cs : list Z) : list Z :=
  map (fun bc => (Zdot a (fst bc) * snd bc)%Z) (combine psiZ cs).

(** The scales of ψ: the rows scaled, and their checks. *)
Definition psi_ok (Psi : list (list Q)) (Bs : list Z) (Bpsi : Z) (cs : list Z) : bool :=
  (0 <? Bpsi)%Z && forallb (fun Bp => scaled_ok (fst Bp) (snd Bp)) (combine Bs Psi) &&
  forallb (fun Bc => Z.eqb (fst Bc * snd Bc) Bpsi) (combine Bs cs).

Definition exhaustive_check_r (r m : nat) (lengths : list nat) (Phi Psi U : list (list Q)) (tol : Q) : bool :=
  table_valid r m Phi Psi U &&
  (let Bs := map scale Psi in
   let Bpsi := zlcm Bs in
   let cs := map (fun B => Bpsi / B)%Z Bs in
   let psiZ := map (fun Bp => scaled (fst Bp) (snd Bp)) (combine Bs Psi) in
   psi_ok Psi Bs Bpsi cs &&
   (let toks := tokens m in
    forallb (fun q => let A := scale (row Phi q) in
                      scaled_ok A (row Phi q) &&
                      table_query_with m toks lengths U tol q (kernel_rowZ (scaled A (row Phi q)) psiZ cs) (scale (row U q)))
            (seq 0 (2 ^ m)))).

(** The checker: every sequence of every length in [lengths] over {0,1}^m has
    error within [tol] (strictly below, or exactly 0 when [tol] is 0). *)
Definition exhaustive_check (m : nat) (lengths : list nat) (Phi Psi U : list (list Q)) (tol : Q) : bool :=
  exhaustive_check_r (rank_of Phi) m lengths Phi Psi U tol.

Lemma scaled_ok_cons s k l : scaled_ok s (k :: l) = true ->
  scale_ok s k (Qnum k * (s / Zpos (Qden k)))%Z = true /\ scaled_ok s l = true.
Proof.
  unfold scaled_ok. simpl. intros H. repeat rewrite andb_true_iff in H. destruct H as [H0 [H1 H2]].
  split; [assumption|]. rewrite H0, H2. reflexivity.
Qed.

Lemma Zdot_scaled A B l l' : scaled_ok A l = true -> scaled_ok B l' = true -> length l = length l' ->
  IZR (Zdot (scaled A l) (scaled B l')) = IZR A * IZR B * Q2R (Qdot l l').
Proof.
  revert l'. induction l as [|k l IH]; intros [|k' l'] HA HB Hl; simpl in Hl; try discriminate.
  - simpl. unfold Q2R. simpl. field.
  - apply scaled_ok_cons in HA as [HA1 HA2]. apply scaled_ok_cons in HB as [HB1 HB2].
    simpl. rewrite plus_IZR, mult_IZR, IH by (assumption || lia).
    rewrite (scale_ok_sound _ _ _ HA1), (scale_ok_sound _ _ _ HB1), Q2R_plus, Q2R_mult. ring.
Qed.

Lemma kernel_rowZ_nth m Phi Psi q x :
  let Bs := map scale Psi in
  let Bpsi := zlcm Bs in
  let cs := map (fun B => Bpsi / B)%Z Bs in
  let psiZ := map (fun Bp => scaled (fst Bp) (snd Bp)) (combine Bs Psi) in
  (forall i, (i < 2 ^ m)%nat -> length (row Phi q) = length (row Psi i)) ->
  length Psi = (2 ^ m)%nat ->
  psi_ok Psi Bs Bpsi cs = true -> scaled_ok (scale (row Phi q)) (row Phi q) = true -> (x < 2 ^ m)%nat ->
  IZR (nth x (kernel_rowZ (scaled (scale (row Phi q)) (row Phi q)) psiZ cs) 0%Z) =
  IZR (scale (row Phi q)) * IZR Bpsi * Q2R (Qdot (row Phi q) (row Psi x)).
Proof.
  intros Bs Bpsi cs psiZ Hlen HPsiN Hpsi HA Hx.
  unfold psi_ok in Hpsi. repeat rewrite andb_true_iff in Hpsi. destruct Hpsi as [[H0 H1] H2].
  assert (HBs : length Bs = (2 ^ m)%nat) by (unfold Bs; rewrite map_length; assumption).
  assert (Hcs : length cs = (2 ^ m)%nat) by (unfold cs; rewrite map_length; assumption).
  assert (HpZ : length psiZ = (2 ^ m)%nat) by (unfold psiZ; rewrite map_length, combine_length; lia).
  unfold kernel_rowZ. rewrite (nth_map_lt _ _ _ ([], 0%Z)) by (rewrite combine_length; lia).
  rewrite combine_nth by lia. simpl fst. simpl snd.
  assert (EB : nth x (combine Bs Psi) (0%Z, []) = (nth x Bs 0%Z, row Psi x)) by (apply combine_nth; lia).
  assert (HBx : scaled_ok (nth x Bs 0%Z) (row Psi x) = true).
  { pose proof (forallb_nth _ _ x (0%Z, []) H1 ltac:(rewrite combine_length; lia)) as E. rewrite EB in E. exact E. }
  assert (Hc : (nth x Bs 0%Z * nth x cs 0%Z = Bpsi)%Z).
  { pose proof (forallb_nth _ _ x (0%Z, 0%Z) H2 ltac:(rewrite combine_length; lia)) as E.
    rewrite combine_nth in E by lia. apply Z.eqb_eq in E. exact E. }
  assert (EP : nth x psiZ [] = scaled (nth x Bs 0%Z) (row Psi x)).
  { unfold psiZ. rewrite (nth_map_lt _ _ _ (0%Z, [])) by (rewrite combine_length; lia). rewrite EB. reflexivity. }
  rewrite EP, mult_IZR, Zdot_scaled by (try assumption; apply Hlen, Hx).
  rewrite <- Hc, mult_IZR. ring.
Qed.

(** Soundness of the exhaustive check, at any rank r. *)
Theorem exhaustive_sound_r r m lengths Phi Psi U tol :
  exhaustive_check_r r m lengths Phi Psi U tol = true ->
  forall n, In n lengths -> solves_within (Q2R tol) m n (table_head_r r m Phi Psi U).
Proof.
  unfold exhaustive_check_r. intros H. apply andb_prop in H as [Hv H]. apply andb_prop in H as [Hpsi Hq].
  apply exhaustive_sound_core; [assumption|]. intros q Hqi.
  pose proof (forallb_seq _ _ _ Hq Hqi) as Hqc. simpl in Hqc. apply andb_prop in Hqc as [HA Hqc].
  pose proof (table_valid_facts _ _ _ _ _ Hv) as (HPhiN & HPsiN & HUN & HPhir & HPsir & _).
  eexists. exists (IZR (scale (row Phi q)) * IZR (zlcm (map scale Psi))). eexists.
  split; [|split; [|split; [|exact Hqc]]].
  - apply Rmult_lt_0_compat; [eapply scaled_ok_pos; eassumption|].
    unfold psi_ok in Hpsi. apply andb_prop in Hpsi as [Hpsi _]. apply andb_prop in Hpsi as [Hpsi _].
    apply Z.ltb_lt, IZR_lt in Hpsi. exact Hpsi.
  - unfold kernel_rowZ. rewrite map_length, combine_length, !map_length, combine_length, map_length. lia.
  - intros x Hx. apply (kernel_rowZ_nth m); try assumption.
    + intros i Hi. rewrite HPhir, HPsir by assumption. reflexivity.
Qed.

(** The soundness theorem: a passing check proves that the table head
    solves every length of [lengths] within [tol]. *)
Theorem exhaustive_sound m lengths Phi Psi U tol :
  exhaustive_check m lengths Phi Psi U tol = true ->
  forall n, In n lengths -> solves_within (Q2R tol) m n (table_head m Phi Psi U).
Proof. apply exhaustive_sound_r. Qed.

(** ** From tolerances to [solves] *)

Lemma error_bound_mono t t' e : t <= t' -> error_bound t e -> error_bound t' e.
Proof.
  unfold error_bound. intros Ht [[-> ->]|H].
  - destruct (Req_dec t' 0) as [->|Hne]; [left; split; reflexivity|].
    right. rewrite Rabs_R0. lra.
  - right. lra.
Qed.

Lemma solves_within_mono {r} t t' m n (h : head r) : t <= t' -> solves_within t m n h -> solves_within t' m n h.
Proof.
  intros Ht [Hv H]. split; [assumption|]. intros. eapply error_bound_mono; [eassumption|]. apply H; assumption.
Qed.

(** [solves] is [solves_within (1/2)]. *)
Theorem solves_within_half {r} m n (h : head r) : solves_within (1/2) m n h <-> solves m n h.
Proof.
  unfold solves_within, solves, error_bound. split; intros [Hv H]; split; try assumption; intros ctx q Hq Hc Hl.
  - destruct (H ctx q Hq Hc Hl) as [[Ht _]|Ht]; [lra|assumption].
  - right. apply H; assumption.
Qed.

Lemma Q2R_half : Q2R (1 # 2) = 1 / 2.
Proof. unfold Q2R. simpl. field. Qed.

Lemma Qle_bool_Q2R x y : Qle_bool x y = true -> Q2R x <= Q2R y.
Proof. intros H. apply Qle_Rle, Qle_bool_iff, H. Qed.

(** The corollary for tolerance 1/2. *)
Theorem exhaustive_solves m lengths Phi Psi U :
  exhaustive_check m lengths Phi Psi U (1 # 2) = true ->
  forall n, In n lengths -> solves m n (table_head m Phi Psi U).
Proof.
  intros H n Hn. apply solves_within_half. rewrite <- Q2R_half. apply (exhaustive_sound m lengths); assumption.
Qed.

(** What the witness files apply: rank, length and tolerance (at most 1/2)
    are checked with the tables. *)
Definition solvable_check (r m n : nat) (lengths : list nat) (Phi Psi U : list (list Q)) (tol : Q) : bool :=
  Nat.eqb (rank_of Phi) r && existsb (Nat.eqb n) lengths && Qle_bool tol (1 # 2) &&
  exhaustive_check m lengths Phi Psi U tol.

Theorem exhaustive_solvable r m n lengths Phi Psi U tol :
  solvable_check r m n lengths Phi Psi U tol = true -> solvable r m n.
Proof.
  unfold solvable_check, exhaustive_check. intros H.
  repeat (apply andb_prop in H as [H ?]).
  apply Nat.eqb_eq in H. subst r. apply existsb_exists in H2 as [n' [Hn' E]]. apply Nat.eqb_eq in E. subst n'.
  exists (table_head_r (rank_of Phi) m Phi Psi U).
  apply solves_within_half. apply (solves_within_mono (Q2R tol)).
  - rewrite <- Q2R_half. apply Qle_bool_Q2R, H1.
  - apply (exhaustive_sound_r _ _ lengths); assumption.
Qed.

(** The conjunction of [P n] over a list of lengths, as a reader writes it:
    [all_lengths P [1; 2] = P 1 /\ P 2]. *)
Fixpoint all_lengths (P : nat -> Prop) (l : list nat) : Prop :=
  match l with
  | [] => True
  | [n] => P n
  | n :: l' => P n /\ all_lengths P l'
  end.

Lemma all_lengths_intro (P : nat -> Prop) l : (forall n, In n l -> P n) -> all_lengths P l.
Proof.
  induction l as [|n l IH]; intros H; [exact I|]. destruct l as [|n' l'].
  - apply H. left. reflexivity.
  - split; [apply H; left; reflexivity|]. apply IH. intros; apply H; right; assumption.
Qed.

(** A certificate of several lengths, at a tolerance [tol'] at least the checked one. *)
Definition exists_check (r m : nat) (lengths : list nat) (Phi Psi U : list (list Q)) (tol tol' : Q) : bool :=
  Nat.eqb (rank_of Phi) r && Qle_bool tol tol' && exhaustive_check m lengths Phi Psi U tol.

Theorem exhaustive_exists r m lengths Phi Psi U tol tol' :
  exists_check r m lengths Phi Psi U tol tol' = true ->
  exists h : head r, all_lengths (fun n => solves_within (Q2R tol') m n h) lengths.
Proof.
  unfold exists_check, exhaustive_check. intros H. repeat (apply andb_prop in H as [H ?]).
  apply Nat.eqb_eq in H. subst r.
  exists (table_head_r (rank_of Phi) m Phi Psi U). apply all_lengths_intro. intros n Hn.
  apply (solves_within_mono (Q2R tol)); [apply Qle_bool_Q2R, H1|].
  apply (exhaustive_sound_r _ _ lengths); assumption.
Qed.

(** ** Position-dependent rank-one heads (the Python kind [rank-one-positional-witness])

    [φ_k = 1], [ψ_j(x) = Psi[j-1][x]], one-hot values over (position, token)
    pairs, [v_j(x) = e_{(j-1) 2^m + x}], and the readout [a(q)] that reads
    [U_j[q][x]] at coordinate [(j-1) 2^m + x] ([b = 0]).  The readout does not
    depend on the position (KDefs' [pra]); the value does. *)
Definition pos_table_head (m : nat) (Psi : list (list Q)) (U : list (list (list Q))) : pos_head 1 :=
  Build_pos_head 1 (fun _ _ _ => 1) (fun j x _ => QR (row Psi (j - 1)) (idx x)) (length Psi * 2 ^ m)
    (fun j x c => if Nat.eqb c ((j - 1) * 2 ^ m + idx x) then 1 else 0)
    (fun q c => QR (row (nth (c / 2 ^ m) U []) (idx q)) (c mod 2 ^ m)) (fun _ => 0).

(** The lengths scored: every prefix length 1..n, or n alone. *)
Definition pos_lengths (prefixes : bool) (n : nat) : list nat := if prefixes then seq 1 n else [n].

Definition positional_valid (m : nat) (Psi : list (list Q)) (U : list (list (list Q))) (prefixes : bool) : bool :=
  let N := (2 ^ m)%nat in
  let n := length Psi in
  Nat.eqb (length U) n && forallb (fun l => Nat.eqb (length l) N) Psi &&
  forallb (fun T => Nat.eqb (length T) N && forallb (fun l => Nat.eqb (length l) N) T) U &&
  forallb (forallb qnonneg) Psi &&
  forallb (fun k => forallb (fun q => qpos (nth q (row Psi (k - 1)) 0%Q)) (seq 0 N)) (pos_lengths prefixes n).

(** Query q: row j of entries reads ψ_j and U_j[q]; every context of every
    scored length k, the query at position k. *)
Definition pos_query_with (m : nat) (toks : list token) (ks : list nat) (PsiZ : list (list Z))
    (urows : list (list Q)) (tol : Q) (q : nat) (sU : Z) : bool :=
  forallb (scaled_ok sU) urows &&
  (let rows := map (fun pu => entries toks (tok m q) sU (fst pu) (scaled sU (snd pu))) (combine PsiZ urows) in
   forallb (fun k => let own := nth q (nth (k - 1) rows []) edflt in
              check_ctx (leaf_ok tol) (map (fun j => nth (j - 1) rows []) (seq 1 (k - 1))) (ed own) (ep own) (et own))
           ks).

(** The checker: every sequence of length n = [length Psi] (or, with
    [prefixes], of every length k <= n) has error within [tol]. *)
Definition positional_check (m : nat) (Psi : list (list Q)) (U : list (list (list Q))) (tol : Q) (prefixes : bool) : bool :=
  positional_valid m Psi U prefixes &&
  (let Lp := scale (concat Psi) in
   forallb (scaled_ok Lp) Psi &&
   (let PsiZ := map (scaled Lp) Psi in
    let toks := tokens m in
    let ks := pos_lengths prefixes (length Psi) in
    forallb (fun q => let urows := map (fun T => row T q) U in
                      pos_query_with m toks ks PsiZ urows tol q (scale (concat urows))) (seq 0 (2 ^ m)))).

Lemma pkernel_table m Psi U k q j x :
  pkernel (pos_table_head m Psi U) k q j x = QR (row Psi (j - 1)) (idx x).
Proof. unfold pkernel, dot. simpl. ring. Qed.

Lemma combine_app_single {A B} (l1 : list A) (l2 : list B) a b :
  length l1 = length l2 -> combine (l1 ++ [a]) (l2 ++ [b]) = combine l1 l2 ++ [(a, b)].
Proof.
  revert l2. induction l1; intros [|y l2] H; simpl in *; try discriminate; [reflexivity|].
  rewrite IHl1 by lia. reflexivity.
Qed.

Lemma onehot_index N n j i : (1 <= j <= n)%nat -> (i < N)%nat -> ((j - 1) * N + i < n * N)%nat.
Proof. intros Hj Hi. nia. Qed.

Lemma onehot_div N j i : (i < N)%nat -> (((j - 1) * N + i) / N = j - 1)%nat.
Proof. intros Hi. rewrite Nat.div_add_l by lia. rewrite Nat.div_small by assumption. lia. Qed.

Lemma onehot_mod N j i : (i < N)%nat -> (((j - 1) * N + i) mod N = i)%nat.
Proof.
  intros Hi. rewrite Nat.add_comm, Nat.mod_add by lia. apply Nat.mod_small, Hi.
Qed.

(** The output of a positional table head: [Σ_j ψ_j(x_j) U_j[q][x_j] / Σ_j ψ_j(x_j)]. *)
Theorem pos_table_head_output m Psi U ctx q :
  is_token m q -> Forall (is_token m) ctx -> (S (length ctx) <= length Psi)%nat ->
  poutput (pos_table_head m Psi U) ctx q =
  sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx)) * QR (row (nth (fst jx - 1) U []) (idx q)) (idx (snd jx)))
            (combine (seq 1 (S (length ctx))) (ctx ++ [q])))
  / sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx))) (combine (seq 1 (S (length ctx))) (ctx ++ [q]))).
Proof.
  intros Hq Hctx Hn. unfold poutput.
  set (X := combine (seq 1 (S (length ctx))) (ctx ++ [q])).
  assert (HX : forall jx, In jx X -> (1 <= fst jx <= S (length ctx))%nat /\ (idx (snd jx) < 2 ^ m)%nat).
  { intros [j x] Hjx. unfold X in Hjx. split.
    - apply in_combine_l in Hjx. apply in_seq in Hjx. simpl. lia.
    - apply in_combine_r in Hjx. apply in_app_or in Hjx as [Hx|[<-|[]]]; simpl.
      + apply idx_lt. rewrite Forall_forall in Hctx. apply Hctx, Hx.
      + apply idx_lt, Hq. }
  simpl prb. rewrite Rplus_0_r. simpl pvdim. simpl pvalue.
  rewrite (dot_onehot _ _ X _ (fun jx => (fst jx - 1) * 2 ^ m + idx (snd jx))%nat).
  - f_equal.
    + apply sumR_map_ext. intros [j x] Hjx. destruct (HX _ Hjx) as [Hj Hx]. simpl in Hj, Hx |- *.
      rewrite pkernel_table. simpl pra. rewrite onehot_div, onehot_mod by assumption. reflexivity.
    + apply sumR_map_ext. intros [j x] _. apply pkernel_table.
  - intros [j x] Hjx. destruct (HX _ Hjx) as [Hj Hx]. simpl in Hj, Hx |- *.
    apply onehot_index; [lia|assumption].
Qed.

Lemma positional_valid_facts m Psi U prefixes : positional_valid m Psi U prefixes = true ->
  length U = length Psi /\
  (forall j, (j < length Psi)%nat -> length (row Psi j) = (2 ^ m)%nat) /\
  (forall j q, (j < length Psi)%nat -> (q < 2 ^ m)%nat -> length (row (nth j U []) q) = (2 ^ m)%nat) /\
  (forall j, (j < length Psi)%nat -> length (nth j U []) = (2 ^ m)%nat) /\
  forallb (forallb qnonneg) Psi = true /\
  (forall k q, In k (pos_lengths prefixes (length Psi)) -> (q < 2 ^ m)%nat -> qpos (nth q (row Psi (k - 1)) 0%Q) = true).
Proof.
  unfold positional_valid. intros H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[H1 H2] H3] H4] H5]. apply Nat.eqb_eq in H1.
  repeat split; try assumption.
  - intros j Hj. apply Nat.eqb_eq. apply (forallb_nth (fun l => Nat.eqb (length l) (2 ^ m))); [assumption|lia].
  - intros j q Hj Hq. pose proof (forallb_nth _ U j [] H3 ltac:(lia)) as E.
    apply andb_prop in E as [_ E]. apply Nat.eqb_eq. unfold row.
    apply (forallb_nth (fun l => Nat.eqb (length l) (2 ^ m))); [assumption|].
    pose proof (forallb_nth _ U j [] H3 ltac:(lia)) as E'. apply andb_prop in E' as [E' _]. apply Nat.eqb_eq in E'. lia.
  - intros j Hj. pose proof (forallb_nth _ U j [] H3 ltac:(lia)) as E'. apply andb_prop in E' as [E' _].
    apply Nat.eqb_eq in E'. exact E'.
  - intros k q Hk Hq. rewrite forallb_forall in H5. specialize (H5 k Hk).
    apply (forallb_seq (fun q => qpos (nth q (row Psi (k - 1)) 0%Q)) (2 ^ m)); assumption.
Qed.

Lemma pos_lengths_le prefixes n k : In k (pos_lengths prefixes n) -> (1 <= k <= n)%nat \/ k = n.
Proof. destruct prefixes; simpl; intros H. - left. apply in_seq in H. lia. - right. destruct H as [<-|[]]. reflexivity. Qed.

(** Soundness of the positional check, at every scored length k. *)
Theorem positional_sound m Psi U tol prefixes :
  positional_check m Psi U tol prefixes = true ->
  forall k, In k (pos_lengths prefixes (length Psi)) ->
  pvalid_at m k (pos_table_head m Psi U) /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = k ->
    error_bound (Q2R tol) (poutput (pos_table_head m Psi U) ctx q - INR (target ctx q)).
Proof.
  unfold positional_check. intros H k Hk. apply andb_prop in H as [Hv H].
  apply andb_prop in H as [HLp Hq].
  set (Lp := scale (concat Psi)) in *. set (PsiZ := map (scaled Lp) Psi) in Hq.
  pose proof (positional_valid_facts _ _ _ _ Hv) as (HUn & HPsir & HUr & HUl & Hnn & Hpos).
  set (h := pos_table_head m Psi U).
  split.
  - split.
    + intros j x i Hx Hj Hi. unfold h. simpl. split; [lra|]. apply nonneg_table, Hnn.
    + intros q Htq. unfold h. rewrite pkernel_table. apply qpos_sound. apply Hpos; [assumption|]. apply idx_lt, Htq.
  - intros ctx q Htq Hctx Hlen.
    assert (Hkn : (1 <= k <= length Psi)%nat).
    { destruct (pos_lengths_le _ _ _ Hk) as [E|E]; [exact E|]. subst k.
      destruct prefixes; simpl in Hk; [apply in_seq in Hk; lia|lia]. }
    pose proof (idx_lt _ _ Htq) as Hqi.
    pose proof (forallb_seq _ _ _ Hq Hqi) as Hqc. simpl in Hqc.
    set (urows := map (fun T => row T (idx q)) U) in Hqc.
    set (sU := scale (concat urows)) in Hqc.
    unfold pos_query_with in Hqc. apply andb_prop in Hqc as [HsU Hall].
    set (rows := map (fun pu => entries (tokens m) (tok m (idx q)) sU (fst pu) (scaled sU (snd pu))) (combine PsiZ urows)) in Hall.
    rewrite forallb_forall in Hall. specialize (Hall k Hk).
    assert (HPZ : length PsiZ = length Psi) by (unfold PsiZ; apply map_length).
    assert (Hur : length urows = length Psi) by (unfold urows; rewrite map_length; lia).
    (* row j (1-based) of entries *)
    assert (Hrow : forall j, (1 <= j <= length Psi)%nat ->
      nth (j - 1) rows [] = entries (tokens m) (tok m (idx q)) sU (scaled Lp (row Psi (j - 1)))
                                   (scaled sU (row (nth (j - 1) U []) (idx q)))).
    { intros j Hj. unfold rows. rewrite (nth_map_lt _ _ _ ([], [])) by (rewrite combine_length; lia).
      rewrite combine_nth by lia. simpl. f_equal.
      - unfold PsiZ. rewrite (nth_map_lt _ _ _ []) by lia. reflexivity.
      - unfold urows. rewrite (nth_map_lt _ _ _ []) by lia. reflexivity. }
    assert (Hent : forall j x, (1 <= j <= length Psi)%nat -> is_token m x ->
      IZR (ed (nth (idx x) (nth (j - 1) rows []) edflt)) = IZR sU * IZR Lp * QR (row Psi (j - 1)) (idx x) /\
      IZR (ep (nth (idx x) (nth (j - 1) rows []) edflt)) =
        IZR sU * IZR Lp * (QR (row Psi (j - 1)) (idx x) * QR (row (nth (j - 1) U []) (idx q)) (idx x)) /\
      et (nth (idx x) (nth (j - 1) rows []) edflt) = ip x q /\
      (idx x < length (nth (j - 1) rows []))%nat).
    { intros j x Hj Hx. pose proof (idx_lt _ _ Hx) as Hxi. rewrite Hrow by assumption.
      assert (HP : scaled_ok Lp (row Psi (j - 1)) = true) by (apply (forallb_nth _ Psi); [assumption|lia]).
      assert (HU : scaled_ok sU (row (nth (j - 1) U []) (idx q)) = true).
      { rewrite forallb_forall in HsU. apply HsU.
        replace (row (nth (j - 1) U []) (idx q)) with (nth (j - 1) urows []).
        - apply nth_In. lia.
        - unfold urows. rewrite (nth_map_lt _ _ _ []) by lia. reflexivity. }
      assert (L1 : length (row Psi (j - 1)) = (2 ^ m)%nat) by (apply HPsir; lia).
      assert (L2 : length (row (nth (j - 1) U []) (idx q)) = (2 ^ m)%nat) by (apply HUr; lia).
      rewrite entries_nth by (rewrite ?scaled_length, ?tokens_length; lia).
      rewrite entries_length by (rewrite ?scaled_length, ?tokens_length; lia). rewrite tokens_length.
      unfold ed, ep, et. simpl fst. simpl snd.
      rewrite tokens_nth by assumption. rewrite !tok_idx by assumption.
      rewrite !mult_IZR, !scaled_ok_nth by (assumption || lia). unfold QR.
      repeat split; try ring. assumption. }
    set (len := length ctx) in *.
    set (Y := combine (seq 1 len) ctx).
    set (ent := fun jx : nat * token => nth (idx (snd jx)) (nth (fst jx - 1) rows []) edflt).
    assert (HYl : length (seq 1 len) = length ctx) by (rewrite seq_length; reflexivity).
    set (own := nth (idx q) (nth (k - 1) rows []) edflt) in Hall.
    replace (k - 1)%nat with len in Hall by lia.
    pose proof (check_ctx_sound _ _ _ _ _ Hall (map ent Y)) as Hleaf.
    assert (HF : Forall2 (@In qentry) (map ent Y) (map (fun j => nth (j - 1) rows []) (seq 1 len))).
    { apply (Forall2_In_combine _ _ (fun j x => nth (idx x) (nth (j - 1) rows []) edflt) (fun j => nth (j - 1) rows []));
        [assumption|].
      intros j x Hj Hx. apply in_seq in Hj. rewrite Forall_forall in Hctx.
      apply nth_In. destruct (Hent j x ltac:(lia) (Hctx x Hx)) as (_ & _ & _ & E). exact E. }
    specialize (Hleaf HF).
    assert (Hc : 0 < IZR sU * IZR Lp).
    { apply Rmult_lt_0_compat.
      - apply (scaled_ok_pos _ (nth (k - 1) urows [])). apply (forallb_nth _ urows); [assumption|lia].
      - apply (scaled_ok_pos _ (nth (k - 1) Psi [])). apply (forallb_nth _ Psi); [assumption|lia]. }
    destruct (Hent k q Hkn Htq) as (Hd0 & Hp0 & Ht0 & _).
    pose proof (accumulate_sound tol _ Y ent
      (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx)))
      (fun jx => QR (row (nth (fst jx - 1) U []) (idx q)) (idx (snd jx)))
      own (QR (row Psi (k - 1)) (idx q)) (QR (row (nth (k - 1) U []) (idx q)) (idx q)) Hc) as Hacc.
    destruct Hacc as [_ Herr].
    + intros [j x] Hy. pose proof (in_combine_l _ _ _ _ Hy) as Hj. apply in_combine_r in Hy.
      apply in_seq in Hj. rewrite Forall_forall in Hctx.
      destruct (Hent j x ltac:(simpl; lia) (Hctx x Hy)) as (A1 & A2 & _). split; assumption.
    + exact Hd0.
    + exact Hp0.
    + exact Hleaf.
    + unfold h. rewrite pos_table_head_output by (try assumption; lia).
      rewrite seq_S, combine_app_single by (rewrite seq_length; reflexivity).
      rewrite !map_app, !sumR_app. simpl.
      replace (length ctx - 0)%nat with (k - 1)%nat by lia.
      replace (fold_right Nat.min (et own) (map et (map ent Y))) with (target ctx q) in Herr.
      * fold len. fold Y.
        replace (sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx)) * QR (row (nth (fst jx - 1) U []) (idx q)) (idx (snd jx))) Y)
                 + (QR (row Psi (k - 1)) (idx q) * QR (row (nth (k - 1) U []) (idx q)) (idx q) + 0))
          with (sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx)) * QR (row (nth (fst jx - 1) U []) (idx q)) (idx (snd jx))) Y)
                 + QR (row Psi (k - 1)) (idx q) * QR (row (nth (k - 1) U []) (idx q)) (idx q)) by ring.
        replace (sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx))) Y) + (QR (row Psi (k - 1)) (idx q) + 0))
          with (sumR (map (fun jx => QR (row Psi (fst jx - 1)) (idx (snd jx))) Y) + QR (row Psi (k - 1)) (idx q)) by ring.
        exact Herr.
      * rewrite <- fold_min_target. unfold own. rewrite Ht0. rewrite map_map. f_equal.
        unfold Y, ent. rewrite <- (map_combine_snd (fun x => ip x q) (seq 1 len) ctx) by assumption.
        apply map_ext_in. intros [j x] Hy. pose proof (in_combine_l _ _ _ _ Hy) as Hj. apply in_combine_r in Hy.
        apply in_seq in Hj. rewrite Forall_forall in Hctx.
        destruct (Hent j x ltac:(simpl; lia) (Hctx x Hy)) as (_ & _ & E & _). simpl. rewrite E. reflexivity.
Qed.

Lemma error_bound_half t e : t <= 1 / 2 -> error_bound t e -> Rabs e < 1 / 2.
Proof. intros Ht H. apply (error_bound_mono _ (1 / 2)) in H; [|assumption]. destruct H as [[H _]|H]; [lra|exact H]. Qed.

(** What the witness files apply. *)
Definition psolvable_check (m n : nat) (Psi : list (list Q)) (U : list (list (list Q))) (tol : Q) : bool :=
  Nat.eqb (length Psi) n && Qle_bool tol (1 # 2) && positional_check m Psi U tol false.

Definition csolvable_check (m n : nat) (Psi : list (list Q)) (U : list (list (list Q))) (tol : Q) : bool :=
  Nat.eqb (length Psi) n && Qle_bool tol (1 # 2) && positional_check m Psi U tol true.

Theorem positional_psolvable m n Psi U tol : psolvable_check m n Psi U tol = true -> psolvable 1 m n.
Proof.
  unfold psolvable_check. intros H. apply andb_prop in H as [H Hc]. apply andb_prop in H as [Hn Ht].
  apply Nat.eqb_eq in Hn. subst n. exists (pos_table_head m Psi U).
  destruct (positional_sound _ _ _ _ _ Hc (length Psi) (or_introl eq_refl)) as [Hv He].
  split; [assumption|]. intros ctx q Hq Hctx Hl. apply (error_bound_half (Q2R tol)).
  - rewrite <- Q2R_half. apply Qle_bool_Q2R, Ht.
  - apply He; assumption.
Qed.

Theorem positional_csolvable m n Psi U tol : csolvable_check m n Psi U tol = true -> csolvable 1 m n.
Proof.
  unfold csolvable_check. intros H. apply andb_prop in H as [H Hc]. apply andb_prop in H as [Hn Ht].
  apply Nat.eqb_eq in Hn. subst n. exists (pos_table_head m Psi U).
  pose proof (positional_sound _ _ _ _ _ Hc) as Hs. simpl pos_lengths in Hs. split.
  - intros k Hk. apply (Hs k). apply in_seq. lia.
  - intros ctx q Hq Hctx Hl. apply (error_bound_half (Q2R tol)).
    + rewrite <- Q2R_half. apply Qle_bool_Q2R, Ht.
    + apply (Hs (S (length ctx))); [apply in_seq; lia|assumption..|reflexivity].
Qed.

(** ** Exact outputs, to compare the model with the Python one

    [table_outputs m n Phi Psi U] lists the exact output of the table head on
    every sequence of length n over {0,1}^m, in the order of Python's
    [itertools.product(range(2^m), repeat=n)] (the query last, the last
    position varying fastest); [table_outputs_sound] proves each entry equal
    to [output] of KDefs on its sequence. *)

Fixpoint all_seqs (N n : nat) : list (list nat) :=
  match n with
  | O => [[]]
  | S n' => flat_map (fun x => map (cons x) (all_seqs N n')) (seq 0 N)
  end.

Definition qsum (l : list Q) : Q := fold_right Qplus 0%Q l.

(** [Σ_j κ(q,x_j) U[q][x_j] / Σ_j κ(q,x_j)] in Q, q the last index of [s]. *)
Definition table_output (Phi Psi U : list (list Q)) (s : list nat) : Q :=
  let q := last s 0%nat in
  let k := fun x => Qdot (row Phi q) (row Psi x) in
  Qred (qsum (map (fun x => k x * nth x (row U q) 0%Q) s) / qsum (map k s))%Q.

Definition table_outputs (m n : nat) (Phi Psi U : list (list Q)) : list Q :=
  map (table_output Phi Psi U) (all_seqs (2 ^ m) n).

Lemma all_seqs_in N n s : In s (all_seqs N n) -> length s = n /\ Forall (fun x => (x < N)%nat) s.
Proof.
  revert s. induction n as [|n IH]; intros s Hs; simpl in Hs.
  - destruct Hs as [<-|[]]. split; [reflexivity|constructor].
  - apply in_flat_map in Hs as [x [Hx Hs]]. apply in_map_iff in Hs as [s' [<- Hs']].
    apply in_seq in Hx. destruct (IH s' Hs') as [Hl HF]. split; [simpl; lia|]. constructor; [lia|assumption].
Qed.

Lemma Q2R_div_total x y : Q2R (x / y) = Q2R x / Q2R y.
Proof.
  destruct (Qeq_dec y 0) as [Hy|Hy].
  - rewrite (Qeq_eqR _ _ Hy). unfold Qdiv. rewrite Q2R_mult.
    assert (Hi : (/ y == 0)%Q) by (rewrite Hy; reflexivity).
    rewrite (Qeq_eqR _ _ Hi). replace (Q2R 0) with 0 by (unfold Q2R; simpl; ring). unfold Rdiv. rewrite Rinv_0. ring.
  - apply Q2R_div, Hy.
Qed.

Lemma Q2R_qsum {A} (f : A -> Q) l : Q2R (qsum (map f l)) = sumR (map (fun y => Q2R (f y)) l).
Proof.
  induction l; simpl. - unfold Q2R. simpl. field. - rewrite Q2R_plus, IHl. reflexivity.
Qed.

Theorem table_output_sound r m Phi Psi U s :
  table_valid r m Phi Psi U = true -> s <> [] -> Forall (fun x => (x < 2 ^ m)%nat) s ->
  Q2R (table_output Phi Psi U s) =
  output (table_head_r r m Phi Psi U) (map (tok m) (removelast s)) (tok m (last s 0%nat)).
Proof.
  intros Hv Hs HF. rewrite Forall_forall in HF.
  assert (Hq : (last s 0 < 2 ^ m)%nat).
  { apply HF. destruct (exists_last Hs) as [s' [a ->]]. rewrite last_last. apply in_or_app. right. left. reflexivity. }
  rewrite table_head_output.
  - assert (Es : map (tok m) (removelast s) ++ [tok m (last s 0%nat)] = map (tok m) s).
    { rewrite (app_removelast_last 0%nat Hs) at 3. rewrite map_app. reflexivity. }
    rewrite Es, !map_map.
    unfold table_output. rewrite (Qeq_eqR _ _ (Qred_correct _)), Q2R_div_total, !Q2R_qsum.
    rewrite idx_tok by assumption. f_equal.
    + apply sumR_map_ext. intros x Hx. rewrite Q2R_mult, table_kernel by (assumption || apply tok_length).
      rewrite !idx_tok by (assumption || apply HF, Hx). reflexivity.
    + apply sumR_map_ext. intros x Hx. rewrite table_kernel by (assumption || apply tok_length).
      rewrite !idx_tok by (assumption || apply HF, Hx). reflexivity.
  - apply tok_length.
  - apply Forall_forall. intros x Hx. apply in_map_iff in Hx as [y [<- _]]. apply tok_length.
Qed.

Theorem table_outputs_sound r m n Phi Psi U :
  table_valid r m Phi Psi U = true -> (1 <= n)%nat ->
  Forall2 (fun s y => Q2R y = output (table_head_r r m Phi Psi U) (map (tok m) (removelast s)) (tok m (last s 0%nat)))
          (all_seqs (2 ^ m) n) (table_outputs m n Phi Psi U).
Proof.
  intros Hv Hn. unfold table_outputs.
  assert (H : forall s, In s (all_seqs (2 ^ m) n) ->
            Q2R (table_output Phi Psi U s) = output (table_head_r r m Phi Psi U) (map (tok m) (removelast s)) (tok m (last s 0%nat))).
  { intros s Hs. destruct (all_seqs_in _ _ _ Hs) as [Hl HF]. apply table_output_sound; try assumption.
    intros ->. simpl in Hl. lia. }
  induction (all_seqs (2 ^ m) n) as [|s l IH]; simpl; constructor.
  - apply H. left. reflexivity.
  - apply IH. intros; apply H; right; assumption.
Qed.
