(** * Paper S, the residual bound (S6): perturbing every logit of a row by at
    most δ moves its softmax by at most [2 tanh(δ/2)] in ℓ1, sharply; the
    tempting [tanh δ] is false; the per-row form [2 tanh(osc/4)] the
    [residual-bound] kind judges; and the [residual-two-point] certificates
    by reflection.  Stated in SDefs' words (docs/softmax_rank.residual_error.md,
    docs/softmax_rank.residual_error_tanh.md). *)

From Coq Require Import Reals List Lra Lia Psatz.
From Coq Require Import QArith Qreals Qabs.
From AttnProof Require Import SDefs SLemmas.
Import ListNotations.
Open Scope R_scope.

(** ** Sums over lists *)

Lemma res_ssum_le {A} (f g : A -> R) (z : list A) :
  (forall x, In x z -> f x <= g x) -> ssum (map f z) <= ssum (map g z).
Proof.
  induction z as [|x z IH]; intro H; unfold ssum in *; simpl; [lra|].
  pose proof (H x (or_introl eq_refl)). pose proof (IH (fun y Hy => H y (or_intror Hy))). lra.
Qed.

Lemma res_ssum_nonneg {A} (f : A -> R) (z : list A) :
  (forall x, In x z -> 0 <= f x) -> 0 <= ssum (map f z).
Proof.
  intro H. replace 0 with (ssum (map (fun _ : A => 0) z)) at 1.
  - apply res_ssum_le; exact H.
  - clear H; induction z as [|x z IH]; unfold ssum in *; simpl; [reflexivity | rewrite IH; ring].
Qed.

Lemma res_ssum_pos {A} (f : A -> R) (z : list A) :
  (forall x, In x z -> 0 < f x) -> z <> [] -> 0 < ssum (map f z).
Proof.
  destruct z as [|x z]; intros H Hne; [congruence|].
  rewrite map_cons, ssum_cons.
  pose proof (H x (or_introl eq_refl)).
  pose proof (res_ssum_nonneg f z (fun y Hy => Rlt_le _ _ (H y (or_intror Hy)))). lra.
Qed.

Lemma res_ssum_scale {A} (c : R) (f : A -> R) (z : list A) :
  ssum (map (fun x => c * f x) z) = c * ssum (map f z).
Proof. induction z as [|x z IH]; unfold ssum in *; simpl; [ring | rewrite IH; ring]. Qed.

Lemma res_ssum_minus {A} (f g : A -> R) (z : list A) :
  ssum (map (fun x => f x - g x) z) = ssum (map f z) - ssum (map g z).
Proof. induction z as [|x z IH]; unfold ssum in *; simpl; [ring | rewrite IH; ring]. Qed.

Lemma res_ssum_filter {A} (P : A -> bool) (f : A -> R) (z : list A) :
  ssum (map f z) = ssum (map f (filter P z)) + ssum (map f (filter (fun x => negb (P x)) z)).
Proof.
  induction z as [|x z IH]; [unfold ssum; simpl; ring|].
  unfold ssum in *; simpl; destruct (P x); simpl; rewrite IH; ring.
Qed.

Lemma res_combine_map {A B C} (g : A -> B) (h : A -> C) (z : list A) :
  combine (map g z) (map h z) = map (fun x => (g x, h x)) z.
Proof. induction z as [|x z IH]; simpl; [reflexivity | rewrite IH; reflexivity]. Qed.

Lemma res_map_fst_combine {A B} (a : list A) (b : list B) :
  length a = length b -> map fst (combine a b) = a.
Proof.
  revert b; induction a as [|x a IH]; intros [|y b] H; simpl in *; try discriminate; auto.
  rewrite IH by lia; reflexivity.
Qed.

Lemma res_weighted_length (w : list nat) (l : list R) :
  length w = length l -> length (weighted w l) = length l.
Proof. intro H; unfold weighted; rewrite map_length, combine_length, H; apply Nat.min_id. Qed.

(** The perturbed weights: [w_j e^{l_j + e_j} = (w_j e^{l_j}) e^{e_j}]. *)
Lemma res_weighted_vadd (w : list nat) (l e : list R) :
  length w = length l -> length e = length l ->
  weighted w (vadd l e) = map (fun p => fst p * exp (snd p)) (combine (weighted w l) e).
Proof.
  revert l e; induction w as [|n w IH]; intros [|x l] [|y e] H1 H2; simpl in *; try discriminate; auto.
  unfold weighted, vadd in *; simpl. rewrite exp_plus.
  rewrite IH by lia. f_equal. ring.
Qed.

