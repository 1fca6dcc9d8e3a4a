(** * Paper K, rank one: lengths one and two exactly (K1), length three fails
    for m >= 4 (K3), and with positions at every length n >= 3 (K5); the
    reflective checker of the Python kind [rank-one-infeasible].

    Rank one: [κ(q, x) = φ(q) ψ(x)], and [φ(q) > 0] because [κ(q, q) > 0]
    and [ψ(q) >= 0]; dividing the rows of [KTable.in_pcone] by [φ(q)] leaves
    rows in the unknowns [ψ_j(x)] and [P_j[q, x] = ψ_j(x) U_j(q, x)]
    ([rank_one_sol]).  The paper-and-pencil certificates of
    docs/kernel_rank.three_token_lower_bound.md and
    docs/kernel_rank.position_and_causal.md are combinations of these rows
    ([lra]); the checker [check_rank_one_infeasible] rebuilds the rows of a
    certificate from its tokens and checks the same Motzkin combination as
    [_motzkin_refutes] in solvers/trusted/linear.py, proved sound once
    ([rank_one_infeasible_tokenwise], [rank_one_infeasible_positional]). *)

From Coq Require Import Reals List Lia Lra Bool QArith Qreals.
From AttnProof Require Import KDefs KTable.
Import ListNotations.
Open Scope R_scope.

(** ** Inner products and targets *)

Lemma ip_le_self x q : (ip x q <= ip q q)%nat.
Proof.
  revert q; induction x as [|a x IH]; intros [|b q]; simpl; try lia.
  specialize (IH q); destruct a, b; simpl; lia.
Qed.

Lemma target_repeat q k : target (repeat q k) q = ip q q.
Proof.
  unfold target; induction k as [|k IH]; simpl; [reflexivity|].
  fold (target (repeat q k) q) in *. unfold target in *. rewrite IH. apply Nat.min_id.
Qed.

(** ** K1: rank one solves lengths one and two exactly *)

(** [φ = ψ = 1], [U(q, x) = 2<x, q> − |q|], values one-hot ([KTable.table_head]). *)
Definition k1_head (m : nat) : head 1 :=
  table_head 1 m (fun _ _ => 1) (fun _ _ => 1) (fun q x => 2 * INR (ip x q) - INR (ip q q)).

Lemma k1_kernel m q x : kernel (k1_head m) q x = 1.
Proof. unfold kernel, dot; simpl; ring. Qed.

Lemma k1_valid m : valid m (k1_head m).
Proof.
  split.
  - intros; simpl; lra.
  - intros; rewrite k1_kernel; lra.
Qed.

Theorem k1_exact m :
  exists h : head 1, solves_within 0 m 1 h /\ solves_within 0 m 2 h.
Proof.
  exists (k1_head m); split; split; try apply k1_valid;
    intros ctx q Hq Hc Hn; left; split; try reflexivity;
    rewrite (output_table_valid m) by (apply k1_valid || assumption);
    unfold ratio.
  - destruct ctx; [|discriminate]. simpl map; rewrite !sumR_cons, sumR_nil.
    rewrite k1_kernel; unfold k1_head; rewrite table_head_utable by exact Hq.
    unfold target; simpl fold_right. field.
  - destruct ctx as [|x [|]]; try discriminate. simpl map; rewrite !sumR_cons, sumR_nil.
    inversion Hc as [|? ? Hx]; subst.
    rewrite !k1_kernel; unfold k1_head; rewrite !table_head_utable by assumption.
    unfold target; simpl fold_right. rewrite Nat.min_l by apply ip_le_self.
    field.
Qed.

(** ** Rank one: the rows in [ψ_j(x)] and [P_j[q, x]] *)

(** A solution of the rank-one rows at exact length n over {0,1}^m: [ψ_j >= 0]
    at positions 1..n, and for every sequence [ctx ++ [q]] the strict rows
    with numerators [P q j x] (for [P_j[q, x]]). *)
Definition rank_one_sol (m n : nat) (ps : nat -> token -> R) (P : token -> nat -> token -> R) : Prop :=
  (forall j x, (1 <= j <= n)%nat -> is_token m x -> 0 <= ps j x) /\
  forall ctx q, is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
    psum (P q) ctx q - (INR (target ctx q) - 1/2) * psum ps ctx q > 0 /\
    (INR (target ctx q) + 1/2) * psum ps ctx q - psum (P q) ctx q > 0.

Lemma dot_one u v : dot 1 u v = u 0%nat * v 0%nat.
Proof. unfold dot; simpl; ring. Qed.

