(** * Feature rank two through query cones (docs/kernel_rank.rank_two.md).

    Lemma 1 (the rows of a solving head), Lemma 4 (a score gap of two),
    Lemma 2 (middles: the 2-D cone lemma), Lemma 3 (betweenness), and the
    boolean checker of the certificate kind [rank-two-betweenness]
    (solvers/trusted/cones.py) with its soundness theorem
    [check_betweenness_sound]; then [rank_two_fails] from the m = 5
    certificate (ten exclusions on eight queries). *)

From Coq Require Import Reals List Lra Lia Bool Arith QArith Qreals.
From Coq Require String.
Import String.StringSyntax.
From Coq Require Import Ascii.
From AttnProof Require Import KDefs KTable.
Import ListNotations.
Open Scope R_scope.

(** ** Finite sums (beyond KTable's) *)

Lemma sumR_pos_exists {A} (f : A -> R) l :
  (forall x, In x l -> 0 <= f x) -> (exists x, In x l /\ 0 < f x) -> 0 < sumR (map f l).
Proof. intros H [y [Hy Hp]]; exact (sumR_pos f l y H Hy Hp). Qed.

Lemma sumR_concat_map {A B} (f : A -> list B) (g : B -> R) l :
  sumR (map g (concat (map f l))) = sumR (map (fun x => sumR (map g (f x))) l).
Proof.
  induction l as [|x l IH]; simpl; [reflexivity|].
  rewrite map_app, sumR_app, IH; reflexivity.
Qed.

(** ** Lemma 1: the rows of a solving head

    KTable's linearisation ([solves_cone_len]): with [k = κ(q,·)] and
    [P = k U(q,·)] ([U] the readout table [utable]), the error bound on a
    sequence [X = ctx ++ [q]] is the pair of strict rows lo and hi. *)

(** The two rows of one sequence [X] with target [T], in [(k, P)]. *)
Definition lo_val (k P : token -> R) (X : list token) (T : nat) : R :=
  sumR (map P X) - (INR T - 1/2) * sumR (map k X).
Definition hi_val (k P : token -> R) (X : list token) (T : nat) : R :=
  (INR T + 1/2) * sumR (map k X) - sumR (map P X).

Definition kernel_P {r} (h : head r) (q x : token) : R := kernel h q x * utable h q x.

Lemma solves_rows {r} m n (h : head r) ctx q :
  solves m n h -> is_token m q -> Forall (is_token m) ctx -> S (length ctx) = n ->
  0 < lo_val (kernel h q) (kernel_P h q) (ctx ++ [q]) (target ctx q) /\
  0 < hi_val (kernel h q) (kernel_P h q) (ctx ++ [q]) (target ctx q).
Proof.
  intros Hs Hq Hc Hn.
  destruct (solves_cone_len m n h q Hs Hq) as [_ [_ H]].
  exact (H ctx Hc Hn).
Qed.

(** ** Lemma 4: a score gap of two (any rank)

    For a query q and tokens u, v with [<v,q> − <u,q> = 2], every solving
    head has [κ(q,u) > κ(q,v)]: the rows lo (u,u,q) ×1, hi (u,v,q) ×2 and
    lo (v,v,q) ×1 add to [2κ(q,u) − 2κ(q,v) > 0]. *)

Lemma ip_le_diag x q : (ip x q <= ip q q)%nat.
Proof.
  revert x; induction q as [|b q IH]; intros [|a x]; simpl; try lia.
  specialize (IH x); destruct a, b; simpl; lia.
Qed.

Lemma score_gap_two {r} m (h : head r) q u v :
  solves m 3 h -> is_token m q -> is_token m u -> is_token m v ->
  ip v q = (ip u q + 2)%nat -> kernel h q v < kernel h q u.
Proof.
  intros Hs Hq Hu Hv Hg.
  assert (Hvq := ip_le_diag v q).
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

Definition angle_key (h : head 2) (q : token) : R := phi h q 1 / (phi h q 0 + phi h q 1).

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
  between (angle_key h a) (angle_key h b) (angle_key h c) ->
  exists al be, 0 <= al /\ 0 <= be /\
    forall x, kernel h a x = al * kernel h b x + be * kernel h c x.
Proof.
  intros Hv Ha Hb Hc Hbt.
  destruct (phi_nonneg m h a Hv Ha), (phi_nonneg m h b Hv Hb), (phi_nonneg m h c Hv Hc).
  assert (Sa := phi_sum_pos m h a Hv Ha); assert (Sb := phi_sum_pos m h b Hv Hb).
  assert (Sc := phi_sum_pos m h c Hv Hc).
  unfold angle_key in Hbt; destruct Hbt as [[L1 L2]|[L1 L2]].
  - destruct (cone2 (phi h b 0) (phi h b 1) (phi h a 0) (phi h a 1) (phi h c 0) (phi h c 1))
      as [al [be [Hal [Hbe [E0 E1]]]]]; auto.
    exists al, be; repeat split; auto; intros x.
    rewrite !kernel2, E0, E1; ring.
  - destruct (cone2 (phi h c 0) (phi h c 1) (phi h a 0) (phi h a 1) (phi h b 0) (phi h b 1))
      as [al [be [Hal [Hbe [E0 E1]]]]]; auto.
    exists be, al; repeat split; auto; intros x.
    rewrite !kernel2, E0, E1; ring.
Qed.

(** ** Lemma 3: betweenness, by a reflective case check

    Each exclusion says: [t(a)] lies strictly outside the closed interval
    spanned by [t(b)] and [t(c)], i.e. [t(a) < t(b), t(c)] or
    [t(a) > t(b), t(c)].  [check_order] branches on the two sides of every
    exclusion, collecting strict edges [t(u) < t(v)], and closes a branch
    when its edges contain a cycle: a nonempty set of queries each with an
    edge into it from the set (its least key has no smaller one).  No real
    keys then satisfy every exclusion. *)

Fixpoint tok_eqb (x y : token) : bool :=
  match x, y with
  | [], [] => true
  | a :: x', b :: y' => Bool.eqb a b && tok_eqb x' y'
  | _, _ => false
  end.

Lemma tok_eqb_eq x y : tok_eqb x y = true <-> x = y.
Proof.
  revert y; induction x as [|a x IH]; intros [|b y]; simpl; split; intro H;
    try discriminate; try reflexivity.
  - apply andb_prop in H; destruct H as [H1 H2].
    apply Bool.eqb_prop in H1; apply IH in H2; now subst.
  - injection H as <- <-; apply andb_true_intro; split; [apply Bool.eqb_reflx | now apply IH].
Qed.

Definition memb (x : token) (l : list token) : bool := existsb (tok_eqb x) l.

Lemma memb_In x l : memb x l = true -> In x l.
Proof.
  unfold memb; intros H; apply existsb_exists in H; destruct H as [y [Hy E]].
  apply tok_eqb_eq in E; now subst.
Qed.

(** Queries are numbered by their position in the certificate's list; an
    edge [(u, v)] of query numbers says [t(u) < t(v)]. *)
Definition edge := (nat * nat)%type.

Definition nmem (x : nat) (l : list nat) : bool := existsb (Nat.eqb x) l.

Lemma nmem_In x l : nmem x l = true -> In x l.
Proof.
  unfold nmem; intros H; apply existsb_exists in H; destruct H as [y [Hy E]].
  apply Nat.eqb_eq in E; now subst.
Qed.

Definition has_pred (edges : list edge) (S : list nat) (v : nat) : bool :=
  existsb (fun e => Nat.eqb (snd e) v && nmem (fst e) S) edges.

(** Drop the vertices with no edge into them from the set, until none is
    dropped (at most [fuel] rounds). *)
Fixpoint shrink (fuel : nat) (edges : list edge) (S : list nat) : list nat :=
  match fuel with
  | O => S
  | S f => let S' := filter (has_pred edges S) S in
           if Nat.eqb (length S') (length S) then S else shrink f edges S'
  end.

(** A nonempty set of the n queries, each with an edge into it from the set. *)
Definition has_cycle (n : nat) (edges : list edge) : bool :=
  let S := shrink n edges (seq 0 n) in
  match S with [] => false | _ => forallb (has_pred edges S) S end.

Lemma argmin (t : nat -> R) (S : list nat) :
  S <> [] -> exists v, In v S /\ forall w, In w S -> t v <= t w.
Proof.
  induction S as [|x S IH]; intros H; [congruence|].
  destruct S as [|y S'].
  - exists x; split; [now left | intros w [<-|[]]; lra].
  - destruct IH as [v [Hv Hm]]; [congruence|].
    destruct (Rle_or_lt (t x) (t v)) as [L|L].
    + exists x; split; [now left|]; intros w [<-|Hw]; [lra|].
      specialize (Hm w Hw); lra.
    + exists v; split; [now right|]; intros w [<-|Hw]; [lra|].
      now apply Hm.
Qed.

Definition edges_hold (t : nat -> R) (edges : list edge) : Prop :=
  forall e, In e edges -> t (fst e) < t (snd e).

Lemma has_cycle_sound t n edges : has_cycle n edges = true -> ~ edges_hold t edges.
Proof.
  unfold has_cycle; intros H Hold.
  set (S := shrink n edges (seq 0 n)) in *.
  destruct S as [|s0 S'] eqn:ES; [discriminate|].
  rewrite <- ES in H.
  destruct (argmin t S) as [v [Hv Hm]]; [rewrite ES; congruence|].
  rewrite forallb_forall in H; specialize (H v Hv).
  unfold has_pred in H; apply existsb_exists in H; destruct H as [e [He Hb]].
  apply andb_prop in Hb; destruct Hb as [E1 E2].
  apply Nat.eqb_eq in E1; apply nmem_In in E2.
  specialize (Hold e He); specialize (Hm _ E2); rewrite E1 in Hold; lra.
Qed.

(** [x] strictly outside the closed interval spanned by [y] and [z]. *)
Definition outside (x y z : R) : Prop := (x < y /\ x < z) \/ (y < x /\ z < x).

Lemma not_between_outside x y z : ~ between x y z -> outside x y z.
Proof.
  unfold between, outside; intros H.
  destruct (Rlt_or_le x y), (Rlt_or_le x z); [left; lra | | | right].
  - exfalso; apply H; right; lra.
  - exfalso; apply H; left; lra.
  - split; apply Rnot_le_lt; intros ?; apply H; [left | right]; lra.
Qed.

Definition triple := (nat * nat * nat)%type.   (** (a, b, c): a never between b and c *)

Fixpoint check_order (n : nat) (ex : list triple) (edges : list edge) : bool :=
  has_cycle n edges ||
  match ex with
  | [] => false
  | (a, b, c) :: rest =>
      check_order n rest ((a, b) :: (a, c) :: edges) &&
      check_order n rest ((b, a) :: (c, a) :: edges)
  end.

Lemma check_order_sound t n ex : forall edges,
  check_order n ex edges = true -> edges_hold t edges ->
  (forall a b c, In (a, b, c) ex -> outside (t a) (t b) (t c)) -> False.
Proof.
  induction ex as [|[[a b] c] rest IH]; intros edges H Hold Hex; simpl in H.
  - rewrite orb_false_r in H; exact (has_cycle_sound t n edges H Hold).
  - apply orb_prop in H; destruct H as [H|H]; [exact (has_cycle_sound t n edges H Hold)|].
    apply andb_prop in H; destruct H as [H1 H2].
    assert (Hr : forall a' b' c', In (a', b', c') rest -> outside (t a') (t b') (t c'))
      by (intros; apply Hex; now right).
    destruct (Hex a b c (or_introl eq_refl)) as [[L1 L2]|[L1 L2]].
    + apply (IH _ H1); [|exact Hr].
      intros e [<-|[<-|He]]; simpl; [lra|lra|now apply Hold].
    + apply (IH _ H2); [|exact Hr].
      intros e [<-|[<-|He]]; simpl; [lra|lra|now apply Hold].
Qed.

(** ** The middle problem [M(a; b, c)] and its Motzkin certificates

    Unknowns (as in solvers/trusted/cones.py): [k_b(x)], [k_c(x)] (indices 0
    and 1), [P_a(x)], [P_b(x)], [P_c(x)] (indices 2, 3, 4), one of each per
    token x.  A row of query b reads [(k_b, P_b)], of c [(k_c, P_c)], of the
    middle a [(k_b + k_c, P_a)]; a nonnegative row reads one [k_b(x)] or
    [k_c(x)].  A linear form is a list of (unknown, rational coefficient). *)

Local Open Scope Q_scope.

Notation var := (nat * token)%type.
Definition mform := list (var * Q).

Definition var_eqb (v w : var) : bool := Nat.eqb (fst v) (fst w) && tok_eqb (snd v) (snd w).

Lemma var_eqb_eq v w : var_eqb v w = true -> v = w.
Proof.
  destruct v as [i x], w as [j y]; unfold var_eqb; simpl; intros H.
  apply andb_prop in H; destruct H as [H1 H2].
  apply Nat.eqb_eq in H1; apply tok_eqb_eq in H2; now subst.
Qed.

(** Collect the coefficients of each unknown. *)
Fixpoint insert (vc : var * Q) (acc : mform) : mform :=
  match acc with
  | [] => [vc]
  | (w, d) :: acc' => if var_eqb (fst vc) w then (w, snd vc + d) :: acc'
                      else (w, d) :: insert vc acc'
  end.

Definition normalize (f : mform) : mform := fold_right insert [] f.

Definition lf_scale (y : Q) (f : mform) : mform := map (fun vc => (fst vc, y * snd vc)) f.

Inductive mside := Lo | Hi.

(** A row of the certificate: [query, side, multiplier, context tokens]. *)
Record mrow := { rq : token; rside : mside; ry : Q; rctx : list token }.
(** A nonnegative row: [end, token, multiplier], for [k_end(token) >= 0]. *)
Record nnrow := { nend : token; ntok : token; ny : Q }.
(** One exclusion: the middle a is never between the ends b and c. *)
Record exclusion := { emid : token; eends : token * token; erows : list mrow; enn : list nnrow }.
(** A certificate of the kind [rank-two-betweenness]. *)
Record certificate := { cm : nat; cqueries : list token; cexcl : list exclusion }.

Definition QofN (n : nat) : Q := inject_Z (Z.of_nat n).

Definition role_of (a b c q : token) : option nat :=
  if tok_eqb q a then Some 0%nat else if tok_eqb q b then Some 1%nat
  else if tok_eqb q c then Some 2%nat else None.

Definition kterms (role : nat) (x : token) (c : Q) : mform :=
  match role with
  | O => [((0%nat, x), c); ((1%nat, x), c)]
  | S O => [((0%nat, x), c)]
  | _ => [((1%nat, x), c)]
  end.

(** lo: [Σ P − (T − 1/2) Σ k > 0]; hi: [(T + 1/2) Σ k − Σ P > 0], over the
    sequence [ctx ++ [q]] with [T = target ctx q]. *)
Definition row_form (role : nat) (s : mside) (ctx : list token) (q : token) : mform :=
  let T := QofN (target ctx q) in
  match s with
  | Lo => flat_map (fun x => ((2 + role)%nat, x, 1) :: kterms role x (- (T - (1#2)))) (ctx ++ [q])
  | Hi => flat_map (fun x => ((2 + role)%nat, x, -1) :: kterms role x (T + (1#2))) (ctx ++ [q])
  end.

Definition rform (a b c : token) (r : mrow) : mform :=
  match role_of a b c (rq r) with
  | Some role => row_form role (rside r) (rctx r) (rq r)
  | None => []
  end.

Definition nnform (b : token) (n : nnrow) : mform :=
  [((if tok_eqb (nend n) b then 0%nat else 1%nat, ntok n), 1)].

Definition motzkin_combination (e : exclusion) : mform :=
  let a := emid e in let b := fst (eends e) in let c := snd (eends e) in
  concat (map (fun r => lf_scale (ry r) (rform a b c r)) (erows e)) ++
  concat (map (fun n => lf_scale (ny n) (nnform b n)) (enn e)).

Definition is_some {A} (o : option A) : bool := match o with Some _ => true | None => false end.

Definition mrow_ok (M : nat) (a b c : token) (r : mrow) : bool :=
  is_some (role_of a b c (rq r)) && Nat.eqb (length (rctx r)) 2 &&
  forallb (fun x => Nat.eqb (length x) M) (rctx r) && Qle_bool 0 (ry r).

Definition nn_ok (M : nat) (b c : token) (n : nnrow) : bool :=
  (tok_eqb (nend n) b || tok_eqb (nend n) c) && Nat.eqb (length (ntok n)) M && Qle_bool 0 (ny n).

(** The exclusion's Motzkin check: well-formed rows (three-token sequences
    of tokens of length M, queries among a, b, c, ends named by nonnegative
    rows), nonnegative multipliers, the combination vanishes, and a strict
    row is used (every row is homogeneous, so the bound is 0). *)
Definition check_exclusion (M : nat) (e : exclusion) : bool :=
  let a := emid e in let b := fst (eends e) in let c := snd (eends e) in
  Nat.eqb (length a) M && Nat.eqb (length b) M && Nat.eqb (length c) M &&
  forallb (mrow_ok M a b c) (erows e) && forallb (nn_ok M b c) (enn e) &&
  forallb (fun vc => Qeq_bool (snd vc) 0) (normalize (motzkin_combination e)) &&
  existsb (fun r => negb (Qeq_bool (ry r) 0)) (erows e).

(** The certificate's check: every exclusion checked, the ends and middles
    among the listed queries (tokens of length M), and no real keys of the
    queries satisfy every exclusion. *)
Fixpoint query_index (x : token) (qs : list token) : nat :=
  match qs with [] => O | q :: qs' => if tok_eqb x q then O else S (query_index x qs') end.

Definition check_betweenness (d : certificate) : bool :=
  let qs := cqueries d in
  Nat.leb 1 (cm d) &&
  forallb (fun q => Nat.eqb (length q) (cm d)) qs &&
  forallb (fun e => check_exclusion (cm d) e && memb (emid e) qs &&
                    memb (fst (eends e)) qs && memb (snd (eends e)) qs)
          (cexcl d) &&
  check_order (length qs)
    (map (fun e => (query_index (emid e) qs, query_index (fst (eends e)) qs, query_index (snd (eends e)) qs)) (cexcl d)) [].

Local Close Scope Q_scope.

(** *** Soundness of the linear forms *)

Definition evalf (val : nat -> token -> R) (f : mform) : R :=
  sumR (map (fun vc => Q2R (snd vc) * val (fst (fst vc)) (snd (fst vc))) f).

Lemma evalf_app val f g : evalf val (f ++ g) = evalf val f + evalf val g.
Proof. unfold evalf; now rewrite map_app, sumR_app. Qed.

Lemma evalf_insert val vc acc : evalf val (insert vc acc) = evalf val [vc] + evalf val acc.
Proof.
  induction acc as [|[w d] acc IH]; simpl; unfold evalf in *; simpl; [ring|].
  destruct (var_eqb (fst vc) w) eqn:E; simpl.
  - apply var_eqb_eq in E; rewrite <- E, Q2R_plus; ring.
  - rewrite IH; simpl; ring.
Qed.

Lemma evalf_normalize val f : evalf val (normalize f) = evalf val f.
Proof.
  induction f as [|vc f IH]; simpl; [reflexivity|].
  rewrite evalf_insert, IH; unfold evalf; simpl; ring.
Qed.

Lemma evalf_zero val f : forallb (fun vc => Qeq_bool (snd vc) 0) f = true -> evalf val f = 0.
Proof.
  induction f as [|[v c] f IH]; simpl; intros H; [reflexivity|].
  apply andb_prop in H; destruct H as [H1 H2].
  apply Qeq_bool_eq, Qeq_eqR in H1; rewrite RMicromega.Q2R_0 in H1.
  unfold evalf in *; simpl; rewrite H1, IH by exact H2; ring.
Qed.

Lemma evalf_scale val y f : evalf val (lf_scale y f) = Q2R y * evalf val f.
Proof.
  unfold evalf, lf_scale; rewrite map_map, <- sumR_map_scal.
  apply sumR_map_ext; intros; simpl; rewrite Q2R_mult; ring.
Qed.

Lemma evalf_concat_map {A} val (g : A -> mform) l :
  evalf val (concat (map g l)) = sumR (map (fun x => evalf val (g x)) l).
Proof. unfold evalf; apply sumR_concat_map. Qed.

Definition kv (val : nat -> token -> R) (role : nat) (x : token) : R :=
  match role with O => val 0%nat x + val 1%nat x | S O => val 0%nat x | _ => val 1%nat x end.

Definition sval (s : mside) (k P : token -> R) (X : list token) (T : nat) : R :=
  match s with Lo => lo_val k P X T | Hi => hi_val k P X T end.

Lemma Q2R_QofN n : Q2R (QofN n) = INR n.
Proof.
  unfold Q2R, QofN; simpl; rewrite INR_IZR_INZ; field.
Qed.

Lemma Q2R_one_half : Q2R (1 # 2) = 1 / 2.
Proof. unfold Q2R; simpl; field. Qed.

Lemma evalf_kterms val role x c :
  evalf val (kterms role x c) = Q2R c * kv val role x.
Proof. destruct role as [|[|]]; unfold evalf; simpl; ring. Qed.

Lemma evalf_cons val v c f : evalf val ((v, c) :: f) = Q2R c * val (fst v) (snd v) + evalf val f.
Proof. reflexivity. Qed.

Lemma evalf_row_form val role s ctx q :
  evalf val (row_form role s ctx q) =
  sval s (kv val role) (val (2 + role)%nat) (ctx ++ [q]) (target ctx q).
Proof.
  unfold row_form, sval, lo_val, hi_val; rewrite !flat_map_concat_map.
  destruct s; rewrite evalf_concat_map.
  - rewrite (sumR_map_ext _ (fun x => val (2 + role)%nat x
                                      + (- (INR (target ctx q) - 1/2)) * kv val role x)).
    + rewrite sumR_map_plus, sumR_map_scal; ring.
    + intros x _; rewrite evalf_cons, evalf_kterms, Q2R_opp, Q2R_minus, Q2R_QofN, Q2R_one_half,
        RMicromega.Q2R_1; simpl; ring.
  - rewrite (sumR_map_ext _ (fun x => (-1) * val (2 + role)%nat x
                                      + (INR (target ctx q) + 1/2) * kv val role x)).
    + rewrite sumR_map_plus, !sumR_map_scal; ring.
    + intros x _; rewrite evalf_cons, evalf_kterms, Q2R_plus, Q2R_QofN, Q2R_one_half.
      replace (Q2R (-1)) with (-1) by (unfold Q2R; simpl; field).
      simpl; ring.
Qed.

(** *** Soundness of one exclusion

    With [φ(a) = α φ(b) + β φ(c)] (Lemma 2) the point
    [k_b = α κ(b,·), P_b = α P_b, k_c = β κ(c,·), P_c = β P_c, P_a] of the
    head satisfies every row of [M(a; b, c)] (those of b and c weakly when α
    or β is 0, those of a strictly); the vanishing combination then gives
    [0 > 0] when a row of a is used.  When none is, [α = β = 1] does. *)

Definition hval (h : head 2) (a b c : token) (al be : R) (i : nat) (x : token) : R :=
  match i with
  | O => al * kernel h b x
  | S O => be * kernel h c x
  | S (S O) => kernel_P h a x
  | S (S (S O)) => al * kernel_P h b x
  | _ => be * kernel_P h c x
  end.

Lemma sval_ext s k k' P P' X T :
  (forall x, k x = k' x) -> (forall x, P x = P' x) -> sval s k P X T = sval s k' P' X T.
Proof.
  intros Ek EP; destruct s; unfold sval, lo_val, hi_val;
    rewrite (sumR_map_ext k k'), (sumR_map_ext P P') by auto; reflexivity.
Qed.

Lemma sval_scale s c k P X T :
  sval s (fun x => c * k x) (fun x => c * P x) X T = c * sval s k P X T.
Proof. destruct s; unfold sval, lo_val, hi_val; rewrite !sumR_map_scal; ring. Qed.

Lemma mrow_pos M (h : head 2) q ctx s :
  solves M 3 h -> is_token M q -> Forall (is_token M) ctx -> length ctx = 2%nat ->
  0 < sval s (kernel h q) (kernel_P h q) (ctx ++ [q]) (target ctx q).
Proof.
  intros Hs Hq Hc Hl; destruct (solves_rows M 3 h ctx q Hs Hq Hc) as [H1 H2];
    [rewrite Hl; reflexivity|]; destruct s; assumption.
Qed.

Lemma role_of_spec a b c q role :
  role_of a b c q = Some role ->
  (role = 0%nat /\ q = a) \/ (role = 1%nat /\ q = b) \/ (role = 2%nat /\ q = c).
Proof.
  unfold role_of.
  destruct (tok_eqb q a) eqn:Ea; [intros H; injection H as <-; left; split; [reflexivity | now apply tok_eqb_eq]|].
  destruct (tok_eqb q b) eqn:Eb; [intros H; injection H as <-; right; left; split; [reflexivity | now apply tok_eqb_eq]|].
  destruct (tok_eqb q c) eqn:Ec; [intros H; injection H as <-; right; right; split; [reflexivity | now apply tok_eqb_eq]|].
  discriminate.
Qed.

Lemma forallb_tokens M l : forallb (fun x => Nat.eqb (length x) M) l = true -> Forall (is_token M) l.
Proof.
  intros H; rewrite forallb_forall in H; apply Forall_forall; intros x Hx.
  apply Nat.eqb_eq, H, Hx.
Qed.

(** The value of one row at the point [hval h a b c al be]. *)
Lemma row_value M (h : head 2) a b c al be r :
  solves M 3 h -> is_token M a -> is_token M b -> is_token M c -> mrow_ok M a b c r = true ->
  0 <= al -> 0 <= be ->
  (exists role, role_of a b c (rq r) = Some role /\
   ((role = 0%nat /\ ((forall x, kernel h a x = al * kernel h b x + be * kernel h c x) ->
                      0 < evalf (hval h a b c al be) (rform a b c r))) \/
    (role <> 0%nat /\ ((0 < al -> 0 < be -> 0 < evalf (hval h a b c al be) (rform a b c r)) /\
                       0 <= evalf (hval h a b c al be) (rform a b c r))))).
Proof.
  intros Hs Ha Hb Hc Hok Hal Hbe.
  unfold mrow_ok in Hok; apply andb_prop in Hok; destruct Hok as [Hok Hy].
  apply andb_prop in Hok; destruct Hok as [Hok Ht].
  apply andb_prop in Hok; destruct Hok as [Hr Hl].
  apply Nat.eqb_eq in Hl; apply forallb_tokens in Ht.
  destruct (role_of a b c (rq r)) as [role|] eqn:Er; [|discriminate].
  exists role; split; [reflexivity|].
  unfold rform; rewrite Er, evalf_row_form.
  destruct (role_of_spec a b c (rq r) role Er) as [[-> Eq]|[[-> Eq]|[-> Eq]]]; rewrite Eq.
  - left; split; [reflexivity|]; intros Hk.
    rewrite (sval_ext _ _ (kernel h a) _ (kernel_P h a))
      by (intros; cbn [kv hval Nat.add]; rewrite ?Hk; reflexivity).
    apply (mrow_pos M); auto.
  - right; split; [discriminate|].
    rewrite (sval_ext _ _ (fun x => al * kernel h b x) _ (fun x => al * kernel_P h b x))
      by (intros; reflexivity).
    rewrite sval_scale.
    assert (P := mrow_pos M h b (rctx r) (rside r) Hs Hb Ht Hl).
    split; [intros; apply Rmult_lt_0_compat; assumption | apply Rmult_le_pos; lra].
  - right; split; [discriminate|].
    rewrite (sval_ext _ _ (fun x => be * kernel h c x) _ (fun x => be * kernel_P h c x))
      by (intros; reflexivity).
    rewrite sval_scale.
    assert (P := mrow_pos M h c (rctx r) (rside r) Hs Hc Ht Hl).
    split; [intros; apply Rmult_lt_0_compat; assumption | apply Rmult_le_pos; lra].
Qed.

Lemma Qle_bool_R x : Qle_bool 0 x = true -> 0 <= Q2R x.
Proof. intros H; apply RMicromega.Qle_true in H; rewrite RMicromega.Q2R_0 in H; exact H. Qed.

Lemma Q_pos_R x : Qle_bool 0 x = true -> Qeq_bool x 0 = false -> 0 < Q2R x.
Proof.
  intros H1 H2; apply Qle_bool_R in H1; apply RMicromega.Qeq_false in H2.
  rewrite RMicromega.Q2R_0 in H2; lra.
Qed.

Lemma Q_zero_R x : Qeq_bool x 0 = true -> Q2R x = 0.
Proof. intros H; apply RMicromega.Qeq_true in H; rewrite RMicromega.Q2R_0 in H; exact H. Qed.

Lemma nn_value M (h : head 2) a b c al be n :
  valid M h -> is_token M b -> is_token M c -> nn_ok M b c n = true -> 0 <= al -> 0 <= be ->
  0 <= Q2R (ny n) * evalf (hval h a b c al be) (nnform b n).
Proof.
  intros Hv Hb Hc Hok Hal Hbe.
  unfold nn_ok in Hok; apply andb_prop in Hok; destruct Hok as [Hok Hy].
  apply andb_prop in Hok; destruct Hok as [_ Hl]; apply Nat.eqb_eq in Hl.
  apply Rmult_le_pos; [now apply Qle_bool_R|].
  unfold nnform, evalf; simpl; rewrite RMicromega.Q2R_1.
  destruct (tok_eqb (nend n) b); simpl.
  - assert (0 <= kernel h b (ntok n)) by (apply (kernel_nonneg M); auto). nra.
  - assert (0 <= kernel h c (ntok n)) by (apply (kernel_nonneg M); auto). nra.
Qed.

Lemma evalf_combination val e :
  evalf val (motzkin_combination e) =
  sumR (map (fun r => Q2R (ry r) * evalf val (rform (emid e) (fst (eends e)) (snd (eends e)) r)) (erows e))
  + sumR (map (fun n => Q2R (ny n) * evalf val (nnform (fst (eends e)) n)) (enn e)).
Proof.
  unfold motzkin_combination; rewrite evalf_app, !evalf_concat_map.
  f_equal; apply sumR_map_ext; intros; apply evalf_scale.
Qed.

Lemma existsb_false {A} (f : A -> bool) l : existsb f l = false -> forall x, In x l -> f x = false.
Proof.
  intros H x Hx; destruct (f x) eqn:E; [|reflexivity].
  assert (existsb f l = true) by (apply existsb_exists; now exists x). congruence.
Qed.

(** Lemma 2 with a Motzkin certificate: the middle's key lies strictly
    outside the closed interval spanned by the ends' keys. *)
Theorem check_exclusion_sound M e (h : head 2) :
  check_exclusion M e = true -> solves M 3 h ->
  outside (angle_key h (emid e)) (angle_key h (fst (eends e))) (angle_key h (snd (eends e))).
Proof.
  intros Hc Hs; apply not_between_outside; intros Hbt.
  unfold check_exclusion in Hc.
  apply andb_prop in Hc; destruct Hc as [Hc Hst].
  apply andb_prop in Hc; destruct Hc as [Hc Hz].
  apply andb_prop in Hc; destruct Hc as [Hc Hnn].
  apply andb_prop in Hc; destruct Hc as [Hc Hrows].
  apply andb_prop in Hc; destruct Hc as [Hc Lc].
  apply andb_prop in Hc; destruct Hc as [La Lb].
  apply Nat.eqb_eq in La, Lb, Lc.
  assert (Z : forall al be, evalf (hval h (emid e) (fst (eends e)) (snd (eends e)) al be)
                                  (motzkin_combination e) = 0)
    by (intros; rewrite <- evalf_normalize; apply evalf_zero; exact Hz).
  rewrite forallb_forall in Hrows, Hnn.
  set (a := emid e) in *; set (b := fst (eends e)) in *; set (c := snd (eends e)) in *.
  assert (Hv := proj1 Hs).
  destruct (existsb (fun r => match role_of a b c (rq r) with
                              | Some O => negb (Qeq_bool (ry r) 0) | _ => false end) (erows e)) eqn:EA.
  - (* a row of the middle is used: the point of Lemma 2 *)
    destruct (middle_row M h a b c Hv La Lb Lc Hbt) as [al [be [Hal [Hbe Hk]]]].
    specialize (Z al be); rewrite evalf_combination in Z; fold a b c in Z.
    assert (0 <= sumR (map (fun n => Q2R (ny n) * evalf (hval h a b c al be) (nnform b n)) (enn e)))
      by (apply sumR_nonneg; intros n Hn; apply (nn_value M); auto).
    assert (0 < sumR (map (fun r => Q2R (ry r) * evalf (hval h a b c al be) (rform a b c r)) (erows e))).
    { apply sumR_pos_exists.
      - intros r Hr; apply Rmult_le_pos.
        + specialize (Hrows r Hr); unfold mrow_ok in Hrows.
          apply andb_prop in Hrows; destruct Hrows as [_ Hy]; now apply Qle_bool_R.
        + destruct (row_value M h a b c al be r Hs La Lb Lc (Hrows r Hr) Hal Hbe)
            as [role [_ [[_ P]|[_ [_ P]]]]]; [apply Rlt_le, P, Hk | exact P].
      - apply existsb_exists in EA; destruct EA as [r [Hr E]]; exists r; split; [exact Hr|].
        destruct (role_of a b c (rq r)) as [[|]|] eqn:Er; try discriminate.
        apply Rmult_lt_0_compat.
        + specialize (Hrows r Hr); unfold mrow_ok in Hrows.
          apply andb_prop in Hrows; destruct Hrows as [_ Hy]; apply Q_pos_R; [exact Hy|].
          now apply negb_true_iff.
        + destruct (row_value M h a b c al be r Hs La Lb Lc (Hrows r Hr) Hal Hbe)
            as [role [Er' [[_ P]|[N _]]]]; rewrite Er in Er'; injection Er' as <-;
            [exact (P Hk) | congruence]. }
    lra.
  - (* no row of the middle is used: the ends' rows alone, at α = β = 1 *)
    specialize (Z 1 1); rewrite evalf_combination in Z; fold a b c in Z.
    assert (0 <= sumR (map (fun n => Q2R (ny n) * evalf (hval h a b c 1 1) (nnform b n)) (enn e)))
      by (apply sumR_nonneg; intros n Hn; apply (nn_value M); auto; lra).
    assert (EA' := existsb_false _ _ EA).
    assert (0 < sumR (map (fun r => Q2R (ry r) * evalf (hval h a b c 1 1) (rform a b c r)) (erows e))).
    { apply sumR_pos_exists.
      - intros r Hr.
        specialize (EA' r Hr); cbv beta in EA'; assert (Hy := Hrows r Hr); unfold mrow_ok in Hy.
        apply andb_prop in Hy; destruct Hy as [_ Hy].
        destruct (row_value M h a b c 1 1 r Hs La Lb Lc (Hrows r Hr)) as [role [Er [[-> _]|[_ [_ P]]]]];
          try lra.
        + rewrite Er, negb_false_iff in EA'; apply Q_zero_R in EA'; rewrite EA'; lra.
        + apply Rmult_le_pos; [now apply Qle_bool_R | exact P].
      - apply existsb_exists in Hst; destruct Hst as [r [Hr E]]; exists r; split; [exact Hr|].
        specialize (EA' r Hr); cbv beta in EA'; assert (Hy := Hrows r Hr); unfold mrow_ok in Hy.
        apply andb_prop in Hy; destruct Hy as [_ Hy].
        apply negb_true_iff in E.
        destruct (row_value M h a b c 1 1 r Hs La Lb Lc (Hrows r Hr)) as [role [Er [[-> _]|[_ [P _]]]]];
          try lra.
        + rewrite Er, E in EA'; discriminate.
        + apply Rmult_lt_0_compat; [now apply Q_pos_R | apply P; lra]. }
    lra.
Qed.

(** *** Soundness of the checker at the certificate's m *)
Lemma idx_nth x qs : memb x qs = true -> nth (query_index x qs) qs [] = x.
Proof.
  induction qs as [|q qs IH]; simpl; [discriminate|].
  destruct (tok_eqb x q) eqn:E; simpl.
  - intros _; symmetry; now apply tok_eqb_eq.
  - intros H; apply IH, H.
Qed.

Theorem check_betweenness_sound_at d :
  check_betweenness d = true -> ~ solvable 2 (cm d) 3.
Proof.
  intros Hc [h Hs]; unfold check_betweenness in Hc.
  apply andb_prop in Hc; destruct Hc as [Hc Ho].
  apply andb_prop in Hc; destruct Hc as [Hc Hex].
  rewrite forallb_forall in Hex.
  set (qs := cqueries d) in *.
  apply (check_order_sound (fun i => angle_key h (nth i qs [])) _ _ [] Ho); [intros e []|].
  intros a b c Hin; apply in_map_iff in Hin; destruct Hin as [e [E He]].
  injection E as <- <- <-.
  specialize (Hex e He).
  apply andb_prop in Hex; destruct Hex as [Hex Mc].
  apply andb_prop in Hex; destruct Hex as [Hex Mb].
  apply andb_prop in Hex; destruct Hex as [Hex Ma].
  rewrite !idx_nth by assumption.
  exact (check_exclusion_sound (cm d) e h Hex Hs).
Qed.

(** ** The checker's soundness theorem

    Restriction (KTable's [solvable_restrict], zero padding) carries the
    refutation at the certificate's m to every m' >= m. *)
Theorem check_betweenness_sound d :
  check_betweenness d = true -> forall m', (cm d <= m')%nat -> ~ solvable 2 m' 3.
Proof.
  intros Hc m' Hm Hs.
  exact (check_betweenness_sound_at d Hc (solvable_restrict 2 (cm d) m' 3 Hs Hm)).
Qed.

(** ** Tokens written as bit strings, coordinate 1 first

    [tk "10010"] is the token [[true; false; false; true; false]]; a string
    with any other character reads as the empty token (which no check of
    length m >= 1 accepts). *)

Fixpoint bits (s : String.string) : option token :=
  match s with
  | String.EmptyString => Some []
  | String.String "0"%char s' => option_map (cons false) (bits s')
  | String.String "1"%char s' => option_map (cons true) (bits s')
  | _ => None
  end.

Definition tk (s : String.string) : token :=
  match bits s with Some t => t | None => [] end.

(** ** The certificate at m = 5 (docs/kernel_rank.rank_two.md, its table)

    Eight queries: the five edges of the pentagon 1–4–3–2–5–1 and three
    tokens of weight four.  Each exclusion "a is never between b and c" is
    certified by the score-gap-two rows (Lemma 4) of its three queries on
    the middle a and its complement ā: lo (a,a) ×1, hi (a,ā) ×2, lo (ā,ā) ×1
    — the rows the Python certificate carries, in its order. *)

Definition complement (x : token) : token := map negb x.

Definition gap_rows (a q : token) : list mrow :=
  [ {| rq := q; rside := Lo; ry := 1%Q; rctx := [a; a] |};
    {| rq := q; rside := Hi; ry := 2%Q; rctx := [a; complement a] |};
    {| rq := q; rside := Lo; ry := 1%Q; rctx := [complement a; complement a] |} ].

Definition gap_exclusion (a b c : token) : exclusion :=
  {| emid := a; eends := (b, c); erows := gap_rows a b ++ gap_rows a c ++ gap_rows a a; enn := [] |}.

Local Open Scope string_scope.

Definition queries_m5 : list token :=
  map tk ["10010"; "00110"; "01100"; "01001"; "10001"; "01111"; "10111"; "11011"].

(** (a, b, c): a is never between b and c. *)
Definition exclusions_m5 : list (String.string * String.string * String.string) :=
  [ ("10010", "01100", "01111");
    ("10001", "01100", "01111");
    ("01100", "10010", "10111");
    ("01001", "10010", "10111");
    ("01001", "00110", "10111");
    ("10001", "00110", "01111");
    ("00110", "10001", "11011");
    ("01100", "10001", "10111");
    ("00110", "01001", "11011");
    ("10010", "01001", "01111") ].

Local Close Scope string_scope.

Definition cert_m5 : certificate :=
  {| cm := 5; cqueries := queries_m5;
     cexcl := map (fun t => match t with (a, b, c) => gap_exclusion (tk a) (tk b) (tk c) end)
                  exclusions_m5 |}.

Lemma cert_m5_checks : check_betweenness cert_m5 = true.
Proof. vm_compute; reflexivity. Qed.

(** No head of feature rank <= 2 has error < 1/2 on every sequence of exact
    length three over {0,1}^m, for any m >= 5. *)
Theorem rank_two_fails : forall m, (5 <= m)%nat -> ~ solvable 2 m 3.
Proof. exact (check_betweenness_sound cert_m5 cert_m5_checks). Qed.

(** Every rank up to two (KTable's [solvable_rank_mono]: zero features). *)
Theorem rank_le_two_fails : forall r m, (r <= 2)%nat -> (5 <= m)%nat -> ~ solvable r m 3.
Proof.
  intros r m Hr Hm Hs.
  exact (rank_two_fails m Hm (solvable_rank_mono r 2 m 3 Hs Hr)).
Qed.