(** [1 + h ≤ e^h] for [h ≥ 0], from the first two terms of the series (as
    the standard library's [exp_pos_pos]); the library's [exp_increasing]
    would bring in [Classical_Prop.classic] through the mean value theorem. *)
Lemma res_exp_ge (h : R) : 0 <= h -> 1 + h <= exp h.
Proof.
  intro Hh; destruct (Rle_lt_or_eq_dec 0 h Hh) as [Hlt|<-]; [|rewrite exp_0; lra].
  set (An := fun N : nat => / INR (fact N) * h ^ N).
  assert (Hcv : Un_cv (fun n => sum_f_R0 An n) (exp h)).
  { unfold exp, projT1; destruct (exist_exp h) as [v Hv]. exact Hv. }
  replace (1 + h) with (sum_f_R0 An 1) by (simpl; unfold An; simpl; field).
  apply sum_incr; [exact Hcv|].
  intro n; unfold An; apply Rmult_le_pos.
  - apply Rlt_le, Rinv_0_lt_compat, INR_fact_lt_0.
  - apply pow_le, Hh.
Qed.

Lemma res_exp_le (x y : R) : x <= y -> exp x <= exp y.
Proof.
  intro H. replace y with (x + (y - x)) by ring. rewrite exp_plus.
  pose proof (res_exp_ge (y - x) ltac:(lra)). pose proof (exp_pos x).
  rewrite <- (Rmult_1_r (exp x)) at 1. apply Rmult_le_compat_l; lra.
Qed.

Lemma res_ln_le (x y : R) : 0 < x -> x <= y -> ln x <= ln y.
Proof. intros Hx H; destruct (Rle_lt_or_eq_dec x y H) as [Hlt|<-]; [apply Rlt_le, ln_increasing; lra | lra]. Qed.

Lemma res_Rabs_le_inv (x a : R) : Rabs x <= a -> - a <= x <= a.
Proof. intro H; destruct (Rcase_abs x) as [Hx|Hx]; [rewrite Rabs_left in H | rewrite Rabs_right in H]; lra. Qed.

(** ** tanh in exponentials *)

(** [tanh x = (e^{2x} − 1)/(e^{2x} + 1)], for every real x. *)
Lemma tanh_exp (x : R) : tanh x = (exp (2 * x) - 1) / (exp (2 * x) + 1).
Proof.
  unfold tanh, sinh, cosh. rewrite exp_Ropp.
  replace (2 * x) with (x + x) by ring. rewrite exp_plus.
  pose proof (exp_pos x) as Hy. set (y := exp x) in *.
  assert (0 < y + / y) by (pose proof (Rinv_0_lt_compat y Hy); lra).
  field. split; [nra | lra].
Qed.

(** [tanh(δ/2) = (e^δ − 1)/(e^δ + 1)]. *)
Lemma tanh_half (d : R) : tanh (d / 2) = (exp d - 1) / (exp d + 1).
Proof. rewrite tanh_exp; replace (2 * (d / 2)) with d by field; reflexivity. Qed.

(** ** The two-block reduction *)

Lemma res_div_le_cross (a b c d : R) : 0 < b -> 0 < d -> a * d <= c * b -> a / b <= c / d.
Proof.
  intros Hb Hd H.
  replace (a / b) with ((a * d) * / (b * d)) by (field; lra).
  replace (c / d) with ((c * b) * / (b * d)) by (field; lra).
  apply Rmult_le_compat_r; [apply Rlt_le, Rinv_0_lt_compat, Rmult_lt_0_compat |]; assumption.
Qed.

(** The algebra of the two blocks: S carries [α] of the old mass and [X] of
    the new, its complement [β] and [Y]; every weight moved by a factor in
    [[1/s, s]], so [X ≤ s α] and [β ≤ s Y].  Then the new share of S exceeds
    the old by at most [(s − 1)/(s + 1)]:  first [X/(X+Y) ≤ s²α/(s²α + β)],
    then [s²α/(s²α+β) − α/(α+β) = αβ(s²−1)/((s²α+β)(α+β))], and
    [(s−1)(s²α+β)(α+β) − αβ(s²−1)(s+1) = (s−1)(sα − β)² ≥ 0]. *)
Lemma two_block_algebra (s al be X Y : R) :
  1 <= s -> 0 <= al -> 0 <= be -> 0 <= X -> 0 <= Y -> 0 < al + be -> 0 < X + Y ->
  X <= s * al -> be <= s * Y ->
  X / (X + Y) - al / (al + be) <= (s - 1) / (s + 1).
Proof.
  intros Hs Hal Hbe HX HY HA HB HXs HYs.
  set (K := s * s * al).
  assert (HK : 0 < K + be) by (subst K; nra).
  (* step 1: X/(X+Y) <= K/(K+be), i.e. X be <= s^2 al Y *)
  assert (H1 : X / (X + Y) <= K / (K + be)).
  { apply res_div_le_cross; [exact HB | exact HK|].
    assert (X * be <= (s * al) * (s * Y)) by (apply Rmult_le_compat; assumption).
    subst K; nra. }
  (* step 2: K/(K+be) - al/(al+be) <= (s-1)/(s+1) *)
  assert (H2 : K / (K + be) - al / (al + be) <= (s - 1) / (s + 1)).
  { replace (K / (K + be) - al / (al + be)) with ((al * be * (s * s - 1)) / ((K + be) * (al + be)))
      by (subst K; field; lra).
    apply res_div_le_cross; [apply Rmult_lt_0_compat; assumption | lra |].
    set (D := s * al - be).
    assert (Hid : (s - 1) * ((K + be) * (al + be)) - al * be * (s * s - 1) * (s + 1)
                  = (s - 1) * (D * D)) by (subst K D; ring).
    assert (0 <= (s - 1) * (D * D)) by (apply Rmult_le_pos; [lra | apply Rle_0_sqr]).
    lra. }
  lra.
Qed.

(** The reduction on a row given as pairs [(a_j, e_j)] with [a_j > 0] and
    [|e_j| ≤ δ]: with [p_j = a_j/Σa] and [q_j = a_j e^{e_j}/Σ a e^e],
    [Σ_j |p_j − q_j| ≤ 2 (e^δ − 1)/(e^δ + 1)].  Proof: the two rows sum to 1,
    so [Σ|p − q| = 2 Σ_{j∈S} (q_j − p_j)] with [S = {j : q_j > p_j}], and
    [two_block_algebra] bounds [q(S) − p(S)]. *)
Lemma two_block_reduction (delta : R) (z : list (R * R)) :
  0 <= delta -> Forall (fun p => 0 < fst p /\ Rabs (snd p) <= delta) z ->
  ssum (map (fun p => Rabs (fst p / ssum (map fst z)
                            - fst p * exp (snd p) / ssum (map (fun p => fst p * exp (snd p)) z))) z)
  <= 2 * ((exp delta - 1) / (exp delta + 1)).
Proof.
  intros Hd Hz. rewrite Forall_forall in Hz.
  set (s := exp delta).
  assert (Hs : 1 <= s) by (subst s; rewrite <- exp_0; apply res_exp_le; exact Hd).
  assert (Hr : 0 <= (s - 1) / (s + 1))
    by (unfold Rdiv; apply Rmult_le_pos; [lra | apply Rlt_le, Rinv_0_lt_compat; lra]).
  destruct z as [|p0 z0] eqn:Ez.
  { unfold ssum; simpl; lra. }
  rewrite <- Ez in *.
  assert (Hne : z <> []) by (rewrite Ez; discriminate).
  clear p0 z0 Ez.
  set (b := fun p : R * R => fst p * exp (snd p)).
  (* the weights: a_j > 0, e^{-δ} ≤ e^{e_j} ≤ e^δ *)
  assert (Ha : forall p, In p z -> 0 < fst p) by (intros p Hp; apply Hz, Hp).
  assert (Hbpos : forall p, In p z -> 0 < b p)
    by (intros p Hp; subst b; apply Rmult_lt_0_compat; [apply Ha, Hp | apply exp_pos]).
  assert (Hup : forall p, In p z -> b p <= s * fst p).
  { intros p Hp. destruct (Hz p Hp) as [Hp1 Hp2]. apply res_Rabs_le_inv in Hp2.
    assert (exp (snd p) <= s) by (subst s; apply res_exp_le; lra).
    subst b; simpl. nra. }
  assert (Hdown : forall p, In p z -> fst p <= s * b p).
  { intros p Hp. destruct (Hz p Hp) as [Hp1 Hp2]. apply res_Rabs_le_inv in Hp2.
    assert (E : exp (- delta) <= exp (snd p)) by (apply res_exp_le; lra).
    rewrite exp_Ropp in E. fold s in E.
    assert (1 <= s * exp (snd p)).
    { replace 1 with (s * / s) by (field; lra). apply Rmult_le_compat_l; lra. }
    subst b; simpl. nra. }
  set (A := ssum (map fst z)). set (B := ssum (map b z)).
  assert (HA : 0 < A) by (apply res_ssum_pos; assumption).
  assert (HB : 0 < B) by (apply res_ssum_pos; assumption).
  change (ssum (map (fun p => Rabs (fst p / A - b p / B)) z) <= 2 * ((s - 1) / (s + 1))).
  (* g_j = q_j - p_j and S = {j : g_j > 0} *)
  set (g := fun p : R * R => b p / B - fst p / A).
  set (inS := fun p : R * R => if Rlt_dec 0 (g p) then true else false).
  assert (Hsum0 : ssum (map g z) = 0).
  { transitivity (ssum (map (fun p => / B * b p - / A * fst p) z)).
    - f_equal; apply map_ext; intro p; subst g; simpl; unfold Rdiv; ring.
    - rewrite res_ssum_minus, !res_ssum_scale. fold A B. field; lra. }
  rewrite (res_ssum_filter inS) in Hsum0.
  replace (ssum (map (fun p => Rabs (fst p / A - b p / B)) z))
    with (2 * ssum (map g (filter inS z))).
  2: { symmetry; rewrite (res_ssum_filter inS).
       replace (ssum (map (fun p => Rabs (fst p / A - b p / B)) (filter inS z)))
         with (ssum (map g (filter inS z))).
       2: { f_equal; apply map_ext_in; intros p Hp; apply filter_In in Hp as [_ Hp].
            subst inS; simpl in Hp; destruct (Rlt_dec 0 (g p)) as [Hg|]; [|discriminate].
            subst g; simpl in *. rewrite Rabs_left by lra. ring. }
       replace (ssum (map (fun p => Rabs (fst p / A - b p / B)) (filter (fun x => negb (inS x)) z)))
         with (- ssum (map g (filter (fun x => negb (inS x)) z))).
       2: { replace (- ssum (map g (filter (fun x => negb (inS x)) z)))
              with (-1 * ssum (map g (filter (fun x => negb (inS x)) z))) by ring.
            rewrite <- res_ssum_scale.
            f_equal; apply map_ext_in; intros p Hp; apply filter_In in Hp as [_ Hp].
            subst inS; simpl in Hp; destruct (Rlt_dec 0 (g p)) as [|Hg]; [discriminate|].
            subst g; simpl in *. rewrite Rabs_right by lra. ring. }
       lra. }
  (* the four block masses *)
  set (zS := filter inS z). set (zN := filter (fun x => negb (inS x)) z).
  assert (HinS : forall p, In p zS -> In p z) by (intros p Hp; apply filter_In in Hp; apply Hp).
  assert (HinN : forall p, In p zN -> In p z) by (intros p Hp; apply filter_In in Hp; apply Hp).
  set (al := ssum (map fst zS)). set (be := ssum (map fst zN)).
  set (X := ssum (map b zS)). set (Y := ssum (map b zN)).
  assert (EA : A = al + be) by (subst A al be zS zN; apply res_ssum_filter).
  assert (EB : B = X + Y) by (subst B X Y zS zN; apply res_ssum_filter).
  assert (Hal : 0 <= al) by (apply res_ssum_nonneg; intros p Hp; apply Rlt_le, Ha, HinS, Hp).
  assert (Hbe : 0 <= be) by (apply res_ssum_nonneg; intros p Hp; apply Rlt_le, Ha, HinN, Hp).
  assert (HX : 0 <= X) by (apply res_ssum_nonneg; intros p Hp; apply Rlt_le, Hbpos, HinS, Hp).
  assert (HY : 0 <= Y) by (apply res_ssum_nonneg; intros p Hp; apply Rlt_le, Hbpos, HinN, Hp).
  assert (HXs : X <= s * al).
  { subst X al; rewrite <- res_ssum_scale. apply res_ssum_le; intros p Hp; apply Hup, HinS, Hp. }
  assert (HYs : be <= s * Y).
  { subst Y be; rewrite <- res_ssum_scale. apply res_ssum_le; intros p Hp; apply Hdown, HinN, Hp. }
  (* q(S) - p(S) = X/B - al/A *)
  assert (Hg : ssum (map g zS) = X / B - al / A).
  { transitivity (ssum (map (fun p => / B * b p - / A * fst p) zS)).
    - f_equal; apply map_ext; intro p; subst g; simpl; unfold Rdiv; ring.
    - rewrite res_ssum_minus, !res_ssum_scale. fold X al. unfold Rdiv; ring. }
  rewrite Hg, EA, EB.
  pose proof (two_block_algebra s al be X Y Hs Hal Hbe HX HY ltac:(lra) ltac:(lra) HXs HYs).
  lra.
Qed.

(** ** S6, the residual bound *)

(** S6: for every row length n, every multiplicities [w ∈ ℕ^n] with
    [w_j ≥ 1], every logits [l ∈ ℝ^n] and every perturbation [e ∈ ℝ^n] with
    [|e_j| ≤ δ] for all j,
    [||softmax_w(l) − softmax_w(l + e)||_1 ≤ 2 tanh(δ/2)]. *)
Theorem S6_residual_bound : forall (w : list nat) (l e : list R) (delta : R),
  0 <= delta -> length w = length l -> length e = length l -> Forall (fun x => (1 <= x)%nat) w ->
  Forall (fun x => Rabs x <= delta) e ->
  l1 (softmax w l) (softmax w (vadd l e)) <= 2 * tanh (delta / 2).
Proof.
  intros w l e delta Hd Hwl Hel Hw He.
  rewrite tanh_half.
  set (z := combine (weighted w l) e).
  assert (Hfst : map fst z = weighted w l)
    by (apply res_map_fst_combine; rewrite res_weighted_length; auto).
  unfold l1, softmax.
  rewrite (res_weighted_vadd w l e Hwl Hel). fold z.
  rewrite <- Hfst, !map_map, res_combine_map, map_map. cbn [fst snd].
  apply two_block_reduction; [exact Hd|].
  apply Forall_forall; intros [x y] Hxy; cbn [fst snd]; split.
  - apply in_combine_l in Hxy. unfold weighted in Hxy.
    apply in_map_iff in Hxy as [[n r] [<- Hnr]]. cbn [fst snd].
    apply in_combine_l in Hnr. rewrite Forall_forall in Hw. specialize (Hw n Hnr).
    apply Rmult_lt_0_compat; [apply lt_0_INR; lia | apply exp_pos].
  - apply in_combine_r in Hxy. rewrite Forall_forall in He. apply He, Hxy.
Qed.

Lemma res_ones_length (n : nat) : length (ones n) = n.
Proof. apply repeat_length. Qed.

Lemma res_ones_pos (n : nat) : Forall (fun x => (1 <= x)%nat) (ones n).
Proof. apply Forall_forall; intros x Hx; apply repeat_spec in Hx; lia. Qed.

(** S6 without multiplicities: for every row [l ∈ ℝ^n] and every [e ∈ ℝ^n]
    with [|e_j| ≤ δ] for all j,
    [||rowsoftmax(l) − rowsoftmax(l + e)||_1 ≤ 2 tanh(δ/2)]. *)
Corollary S6_residual_bound_unweighted : forall (l e : list R) (delta : R),
  0 <= delta -> length e = length l -> Forall (fun x => Rabs x <= delta) e ->
  l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) <= 2 * tanh (delta / 2).