Lemma psum_scal c (f : nat -> token -> R) ctx q :
  psum (fun j x => c * f j x) ctx q = c * psum f ctx q.
Proof. unfold psum; apply sumR_map_scal. Qed.

Lemma pos_factor (c a : R) : 0 <= c -> c * a > 0 -> a > 0.
Proof.
  intros Hc H. destruct (Rle_or_lt a 0) as [Ha|Ha]; [|exact Ha].
  exfalso. assert (c * a <= c * 0) by (apply Rmult_le_compat_l; assumption). lra.
Qed.

Theorem psolves_rank_one m n (h : pos_head 1) :
  psolves m n h ->
  rank_one_sol m n (fun j x => ppsi h j x 0%nat) (fun q j x => ppsi h j x 0%nat * putable h q j x).
Proof.
  intro Hs. pose proof (proj1 Hs) as [Hv1 Hv2]. split.
  - intros j x Hj Hx; apply (Hv1 j x 0%nat Hx Hj); lia.
  - intros ctx q Hq Hc Hn.
    destruct (psolves_cone m n h q Hs Hq) as (_ & _ & Hrows).
    destruct (Hrows ctx Hc Hn) as [Hlo Hhi].
    assert (Hphi : 0 <= pphi h n q 0%nat) by (apply (Hv1 1%nat q 0%nat Hq); lia).
    unfold pkernel in Hlo, Hhi.
    assert (E1 : psum (fun j x => dot 1 (pphi h n q) (ppsi h j x)) ctx q
                 = pphi h n q 0%nat * psum (fun j x => ppsi h j x 0%nat) ctx q).
    { rewrite <- psum_scal. unfold psum. apply sumR_map_ext; intros; apply dot_one. }
    assert (E2 : psum (fun j x => dot 1 (pphi h n q) (ppsi h j x) * putable h q j x) ctx q
                 = pphi h n q 0%nat * psum (fun j x => ppsi h j x 0%nat * putable h q j x) ctx q).
    { rewrite <- psum_scal. unfold psum. apply sumR_map_ext; intros; rewrite dot_one; ring. }
    rewrite E1, E2 in *. split; apply (pos_factor (pphi h n q 0%nat)); auto; lra.
Qed.

(** A tokenwise head is the positional head [KTable.head_pos], whose ψ and U
    do not depend on the position. *)
Theorem solves_rank_one m n (h : head 1) :
  solves m n h ->
  rank_one_sol m n (fun _ x => psi h x 0%nat) (fun q _ x => psi h x 0%nat * utable h q x).
Proof. intro Hs. exact (psolves_rank_one m n (head_pos h) (solves_psolves m n h Hs)). Qed.

(** The sums of the first two positions and the rest. *)
Lemma psum_two (f : nat -> token -> R) x1 x2 rest q :
  psum f (x1 :: x2 :: rest) q =
  f 1%nat x1 + (f 2%nat x2 + sumR (map (fun jx => f (fst jx) (snd jx))
                                    (combine (seq 3 (S (length rest))) (rest ++ [q])))).
Proof. reflexivity. Qed.

Lemma target_two x1 x2 rest q :
  target (x1 :: x2 :: rest) q = Nat.min (ip x1 q) (Nat.min (ip x2 q) (target rest q)).
Proof. reflexivity. Qed.

(** ** K3: rank one fails at exact length 3 for every m >= 4 *)

Definition tok_a : token := [true; true; false; false].    (** 1100 *)
Definition tok_b : token := [false; false; true; true].    (** 0011 *)

(** The six rows of docs/kernel_rank.three_token_lower_bound.md, multipliers
    1, 2, 1 per query: for query a they leave [2ψ(b) − 2ψ(a) > 0], for query b
    the reverse. *)
Lemma k3_m4 : ~ solvable 1 4 3.
Proof.
  intros [h Hh].
  destruct (solves_rank_one 4 3 h Hh) as [_ Hrow].
  assert (Ta : is_token 4 tok_a) by reflexivity.
  assert (Tb : is_token 4 tok_b) by reflexivity.
  pose proof (Hrow [tok_a; tok_a] tok_a Ta ltac:(repeat constructor) eq_refl) as [H1 _].
  pose proof (Hrow [tok_a; tok_b] tok_a Ta ltac:(repeat constructor) eq_refl) as [_ H2].
  pose proof (Hrow [tok_b; tok_b] tok_a Ta ltac:(repeat constructor) eq_refl) as [H3 _].
  pose proof (Hrow [tok_b; tok_b] tok_b Tb ltac:(repeat constructor) eq_refl) as [H4 _].
  pose proof (Hrow [tok_b; tok_a] tok_b Tb ltac:(repeat constructor) eq_refl) as [_ H5].
  pose proof (Hrow [tok_a; tok_a] tok_b Tb ltac:(repeat constructor) eq_refl) as [H6 _].
  unfold psum in *; simpl in H1, H2, H3, H4, H5, H6.
  set (pa := psi h tok_a 0%nat) in *. set (pb := psi h tok_b 0%nat) in *.
  set (Paa := pa * utable h tok_a tok_a) in *. set (Pab := pb * utable h tok_a tok_b) in *.
  set (Pbb := pb * utable h tok_b tok_b) in *. set (Pba := pa * utable h tok_b tok_a) in *.
  lra.
