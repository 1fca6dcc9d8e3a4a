(** * Paper S, instance certificates: rank_ε bounds on explicit attention matrices.

    The trusted checker's kinds [approx-rank-lower(-points)] and
    [approx-rank-upper(-points)] (solvers/trusted/intervals.py) decide, in arb,
    numeric facts about an explicit attention matrix; here the same facts give
    Coq theorems in SDefs' words:

    - [lower_sound]: rows R, disjoint column groups, and on every chosen row
      [2 W(G_i) − W(∪G) − ε T > 0] (W = the row's weighted exponentials summed
      over a set of columns, T over all) give [approx_rank_ge (attention w L) ε |R|];
    - [upper_sound]: an explicit [B = F G] (inner dimension k) with every row's
      [Σ_j |w_j e^{l_j} − B_ij T| − ε T ≤ 0] for every T in an enclosure of the
      row's total give [approx_rank_le (attention w L) ε k];
    - [gram_Q], [sphere_Q]: the logits [β X X^T] and [|x|^2 = 1] of rational
      points, computed in Q.

    The numeric hypotheses are inequalities between sums of exponentials of
    rationals: formal/SExp.v decides them by reflection (a verified enclosure
    of exp at rationals and row checkers proved sound once).  Everything else
    is proved once, here. *)

From Coq Require Import Reals List QArith Qreals Lra Lia.
From AttnProof Require Import SDefs SLemmas SRank SGrouped SResidual.
Import ListNotations.
Open Scope R_scope.

(** ** Rational data read as reals *)

Definition QR (M : list (list Q)) : list (list R) := map (map Q2R) M.

(** Sums and products in Q reduced at every step ([Qred]): the same rationals,
    kept short, so [vm_compute] stays fast on large instances. *)
Definition qsum (l : list Q) : Q := fold_right (fun a b => Qred (a + b)) 0%Q l.

Definition qdot (x y : list Q) : Q :=
  qsum (map (fun p => Qred (fst p * snd p)) (combine x y)).

Definition qgram (beta : Q) (X : list (list Q)) : list (list Q) :=
  map (fun x => map (fun y => Qred (beta * qdot x y)) X) X.

Lemma Q2R_red (x : Q) : Q2R (Qred x) = Q2R x.
Proof. apply Qeq_eqR, Qred_correct. Qed.

Fixpoint qrow_eqb (a b : list Q) : bool :=
  match a, b with
  | [], [] => true
  | x :: a, y :: b => Qeq_bool x y && qrow_eqb a b
  | _, _ => false
  end.

Fixpoint qmat_eqb (A B : list (list Q)) : bool :=
  match A, B with
  | [], [] => true
  | a :: A, b :: B => qrow_eqb a b && qmat_eqb A B
  | _, _ => false
  end.

Lemma qrow_eqb_sound a b : qrow_eqb a b = true -> map Q2R a = map Q2R b.
Proof.
  revert b; induction a as [|x a IH]; intros [|y b] H; simpl in *; try discriminate; auto.
  apply andb_prop in H as [H1 H2]. apply Qeq_bool_eq, Qeq_eqR in H1. rewrite H1, (IH b H2); reflexivity.
Qed.

Lemma qmat_eqb_sound A B : qmat_eqb A B = true -> QR A = QR B.
Proof.
  unfold QR; revert B; induction A as [|a A IH]; intros [|b B] H; simpl in *; try discriminate; auto.
  apply andb_prop in H as [H1 H2]. rewrite (qrow_eqb_sound a b H1), (IH B H2); reflexivity.
Qed.

Lemma rdot_Q (x y : list Q) : rdot (map Q2R x) (map Q2R y) = Q2R (qdot x y).
Proof.
  revert y; induction x as [|a x IH]; intros [|b y];
    try (unfold rdot, qdot, ssum; simpl; unfold Q2R; simpl; lra).
  specialize (IH y). unfold rdot, qdot, qsum in *. cbn [map combine fold_right fst snd] in *.
  rewrite ssum_cons, IH, Q2R_red, Q2R_plus, Q2R_red, Q2R_mult. reflexivity.
Qed.

(** The logits [β X X^T] of rational points are the rationals [qgram β X]. *)
Lemma gram_Q (beta : Q) (X : list (list Q)) : gram_logits (Q2R beta) (QR X) = QR (qgram beta X).
Proof.
  unfold gram_logits, qgram, QR. rewrite !map_map. apply map_ext; intro x.
  rewrite !map_map. apply map_ext; intro y. rewrite rdot_Q, Q2R_red, Q2R_mult. reflexivity.
Qed.

Definition sphere_check (d : nat) (X : list (list Q)) : bool :=
  forallb (fun x => Nat.eqb (length x) d && Qeq_bool (qdot x x) 1) X.

Definition ball_check (d : nat) (X : list (list Q)) : bool :=
  forallb (fun x => Nat.eqb (length x) d && Qle_bool (qdot x x) 1) X.

Lemma sphere_Q d X : sphere_check d X = true -> on_sphere d (QR X).
Proof.
  intro H; unfold on_sphere, QR. apply Forall_forall; intros x' Hx.
  apply in_map_iff in Hx as [x [<- Hx]]. unfold sphere_check in H; rewrite forallb_forall in H.
  destruct (andb_prop _ _ (H x Hx)) as [H1 H2]. split; [rewrite map_length; apply Nat.eqb_eq, H1|].
  rewrite rdot_Q. apply Qeq_bool_eq, Qeq_eqR in H2. rewrite H2. unfold Q2R; simpl; lra.