Proof.
  intros l e delta Hd Hel He.
  apply S6_residual_bound; auto using res_ones_length, res_ones_pos.
Qed.

(** ** Sharpness *)

(** S6 is sharp: for every [δ ≥ 0] there are a row [l ∈ ℝ²] and a
    perturbation [e ∈ ℝ²] with [|e_j| ≤ δ] attaining
    [||rowsoftmax(l) − rowsoftmax(l + e)||_1 = 2 tanh(δ/2)]:
    [l = (0, δ)], [e = (δ, −δ)]. *)
Theorem S6_sharp : forall delta, 0 <= delta ->
  exists l e : list R, length l = 2%nat /\ length e = 2%nat /\
    Forall (fun x => Rabs x <= delta) e /\
    l1 (softmax (ones 2) l) (softmax (ones 2) (vadd l e)) = 2 * tanh (delta / 2).
Proof.
  intros d Hd. exists [0; d], [d; -d].
  split; [reflexivity|]. split; [reflexivity|]. split.
  { repeat constructor; [rewrite Rabs_right | rewrite Rabs_Ropp, Rabs_right]; lra. }
  unfold l1, softmax, weighted, vadd, ones, ssum; cbn [repeat combine map fst snd fold_right INR].
  replace (0 + d) with d by ring. replace (d + - d) with 0 by ring.
  rewrite exp_0, tanh_half.
  set (s := exp d).
  assert (Hs : 1 <= s) by (subst s; rewrite <- exp_0; apply res_exp_le; exact Hd).
  replace (1 * 1 / (1 * 1 + (1 * s + 0)) - 1 * s / (1 * s + (1 * 1 + 0)))
    with (- ((s - 1) / (s + 1))) by (field; lra).
  replace (1 * s / (1 * 1 + (1 * s + 0)) - 1 * 1 / (1 * s + (1 * 1 + 0)))
    with ((s - 1) / (s + 1)) by (field; lra).
  rewrite Rabs_Ropp, Rabs_right.
  - ring.
  - apply Rle_ge; unfold Rdiv; apply Rmult_le_pos; [lra | apply Rlt_le, Rinv_0_lt_compat; lra].