Qed.

Theorem k3_lower m : (4 <= m)%nat -> ~ solvable 1 m 3.
Proof. intros Hm Hs. apply k3_m4, (solvable_restrict 1 4 m 3 Hs Hm). Qed.

(** ** K5: with positions, rank one fails at every exact length n >= 3, m >= 4 *)

Definition tok_c : token := [false; true; false; true].    (** 0101 *)
Definition tok_d : token := [true; false; true; false].    (** 1010 *)

(** Positions 1 and 2 vary over {a, b}, positions 3..n hold the query.  Per
    query the four rows lo(aa), hi(ab), hi(ba), lo(bb) (multipliers 1) cancel
    the numerators ([N(aa) + N(bb) = N(ab) + N(ba)]) and the later positions
    ([−3/2 + 1/2 + 1/2 + 1/2 = 0]): query a leaves
    [ψ_1(b) + ψ_2(b) − ψ_1(a) − ψ_2(a) > 0], query b the reverse. *)
Lemma k5_m4 k : ~ psolvable 1 4 (S (S (S k))).
Proof.
  intros [h Hh].
  destruct (psolves_rank_one 4 _ h Hh) as [_ Hrow].
  assert (Ta : is_token 4 tok_c) by reflexivity.
  assert (Tb : is_token 4 tok_d) by reflexivity.
  assert (Fa : Forall (is_token 4) (repeat tok_c k)) by (apply Forall_forall; intros x Hx; apply repeat_spec in Hx; subst; reflexivity).
  assert (Fb : Forall (is_token 4) (repeat tok_d k)) by (apply Forall_forall; intros x Hx; apply repeat_spec in Hx; subst; reflexivity).
  assert (La : forall x1 x2, S (length (x1 :: x2 :: repeat tok_c k)) = S (S (S k)))
    by (intros; simpl; rewrite repeat_length; reflexivity).
  assert (Lb : forall x1 x2, S (length (x1 :: x2 :: repeat tok_d k)) = S (S (S k)))
    by (intros; simpl; rewrite repeat_length; reflexivity).
  pose proof (Hrow (tok_c :: tok_c :: repeat tok_c k) tok_c Ta ltac:(repeat constructor; assumption) (La tok_c tok_c)) as [H1 _].
  pose proof (Hrow (tok_c :: tok_d :: repeat tok_c k) tok_c Ta ltac:(repeat constructor; assumption) (La tok_c tok_d)) as [_ H2].
  pose proof (Hrow (tok_d :: tok_c :: repeat tok_c k) tok_c Ta ltac:(repeat constructor; assumption) (La tok_d tok_c)) as [_ H3].
  pose proof (Hrow (tok_d :: tok_d :: repeat tok_c k) tok_c Ta ltac:(repeat constructor; assumption) (La tok_d tok_d)) as [H4 _].
  pose proof (Hrow (tok_d :: tok_d :: repeat tok_d k) tok_d Tb ltac:(repeat constructor; assumption) (Lb tok_d tok_d)) as [H5 _].
  pose proof (Hrow (tok_d :: tok_c :: repeat tok_d k) tok_d Tb ltac:(repeat constructor; assumption) (Lb tok_d tok_c)) as [_ H6].
  pose proof (Hrow (tok_c :: tok_d :: repeat tok_d k) tok_d Tb ltac:(repeat constructor; assumption) (Lb tok_c tok_d)) as [_ H7].
  pose proof (Hrow (tok_c :: tok_c :: repeat tok_d k) tok_d Tb ltac:(repeat constructor; assumption) (Lb tok_c tok_c)) as [H8 _].
  rewrite !psum_two, !target_two, !target_repeat in *.
  simpl ip in *. simpl Nat.min in *. simpl INR in *.
  set (Ra := sumR (map (fun jx => ppsi h (fst jx) (snd jx) 0%nat)
                     (combine (seq 3 (S (length (repeat tok_c k)))) (repeat tok_c k ++ [tok_c])))) in *.
  set (RPa := sumR (map (fun jx => ppsi h (fst jx) (snd jx) 0%nat * putable h tok_c (fst jx) (snd jx))
                      (combine (seq 3 (S (length (repeat tok_c k)))) (repeat tok_c k ++ [tok_c])))) in *.
  set (Rb := sumR (map (fun jx => ppsi h (fst jx) (snd jx) 0%nat)
                     (combine (seq 3 (S (length (repeat tok_d k)))) (repeat tok_d k ++ [tok_d])))) in *.
  set (RPb := sumR (map (fun jx => ppsi h (fst jx) (snd jx) 0%nat * putable h tok_d (fst jx) (snd jx))
                      (combine (seq 3 (S (length (repeat tok_d k)))) (repeat tok_d k ++ [tok_d])))) in *.
  lra.