Qed.

Lemma ball_Q d X : ball_check d X = true -> in_ball d (QR X).
Proof.
  intro H; unfold in_ball, QR. apply Forall_forall; intros x' Hx.
  apply in_map_iff in Hx as [x [<- Hx]]. unfold ball_check in H; rewrite forallb_forall in H.
  destruct (andb_prop _ _ (H x Hx)) as [H1 H2]. split; [rewrite map_length; apply Nat.eqb_eq, H1|].
  rewrite rdot_Q. apply Qle_bool_imp_le, Qle_Rle in H2. unfold Q2R at 2 in H2; simpl in H2. lra.
Qed.

(** ** Rows of the attention *)

(** [W(g) = Σ_{c ∈ g} w_c e^{l_c}]: a row's weighted exponentials summed over
    the columns g; [T = W(all)] is [ssum (weighted w l)]. *)
Definition gsum (w : list nat) (l : list R) (g : list nat) : R :=
  ssum (map (fun c => nth c (weighted w l) 0) g).

Lemma weighted_nonneg w l c : 0 <= nth c (weighted w l) 0.
Proof.
  unfold weighted. revert l c; induction w as [|a w IH]; intros [|x l] [|c]; simpl; try lra; auto.
  pose proof (pos_INR a); pose proof (exp_pos x); nra.
Qed.

Lemma ssum_nonneg l : Forall (fun x => 0 <= x) l -> 0 <= ssum l.
Proof. induction 1; unfold ssum in *; simpl; lra. Qed.

Lemma gsum_nonneg w l g : 0 <= gsum w l g.
Proof.
  apply ssum_nonneg, Forall_forall; intros y Hy; apply in_map_iff in Hy as [c [<- _]]; apply weighted_nonneg.
Qed.

Lemma total_pos w l : Forall (fun x => (1 <= x)%nat) w -> l <> [] -> length w = length l -> 0 < ssum (weighted w l).
Proof.
  intros Hw; revert l; induction Hw as [|a w Ha Hw IH]; intros [|x l] Hl Hlen; try congruence; [simpl in Hlen; lia|].
  unfold weighted; cbn [combine map]; rewrite ssum_cons. fold (weighted w l).
  assert (0 < INR a * exp x) by (apply Rmult_lt_0_compat; [apply lt_0_INR; lia | apply exp_pos]).
  assert (0 <= ssum (weighted w l)).
  { apply ssum_nonneg, Forall_forall; intros y Hy. unfold weighted in Hy; apply in_map_iff in Hy as [[u v] [<- _]].
    simpl; pose proof (pos_INR u); pose proof (exp_pos v); nra. }
  cbn [fst snd]; lra.
Qed.

(** The softmax mass of columns g is [W(g) / T]. *)
Lemma mass_softmax w l g :
  ssum (map (fun c => nth c (softmax w l) 0) g) = gsum w l g / ssum (weighted w l).
Proof.
  assert (Hn : forall (T : R) (v : list R) c, nth c (map (fun x => x / T) v) 0 = nth c v 0 / T).
  { intros T v; induction v as [|x v IH]; intros [|c]; simpl; try (unfold Rdiv; ring); apply IH. }
  unfold gsum, softmax. induction g as [|c g IH]; [unfold ssum; simpl; unfold Rdiv; ring|].
  simpl map; rewrite !ssum_cons, IH, Hn. unfold Rdiv; ring.
Qed.

Lemma softmax_length w l : length (softmax w l) = length (weighted w l).
Proof. unfold softmax; apply map_length. Qed.

Lemma weighted_length w l : length (weighted w l) = Nat.min (length w) (length l).
Proof. unfold weighted; rewrite map_length; apply combine_length. Qed.

(** ** The lower bound: grouped columns *)

(** The numeric fact per chosen row: [2 W(G_i) − W(∪_k G_k) − ε T > 0], i.e.
    the group's softmax mass beats the other groups' by more than ε. *)
Definition margin_expr (w : list nat) (l : list R) (own flat : list nat) (eps : R) : R :=
  2 * gsum w l own - gsum w l flat - eps * ssum (weighted w l).

(** The combinatorial side conditions, computed: as many groups as rows, the
    groups disjoint and inside the columns, the rows distinct... and inside L,
    every row of L as long as w, every multiplicity at least 1. *)
Definition lower_check {A} (L : list (list A)) (w : list nat) (rows : list nat) (groups : list (list nat)) : bool :=
  Nat.eqb (length groups) (length rows)
  && forallb (fun r => Nat.ltb r (length L)) rows
  && forallb (fun l => Nat.eqb (length l) (length w)) L
  && forallb (fun c => Nat.ltb c (length w)) (concat groups)
  && forallb (fun x => Nat.leb 1 x) w
  && negb (Nat.eqb (length w) 0).

Fixpoint nodupb (l : list nat) : bool :=
  match l with [] => true | c :: l => negb (existsb (Nat.eqb c) l) && nodupb l end.