Qed.

(** ** The tempting [tanh δ] is false *)

Lemma tanh_ln (t : R) : 0 < t -> tanh (ln t) = (t * t - 1) / (t * t + 1).
Proof.
  intro Ht. rewrite tanh_exp. replace (2 * ln t) with (ln t + ln t) by ring.
  rewrite exp_plus, exp_ln by exact Ht. reflexivity.
Qed.

Lemma tanh_ln_half (t : R) : 0 < t -> tanh (ln t / 2) = (t - 1) / (t + 1).
Proof. intro Ht. rewrite tanh_half, exp_ln by exact Ht. reflexivity. Qed.

(** Not S6 with [tanh δ]: it is false that for every row [l], every [δ ≥ 0]
    and every [e] with [|e_j| ≤ δ],
    [||rowsoftmax(l) − rowsoftmax(l + e)||_1 ≤ tanh δ].  The sharp example
    moves the row by [2 tanh(δ/2) = 2(s−1)/(s+1)] ([s = e^δ]), which exceeds
    [tanh δ = (s²−1)/(s²+1)] by [(s−1)³/((s+1)(s²+1)) > 0] for every [δ > 0];
    taken at [δ = 1] (at [e^δ = 3] it is [1 > 4/5], the certificate
    [two_point_tanh_refuted_t3] below; [δ = 1] keeps [ln] out of the proof). *)