Qed.

Theorem k5_lower m n : (4 <= m)%nat -> (3 <= n)%nat -> ~ psolvable 1 m n.
Proof.
  intros Hm Hn Hs.
  destruct n as [|[|[|k]]]; try lia.
  apply (k5_m4 k), (psolvable_restrict 1 4 m _ Hs Hm).
Qed.

(** ** The checker of the kind [rank-one-infeasible] *)

(** The unknowns: [ψ_j(x)] and [P_j[q, x]] (j = 0 for a tokenwise head). *)
Inductive key := Kpsi (j : nat) (x : token) | KP (j : nat) (q x : token).

Definition key_dec : forall a b : key, {a = b} + {a <> b}.
Proof. decide equality; try apply token_dec; apply Nat.eq_dec. Defined.

(** A linear form: a list of (unknown, coefficient), repetitions added. *)
Definition lform := list (key * Q).

Inductive side := lo | hi.

Definition Qnat (n : nat) : Q := inject_Z (Z.of_nat n).

(** [lo: Σ_j P_j − (T − 1/2) Σ_j ψ_j > 0], [hi: (T + 1/2) Σ_j ψ_j − Σ_j P_j > 0]:
    the coefficient of each [P_j] and of each [ψ_j]. *)
Definition coefP (s : side) : Q := match s with lo => 1%Q | hi => (-1)%Q end.
Definition coefpsi (s : side) (T : nat) : Q :=
  match s with lo => ((1 # 2) - Qnat T)%Q | hi => (Qnat T + (1 # 2))%Q end.

Definition kpos (positions : bool) (j : nat) : nat := if positions then j else 0%nat.

(** The strict row of one side of the sequence [ctx ++ [q]], rebuilt from its
    tokens; its target by [KDefs.target].  Python: [_ratio_row]. *)
Definition row_terms (positions : bool) (s : side) (ctx : list token) (q : token) : lform :=
  flat_map (fun jx => [(KP (kpos positions (fst jx)) q (snd jx), coefP s);
                       (Kpsi (kpos positions (fst jx)) (snd jx), coefpsi s (target ctx q))])
           (combine (seq 1 (S (length ctx))) (ctx ++ [q])).

Definition scale (y : Q) (f : lform) : lform := map (fun kc => (fst kc, (y * snd kc)%Q)) f.

(** A certificate: m, positions, rows [(side, multiplier, sequence with the
    query last)], nonnegative rows [(position, token, multiplier)] for
    [ψ_position(token) >= 0].  Python: the data of [rank-one-infeasible]. *)
Record rcert := {
  rc_m : nat;
  rc_positions : bool;
  rc_rows : list (side * Q * list token);
  rc_nonneg : list (nat * token * Q)
}.

(** The rows' common length n (that of the first row; the checker asks all
    to have it). *)
Definition rc_length (c : rcert) : nat :=
  match rc_rows c with (_, _, sq) :: _ => length sq | [] => 0%nat end.

Definition row_of (positions : bool) (r : side * Q * list token) : lform :=
  match r with (s, y, sq) => scale y (row_terms positions s (removelast sq) (last sq [])) end.

Definition nonneg_of (e : nat * token * Q) : lform :=
  match e with (j, x, y) => [(Kpsi j x, y)] end.

(** The combination [Σ_i y_i row_i], as one list of terms. *)
Definition combination (c : rcert) : lform :=
  flat_map (row_of (rc_positions c)) (rc_rows c) ++ flat_map nonneg_of (rc_nonneg c).

(** The coefficient of an unknown in a form. *)
Definition coef (f : lform) (k : key) : Q :=
  fold_right (fun kc acc => Qred ((if key_dec k (fst kc) then snd kc else 0) + acc)%Q) 0%Q f.

Definition keys (f : lform) : list key := nodup key_dec (map fst f).

Definition row_ok (m n : nat) (r : side * Q * list token) : bool :=
  match r with (_, y, sq) => (length sq =? n)%nat && forallb (fun x => length x =? m)%nat sq && Qle_bool 0%Q y end.

Definition nonneg_ok (m n : nat) (positions : bool) (e : nat * token * Q) : bool :=
  match e with (j, x, y) =>
    (length x =? m)%nat && (if positions then (1 <=? j)%nat && (j <=? n)%nat else (j =? 0)%nat) && Qle_bool 0%Q y
  end.

(** Every multiplier [>= 0], every sequence of length n >= 1 over {0,1}^m, a
    row with a positive multiplier (strictness), and the combination leaves
    every unknown the coefficient 0, i.e. [0 > 0].  Python: [_motzkin_refutes]
    (every right-hand side here is 0). *)
Definition check_rank_one_infeasible (c : rcert) : bool :=
  let n := rc_length c in
  (1 <=? n)%nat &&
  forallb (row_ok (rc_m c) n) (rc_rows c) &&
  forallb (nonneg_ok (rc_m c) n (rc_positions c)) (rc_nonneg c) &&
  existsb (fun r => match r with (_, y, _) => negb (Qeq_bool y 0%Q) end) (rc_rows c) &&
  forallb (fun k => Qeq_bool (coef (combination c) k) 0%Q) (keys (combination c)).

(** *** Soundness *)

Section Eval.
Variable val : key -> R.

Definition eval (f : lform) : R := sumR (map (fun kc => Q2R (snd kc) * val (fst kc)) f).

Lemma eval_app f g : eval (f ++ g) = eval f + eval g.
Proof. unfold eval; rewrite map_app; apply sumR_app. Qed.

Lemma eval_flat_map {A} (g : A -> lform) l : eval (flat_map g l) = sumR (map (fun a => eval (g a)) l).
Proof.
  induction l as [|a l IH]; [reflexivity|].
  simpl flat_map; rewrite eval_app, IH; reflexivity.
Qed.

Lemma eval_scale y f : eval (scale y f) = Q2R y * eval f.
Proof.
  unfold eval, scale; rewrite map_map, <- sumR_map_scal; apply sumR_map_ext; intros; simpl.
  rewrite Q2R_mult; ring.
Qed.

Lemma Q2R_Qred q : Q2R (Qred q) = Q2R q.
Proof. apply Qeq_eqR, Qred_correct. Qed.

Lemma coef_cons k0 c f k :
  coef ((k0, c) :: f) k = Qred ((if key_dec k k0 then c else 0) + coef f k)%Q.
Proof. reflexivity. Qed.

(** A form is the sum over its unknowns of coefficient times value. *)
Lemma eval_coef f K :
  NoDup K -> (forall k, In k (map fst f) -> In k K) ->
  eval f = sumR (map (fun k => Q2R (coef f k) * val k) K).
Proof.
  intros HK; induction f as [|[k0 c] f IH]; intro Hin.
  - unfold eval; simpl. symmetry. rewrite (sumR_map_ext _ (fun _ => 0)); [apply sumR_map_zero|].
    intros; rewrite RMicromega.Q2R_0; ring.
  - unfold eval in *; cbn [map]; rewrite sumR_cons, IH by (intros; apply Hin; right; assumption).
    transitivity (sumR (map (fun k => (Q2R c * val k) * (if key_dec k k0 then 1 else 0)) K)
                  + sumR (map (fun k => Q2R (coef f k) * val k) K)).
    + rewrite (sumR_onehot key_dec K (fun k => Q2R c * val k) k0 HK); [reflexivity|].
      apply Hin; left; reflexivity.
    + rewrite <- sumR_map_plus. apply sumR_map_ext; intros k _.
      rewrite coef_cons, Q2R_Qred, Q2R_plus. destruct (key_dec k k0); [ring|].
      rewrite RMicromega.Q2R_0; ring.
Qed.

Lemma eval_zero f :
  forallb (fun k => Qeq_bool (coef f k) 0%Q) (keys f) = true -> eval f = 0.
Proof.
  intro H. rewrite (eval_coef f (keys f)).
  - rewrite (sumR_map_ext _ (fun _ => 0)); [apply sumR_map_zero|].
    intros k Hk. rewrite forallb_forall in H. apply H, RMicromega.Qeq_true in Hk.
    rewrite Hk, RMicromega.Q2R_0; ring.
  - apply NoDup_nodup.
  - intros k Hk; apply nodup_In, Hk.
Qed.

Lemma sumR_pos_ex {A} (f : A -> R) l :
  (forall x, In x l -> 0 <= f x) -> (exists a, In a l /\ 0 < f a) -> 0 < sumR (map f l).
Proof. intros H (a & Ha & Hf); apply (sumR_pos f l a); assumption. Qed.

(** Soundness, abstractly: no values of the unknowns make every row of a
    passing certificate > 0 and every listed [ψ] >= 0 (the combination would
    be both 0 and > 0). *)
Lemma check_sound_val c :
  check_rank_one_infeasible c = true ->
  (forall r, In r (rc_rows c) -> 0 < eval (match r with (s, _, sq) =>
                                              row_terms (rc_positions c) s (removelast sq) (last sq []) end)) ->
  (forall e, In e (rc_nonneg c) -> 0 <= eval (match e with (j, x, _) => [(Kpsi j x, 1%Q)] end)) ->
  False.
Proof.
  unfold check_rank_one_infeasible. intros Hc Hrows Hnn.
  apply andb_prop in Hc as [Hc Hzero]. apply andb_prop in Hc as [Hc Hex].
  apply andb_prop in Hc as [Hc Hnn_ok]. apply andb_prop in Hc as [_ Hrow_ok].
  apply eval_zero in Hzero. unfold combination in Hzero.
  rewrite eval_app, !eval_flat_map in Hzero.
  assert (A : 0 < sumR (map (fun r => eval (row_of (rc_positions c) r)) (rc_rows c))).
  { apply sumR_pos_ex.
    - intros [[s y] sq] Hr. unfold row_of; rewrite eval_scale.
      rewrite forallb_forall in Hrow_ok. specialize (Hrow_ok _ Hr); simpl in Hrow_ok.
      apply andb_prop in Hrow_ok as [_ Hy]. apply Qle_bool_imp_le, Qle_Rle in Hy.
      rewrite RMicromega.Q2R_0 in Hy. specialize (Hrows _ Hr); simpl in Hrows.
      apply Rmult_le_pos; lra.
    - apply existsb_exists in Hex as ([[s y] sq] & Hr & Hy).
      exists (s, y, sq); split; [exact Hr|].
      unfold row_of; rewrite eval_scale.
      rewrite forallb_forall in Hrow_ok. specialize (Hrow_ok _ Hr); simpl in Hrow_ok.
      apply andb_prop in Hrow_ok as [_ Hy0]. apply Qle_bool_imp_le, Qle_Rle in Hy0.
      rewrite RMicromega.Q2R_0 in Hy0.
      assert (Q2R y <> 0).
      { intro E. apply negb_true_iff, RMicromega.Qeq_false in Hy. rewrite RMicromega.Q2R_0 in Hy. contradiction. }
      specialize (Hrows _ Hr); simpl in Hrows.
      apply Rmult_lt_0_compat; lra. }
  assert (B : 0 <= sumR (map (fun e => eval (nonneg_of e)) (rc_nonneg c))).
  { apply sumR_nonneg. intros [[j x] y] He.
    rewrite forallb_forall in Hnn_ok. specialize (Hnn_ok _ He); simpl in Hnn_ok.
    apply andb_prop in Hnn_ok as [_ Hy]. apply Qle_bool_imp_le, Qle_Rle in Hy.
    rewrite RMicromega.Q2R_0 in Hy. specialize (Hnn _ He). unfold eval in Hnn |- *.
    cbn [map fst snd nonneg_of] in Hnn |- *. rewrite sumR_cons, sumR_nil in Hnn |- *.
    rewrite RMicromega.Q2R_1 in Hnn. rewrite Rplus_0_r. apply Rmult_le_pos; lra. }
  lra.
Qed.

End Eval.

(** *** The rows of a solution evaluate > 0 *)

Lemma eval_row_terms val positions s ctx q :
  eval val (row_terms positions s ctx q) =
  Q2R (coefP s) * psum (fun j x => val (KP (kpos positions j) q x)) ctx q
  + Q2R (coefpsi s (target ctx q)) * psum (fun j x => val (Kpsi (kpos positions j) x)) ctx q.
Proof.
  unfold row_terms; rewrite eval_flat_map. unfold psum.
  rewrite <- !sumR_map_scal, <- sumR_map_plus. apply sumR_map_ext; intros.
  unfold eval; simpl; ring.
Qed.

Lemma Q2R_Qnat n : Q2R (Qnat n) = INR n.
Proof. unfold Qnat, Q2R; simpl. rewrite INR_IZR_INZ. field. Qed.

Lemma Q2R_half : Q2R (1 # 2) = 1/2.
Proof. unfold Q2R; simpl. field. Qed.

Lemma Q2R_m1 : Q2R (-1) = -1.
Proof. unfold Q2R; simpl. field. Qed.

Lemma row_pos val positions s ctx q :
  psum (fun j x => val (KP (kpos positions j) q x)) ctx q
    - (INR (target ctx q) - 1/2) * psum (fun j x => val (Kpsi (kpos positions j) x)) ctx q > 0 ->
  (INR (target ctx q) + 1/2) * psum (fun j x => val (Kpsi (kpos positions j) x)) ctx q
    - psum (fun j x => val (KP (kpos positions j) q x)) ctx q > 0 ->
  0 < eval val (row_terms positions s ctx q).
Proof.
  intros Hlo Hhi. rewrite eval_row_terms.
  destruct s; unfold coefP, coefpsi.
  - rewrite Q2R_minus, Q2R_half, Q2R_Qnat, RMicromega.Q2R_1. lra.
  - rewrite Q2R_plus, Q2R_half, Q2R_Qnat, Q2R_m1. lra.
Qed.

(** A row's sequence, checked by [row_ok], is a context and a query. *)
Lemma row_ok_split m n s y sq :
  (1 <= n)%nat -> row_ok m n (s, y, sq) = true ->
  sq = removelast sq ++ [last sq []] /\ is_token m (last sq []) /\
  Forall (is_token m) (removelast sq) /\ S (length (removelast sq)) = n.
Proof.
  intros Hn H. simpl in H. apply andb_prop in H as [H _]. apply andb_prop in H as [Hl Ht].
  apply Nat.eqb_eq in Hl. rewrite forallb_forall in Ht.
  assert (Hne : sq <> []) by (intros ->; simpl in Hl; lia).
  pose proof (app_removelast_last [] Hne) as E.
  assert (Hall : forall x, In x sq -> is_token m x) by (intros x Hx; apply Nat.eqb_eq, Ht, Hx).
  split; [exact E|split; [|split]].
  - apply Hall. rewrite E at 2. apply in_or_app; right; left; reflexivity.
  - apply Forall_forall; intros x Hx; apply Hall. rewrite E. apply in_or_app; left; exact Hx.
  - rewrite E in Hl. rewrite app_length, Nat.add_1_r in Hl. exact Hl.
Qed.

Lemma check_length c : check_rank_one_infeasible c = true -> (1 <= rc_length c)%nat.
Proof.
  unfold check_rank_one_infeasible; intro H.
  repeat (apply andb_prop in H as [H _]). apply Nat.leb_le, H.
Qed.

Lemma check_rows c : check_rank_one_infeasible c = true -> forallb (row_ok (rc_m c) (rc_length c)) (rc_rows c) = true.
Proof.
  unfold check_rank_one_infeasible; intro H.
  repeat (apply andb_prop in H as [H ?]). assumption.
Qed.

Lemma check_nonneg c : check_rank_one_infeasible c = true ->
  forallb (nonneg_ok (rc_m c) (rc_length c) (rc_positions c)) (rc_nonneg c) = true.
Proof.
  unfold check_rank_one_infeasible; intro H.
  repeat (apply andb_prop in H as [H ?]). assumption.
Qed.

(** The interpretation of the unknowns by a rank-one solution. *)
Definition val_of (ps : nat -> token -> R) (P : token -> nat -> token -> R) (k : key) : R :=
  match k with Kpsi j x => ps j x | KP j q x => P q j x end.

Lemma check_sound_sol c ps P :
  check_rank_one_infeasible c = true ->
  rank_one_sol (rc_m c) (rc_length c) ps P ->
  (rc_positions c = false -> forall j j' x q, ps j x = ps j' x /\ P q j x = P q j' x) ->
  False.
Proof.
  intros Hc [Hnn Hrow] Hind.
  pose proof (check_length c Hc) as Hn.
  apply (check_sound_val (val_of ps P) c Hc).
  - intros [[s y] sq] Hr.
    pose proof (check_rows c Hc) as Hok. rewrite forallb_forall in Hok.
    destruct (row_ok_split _ _ s y sq Hn (Hok _ Hr)) as (_ & Hq & Hctx & Hlen).
    destruct (Hrow _ _ Hq Hctx Hlen) as [Hlo Hhi].
    apply row_pos.
    + destruct (rc_positions c) eqn:Ep; [exact Hlo|].
      unfold kpos, val_of, psum in *.
      rewrite (sumR_map_ext (fun jx => P (last sq []) 0%nat (snd jx)) (fun jx => P (last sq []) (fst jx) (snd jx)))
        by (intros; apply (proj2 (Hind eq_refl _ _ _ _))).
      rewrite (sumR_map_ext (fun jx => ps 0%nat (snd jx)) (fun jx => ps (fst jx) (snd jx)))
        by (intros; apply (proj1 (Hind eq_refl _ _ _ (last sq [])))).
      exact Hlo.
    + destruct (rc_positions c) eqn:Ep; [exact Hhi|].
      unfold kpos, val_of, psum in *.
      rewrite (sumR_map_ext (fun jx => P (last sq []) 0%nat (snd jx)) (fun jx => P (last sq []) (fst jx) (snd jx)))
        by (intros; apply (proj2 (Hind eq_refl _ _ _ _))).
      rewrite (sumR_map_ext (fun jx => ps 0%nat (snd jx)) (fun jx => ps (fst jx) (snd jx)))
        by (intros; apply (proj1 (Hind eq_refl _ _ _ (last sq [])))).
      exact Hhi.
  - intros [[j x] y] He.
    pose proof (check_nonneg c Hc) as Hok. rewrite forallb_forall in Hok.
    specialize (Hok _ He); cbv beta iota delta [nonneg_ok] in Hok.
    apply andb_prop in Hok as [Hok _]. apply andb_prop in Hok as [Hx Hj].
    apply Nat.eqb_eq in Hx.
    unfold eval; simpl. rewrite RMicromega.Q2R_1, Rplus_0_r, Rmult_1_l.
    destruct (rc_positions c) eqn:Ep.
    + apply andb_prop in Hj as [H1 H2]. apply Nat.leb_le in H1, H2. apply Hnn; auto.
    + apply Nat.eqb_eq in Hj; subst j.
      rewrite (proj1 (Hind eq_refl 0%nat 1%nat x x)). apply Hnn; auto; lia.
Qed.

(** Soundness: a certificate that passes refutes every m' >= m. *)
Theorem check_rank_one_infeasible_sound c :
  check_rank_one_infeasible c = true ->
  forall m', (rc_m c <= m')%nat ->
  if rc_positions c then ~ psolvable 1 m' (rc_length c) else ~ solvable 1 m' (rc_length c).
Proof.
  intros Hc m' Hm.
  destruct (rc_positions c) eqn:Ep; intro Hs.
  - destruct (psolvable_restrict 1 (rc_m c) m' _ Hs Hm) as [h Hh].
    apply (check_sound_sol c _ _ Hc (psolves_rank_one _ _ h Hh)).
    intro E; rewrite Ep in E; discriminate.
  - destruct (solvable_restrict 1 (rc_m c) m' _ Hs Hm) as [h Hh].
    apply (check_sound_sol c _ _ Hc (solves_rank_one _ _ h Hh)).
    intros _ j j' x q; split; reflexivity.
Qed.

(** The forms an exported certificate applies. *)
Corollary rank_one_infeasible_tokenwise (c : rcert) (M N : nat) :
  check_rank_one_infeasible c = true -> rc_positions c = false -> rc_m c = M -> rc_length c = N ->
  forall m, (M <= m)%nat -> ~ solvable 1 m N.
Proof.
  intros Hc Ep <- <- m Hm. pose proof (check_rank_one_infeasible_sound c Hc m Hm) as H.
  rewrite Ep in H; exact H.
Qed.

Corollary rank_one_infeasible_positional (c : rcert) (M N : nat) :
  check_rank_one_infeasible c = true -> rc_positions c = true -> rc_m c = M -> rc_length c = N ->
  forall m, (M <= m)%nat -> ~ psolvable 1 m N.
Proof.
  intros Hc Ep <- <- m Hm. pose proof (check_rank_one_infeasible_sound c Hc m Hm) as H.
  rewrite Ep in H; exact H.
Qed.

(** The every-prefix reading ("final causal query", every prefix scored) has
    the final position's rows, so K5 holds for it too. *)
Corollary k5_lower_causal m n : (4 <= m)%nat -> (3 <= n)%nat -> ~ csolvable 1 m n.
Proof. intros Hm Hn Hc. apply (k5_lower m n Hm Hn), csolvable_psolvable; [lia | exact Hc]. Qed.
