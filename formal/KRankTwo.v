(** * Feature rank two through query cones (docs/kernel_rank.rank_two.md).

    Lemma 1 (the rows of a solving head), Lemma 4 (a score gap of two),
    Lemma 2 (middles: the 2-D cone lemma), Lemma 3 (betweenness), and the
    boolean checker of the certificate kind [rank-two-betweenness]
    (solvers/trusted/cones.py) with its soundness theorem
    [check_betweenness_sound]; then [rank_two_fails] from the m = 5
    certificate (ten exclusions on eight queries). *)

From Coq Require Import Reals List Lra Lia Bool Arith QArith Qreals.
From Coq Require String Ascii.
From AttnProof Require Import KDefs.
Import ListNotations.
Open Scope R_scope.

(** ** Finite sums *)

Lemma sumR_app l1 l2 : sumR (l1 ++ l2) = sumR l1 + sumR l2.
Proof. induction l1 as [|x l IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma sumR_map_plus {A} (f g : A -> R) l :
  sumR (map (fun x => f x + g x) l) = sumR (map f l) + sumR (map g l).
Proof. induction l as [|x l IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma sumR_map_scal {A} c (f : A -> R) l :
  sumR (map (fun x => c * f x) l) = c * sumR (map f l).
Proof. induction l as [|x l IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma sumR_map_ext {A} (f g : A -> R) l :
  (forall x, In x l -> f x = g x) -> sumR (map f l) = sumR (map g l).
Proof.
  intros E; induction l as [|x l IH]; simpl; [reflexivity|].
  rewrite (E x (or_introl eq_refl)), IH; [reflexivity|].
  intros y Hy; apply E; now right.
Qed.

Lemma sumR_map_zero {A} (l : list A) : sumR (map (fun _ => 0) l) = 0.
Proof. induction l as [|x l IH]; simpl; [reflexivity | rewrite IH; ring]. Qed.

Lemma sumR_nonneg {A} (f : A -> R) l :
  (forall x, In x l -> 0 <= f x) -> 0 <= sumR (map f l).
Proof.
  intros H; induction l as [|x l IH]; simpl; [lra|].
  assert (0 <= f x) by (apply H; now left).
  assert (0 <= sumR (map f l)) by (apply IH; intros y Hy; apply H; now right).
  lra.
Qed.

Lemma sumR_pos {A} (f : A -> R) l :
  (forall x, In x l -> 0 <= f x) -> (exists x, In x l /\ 0 < f x) -> 0 < sumR (map f l).
Proof.
  intros H [y [Hy Hp]]; induction l as [|x l IH]; simpl; [destruct Hy|].
  assert (0 <= f x) by (apply H; now left).
  assert (0 <= sumR (map f l)) by (apply sumR_nonneg; intros z Hz; apply H; now right).
  destruct Hy as [<-|Hy]; [lra|].
  assert (0 < sumR (map f l)) by (apply IH; [intros z Hz; apply H; now right | exact Hy]).
  lra.
Qed.

Lemma sumR_concat_map {A B} (f : A -> list B) (g : B -> R) l :
  sumR (map g (concat (map f l))) = sumR (map (fun x => sumR (map g (f x))) l).
Proof.
  induction l as [|x l IH]; simpl; [reflexivity|].
  rewrite map_app, sumR_app, IH; reflexivity.
Qed.

(** ** Lemma 1: the rows of a solving head (the readout table)

    On [X = ctx ++ [q]] the output is [Σ_j κ(q,x_j) U(q,x_j) / Σ_j κ(q,x_j)]
    with the readout table [U(q,x) = <a(q), v(x)> + b(q)]; with [k = κ(q,·)]
    and [P = k U(q,·)] the error bound is the two strict rows lo and hi. *)

Definition readout {r} (h : head r) (q x : token) : R :=
  dot (vdim h) (ra h q) (value h x) + rb h q.

Lemma dot_div r u v d : dot r u (fun k => v k / d) = dot r u v / d.
Proof.
  unfold dot, Rdiv.
  rewrite (Rmult_comm _ (/ d)), <- sumR_map_scal.
  apply sumR_map_ext; intros; ring.
Qed.

Lemma dot_scal r u c v : dot r u (fun k => c * v k) = c * dot r u v.
Proof.
  unfold dot; rewrite <- sumR_map_scal; apply sumR_map_ext; intros; ring.
Qed.

Lemma dot_sum {A} r u (g : A -> nat -> R) l :
  dot r u (fun k => sumR (map (fun x => g x k) l)) = sumR (map (fun x => dot r u (g x)) l).
Proof.
  induction l as [|x l IH]; simpl.
  - unfold dot; transitivity (sumR (map (fun _ : nat => 0) (seq 0 r))).
    + apply sumR_map_ext; intros; simpl; ring.
    + apply sumR_map_zero.
  - rewrite <- IH; unfold dot; rewrite <- sumR_map_plus; apply sumR_map_ext; intros; ring.
Qed.

Lemma output_table {r} (h : head r) ctx q :
  output h ctx q =
  sumR (map (fun x => kernel h q x * readout h q x) (ctx ++ [q]))
  / sumR (map (kernel h q) (ctx ++ [q]))
  \/ sumR (map (kernel h q) (ctx ++ [q])) = 0.
Proof.
  set (X := ctx ++ [q]).
  destruct (Req_dec (sumR (map (kernel h q) X)) 0) as [E|E]; [now right|left].
  unfold output; fold X.
  rewrite dot_div, dot_sum.
  rewrite (sumR_map_ext (fun x => dot (vdim h) (ra h q) (fun k => kernel h q x * value h x k))
                        (fun x => kernel h q x * dot (vdim h) (ra h q) (value h x)))
    by (intros; apply dot_scal).
  unfold readout.
  rewrite (sumR_map_ext (fun x => kernel h q x * (dot (vdim h) (ra h q) (value h x) + rb h q))
                        (fun x => kernel h q x * dot (vdim h) (ra h q) (value h x)
                                  + rb h q * kernel h q x))
    by (intros; ring).
  rewrite sumR_map_plus, sumR_map_scal.
  field; exact E.
Qed.

Lemma dot_nonneg r u v :
  (forall i, (i < r)%nat -> 0 <= u i /\ 0 <= v i) -> 0 <= dot r u v.
Proof.
  intros H; unfold dot; apply sumR_nonneg; intros i Hi.
  apply in_seq in Hi; destruct (H i) as [H1 H2]; [lia|].
  now apply Rmult_le_pos.
Qed.

Lemma kernel_nonneg {r} m (h : head r) q x :
  valid m h -> is_token m q -> is_token m x -> 0 <= kernel h q x.
Proof.
  intros [Hv _] Hq Hx; unfold kernel; apply dot_nonneg; intros i Hi.
  split; [apply (Hv q i Hq Hi) | apply (Hv x i Hx Hi)].
Qed.

(** The two rows of one sequence [X] with target [T], in [(k, P)]. *)
Definition lo_val (k P : token -> R) (X : list token) (T : nat) : R :=
  sumR (map P X) - (INR T - 1/2) * sumR (map k X).
Definition hi_val (k P : token -> R) (X : list token) (T : nat) : R :=
  (INR T + 1/2) * sumR (map k X) - sumR (map P X).

Definition kernel_P {r} (h : head r) (q x : token) : R := kernel h q x * readout h q x.

Lemma solves_rows {r} m n (h : head r) ctx q :
  solves m n h -> is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
  0 < lo_val (kernel h q) (kernel_P h q) (ctx ++ [q]) (target ctx q) /\
  0 < hi_val (kernel h q) (kernel_P h q) (ctx ++ [q]) (target ctx q).
Proof.
  intros [Hv Hs] Hq Hc Hn.
  specialize (Hs ctx q Hq Hc Hn).
  set (X := ctx ++ [q]) in *.
  assert (Hd : 0 < sumR (map (kernel h q) X)).
  { apply sumR_pos.
    - intros x Hx; apply (kernel_nonneg m h q x Hv Hq).
      unfold X in Hx; apply in_app_or in Hx; destruct Hx as [Hx|[<-|[]]]; [|exact Hq].
      rewrite Forall_forall in Hc; now apply Hc.
    - exists q; split; [unfold X; apply in_or_app; right; now left | apply (proj2 Hv q Hq)]. }
  destruct (output_table h ctx q) as [E|E]; fold X in E; [|lra].
  rewrite E in Hs; clear E.
  unfold lo_val, hi_val, kernel_P.
  set (num := sumR (map (fun x => kernel h q x * readout h q x) X)) in *.
  set (den := sumR (map (kernel h q) X)) in *.
  set (T := INR (target ctx q)) in *.
  apply Rabs_def2 in Hs; destruct Hs as [H1 H2].
  set (y := num / den) in *.
  assert (Ey : num = y * den) by (unfold y; field; lra).
  rewrite Ey; split.
  - replace (y * den - (T - 1 / 2) * den) with ((y - T + 1/2) * den) by ring.
    apply Rmult_lt_0_compat; lra.
  - replace ((T + 1 / 2) * den - y * den) with ((T + 1/2 - y) * den) by ring.
    apply Rmult_lt_0_compat; lra.
Qed.

(** ** Lemma 4: a score gap of two (any rank)

    For a query q and tokens u, v with [<v,q> − <u,q> = 2], every solving
    head has [κ(q,u) > κ(q,v)]: the rows lo (u,u,q) ×1, hi (u,v,q) ×2 and
    lo (v,v,q) ×1 add to [2κ(q,u) − 2κ(q,v) > 0]. *)

Lemma ip_le_self x q : (ip x q <= ip q q)%nat.
Proof.
  revert x; induction q as [|b q IH]; intros [|a x]; simpl; try lia.
  specialize (IH x); destruct a, b; simpl; lia.
Qed.

Lemma score_gap_two {r} m (h : head r) q u v :
  solves m 3 h -> is_token m q -> is_token m u -> is_token m v ->
  ip v q = (ip u q + 2)%nat -> kernel h q v < kernel h q u.
Proof.
  intros Hs Hq Hu Hv Hg.
  assert (Hvq := ip_le_self v q).
  assert (T1 : target [u; u] q = ip u q) by (unfold target; simpl; lia).
  assert (T2 : target [u; v] q = ip u q) by (unfold target; simpl; lia).
  assert (T3 : target [v; v] q = (ip u q + 2)%nat) by (unfold target; simpl; lia).
  destruct (solves_rows m 3 h [u; u] q) as [L1 _]; auto.
  destruct (solves_rows m 3 h [u; v] q) as [_ H2]; auto.
  destruct (solves_rows m 3 h [v; v] q) as [L3 _]; auto.
  rewrite T1 in L1; rewrite T2 in H2; rewrite T3 in L3.
  unfold lo_val, hi_val in *; simpl in *.
  rewrite plus_INR in L3; simpl in L3.
  set (s := INR (ip u q)) in *.
  set (ku := kernel h q u) in *; set (kv := kernel h q v) in *; set (kq := kernel h q q) in *.
  set (pu := kernel_P h q u) in *; set (pv := kernel_P h q v) in *; set (pq := kernel_P h q q) in *.
  lra.
Qed.

(** ** Lemma 2: middles (rank two)

    In rank two [κ(q,x) = φ₀(q)ψ₀(x) + φ₁(q)ψ₁(x)] with [φ(q)] in the closed
    quarter-plane and nonzero ([κ(q,q) > 0]).  The real key
    [t(q) = φ₁(q) / (φ₀(q) + φ₁(q))] is monotone in the angle of [φ(q)]; if
    [t(a)] lies in the closed interval spanned by [t(b)] and [t(c)], then
    [φ(a) = α φ(b) + β φ(c)] with [α, β ≥ 0], hence
    [κ(a,·) = α κ(b,·) + β κ(c,·)]. *)

Lemma kernel2 (h : head 2) q x :
  kernel h q x = phi h q 0 * psi h x 0 + phi h q 1 * psi h x 1.
Proof. unfold kernel, dot; simpl; ring. Qed.

Definition key (h : head 2) (q : token) : R := phi h q 1 / (phi h q 0 + phi h q 1).

Lemma phi_nonneg m (h : head 2) q :
  valid m h -> is_token m q -> 0 <= phi h q 0 /\ 0 <= phi h q 1.
Proof.
  intros [Hv _] Hq; split; [apply (Hv q 0%nat Hq) | apply (Hv q 1%nat Hq)]; lia.
Qed.

Lemma phi_sum_pos m (h : head 2) q :
  valid m h -> is_token m q -> 0 < phi h q 0 + phi h q 1.
Proof.
  intros Hv Hq.
  destruct (phi_nonneg m h q Hv Hq) as [H0 H1].
  assert (Hk := proj2 Hv q Hq); rewrite kernel2 in Hk.
  destruct (Rle_lt_or_eq_dec 0 (phi h q 0) H0) as [P|P]; [lra|].
  destruct (Rle_lt_or_eq_dec 0 (phi h q 1) H1) as [P'|P']; [lra|].
  rewrite <- P, <- P' in Hk; lra.
Qed.

Lemma div_neg a b : a < 0 -> 0 < b -> a / b < 0.
Proof. intros; unfold Rdiv; assert (0 < / b) by (apply Rinv_0_lt_compat; lra); nra. Qed.

(** The 2-D cone lemma. *)
Lemma cone2 p0 p1 s0 s1 w0 w1 :
  0 <= p0 -> 0 <= p1 -> 0 <= s0 -> 0 <= s1 -> 0 <= w0 -> 0 <= w1 ->
  0 < p0 + p1 -> 0 < s0 + s1 -> 0 < w0 + w1 ->
  p1 / (p0 + p1) <= s1 / (s0 + s1) -> s1 / (s0 + s1) <= w1 / (w0 + w1) ->
  exists al be, 0 <= al /\ 0 <= be /\ s0 = al * p0 + be * w0 /\ s1 = al * p1 + be * w1.
Proof.
  intros Hp0 Hp1 Hs0 Hs1 Hw0 Hw1 Hp Hs Hw L1 L2.
  (* cross products *)
  set (xps := p0 * s1 - p1 * s0). set (xsw := s0 * w1 - s1 * w0). set (d := p0 * w1 - p1 * w0).
  assert (E1 : s1 / (s0 + s1) - p1 / (p0 + p1) = xps / ((p0 + p1) * (s0 + s1)))
    by (unfold xps; field; lra).
  assert (E2 : w1 / (w0 + w1) - s1 / (s0 + s1) = xsw / ((s0 + s1) * (w0 + w1)))
    by (unfold xsw; field; lra).
  assert (Xps : 0 <= xps).
  { destruct (Rle_or_lt 0 xps) as [?|N]; [assumption|].
    assert (xps / ((p0 + p1) * (s0 + s1)) < 0); [|lra].
    apply div_neg; [exact N|]; apply Rmult_lt_0_compat; assumption. }
  assert (Xsw : 0 <= xsw).
  { destruct (Rle_or_lt 0 xsw) as [?|N]; [assumption|].
    assert (xsw / ((s0 + s1) * (w0 + w1)) < 0); [|lra].
    apply div_neg; [exact N|]; apply Rmult_lt_0_compat; assumption. }
  assert (I0 : d * s0 = xsw * p0 + xps * w0) by (unfold d, xsw, xps; ring).
  assert (I1 : d * s1 = xsw * p1 + xps * w1) by (unfold d, xsw, xps; ring).
  assert (Ds : 0 <= d * (s0 + s1)).
  { assert (0 <= xsw * p0) by (apply Rmult_le_pos; lra).
    assert (0 <= xps * w0) by (apply Rmult_le_pos; lra).
    assert (0 <= xsw * p1) by (apply Rmult_le_pos; lra).
    assert (0 <= xps * w1) by (apply Rmult_le_pos; lra).
    lra. }
  destruct (Rle_or_lt d 0) as [D0|D].
  - (* d = 0: φ(b), φ(c) parallel, and φ(a) parallel to them *)
    assert (Dz : d = 0).
    { destruct (Rle_lt_or_eq_dec d 0 D0) as [N|]; [|assumption].
      assert (d * (s0 + s1) < 0) by nra. lra. }
    assert (S0 : xsw * (p0 + p1) + xps * (w0 + w1) = 0).
    { rewrite Dz in I0, I1; lra. }
    assert (0 <= xsw * (p0 + p1)) by (apply Rmult_le_pos; lra).
    assert (0 <= xps * (w0 + w1)) by (apply Rmult_le_pos; lra).
    assert (Z : xps * (w0 + w1) = 0) by lra.
    assert (Zp : xps = 0).
    { destruct (Rmult_integral _ _ Z) as [?|?]; [assumption | lra]. }
    assert (A0 : s0 * (p0 + p1) = (s0 + s1) * p0) by (unfold xps in Zp; lra).
    assert (A1 : s1 * (p0 + p1) = (s0 + s1) * p1) by (unfold xps in Zp; lra).
    exists ((s0 + s1) / (p0 + p1)), 0; repeat split.
    + apply Rlt_le, Rdiv_lt_0_compat; assumption.
    + lra.
    + apply (Rmult_eq_reg_r (p0 + p1)); [|lra].
      replace (((s0 + s1) / (p0 + p1) * p0 + 0 * w0) * (p0 + p1)) with ((s0 + s1) * p0)
        by (field; lra); exact A0.
    + apply (Rmult_eq_reg_r (p0 + p1)); [|lra].
      replace (((s0 + s1) / (p0 + p1) * p1 + 0 * w1) * (p0 + p1)) with ((s0 + s1) * p1)
        by (field; lra); exact A1.
  - exists (xsw / d), (xps / d); repeat split.
    + unfold Rdiv; apply Rmult_le_pos; [lra | apply Rlt_le, Rinv_0_lt_compat; lra].
    + unfold Rdiv; apply Rmult_le_pos; [lra | apply Rlt_le, Rinv_0_lt_compat; lra].
    + replace s0 with (d * s0 / d) at 1 by (field; lra); rewrite I0; field; lra.
    + replace s1 with (d * s1 / d) at 1 by (field; lra); rewrite I1; field; lra.
Qed.

Definition between (x y z : R) : Prop := (y <= x <= z) \/ (z <= x <= y).

(** Lemma 2 for a head: a middle key makes the middle kernel row a
    nonnegative combination of the ends' rows. *)
Lemma middle_row m (h : head 2) a b c :
  valid m h -> is_token m a -> is_token m b -> is_token m c ->
  between (key h a) (key h b) (key h c) ->
  exists al be, 0 <= al /\ 0 <= be /\
    forall x, kernel h a x = al * kernel h b x + be * kernel h c x.
Proof.
  intros Hv Ha Hb Hc Hbt.
  destruct (phi_nonneg m h a Hv Ha), (phi_nonneg m h b Hv Hb), (phi_nonneg m h c Hv Hc).
  assert (Sa := phi_sum_pos m h a Hv Ha); assert (Sb := phi_sum_pos m h b Hv Hb).
  assert (Sc := phi_sum_pos m h c Hv Hc).
  unfold key in Hbt; destruct Hbt as [[L1 L2]|[L1 L2]].
  - destruct (cone2 (phi h b 0) (phi h b 1) (phi h a 0) (phi h a 1) (phi h c 0) (phi h c 1))
      as [al [be [Hal [Hbe [E0 E1]]]]]; auto.
    exists al, be; repeat split; auto; intros x.
    rewrite !kernel2, E0, E1; ring.
  - destruct (cone2 (phi h c 0) (phi h c 1) (phi h a 0) (phi h a 1) (phi h b 0) (phi h b 1))
      as [al [be [Hal [Hbe [E0 E1]]]]]; auto.
    exists be, al; repeat split; auto; intros x.
    rewrite !kernel2, E0, E1; ring.
Qed.