Theorem S6_tanh_refuted : ~ (forall (l e : list R) (delta : R),
  0 <= delta -> length e = length l -> Forall (fun x => Rabs x <= delta) e ->
  l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) <= tanh delta).
Proof.
  intro H.
  destruct (S6_sharp 1 ltac:(lra)) as (l & e & Hl & He & Hb & Hval).
  specialize (H l e 1 ltac:(lra) ltac:(congruence) Hb).
  rewrite Hl, Hval, tanh_half, tanh_exp in H.
  replace (2 * 1) with (1 + 1) in H by ring. rewrite exp_plus in H.
  pose proof (res_exp_ge 1 ltac:(lra)) as Hs. set (s := exp 1) in *.
  assert (Hgap : 2 * ((s - 1) / (s + 1)) - (s * s - 1) / (s * s + 1)
                 = (s - 1) ^ 3 / ((s + 1) * (s * s + 1))) by (field; nra).
  assert (0 < (s - 1) ^ 3 / ((s + 1) * (s * s + 1))).
  { unfold Rdiv; apply Rmult_lt_0_compat; [apply pow_lt; lra|].
    apply Rinv_0_lt_compat, Rmult_lt_0_compat; nra. }
  lra.
Qed.

(** ** The per-row form: [2 tanh(osc/4)] *)

Lemma res_fold_max_ge (i : R) (d : list R) : i <= fold_right Rmax i d /\
  forall x, In x d -> x <= fold_right Rmax i d.
Proof.
  induction d as [|y d [IH1 IH2]]; simpl; split; try (intros; contradiction); try lra.
  - eapply Rle_trans; [exact IH1 | apply Rmax_r].
  - intros x [<-|Hx]; [apply Rmax_l | eapply Rle_trans; [apply IH2, Hx | apply Rmax_r]].
Qed.

Lemma res_fold_min_le (i : R) (d : list R) : fold_right Rmin i d <= i /\
  forall x, In x d -> fold_right Rmin i d <= x.
Proof.
  induction d as [|y d [IH1 IH2]]; simpl; split; try (intros; contradiction); try lra.
  - eapply Rle_trans; [apply Rmin_r | exact IH1].
  - intros x [<-|Hx]; [apply Rmin_l | eapply Rle_trans; [apply Rmin_r | apply IH2, Hx]].
Qed.

Lemma res_vsub_length (a b : list R) : length b = length a -> length (vsub a b) = length a.
Proof. intro H; unfold vsub; rewrite map_length, combine_length, H; apply Nat.min_id. Qed.