Lemma nodupb_sound l : nodupb l = true -> NoDup l.
Proof.
  induction l as [|c l IH]; simpl; intro H; constructor.
  - apply andb_prop in H as [H _]. apply Bool.negb_true_iff in H. intro Hin.
    assert (existsb (Nat.eqb c) l = true) by (apply existsb_exists; exists c; split; [exact Hin | apply Nat.eqb_refl]).
    congruence.
  - apply andb_prop in H as [_ H]; auto.
Qed.

Lemma sumn_nth_map (f : list nat -> R) (gs : list (list nat)) :
  sumn (length gs) (fun j => f (nth j gs [])) = ssum (map f gs).
Proof.
  induction gs as [|g gs IH]; [reflexivity|]. simpl length; rewrite sumn_shift.
  cbn [map nth]. rewrite ssum_cons, <- IH. reflexivity.
Qed.

Theorem lower_sound : forall (L : list (list R)) (w : list nat) (eps : R) (rows : list nat) (groups : list (list nat)),
  lower_check L w rows groups = true ->
  nodupb (concat groups) = true ->
  Forall (fun p => 0 < margin_expr w (nth (fst p) L []) (snd p) (concat groups) eps) (combine rows groups) ->
  approx_rank_ge (attention w L) eps (length rows).
Proof.
  intros L w eps rows groups Hc Hnd Hm.
  unfold lower_check in Hc. repeat rewrite Bool.andb_true_iff in Hc.
  destruct Hc as [[[[[Hlen Hrows] HL] Hcols] Hw] Hw0].
  apply Nat.eqb_eq in Hlen. rewrite forallb_forall in Hrows, HL, Hcols, Hw.
  apply Bool.negb_true_iff, Nat.eqb_neq in Hw0.
  assert (Hw' : Forall (fun x => (1 <= x)%nat) w) by (apply Forall_forall; intros x Hx; apply Nat.leb_le, Hw, Hx).
  apply (grouped_lower_bound _ _ rows groups); [exact Hlen | apply nodupb_sound, Hnd | |].
  - intros i Hi. assert (Hr : In (nth i rows O) rows) by (apply nth_In; lia).
    pose proof (proj1 (Nat.ltb_lt _ _) (Hrows _ Hr)) as Hr'.
    unfold attention; rewrite map_length; split; [exact Hr'|].
    intros c Hin. rewrite (nth_indep _ _ (softmax w [])) by (rewrite map_length; lia).
    rewrite map_nth, softmax_length, weighted_length.
    assert (length (nth (nth i rows O) L []) = length w) by (apply Nat.eqb_eq, HL, nth_In; lia).
    rewrite H, Nat.min_id. apply Nat.ltb_lt, Hcols, Hin.
  - intros i Hi. cbn zeta beta.
    set (r := nth i rows O). set (l := nth r L []).
    assert (HA : nth r (attention w L) [] = softmax w l).
    { unfold attention, l. rewrite (nth_indep _ _ (softmax w [])) by (rewrite map_length; apply Nat.ltb_lt, Hrows, nth_In; lia).
      apply map_nth. }
    rewrite HA.
    assert (Hl : length l = length w) by (apply Nat.eqb_eq, HL, nth_In, Nat.ltb_lt, Hrows, nth_In; lia).
    assert (HT : 0 < ssum (weighted w l)).
    { apply total_pos; [exact Hw' | | lia]. intro E; rewrite E in Hl; simpl in Hl; lia. }
    rewrite !mass_softmax.
    assert (Hsum : sumn (length rows) (fun j => if (j =? i)%nat then 0 else Rabs (ssum (map (fun c => nth c (softmax w l) 0) (nth j groups []))))
                   = (gsum w l (concat groups) - gsum w l (nth i groups [])) / ssum (weighted w l)).
    { assert (Hnn : forall j, Rabs (ssum (map (fun c => nth c (softmax w l) 0) (nth j groups []))) = gsum w l (nth j groups []) / ssum (weighted w l))
        by (intro j; rewrite mass_softmax; apply Rabs_right, Rle_ge; unfold Rdiv; apply Rmult_le_pos; [apply gsum_nonneg | left; apply Rinv_0_lt_compat, HT]).
      rewrite (sumn_ext _ _ (fun j => if (j =? i)%nat then 0 else gsum w l (nth j groups []) / ssum (weighted w l)))
        by (intros j _; destruct (j =? i)%nat; [reflexivity | apply Hnn]).
      assert (Hflat : gsum w l (concat groups) = sumn (length rows) (fun j => gsum w l (nth j groups [])))
        by (unfold gsum; rewrite ssum_concat, Hlen; reflexivity).
      rewrite Hflat, (sumn_pick _ i (fun j => gsum w l (nth j groups [])) Hi).
      transitivity (/ ssum (weighted w l) * sumn (length rows) (fun j => if (j =? i)%nat then 0 else gsum w l (nth j groups [])));
        [rewrite <- sumn_scale; apply sumn_ext; intros j _; destruct (j =? i)%nat; unfold Rdiv; ring|].
      unfold Rdiv; ring. }
    rewrite Hsum.
    assert (Hp : In (r, nth i groups []) (combine rows groups)).
    { unfold r. rewrite <- combine_nth by exact (eq_sym Hlen). apply nth_In. rewrite combine_length, Hlen, Nat.min_id. exact Hi. }
    rewrite Forall_forall in Hm. specialize (Hm _ Hp). cbn [fst snd] in Hm. fold l in Hm.
    unfold margin_expr in Hm.
    apply Rlt_gt. apply (Rmult_lt_reg_r (ssum (weighted w l))); [exact HT|].
    unfold Rdiv. rewrite Rmult_minus_distr_r, !Rmult_assoc, Rinv_l by lra. lra.
Qed.

(** ** The upper bound: an explicit low-rank B *)

(** [B = F G] with N columns: [B_ij = Σ_{t < k} F_it G_tj], k = |G|. *)
Definition product (F G : list (list R)) (N : nat) : list (list R) :=
  map (fun f => map (fun j => ssum (map (fun t => nth t f 0 * nth j (nth t G []) 0) (seq 0 (length G)))) (seq 0 N)) F.

Definition qproduct (F G : list (list Q)) (N : nat) : list (list Q) :=
  map (fun f => map (fun j => qsum (map (fun t => Qred (nth t f 0 * nth j (nth t G []) 0)%Q) (seq 0 (length G)))) (seq 0 N)) F.

Lemma nth_Q2R (v : list Q) c : nth c (map Q2R v) 0 = Q2R (nth c v 0%Q).
Proof.
  replace 0 with (Q2R 0%Q) by (unfold Q2R; simpl; lra). apply map_nth.
Qed.

Lemma nth_QR (M : list (list Q)) t : nth t (QR M) [] = map Q2R (nth t M []).
Proof. unfold QR. change (@nil R) with (map Q2R (@nil Q)). apply map_nth. Qed.

Lemma ssum_Q (l : list Q) : ssum (map Q2R l) = Q2R (qsum l).
Proof.
  induction l as [|x l IH]; [unfold ssum, qsum, Q2R; simpl; lra|].
  simpl map; rewrite ssum_cons, IH; unfold qsum; cbn [fold_right]; rewrite Q2R_red, Q2R_plus; reflexivity.
Qed.

Lemma product_Q F G N : product (QR F) (QR G) N = QR (qproduct F G N).
Proof.
  unfold product, qproduct. unfold QR. rewrite !map_map. apply map_ext; intro f. rewrite !map_map.
  apply map_ext; intro j. rewrite map_length, <- ssum_Q, map_map. f_equal. apply map_ext; intro t.
  change (map (map Q2R) G) with (QR G). rewrite nth_QR, !nth_Q2R, Q2R_red, Q2R_mult. reflexivity.
Qed.

(** The row error [Σ_j |w_j e^{l_j} − b_j T|], which is T times
    [||softmax w l − b||_1] when T is the row's total. *)
Definition err_expr (w : list nat) (l b : list R) (T : R) : R :=
  ssum (map (fun p => Rabs (fst p - snd p * T)) (combine (weighted w l) b)).

(** The numeric fact per row: an enclosure [lo, hi] of the total T, and the
    row error at most [ε T] for every T in it. *)
Definition row_upper_ok (w : list nat) (eps : R) (l b : list R) : Prop :=
  exists lo hi, lo <= ssum (weighted w l) <= hi /\
    forall T, lo <= T <= hi -> err_expr w l b T - eps * T <= 0.

Lemma l1_scaled (T : R) (a b : list R) : 0 < T ->
  l1 (map (fun x => x / T) a) b = ssum (map (fun p => Rabs (fst p - snd p * T)) (combine a b)) / T.
Proof.
  intro HT; revert b; induction a as [|x a IH]; intros [|y b]; try (unfold l1, ssum; simpl; unfold Rdiv; ring).
  unfold l1 in *; cbn [map combine]; rewrite !ssum_cons, IH. cbn [fst snd].
  replace (x / T - y) with ((x - y * T) / T) by (field; lra).
  unfold Rdiv; rewrite Rabs_mult, (Rabs_right (/ T)) by (apply Rle_ge, Rlt_le, Rinv_0_lt_compat, HT). ring.
Qed.

Lemma row_upper_l1 w eps l b : Forall (fun x => (1 <= x)%nat) w -> l <> [] -> length w = length l ->
  row_upper_ok w eps l b -> l1 (softmax w l) b <= eps.
Proof.
  intros Hw Hl Hlen [lo [hi [HT He]]].
  pose proof (total_pos w l Hw Hl Hlen) as Hpos.
  specialize (He _ HT). unfold softmax. rewrite l1_scaled by exact Hpos. fold (err_expr w l b (ssum (weighted w l))).
  apply (Rmult_le_reg_r (ssum (weighted w l))); [exact Hpos|].
  unfold Rdiv; rewrite Rmult_assoc, Rinv_l by lra. lra.
Qed.

Lemma fold_Rmax_le (l : list R) (eps : R) : 0 <= eps -> Forall (fun x => x <= eps) l -> fold_right Rmax 0 l <= eps.
Proof. intros He H; induction H; simpl; [exact He | apply Rmax_lub; assumption]. Qed.

Lemma nth_map_lt {A B} (f : A -> B) (l : list A) (d : A) (d' : B) n :
  (n < length l)%nat -> nth n (map f l) d' = f (nth n l d).
Proof. intro H. rewrite (nth_indep _ d' (f d)) by (rewrite map_length; exact H). apply map_nth. Qed.

(** The combinatorial side conditions of the upper bound, computed: B has
    L's rows, every row of L as long as w, every multiplicity at least 1, ε ≥ 0. *)
Definition upper_check {A B} (L : list (list A)) (w : list nat) (F : list (list B)) : bool :=
  Nat.eqb (length F) (length L)
  && forallb (fun l => Nat.eqb (length l) (length w)) L
  && forallb (fun x => Nat.leb 1 x) w
  && negb (Nat.eqb (length w) 0).

Theorem upper_sound : forall (L : list (list R)) (w : list nat) (eps : R) (F G : list (list R)),
  upper_check L w F = true -> 0 <= eps ->
  Forall2 (row_upper_ok w eps) L (product F G (length w)) ->
  approx_rank_le (attention w L) eps (length G).
Proof.
  intros L w eps F G Hc He Hrows.
  unfold upper_check in Hc. repeat rewrite Bool.andb_true_iff in Hc.
  destruct Hc as [[[HF HL] Hw] Hw0].
  apply Nat.eqb_eq in HF. rewrite forallb_forall in HL, Hw. apply Bool.negb_true_iff, Nat.eqb_neq in Hw0.
  assert (Hw' : Forall (fun x => (1 <= x)%nat) w) by (apply Forall_forall; intros x Hx; apply Nat.leb_le, Hw, Hx).
  assert (Hlen : forall l, In l L -> length l = length w) by (intros l Hl; apply Nat.eqb_eq, HL, Hl).
  exists (product F G (length w)). split; [|split].
  - unfold attention, product. split; [rewrite !map_length; lia|].
    clear Hrows. revert F HF; induction L as [|l L IH]; intros [|f F] HF; simpl in HF; try lia; constructor.
    + rewrite softmax_length, weighted_length, map_length, seq_length, (Hlen l (or_introl eq_refl)). apply Nat.min_id.
    + apply IH; [intros; apply HL; right; assumption | intros; apply Hlen; right; assumption | lia].
  - unfold maxrow_l1. apply fold_Rmax_le; [exact He|].
    clear HF. induction Hrows as [|l b L B Hr Hrows IH]; constructor.
    + cbn [fst snd]. apply row_upper_l1; [exact Hw' | | symmetry; apply Hlen; left; reflexivity | exact Hr].
      intro E; subst l. specialize (Hlen [] (or_introl eq_refl)). simpl in Hlen; lia.
    + apply IH; [intros; apply HL; right; assumption | intros; apply Hlen; right; assumption].
  - exists (fun i t => nth t (nth i F []) 0), (fun t j => nth j (nth t G []) 0).
    intros i j Hi Hj. unfold product in *. rewrite map_length in Hi.
    rewrite (nth_map_lt _ F [] [] i Hi) in Hj |- *. rewrite map_length, seq_length in Hj.
    rewrite (nth_map_lt _ (seq 0 (length w)) O 0 j ltac:(rewrite seq_length; exact Hj)).
    rewrite seq_nth by exact Hj. reflexivity.
Qed.

(** ** What an exported certificate applies *)

Lemma logits_Q (beta : Q) (X Lq : list (list Q)) :
  qmat_eqb (qgram beta X) Lq = true -> gram_logits (Q2R beta) (QR X) = QR Lq.
Proof. intro H; rewrite gram_Q; apply qmat_eqb_sound, H. Qed.

Lemma product_eq (F G Bq : list (list Q)) (N : nat) :
  qmat_eqb (qproduct F G N) Bq = true -> product (QR F) (QR G) N = QR Bq.
Proof. intro H; rewrite product_Q; apply qmat_eqb_sound, H. Qed.

Lemma length_QR (M : list (list Q)) : length (QR M) = length M.
Proof. apply map_length. Qed.


Lemma forallb_map' {A B} (f : A -> B) (p : B -> bool) (l : list A) : forallb p (map f l) = forallb (fun x => p (f x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity | rewrite IH; reflexivity]. Qed.

Lemma forallb_ext' {A} (p q : A -> bool) (l : list A) : (forall x, p x = q x) -> forallb p l = forallb q l.
Proof. intro H; induction l as [|x l IH]; simpl; [reflexivity | rewrite H, IH; reflexivity]. Qed.

(** The side conditions read only lengths: computed on the rationals. *)
Lemma lower_check_QR (Lq : list (list Q)) w rows groups : lower_check (QR Lq) w rows groups = lower_check Lq w rows groups.
Proof.
  unfold lower_check, QR. rewrite map_length. f_equal. f_equal. f_equal. f_equal.
  rewrite forallb_map'. apply forallb_ext'; intro l; rewrite map_length; reflexivity.
Qed.

Lemma upper_check_QR (Lq F : list (list Q)) w : upper_check (QR Lq) w (QR F) = upper_check Lq w F.
Proof.
  unfold upper_check, QR. rewrite !map_length. f_equal. f_equal. f_equal.
  rewrite forallb_map'. apply forallb_ext'; intro l; rewrite map_length; reflexivity.
Qed.

(** The two soundness theorems on rational data, as an exported certificate applies them. *)
Theorem lower_sound_Q (Lq : list (list Q)) (w : list nat) (eps : Q) (rows : list nat) (groups : list (list nat)) :
  lower_check Lq w rows groups && nodupb (concat groups) = true ->
  Forall (fun p => 0 < margin_expr w (nth (fst p) (QR Lq) []) (snd p) (concat groups) (Q2R eps)) (combine rows groups) ->
  approx_rank_ge (attention w (QR Lq)) (Q2R eps) (length rows).
Proof.
  intros Hc Hm. apply andb_prop in Hc as [Hc Hnd].
  apply (lower_sound _ _ _ rows groups); [rewrite lower_check_QR; exact Hc | exact Hnd | exact Hm].
Qed.

Theorem upper_sound_Q (Lq F G Bq : list (list Q)) (w : list nat) (eps : Q) :
  upper_check Lq w F && qmat_eqb (qproduct F G (length w)) Bq && Qle_bool 0 eps = true ->
  Forall2 (row_upper_ok w (Q2R eps)) (QR Lq) (QR Bq) ->
  approx_rank_le (attention w (QR Lq)) (Q2R eps) (length G).
Proof.
  intros Hc Hrows. apply andb_prop in Hc as [Hc He]. apply andb_prop in Hc as [Hc HB].
  rewrite <- (map_length (map Q2R) G). apply (upper_sound _ _ _ (QR F)).
  - rewrite upper_check_QR; exact Hc.
  - apply Qle_bool_imp_le, Qle_Rle in He. unfold Q2R at 1 in He; simpl in He; lra.
  - change (map (map Q2R) G) with (QR G). rewrite product_eq with (Bq := Bq) by exact HB. exact Hrows.
Qed.

(** ** Exact ranks of rational matrices *)

Lemma product_rank_le (F G : list (list R)) (N : nat) : rank_le (length G) (product F G N).
Proof.
  exists (fun i t => nth t (nth i F []) 0), (fun t j => nth j (nth t G []) 0).
  intros i j Hi Hj. unfold product in *. rewrite map_length in Hi.
  rewrite (nth_map_lt _ F [] [] i Hi) in Hj |- *. rewrite map_length, seq_length in Hj.
  rewrite (nth_map_lt _ (seq 0 N) O 0 j ltac:(rewrite seq_length; exact Hj)).
  rewrite seq_nth by exact Hj. reflexivity.
Qed.

(** [rank A ≤ k] from an exact factorisation [A = F G] checked in Q. *)
Theorem rank_upper_sound (A F G : list (list Q)) (N : nat) :
  qmat_eqb (qproduct F G N) A = true -> rank_le (length G) (QR A).
Proof.
  intro H. rewrite <- (product_eq F G A N H), <- (length_QR G). apply product_rank_le.
Qed.

Definition identity (k : nat) : list (list Q) :=
  map (fun i => map (fun j => if Nat.eqb i j then 1%Q else 0%Q) (seq 0 k)) (seq 0 k).

Definition submatrix (A : list (list Q)) (rows cols : list nat) : list (list Q) :=
  map (fun i => map (fun j => nth j (nth i A []) 0%Q) cols) rows.

(** [rank A ≥ k]: the k × k minor C of A on [rows] × [cols] has a right
    inverse Y ([C Y = I], checked in Q).  If [A = L R] with inner dimension
    k' < k, then [I = (L on rows) (R on cols · Y)] would factor the identity,
    which is strictly diagonally dominant, so of full rank k. *)
Theorem rank_lower_sound (A Y : list (list Q)) (rows cols : list nat) :
  Nat.eqb (length cols) (length rows)
  && Nat.eqb (length Y) (length rows)
  && forallb (fun i => Nat.ltb i (length A)) rows
  && forallb (fun r => forallb (fun j => Nat.ltb j (length r)) cols) A
  && qmat_eqb (qproduct (submatrix A rows cols) Y (length rows)) (identity (length rows)) = true ->
  rank_ge (length rows) (QR A).
Proof.
  intros H k' Hk' [Lf [Rf HA]].
  repeat rewrite Bool.andb_true_iff in H. destruct H as [[[[Hc HYl] Hr] Hcol] HI].
  apply Nat.eqb_eq in Hc, HYl. rewrite forallb_forall in Hr, Hcol.
  set (k := length rows) in *.
  pose proof (product_eq _ _ _ _ HI) as HP.
  set (ri := fun a => nth a rows O). set (cj := fun b => nth b cols O).
  set (Yr := fun b c => Q2R (nth c (nth b Y []) 0%Q)).
  (* the minor's entries are A's, hence L R's *)
  assert (HC : forall a b, (a < k)%nat -> (b < k)%nat ->
            nth b (nth a (QR (submatrix A rows cols)) []) 0 = sumn k' (fun t => Lf (ri a) t * Rf t (cj b))).
  { intros a b Ha Hb.
    assert (Hra : (ri a < length A)%nat) by (apply Nat.ltb_lt, Hr, nth_In, Ha).
    assert (Hcb : (cj b < length (nth (ri a) A []))%nat).
    { apply Nat.ltb_lt. apply (proj1 (forallb_forall _ _) (Hcol _ (nth_In _ _ Hra))). apply nth_In; lia. }
    rewrite nth_QR. unfold submatrix. rewrite (nth_map_lt _ _ O [] a Ha).
    rewrite nth_Q2R, (nth_map_lt _ cols O 0%Q b) by lia.
    rewrite <- ssum_seq, <- HA.
    - rewrite nth_QR, nth_Q2R. reflexivity.
    - rewrite length_QR; exact Hra.
    - rewrite nth_QR, map_length; exact Hcb. }
  apply (diagonally_dominant_full_rank k k' (fun a c => if Nat.eqb a c then 1 else 0)
           (fun a t => Lf (ri a) t) (fun t c => sumn k (fun b => Rf t (cj b) * Yr b c)) Hk').
  - intros a Ha. rewrite Nat.eqb_refl, Rabs_R1.
    rewrite sumn_zero; [lra|]. intros c _. destruct (Nat.eqb c a) eqn:E; [reflexivity|].
    rewrite Nat.eqb_sym, E, Rabs_R0. reflexivity.
  - intros a c Ha Hc'.
    assert (E1 : nth c (nth a (QR (identity k)) []) 0 = if Nat.eqb a c then 1 else 0).
    { unfold identity. rewrite nth_QR, (nth_map_lt _ _ O [] a) by (rewrite seq_length; exact Ha).
      rewrite nth_Q2R, (nth_map_lt _ _ O 0%Q c) by (rewrite seq_length; exact Hc').
      rewrite !seq_nth by assumption. simpl. destruct (Nat.eqb a c); unfold Q2R; simpl; lra. }
    rewrite <- E1, <- HP. unfold product.
    assert (Hsub : length (QR (submatrix A rows cols)) = k) by (unfold QR, submatrix; rewrite !map_length; reflexivity).
    rewrite (nth_map_lt _ _ [] [] a) by (rewrite Hsub; exact Ha).
    rewrite (nth_map_lt _ _ O 0 c) by (rewrite seq_length; exact Hc').
    rewrite seq_nth by exact Hc'. simpl plus.
    rewrite length_QR, HYl, ssum_seq.
    rewrite (sumn_ext k _ (fun b => sumn k' (fun t => Lf (ri a) t * Rf t (cj b)) * Yr b c))
      by (intros b Hb; rewrite HC by assumption; unfold Yr; rewrite nth_QR, nth_Q2R; reflexivity).
    rewrite (sumn_ext k _ (fun b => sumn k' (fun t => Lf (ri a) t * (Rf t (cj b) * Yr b c))))
      by (intros b Hb; rewrite Rmult_comm, <- sumn_scale; apply sumn_ext; intros; ring).
    rewrite sumn_swap. apply sumn_ext; intros t Ht. rewrite <- sumn_scale. reflexivity.
Qed.

(** ** Same and different attention (S4) *)

Fixpoint shift_row_check (l s : list Q) (c : Q) : bool :=
  match l, s with
  | [], [] => true
  | x :: l, y :: s => Qeq_bool (y - x) c && shift_row_check l s c
  | _, _ => false
  end.

(** Every row of [L' − L] is constant (computed in Q). *)
Fixpoint shift_check (L Sh : list (list Q)) : bool :=
  match L, Sh with
  | [], [] => true
  | l :: L, s :: Sh =>
      match l, s with
      | x :: _, y :: _ => shift_row_check l s (y - x)
      | [], [] => true
      | _, _ => false
      end && shift_check L Sh
  | _, _ => false
  end.

Lemma shift_row_sound l s c : shift_row_check l s c = true ->
  map Q2R s = map (fun x => x + Q2R c) (map Q2R l).
Proof.
  revert s; induction l as [|x l IH]; intros [|y s] H; simpl in *; try discriminate; [reflexivity|].
  apply andb_prop in H as [H1 H2]. rewrite (IH s H2). f_equal.
  apply Qeq_bool_eq in H1. apply Qeq_eqR in H1. rewrite Q2R_minus in H1. lra.
Qed.

(** The row-scalar quotient on a rational instance: rows of [L'] that are rows
    of L plus constants have the same softmax (S4). *)
Theorem row_shift_sound (L Sh : list (list Q)) : shift_check L Sh = true -> rowsoftmax (QR Sh) = rowsoftmax (QR L).
Proof.
  revert Sh; induction L as [|l L IH]; intros [|s Sh] H; simpl in H; try discriminate; [reflexivity|].
  apply andb_prop in H as [Hrow H]. unfold rowsoftmax, QR in *. simpl. rewrite (IH Sh H). f_equal.
  destruct l as [|x l], s as [|y s]; try discriminate; [reflexivity|].
  pose proof (shift_row_sound _ _ _ Hrow) as E.
  rewrite E, !map_length. apply S4_row_scalar_quotient.
Qed.

(** Entry j of two rows' softmax, cross-multiplied: [e_j(l) T(s) − e_j(s) T(l)]
    (zero exactly when the two entries are equal, for nonempty rows). *)
Definition differ_expr (l s : list R) (j : nat) : R :=
  nth j (weighted (ones (length l)) l) 0 * ssum (weighted (ones (length s)) s)
  - nth j (weighted (ones (length s)) s) 0 * ssum (weighted (ones (length l)) l).

Lemma ones_pos n : Forall (fun x => (1 <= x)%nat) (ones n).
Proof. unfold ones; induction n; simpl; constructor; [lia | assumption]. Qed.

Lemma ones_length n : length (ones n) = n.
Proof. apply repeat_length. Qed.


Lemma nth_div (T : R) (v : list R) j : nth j (map (fun x => x / T) v) 0 = nth j v 0 / T.
Proof. revert j; induction v as [|x v IH]; intros [|j]; simpl; try (unfold Rdiv; ring); apply IH. Qed.

(** Two attentions differ when, at one entry, the cross-multiplied difference
    is certainly nonzero. *)
Theorem differs_sound (L Sh : list (list R)) (i j : nat) :
  0 < differ_expr (nth i L []) (nth i Sh []) j \/ differ_expr (nth i L []) (nth i Sh []) j < 0 ->
  rowsoftmax L <> rowsoftmax Sh.
Proof.
  intros Hd E. set (l := nth i L []) in *. set (s := nth i Sh []) in *.
  assert (Hrow : softmax (ones (length l)) l = softmax (ones (length s)) s).
  { destruct (Nat.lt_ge_cases i (length L)) as [HiL|HiL].
    - assert (HiS : (i < length Sh)%nat) by (rewrite <- (map_length (fun l => softmax (ones (length l)) l) Sh);
                                             unfold rowsoftmax in E; rewrite <- E, map_length; exact HiL).
      pose proof (f_equal (fun M => nth i M []) E) as Ei. unfold rowsoftmax in Ei. cbn beta in Ei.
      rewrite (nth_map_lt _ L [] [] i HiL), (nth_map_lt _ Sh [] [] i HiS) in Ei. exact Ei.
    - exfalso. unfold l in Hd. rewrite nth_overflow in Hd by exact HiL.
      unfold differ_expr, weighted, ssum in Hd; simpl in Hd. destruct j; simpl in Hd; lra. }
  pose proof (f_equal (fun r => nth j r 0) Hrow) as Ej. cbn beta in Ej. unfold softmax in Ej.
  rewrite !nth_div in Ej.
  destruct l as [|x l'].
  { unfold differ_expr, weighted, ssum in Hd; simpl in Hd. destruct j; simpl in Hd; lra. }
  destruct s as [|y s'].
  { unfold differ_expr, weighted, ssum in Hd; simpl in Hd. destruct j; simpl in Hd; lra. }
  assert (T1 : 0 < ssum (weighted (ones (length (x :: l'))) (x :: l')))
    by (apply total_pos; [apply ones_pos | discriminate | apply ones_length]).
  assert (T2 : 0 < ssum (weighted (ones (length (y :: s'))) (y :: s')))
    by (apply total_pos; [apply ones_pos | discriminate | apply ones_length]).
  unfold differ_expr in Hd.
  set (a := nth j (weighted (ones (length (x :: l'))) (x :: l')) 0) in *.
  set (b := nth j (weighted (ones (length (y :: s'))) (y :: s')) 0) in *.
  set (TA := ssum (weighted (ones (length (x :: l'))) (x :: l'))) in *.
  set (TB := ssum (weighted (ones (length (y :: s'))) (y :: s'))) in *.
  assert (a * TB = b * TA).
  { apply (Rmult_eq_reg_r (/ TA * / TB)); [| apply Rmult_integral_contrapositive; split; apply Rinv_neq_0_compat; lra].
    transitivity (a / TA); [field; lra|]. rewrite Ej. field; lra. }
  lra.
Qed.

(** ** Residuals and duality on rational instances *)

Fixpoint shape_eqb (L L' : list (list Q)) : bool :=
  match L, L' with
  | [], [] => true
  | a :: L, b :: L' => Nat.eqb (length a) (length b) && shape_eqb L L'
  | _, _ => false
  end.

(** The per-row residual bound on every row of two rational logit matrices of
    one shape (S6 through [residual_within_row]). *)
Theorem residual_within_sound (L L' : list (list Q)) : shape_eqb L L' = true -> residual_within (QR L) (QR L').
Proof.
  intros H.
  assert (Hl : length L' = length L /\ forall j, (j < length L)%nat -> length (nth j L' []) = length (nth j L [])).
  { revert L' H; induction L as [|a L IH]; intros [|b L'] H; simpl in H; try discriminate; [split; [reflexivity | intros; simpl in *; lia]|].
    apply andb_prop in H as [H1 H2]. apply Nat.eqb_eq in H1. destruct (IH L' H2) as [E F].
    split; [simpl; rewrite E; reflexivity|]. intros [|j] Hj; [symmetry; exact H1 | apply F; simpl in Hj; lia]. }
  destruct Hl as [E F]. intros i Hi. unfold rowsoftmax. rewrite length_QR in Hi.
  rewrite (nth_map_lt _ (QR L) [] [] i) by (rewrite length_QR; exact Hi).
  rewrite (nth_map_lt _ (QR L') [] [] i) by (rewrite length_QR; lia).
  apply residual_within_row. rewrite !nth_QR, !map_length. apply F, Hi.
Qed.

(** S1 at any matrix (the duality holds for every M; a certificate names one). *)
Corollary duality_sound (M : list (list Q)) : duality_holds (QR M).
Proof. exact (S1_duality (QR M)). Qed.