(** [l + (c − (l − l')) = l' + c], entrywise. *)
Lemma res_vadd_mid (l l' : list R) (c : R) : length l' = length l ->
  vadd l (map (fun x => c - x) (vsub l l')) = map (fun x => x + c) l'.
Proof.
  revert l'; induction l as [|x l IH]; intros [|y l'] H; simpl in *; try discriminate; auto.
  unfold vadd, vsub in *; simpl. rewrite IH by lia. f_equal. ring.
Qed.

(** The row form of S6, as the [residual-bound] kind judges it: for every
    two rows [l, l' ∈ ℝ^n] (n ≥ 0),
    [||rowsoftmax(l) − rowsoftmax(l')||_1 ≤ 2 tanh(osc(l − l')/4)], where
    [osc(d) = max_j d_j − min_j d_j].  Proof: with the mid shift
    [c = (max d + min d)/2], [e = c − (l − l')] has [|e_j| ≤ osc/2] and
    [l + e = l' + c], which has the softmax of [l'] (S4); S6 at [δ = osc/2]. *)
Theorem residual_within_row : forall l l' : list R, length l' = length l ->
  l1 (softmax (ones (length l)) l) (softmax (ones (length l')) l') <= 2 * tanh (osc (vsub l l') / 4).
Proof.
  intros l l' Hlen.
  set (d := vsub l l'). set (c := (lmax d + lmin d) / 2).
  set (e := map (fun x => c - x) d).
  destruct (res_fold_max_ge (hd 0 d) d) as [Hmax1 Hmax2].
  destruct (res_fold_min_le (hd 0 d) d) as [Hmin1 Hmin2].
  fold (lmax d) in Hmax1, Hmax2. fold (lmin d) in Hmin1, Hmin2.
  assert (Hosc : 0 <= osc d / 2) by (unfold osc; lra).
  assert (He : Forall (fun x => Rabs x <= osc d / 2) e).
  { apply Forall_forall; intros x Hx. subst e; apply in_map_iff in Hx as [y [<- Hy]].
    specialize (Hmax2 y Hy); specialize (Hmin2 y Hy).
    apply Rabs_le; subst c; unfold osc; lra. }
  assert (Hel : length e = length l) by (subst e d; rewrite map_length; apply res_vsub_length, Hlen).
  pose proof (S6_residual_bound_unweighted l e (osc d / 2) Hosc Hel He) as H.
  subst e d; rewrite res_vadd_mid, S4_row_scalar_quotient in H by exact Hlen.
  rewrite Hlen. replace (osc (vsub l l') / 4) with (osc (vsub l l') / 2 / 2) by field.
  exact H.
Qed.

(** ** Two-point certificates, by reflection *)

(** The data of the Python kind [residual-two-point]
    ([solvers/trusted/intervals.py], [_residual_two_point]): [t = e^δ > 1]
    rational, a positive rational probability row [p] (2 to 16 entries), and
    weights [w_j = e^{E_j} ∈ [1, t²]]; the perturbed row is
    [q_j = p_j w_j / Σ_k p_k w_k]; the bound is "2tanh(delta/2)"
    [= 2(t−1)/(t+1)] or "tanh(delta)" [= (t²−1)/(t²+1)]; the relation
    "exceeds" is [||p − q||_1 > bound], "attains" is [=]. *)
Inductive residual_bound_name := bound_2tanh_half | bound_tanh.
Inductive residual_relation := rel_exceeds | rel_attains.

Definition Qsum (l : list Q) : Q := fold_right Qplus 0%Q l.
Definition Qltb (x y : Q) : bool := negb (Qle_bool y x).

(** The bound at [e^δ = t], in rationals. *)
Definition bound_value (b : residual_bound_name) (t : Q) : Q :=
  match b with
  | bound_2tanh_half => (2 * (t - 1) / (t + 1))%Q
  | bound_tanh => ((t * t - 1) / (t * t + 1))%Q
  end.

(** [Σ_k p_k w_k] and [||p − q||_1 = Σ_j |p_j w_j / Σ_k p_k w_k − p_j|]. *)
Definition two_point_total (p w : list Q) : Q :=
  Qsum (map (fun x => (fst x * snd x)%Q) (combine p w)).
Definition two_point_dist (p w : list Q) : Q :=
  Qsum (map (fun x => Qabs (fst x * snd x / two_point_total p w - fst x)%Q) (combine p w)).

(** The checker: every requirement of [_residual_two_point], then the relation. *)
Definition check_two_point (b : residual_bound_name) (r : residual_relation)
    (t : Q) (p w : list Q) : bool :=
  Qltb 1 t &&
  Nat.leb 2 (length p) && Nat.leb (length p) 16 &&
  Nat.eqb (length w) (length p) &&
  forallb (fun x => Qltb 0 x) p &&
  Qeq_bool (Qsum p) 1 &&
  forallb (fun x => Qle_bool 1 x && Qle_bool x (t * t)) w &&
  match r with
  | rel_exceeds => Qltb (bound_value b t) (two_point_dist p w)
  | rel_attains => Qeq_bool (two_point_dist p w) (bound_value b t)
  end.

Definition check_two_point_exceeds_tanh := check_two_point bound_tanh rel_exceeds.
Definition check_two_point_attains := check_two_point bound_2tanh_half rel_attains.
Definition check_two_point_exceeds_2tanh_half := check_two_point bound_2tanh_half rel_exceeds.
Definition check_two_point_attains_tanh := check_two_point bound_tanh rel_attains.

(** What a certificate claims, over the reals: at [δ = ln t] some row and
    some perturbation with [|e_j| ≤ δ] move the softmax by more than (or
    exactly) the named bound. *)
Definition bound_real (b : residual_bound_name) (t : Q) : R :=
  match b with
  | bound_2tanh_half => 2 * tanh (ln (Q2R t) / 2)
  | bound_tanh => tanh (ln (Q2R t))
  end.

Definition two_point_claim (b : residual_bound_name) (r : residual_relation) (t : Q) : Prop :=
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
    match r with
    | rel_exceeds => l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) > bound_real b t
    | rel_attains => l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) = bound_real b t
    end.

Lemma res_Q2R_0 : Q2R 0 = 0.
Proof. unfold Q2R; cbn [Qnum Qden]. field. Qed.

Lemma res_Q2R_1 : Q2R 1 = 1.
Proof. unfold Q2R; cbn [Qnum Qden]. field. Qed.

Lemma res_Q2R_2 : Q2R 2 = 2.
Proof. unfold Q2R; cbn [Qnum Qden]. field. Qed.

Lemma res_Q2R_abs (x : Q) : Q2R (Qabs x) = Rabs (Q2R x).
Proof.
  destruct (Qlt_le_dec x 0) as [Hx|Hx].
  - rewrite (Qeq_eqR _ _ (Qabs_neg x (Qlt_le_weak _ _ Hx))), Q2R_opp.
    apply Qlt_Rlt in Hx; rewrite res_Q2R_0 in Hx. rewrite Rabs_left; lra.
  - rewrite (Qeq_eqR _ _ (Qabs_pos x Hx)).
    apply Qle_Rle in Hx; rewrite res_Q2R_0 in Hx. rewrite Rabs_right; lra.
Qed.

Lemma res_Q2R_sum (l : list Q) : Q2R (Qsum l) = ssum (map Q2R l).
Proof.
  induction l as [|x l IH]; [apply res_Q2R_0|].
  unfold Qsum in *; simpl; rewrite Q2R_plus, IH; reflexivity.
Qed.

Lemma res_weighted_ones (l : list R) : weighted (ones (length l)) l = map exp l.
Proof.
  induction l as [|x l IH]; [reflexivity|].
  unfold weighted, ones in *; simpl. rewrite IH. f_equal. ring.
Qed.

Lemma res_combine_map2 {A B C D} (f : A -> C) (g : B -> D) (a : list A) (b : list B) :
  combine (map f a) (map g b) = map (fun x => (f (fst x), g (snd x))) (combine a b).
Proof.
  revert b; induction a as [|x a IH]; intros [|y b]; simpl; try reflexivity.
  rewrite IH; reflexivity.
Qed.

(** The witness of a two-point certificate: for every [t > 1], every
    positive rational row [p] summing to 1 and every weights [w_j ∈ [1, t²]]
    of its length, the logits [l_j = ln p_j] and the perturbation
    [e_j = ln w_j − ln t] have [|e_j| ≤ ln t] and move the softmax by
    exactly the rational [||p − q||_1] the checker computes. *)
Lemma two_point_witness (t : Q) (p w : list Q) :
  (1 < t)%Q -> length w = length p -> p <> [] ->
  Forall (fun x => 0 < x)%Q p -> Qsum p == 1 -> Forall (fun x => 1 <= x /\ x <= t * t)%Q w ->
  let l := map (fun x => ln (Q2R x)) p in
  let e := map (fun x => ln (Q2R x) - ln (Q2R t)) w in
  length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
  l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) = Q2R (two_point_dist p w).
Proof.
  intros Ht Hlen Hne Hp Hsum Hw l e.
  rewrite Forall_forall in Hp, Hw.
  apply Qlt_Rlt in Ht; rewrite res_Q2R_1 in Ht. set (T := Q2R t) in *.
  assert (HlnT : 0 <= ln T) by (rewrite <- ln_1; apply res_ln_le; lra).
  assert (HP : forall x, In x p -> 0 < Q2R x)
    by (intros x Hx; specialize (Hp x Hx); apply Qlt_Rlt in Hp; rewrite res_Q2R_0 in Hp; exact Hp).
  assert (HW : forall x, In x w -> 1 <= Q2R x <= T * T).
  { intros x Hx; destruct (Hw x Hx) as [H1 H2]. apply Qle_Rle in H1, H2.
    rewrite res_Q2R_1 in H1; rewrite Q2R_mult in H2; fold T in H2; lra. }
  split; [subst l e; rewrite !map_length; exact Hlen|]. split.
  { (* |ln w_j − ln t| ≤ ln t because 1 ≤ w_j ≤ t² *)
    apply Forall_forall; intros x Hx; subst e; apply in_map_iff in Hx as [y [<- Hy]].
    destruct (HW y Hy) as [H1 H2].
    assert (0 <= ln (Q2R y)) by (rewrite <- ln_1; apply res_ln_le; lra).
    assert (ln (Q2R y) <= ln T + ln T) by (rewrite <- ln_mult by lra; apply res_ln_le; lra).
    apply Rabs_le; lra. }
  set (zz := combine p w).
  assert (Hfst : map fst zz = p) by (apply res_map_fst_combine; congruence).
  assert (HinP : forall x, In x zz -> 0 < Q2R (fst x))
    by (intros [x y] Hxy; apply HP, (in_combine_l _ _ _ _ Hxy)).
  assert (HinW : forall x, In x zz -> 1 <= Q2R (snd x) <= T * T)
    by (intros [x y] Hxy; apply HW, (in_combine_r _ _ _ _ Hxy)).
  (* the softmax of l is p *)
  assert (Hsl : softmax (ones (length l)) l = map (fun x => Q2R (fst x)) zz).
  { assert (Hexpl : map exp l = map Q2R p)
      by (subst l; rewrite map_map; apply map_ext_in; intros x Hx; apply exp_ln, HP, Hx).
    unfold softmax; rewrite res_weighted_ones, Hexpl.
    rewrite <- res_Q2R_sum, (Qeq_eqR _ _ Hsum), res_Q2R_1.
    rewrite <- Hfst at 1. rewrite !map_map. apply map_ext; intro x; field. }
  (* the softmax of l + e is q *)
  set (tot := Q2R (two_point_total p w)).
  assert (Htot : tot = ssum (map (fun x => Q2R (fst x) * Q2R (snd x)) zz)).
  { subst tot; unfold two_point_total; rewrite res_Q2R_sum, map_map. fold zz.
    f_equal; apply map_ext; intro x; apply Q2R_mult. }
  assert (Htotpos : 0 < tot).
  { rewrite Htot; apply res_ssum_pos.
    - intros x Hx; apply Rmult_lt_0_compat; [apply HinP, Hx | pose proof (HinW x Hx); lra].
    - subst zz; destruct p as [|x p]; [congruence|]. destruct w as [|y w]; simpl in *; [lia | discriminate]. }
  assert (Hv : vadd l e = map (fun x => ln (Q2R (fst x)) + (ln (Q2R (snd x)) - ln T)) zz).
  { subst l e; unfold vadd; rewrite res_combine_map2, map_map; reflexivity. }
  assert (Hexp : map exp (vadd l e) = map (fun x => Q2R (fst x) * Q2R (snd x) / T) zz).
  { rewrite Hv, map_map; apply map_ext_in; intros x Hx.
    unfold Rminus; rewrite !exp_plus, exp_Ropp, !exp_ln by (try apply HinP, Hx; pose proof (HinW x Hx); lra).
    unfold Rdiv; ring. }
  assert (Hsq : softmax (ones (length l)) (vadd l e)
                = map (fun x => Q2R (fst x) * Q2R (snd x) / tot) zz).
  { assert (Hl : length (vadd l e) = length l)
      by (unfold vadd; rewrite map_length, combine_length; subst l e; rewrite !map_length, Hlen; lia).
    unfold softmax; rewrite <- Hl, res_weighted_ones, Hexp.
    replace (ssum (map (fun x => Q2R (fst x) * Q2R (snd x) / T) zz)) with (tot / T).
    - rewrite map_map; apply map_ext; intro x; field; lra.
    - rewrite Htot. transitivity (/ T * ssum (map (fun x => Q2R (fst x) * Q2R (snd x)) zz)).
      + unfold Rdiv; ring.
      + rewrite <- res_ssum_scale. f_equal; apply map_ext; intro; unfold Rdiv; ring. }
  rewrite Hsl, Hsq. unfold l1; rewrite res_combine_map, map_map.
  unfold two_point_dist; rewrite res_Q2R_sum, map_map. fold zz.
  apply f_equal, map_ext_in; intros x Hx; cbn [fst snd].
  rewrite res_Q2R_abs, Q2R_minus, Q2R_div, Q2R_mult; fold tot.
  - rewrite Rabs_minus_sym; reflexivity.
  - intro H0; apply Qeq_eqR in H0; rewrite res_Q2R_0 in H0; fold tot in H0; lra.
Qed.

Lemma bound_value_real (b : residual_bound_name) (t : Q) :
  (1 < t)%Q -> Q2R (bound_value b t) = bound_real b t.
Proof.
  intro Ht; apply Qlt_Rlt in Ht; rewrite res_Q2R_1 in Ht.
  destruct b; simpl.
  - rewrite Q2R_div, Q2R_mult, Q2R_minus, Q2R_plus, res_Q2R_1, res_Q2R_2, tanh_ln_half by
      (try (intro H; apply Qeq_eqR in H; rewrite Q2R_plus, res_Q2R_1, res_Q2R_0 in H); lra).
    field; lra.
  - rewrite Q2R_div, Q2R_minus, Q2R_plus, Q2R_mult, res_Q2R_1, tanh_ln by
      (try (intro H; apply Qeq_eqR in H; rewrite Q2R_plus, Q2R_mult, res_Q2R_1, res_Q2R_0 in H); nra).
    reflexivity.
Qed.

(** The checker's soundness, for every bound name, relation and data:
    [check_two_point b r t p w = true] implies the real claim. *)
Theorem check_two_point_sound : forall b r t p w,
  check_two_point b r t p w = true -> two_point_claim b r t.
Proof.
  intros b r t p w Hc. unfold check_two_point in Hc.
  repeat rewrite Bool.andb_true_iff in Hc.
  destruct Hc as [[[[[[[Ht H2] H16] Hlen] Hp] Hsum] Hw] Hrel].
  assert (Ht' : (1 < t)%Q)
    by (unfold Qltb in Ht; apply Qnot_le_lt; intro H; apply Qle_bool_iff in H; rewrite H in Ht; discriminate).
  apply Nat.leb_le in H2. apply Nat.eqb_eq in Hlen. apply Qeq_bool_iff in Hsum.
  rewrite forallb_forall in Hp, Hw.
  assert (Hp' : Forall (fun x => 0 < x)%Q p).
  { apply Forall_forall; intros x Hx; specialize (Hp x Hx); unfold Qltb in Hp.
    apply Qnot_le_lt; intro H; apply Qle_bool_iff in H; rewrite H in Hp; discriminate. }
  assert (Hw' : Forall (fun x => 1 <= x /\ x <= t * t)%Q w).
  { apply Forall_forall; intros x Hx; specialize (Hw x Hx).
    apply Bool.andb_true_iff in Hw as [Hw1 Hw2]. split; apply Qle_bool_iff; assumption. }
  assert (Hne : p <> []) by (intro; subst p; simpl in H2; lia).
  destruct (two_point_witness t p w Ht' Hlen Hne Hp' Hsum Hw') as (He & Hb & Hd).
  eexists; eexists; split; [exact He|]. split; [exact Hb|].
  rewrite Hd, <- (bound_value_real b t Ht').
  destruct r.
  - unfold Qltb in Hrel. apply Bool.negb_true_iff in Hrel.
    apply Qlt_Rlt, Qnot_le_lt. intro H; apply Qle_bool_iff in H; congruence.
  - apply Qeq_eqR, Qeq_bool_iff, Hrel.
Qed.

(** "exceeds tanh(delta)": a certificate [(t, p, w)] accepted by the checker
    gives, at [δ = ln t], a row [l] and a perturbation [e] with [|e_j| ≤ δ]
    and [||rowsoftmax(l) − rowsoftmax(l + e)||_1 > tanh δ]. *)
Theorem two_point_exceeds_tanh_sound : forall t p w,
  check_two_point_exceeds_tanh t p w = true ->
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) > tanh (ln (Q2R t)).
Proof. intros t p w H; exact (check_two_point_sound bound_tanh rel_exceeds t p w H). Qed.

(** "attains 2tanh(delta/2)": an accepted certificate gives, at [δ = ln t],
    a row and a perturbation with [|e_j| ≤ δ] and
    [||rowsoftmax(l) − rowsoftmax(l + e)||_1 = 2 tanh(δ/2)]. *)
Theorem two_point_attains_sound : forall t p w,
  check_two_point_attains t p w = true ->
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) = 2 * tanh (ln (Q2R t) / 2).
Proof. intros t p w H; exact (check_two_point_sound bound_2tanh_half rel_attains t p w H). Qed.

(** "exceeds 2tanh(delta/2)" (never accepted, by S6; sound all the same). *)
Theorem two_point_exceeds_2tanh_half_sound : forall t p w,
  check_two_point_exceeds_2tanh_half t p w = true ->
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) > 2 * tanh (ln (Q2R t) / 2).
Proof. intros t p w H; exact (check_two_point_sound bound_2tanh_half rel_exceeds t p w H). Qed.

(** "attains tanh(delta)". *)
Theorem two_point_attains_tanh_sound : forall t p w,
  check_two_point_attains_tanh t p w = true ->
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) = tanh (ln (Q2R t)).
Proof. intros t p w H; exact (check_two_point_sound bound_tanh rel_attains t p w H). Qed.

(** ** The two certificates of the project *)

(** [softmax_rank.residual_error_tanh]: at [t = 3], [p = (1/4, 3/4)],
    [w = (6, 17/16)] the distance is [79/98 > 4/5 = tanh(ln 3)]. *)
Example two_point_tanh_refuted_t3 :
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R (3#1))) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) > tanh (ln (Q2R (3#1))).
Proof. apply (two_point_exceeds_tanh_sound (3#1) [(1#4); (3#4)] [(6#1); (17#16)]). vm_compute. reflexivity. Qed.

(** [softmax_rank.residual_error]: at [t = 3], [p = (1/4, 3/4)], [w = (9, 1)]
    the distance is [1 = 2 tanh(ln 3 / 2)] (sharpness). *)
Example two_point_attains_t3 :
  exists l e : list R, length e = length l /\ Forall (fun x => Rabs x <= ln (Q2R (3#1))) e /\
    l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) = 2 * tanh (ln (Q2R (3#1)) / 2).
Proof. apply (two_point_attains_sound (3#1) [(1#4); (3#4)] [(9#1); (1#1)]). vm_compute. reflexivity. Qed.

(** A broken witness is refused: the weight 1/2 lies outside [[1, t²]]; the
    right weights fail the wrong relation or bound. *)
Example two_point_broken_weight : check_two_point_exceeds_tanh (3#1) [(1#4); (3#4)] [(6#1); (1#2)] = false.
Proof. vm_compute. reflexivity. Qed.
Example two_point_attains_not_exceeds :
  check_two_point_exceeds_2tanh_half (3#1) [(1#4); (3#4)] [(9#1); (1#1)] = false.
Proof. vm_compute. reflexivity. Qed.
Example two_point_exceeds_not_attains : check_two_point_attains (3#1) [(1#4); (3#4)] [(6#1); (17#16)] = false.
Proof. vm_compute. reflexivity. Qed.
