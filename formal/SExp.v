(** * Paper S, exponentials by reflection: a verified enclosure of exp at rationals, and row checkers.

    The numeric facts of the rank_ε certificates (formal/SInstances.v) are
    inequalities between sums of exponentials of rationals.  Here they are
    decided by boolean functions over integers, each proved sound once:

    - [qexp P k x]: integers [(lo, hi)] with [lo / 2^P ≤ exp x ≤ hi / 2^P]
      for every rational [x ≤ 0] ([qexp_sound]).  With [y = x / 2^k]:
      [1 + y ≤ exp y ≤ 1 / (1 − y)], rounded outward to P binary digits,
      then squared k times ([exp (2z) = exp z ^ 2]), the lower end rounded
      down and the upper end up after each squaring.
    - [lower_rows_check], [upper_rows_check], [differs_check]: the facts
      [lower_sound_Q], [upper_sound_Q] and [differs_sound] need, per row, from
      those enclosures.  A row is first shifted by its largest entry M
      ([e^{l_c} = e^M e^{l_c − M}]; every fact is homogeneous in the row's
      exponentials), so every exponential evaluated lies in (0, 1] and P
      fractional digits are P digits of precision relative to the row's total.

    The two first-order bounds of exp come from its power series
    ([res_exp_ge] of formal/SResidual.v and [exp_le_geom] below), not from the
    standard library's [exp_ineq1_le], which rests on the axiom [classic].

    Print Assumptions of [qexp_sound], [lower_rows_sound], [upper_rows_sound],
    [differs_pos_sound], [differs_neg_sound], [differs_check_sound] (for every
    K): the standard reals' [ClassicalDedekindReals.sig_not_dec],
    [ClassicalDedekindReals.sig_forall_dec] and
    [FunctionalExtensionality.functional_extensionality_dep], nothing else.
    An exported file applies them at [K = BigZints], whose proofs are
    Bignums' [BigZ.spec_*]: these add the axioms that specify Coq's primitive
    63-bit integers ([Uint63.*_spec], [PrimInt63.*]).  At [K = Zints] a file
    would rest on the reals' axioms alone, at ~50 times the cost
    (tests/formal/test_sexp.py checks both lists). *)

From Coq Require Import Reals List QArith Qreals ZArith Lra Lia.
From Bignums Require Import BigZ.
From AttnProof Require Import SDefs SLemmas SResidual SInstances.
Import ListNotations.
Open Scope R_scope.

(** ** Two first-order bounds of exp *)

(** [exp h ≤ Σ h^n = 1 / (1 − h)] for [0 ≤ h < 1], termwise on the series. *)
Lemma exp_le_geom (h : R) : 0 <= h < 1 -> exp h <= / (1 - h).
Proof.
  intros [H0 H1].
  set (An := fun N : nat => / INR (fact N) * h ^ N).
  assert (Hcv : Un_cv (fun n => sum_f_R0 An n) (exp h)).
  { unfold exp, projT1; destruct (exist_exp h) as [v Hv]. exact Hv. }
  apply (@Rle_cv_lim (fun n => sum_f_R0 An n) (fun _ => / (1 - h)) (exp h) (/ (1 - h))); [| exact Hcv |].
  - intro n. apply Rle_trans with (sum_f_R0 (fun i => h ^ i) n).
    + apply sum_Rle; intros i _. unfold An. rewrite <- (Rmult_1_l (h ^ i)) at 2.
      apply Rmult_le_compat_r; [apply pow_le; lra|].
      assert (1 <= INR (fact i)) by (replace 1 with (INR 1) by reflexivity; apply le_INR, lt_O_fact).
      rewrite <- Rinv_1. apply Rinv_le_contravar; lra.
    + rewrite tech3 by lra. unfold Rdiv. rewrite <- (Rmult_1_l (/ (1 - h))) at 2.
      apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra|].
      pose proof (pow_le h (S n) H0); lra.
  - intros e He; exists O; intros n _. unfold R_dist. replace (/ (1 - h) - / (1 - h)) with 0 by ring. rewrite Rabs_R0. exact He.
Qed.

(** [1 + y ≤ exp y] for every real y. *)
Lemma exp_ge_1plus (y : R) : 1 + y <= exp y.
Proof.
  destruct (Rle_or_lt 0 y) as [Hy|Hy]; [apply res_exp_ge, Hy|].
  destruct (Rle_or_lt 1 (- y)) as [Hh|Hh]; [pose proof (exp_pos y); lra|].
  replace y with (- - y) by ring. rewrite exp_Ropp.
  pose proof (exp_le_geom (- y) ltac:(lra)) as He. pose proof (exp_pos (- y)).
  apply Rinv_le_contravar in He; [|lra]. rewrite Rinv_inv in He. lra.
Qed.

(** [exp y ≤ 1 / (1 − y)] for every real [y < 1]. *)
Lemma exp_le_inv (y : R) : y < 1 -> exp y <= / (1 - y).
Proof.
  intro H1. destruct (Rle_or_lt 0 y) as [Hy|Hy]; [apply exp_le_geom; lra|].
  replace y with (- - y) at 1 by ring. rewrite exp_Ropp.
  pose proof (res_exp_ge (- y) ltac:(lra)). apply Rinv_le_contravar; lra.
Qed.

(** ** Fixed point: an integer m read as [m / 2^P] *)

Definition fx (P : nat) (m : Z) : R := IZR m / 2 ^ P.

Lemma pow2_pos P : 0 < 2 ^ P.
Proof. apply pow_lt; lra. Qed.

Lemma IZR_pow2 P : IZR (2 ^ Z.of_nat P) = 2 ^ P.
Proof. rewrite <- pow_IZR. reflexivity. Qed.

Lemma zpow2_pos P : (0 < 2 ^ Z.of_nat P)%Z.
Proof. apply Z.pow_pos_nonneg; lia. Qed.

Lemma fx_plus P a b : fx P (a + b) = fx P a + fx P b.
Proof. unfold fx; rewrite plus_IZR; field; apply Rgt_not_eq, pow2_pos. Qed.

Lemma fx_0 P : fx P 0 = 0.
Proof. unfold fx; unfold Rdiv; ring. Qed.

Lemma fx_le P a b : (a <= b)%Z -> fx P a <= fx P b.
Proof.
  intro H; unfold fx, Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat, pow2_pos | apply IZR_le, H].
Qed.

Lemma fx_le_R P m a : IZR m <= a * 2 ^ P -> fx P m <= a.
Proof.
  intro H; pose proof (pow2_pos P). unfold fx. apply (Rmult_le_reg_r (2 ^ P)); [lra|].
  unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. exact H.
Qed.

Lemma fx_ge_R P m a : a * 2 ^ P <= IZR m -> a <= fx P m.
Proof.
  intro H; pose proof (pow2_pos P). unfold fx. apply (Rmult_le_reg_r (2 ^ P)); [lra|].
  unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. exact H.
Qed.

Lemma fx_nonneg P a : (0 <= a)%Z -> 0 <= fx P a.
Proof. intro H; rewrite <- (fx_0 P); apply fx_le, H. Qed.

(** Floor and ceiling of a quotient, read in R. *)
Lemma zdiv_floor a d : (0 < d)%Z -> IZR (a / d) <= IZR a / IZR d.
Proof.
  intro Hd. pose proof (Z.mul_div_le a d Hd) as H. apply IZR_le in H. rewrite mult_IZR in H.
  assert (0 < IZR d) by (apply IZR_lt, Hd).
  apply (Rmult_le_reg_l (IZR d)); [lra|]. field_simplify; lra.
Qed.

Lemma zdiv_ceil a d : (0 < d)%Z -> IZR a / IZR d <= IZR (- (- a / d)).
Proof.
  intro Hd. pose proof (zdiv_floor (- a) d Hd). rewrite opp_IZR in *.
  assert (0 < IZR d) by (apply IZR_lt, Hd).
  unfold Rdiv in *. rewrite Ropp_mult_distr_l_reverse in H. lra.
Qed.

(** ** Squaring with outward rounding *)

Definition sq_dn (P : nat) (m : Z) : Z := Z.shiftr (m * m) (Z.of_nat P).
Definition sq_up (P : nat) (m : Z) : Z := - Z.shiftr (- (m * m)) (Z.of_nat P).

Lemma sq_dn_sound P m : 0 <= fx P (sq_dn P m) <= fx P m * fx P m.
Proof.
  unfold sq_dn. split.
  - apply fx_nonneg, Z.shiftr_nonneg. nia.
  - rewrite Z.shiftr_div_pow2 by lia. unfold fx.
    pose proof (zdiv_floor (m * m) _ (zpow2_pos P)) as H. rewrite IZR_pow2, mult_IZR in H.
    pose proof (pow2_pos P).
    unfold Rdiv at 1. apply Rle_trans with (IZR m * IZR m / 2 ^ P * / 2 ^ P);
      [apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact H] | right; field; lra].
Qed.

Lemma sq_up_sound P m : fx P m * fx P m <= fx P (sq_up P m).
Proof.
  unfold sq_up. rewrite Z.shiftr_div_pow2 by lia. unfold fx.
  pose proof (zdiv_ceil (m * m) _ (zpow2_pos P)) as H. rewrite IZR_pow2, mult_IZR in H.
  pose proof (pow2_pos P).
  apply Rle_trans with (IZR m * IZR m / 2 ^ P * / 2 ^ P); [right; field; lra|].
  apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact H].
Qed.

Fixpoint sq_iter (P k : nat) (lo hi : Z) : Z * Z :=
  match k with
  | O => (lo, hi)
  | S k => sq_iter P k (sq_dn P lo) (sq_up P hi)
  end.

Lemma sq_iter_sound P k : forall lo hi z,
  0 <= fx P lo -> fx P lo <= exp z <= fx P hi ->
  fx P (fst (sq_iter P k lo hi)) <= exp (z * 2 ^ k) <= fx P (snd (sq_iter P k lo hi)).
Proof.
  induction k as [|k IH]; intros lo hi z H0 [Hl Hh]; simpl.
  - rewrite Rmult_1_r; split; assumption.
  - replace (z * (2 * 2 ^ k)) with ((z + z) * 2 ^ k) by ring.
    pose proof (sq_dn_sound P lo) as [D0 D1]. pose proof (sq_up_sound P hi) as U.
    pose proof (exp_pos z).
    apply IH; [exact D0|]. rewrite exp_plus. split.
    + apply Rle_trans with (fx P lo * fx P lo); [exact D1 | apply Rmult_le_compat; lra].
    + apply Rle_trans with (fx P hi * fx P hi); [apply Rmult_le_compat; lra | exact U].
Qed.

(** ** The enclosure of exp at a rational [x = n / d ≤ 0] *)

(** With [D = d 2^k], [y = x / 2^k = n / D]: the lower end [⌊2^P (D + n) / D⌋]
    (at least 0), the upper end [⌈2^P D / (D − n)⌉], then k squarings. *)
Definition zexp (P k : nat) (n d : Z) : Z * Z :=
  let D := (d * 2 ^ Z.of_nat k)%Z in
  sq_iter P k (Z.max 0 (Z.shiftl (D + n) (Z.of_nat P) / D))
              (- (- Z.shiftl D (Z.of_nat P) / (D - n))).

Lemma zexp_sound (P k : nat) (n d : Z) : (0 < d)%Z -> (n <= 0)%Z ->
  0 <= fx P (fst (zexp P k n d)) /\
  fx P (fst (zexp P k n d)) <= exp (IZR n / IZR d) <= fx P (snd (zexp P k n d)).
Proof.
  intros Hd Hx. unfold zexp. set (D := (d * 2 ^ Z.of_nat k)%Z).
  assert (HD : (0 < D)%Z) by (unfold D; apply Z.mul_pos_pos; [lia | apply zpow2_pos]).
  assert (HDR : 0 < IZR D) by (apply IZR_lt, HD).
  pose proof (pow2_pos P) as HP. pose proof (pow2_pos k) as Hk.
  assert (Hy : IZR n / IZR d = IZR n / IZR D * 2 ^ k).
  { unfold D. rewrite mult_IZR, IZR_pow2. field. split; [lra | apply not_0_IZR; lia]. }
  rewrite Hy. set (y := IZR n / IZR D).
  assert (Hn : IZR n <= 0) by (apply IZR_le in Hx; exact Hx).
  assert (Hy0 : y <= 0).
  { unfold y, Rdiv. pose proof (Rinv_0_lt_compat _ HDR). set (u := / IZR D) in *. nra. }
  assert (H0 : 0 <= fx P (Z.max 0 (Z.shiftl (D + n) (Z.of_nat P) / D))) by (apply fx_nonneg, Z.le_max_l).
  assert (Hs : forall k lo hi, 0 <= fx P lo -> 0 <= fx P (fst (sq_iter P k lo hi))).
  { clear. induction k as [|k IH]; intros lo hi H; simpl; [exact H | apply IH, sq_dn_sound]. }
  split; [apply Hs, H0|].
  apply sq_iter_sound; [exact H0|]. split.
  - apply Z.max_case_strong; intros _; [rewrite fx_0; left; apply exp_pos|].
    apply Rle_trans with (1 + y); [|apply exp_ge_1plus].
    rewrite Z.shiftl_mul_pow2 by lia.
    pose proof (zdiv_floor ((D + n) * 2 ^ Z.of_nat P) D HD) as H.
    rewrite mult_IZR, plus_IZR, IZR_pow2 in H.
    apply fx_le_R. apply Rle_trans with (1 := H). unfold y; right; field; lra.
  - apply Rle_trans with (/ (1 - y)); [apply exp_le_inv; lra|].
    rewrite Z.shiftl_mul_pow2 by lia.
    assert (HDn : (0 < D - n)%Z) by lia.
    pose proof (zdiv_ceil (D * 2 ^ Z.of_nat P) (D - n) HDn) as H.
    rewrite mult_IZR, minus_IZR, IZR_pow2 in H.
    apply fx_ge_R. apply Rle_trans with (2 := H). unfold y; right; field; split; lra.
Qed.

(** The enclosure at a rational: [qexp_sound] is the statement a reader checks. *)
Definition qexp (P k : nat) (x : Q) : Z * Z := zexp P k (Qnum x) (Zpos (Qden x)).

Theorem qexp_sound (P k : nat) (x : Q) : (x <= 0)%Q ->
  fx P (fst (qexp P k x)) <= exp (Q2R x) <= fx P (snd (qexp P k x)).
Proof.
  intro Hx. unfold Qle in Hx; simpl in Hx. rewrite Z.mul_1_r in Hx.
  apply (zexp_sound P k (Qnum x) (Zpos (Qden x)) eq_refl Hx).
Qed.

(** ** Integers for the checkers: Z, or anything that computes as Z does *)

(** The checkers below are written once over integer operations [K] that
    agree with Z's ([zv] reads a K-integer as a Z); soundness is proved for
    every such K.  [Zints] is Z itself; [BigZints] (Bignums' machine-digit
    integers, much faster under [vm_compute]) is used by exported files. *)
Record ints := Ints {
  I : Type;
  zv : I -> Z;
  iofZ : Z -> I;
  iadd : I -> I -> I;
  isub : I -> I -> I;
  imul : I -> I -> I;
  iopp : I -> I;
  idiv : I -> I -> I;
  ishiftl : I -> I -> I;
  ishiftr : I -> I -> I;
  imax : I -> I -> I;
  ileb : I -> I -> bool;
  iltb : I -> I -> bool;
  zv_ofZ : forall z, zv (iofZ z) = z;
  zv_add : forall a b, zv (iadd a b) = (zv a + zv b)%Z;
  zv_sub : forall a b, zv (isub a b) = (zv a - zv b)%Z;
  zv_mul : forall a b, zv (imul a b) = (zv a * zv b)%Z;
  zv_opp : forall a, zv (iopp a) = (- zv a)%Z;
  zv_div : forall a b, zv (idiv a b) = (zv a / zv b)%Z;
  zv_shiftl : forall a b, zv (ishiftl a b) = Z.shiftl (zv a) (zv b);
  zv_shiftr : forall a b, zv (ishiftr a b) = Z.shiftr (zv a) (zv b);
  zv_max : forall a b, zv (imax a b) = Z.max (zv a) (zv b);
  zv_leb : forall a b, ileb a b = Z.leb (zv a) (zv b);
  zv_ltb : forall a b, iltb a b = Z.ltb (zv a) (zv b)
}.

Definition Zints : ints :=
  Ints Z (fun z => z) (fun z => z) Z.add Z.sub Z.mul Z.opp Z.div Z.shiftl Z.shiftr Z.max Z.leb Z.ltb
       (fun _ => eq_refl) (fun _ _ => eq_refl) (fun _ _ => eq_refl) (fun _ _ => eq_refl) (fun _ => eq_refl)
       (fun _ _ => eq_refl) (fun _ _ => eq_refl) (fun _ _ => eq_refl) (fun _ _ => eq_refl)
       (fun _ _ => eq_refl) (fun _ _ => eq_refl).

Section Checkers.
Variable K : ints.
Local Notation I := (I K).
Local Notation zv := (zv K).

Ltac zsimpl := repeat rewrite ?(zv_ofZ K), ?(zv_add K), ?(zv_sub K), ?(zv_mul K), ?(zv_opp K), ?(zv_div K),
                                 ?(zv_shiftl K), ?(zv_shiftr K), ?(zv_max K) in *.

(** *** exp at a fraction [n / d ≤ 0] *)

Definition isq_dn (Pk : I) (m : I) : I := ishiftr K (imul K m m) Pk.
Definition isq_up (Pk : I) (m : I) : I := iopp K (ishiftr K (iopp K (imul K m m)) Pk).

Fixpoint isq_iter (Pk : I) (k : nat) (lo hi : I) : I * I :=
  match k with
  | O => (lo, hi)
  | S k => isq_iter Pk k (isq_dn Pk lo) (isq_up Pk hi)
  end.

Definition iexp (P k : nat) (n d : I) : I * I :=
  let Pk := iofZ K (Z.of_nat P) in
  let D := ishiftl K d (iofZ K (Z.of_nat k)) in
  isq_iter Pk k (imax K (iofZ K 0) (idiv K (ishiftl K (iadd K D n) Pk) D))
                (iopp K (idiv K (iopp K (ishiftl K D Pk)) (isub K D n))).

Lemma isq_iter_zv P k : forall lo hi,
  zv (fst (isq_iter (iofZ K (Z.of_nat P)) k lo hi)) = fst (sq_iter P k (zv lo) (zv hi)) /\
  zv (snd (isq_iter (iofZ K (Z.of_nat P)) k lo hi)) = snd (sq_iter P k (zv lo) (zv hi)).
Proof.
  induction k as [|k IH]; intros lo hi; simpl; [split; reflexivity|].
  rewrite (proj1 (IH _ _)), (proj2 (IH _ _)). unfold isq_dn, isq_up, sq_dn, sq_up. zsimpl. split; reflexivity.
Qed.

Lemma iexp_zv P k n d :
  zv (fst (iexp P k n d)) = fst (zexp P k (zv n) (zv d)) /\ zv (snd (iexp P k n d)) = snd (zexp P k (zv n) (zv d)).
Proof.
  unfold iexp, zexp. rewrite (proj1 (isq_iter_zv _ _ _ _)), (proj2 (isq_iter_zv _ _ _ _)). zsimpl.
  rewrite (Z.shiftl_mul_pow2 (zv d)) by lia. split; reflexivity.
Qed.

(** *** Rationals as pairs (numerator, denominator) *)

Definition qv (p : I * I) : R := IZR (zv (fst p)) / IZR (zv (snd p)).
Definition posden (p : I * I) : Prop := (0 < zv (snd p))%Z.
Definition iq (q : Q) : I * I := (iofZ K (Qnum q), iofZ K (Zpos (Qden q))).

Lemma qv_iq q : qv (iq q) = Q2R q.
Proof. unfold qv, iq, Q2R; simpl; zsimpl; reflexivity. Qed.

Lemma posden_iq q : posden (iq q).
Proof. unfold posden, iq; simpl; zsimpl; lia. Qed.

(** [a ≤ b] for positive denominators, by cross-multiplying. *)
Definition ile (a b : I * I) : bool := ileb K (imul K (fst a) (snd b)) (imul K (fst b) (snd a)).

Definition imaxq (a m : I * I) : I * I := if ile a m then m else a.

Definition rowmax (l : list (I * I)) : I * I := fold_right imaxq (hd (iofZ K 0, iofZ K 1) l) l.

Lemma qv_le_cross (a b : I * I) : posden a -> posden b ->
  (zv (fst a) * zv (snd b) <= zv (fst b) * zv (snd a))%Z -> qv a <= qv b.
Proof.
  unfold posden, qv; intros Ha Hb H. apply IZR_le in H; rewrite !mult_IZR in H.
  apply IZR_lt in Ha, Hb. apply (Rmult_le_reg_r (IZR (zv (snd a)) * IZR (zv (snd b)))); [nra|].
  replace (IZR (zv (fst a)) / IZR (zv (snd a)) * (IZR (zv (snd a)) * IZR (zv (snd b)))) with (IZR (zv (fst a)) * IZR (zv (snd b))) by (field; lra).
  replace (IZR (zv (fst b)) / IZR (zv (snd b)) * (IZR (zv (snd a)) * IZR (zv (snd b)))) with (IZR (zv (fst b)) * IZR (zv (snd a))) by (field; lra).
  exact H.
Qed.

Lemma rowmax_fold (m0 : I * I) (l : list (I * I)) : posden m0 -> Forall posden l ->
  posden (fold_right imaxq m0 l) /\ Forall (fun a => qv a <= qv (fold_right imaxq m0 l)) l.
Proof.
  intros H0; induction 1 as [|a l Ha Hl IH]; simpl; [split; [exact H0 | constructor]|].
  destruct IH as [Hm Hall]. set (m := fold_right imaxq m0 l) in *.
  unfold imaxq, ile. rewrite (zv_leb K). zsimpl.
  destruct (Z.leb_spec (zv (fst a) * zv (snd m)) (zv (fst m) * zv (snd a))) as [Hle|Hlt].
  - split; [exact Hm|]. constructor; [apply qv_le_cross; assumption | exact Hall].
  - split; [exact Ha|]. constructor; [lra|].
    assert (qv m <= qv a) by (apply qv_le_cross; [exact Hm | exact Ha | lia]).
    eapply Forall_impl; [|exact Hall]. intros b Hb; simpl in Hb; lra.
Qed.

Lemma rowmax_sound (l : list (I * I)) : Forall posden l ->
  posden (rowmax l) /\ Forall (fun a => qv a <= qv (rowmax l)) l.
Proof.
  intro H; apply rowmax_fold; [|exact H].
  destruct l as [|a l]; simpl; [unfold posden; simpl; zsimpl; lia | inversion H; assumption].
Qed.

(** [a − m] as a pair. *)
Definition qshift (m a : I * I) : I * I :=
  (isub K (imul K (fst a) (snd m)) (imul K (fst m) (snd a)), imul K (snd a) (snd m)).

Lemma qshift_sound m a : posden m -> posden a -> qv a <= qv m ->
  posden (qshift m a) /\ (zv (fst (qshift m a)) <= 0)%Z /\ qv (qshift m a) = qv a - qv m.
Proof.
  unfold posden, qv, qshift; simpl; intros Hm Ha Hle. zsimpl.
  assert (Rm : 0 < IZR (zv (snd m))) by (apply IZR_lt, Hm).
  assert (Ra : 0 < IZR (zv (snd a))) by (apply IZR_lt, Ha).
  split; [nia|]. split.
  - apply Z.le_sub_0. apply le_IZR. rewrite !mult_IZR.
    apply (Rmult_le_reg_r (/ (IZR (zv (snd a)) * IZR (zv (snd m))))); [apply Rinv_0_lt_compat; nra|].
    replace (IZR (zv (fst a)) * IZR (zv (snd m)) * / (IZR (zv (snd a)) * IZR (zv (snd m)))) with (IZR (zv (fst a)) / IZR (zv (snd a))) by (field; lra).
    replace (IZR (zv (fst m)) * IZR (zv (snd a)) * / (IZR (zv (snd a)) * IZR (zv (snd m)))) with (IZR (zv (fst m)) / IZR (zv (snd m))) by (field; lra).
    exact Hle.
  - rewrite minus_IZR, !mult_IZR. field; lra.
Qed.

(** *** The enclosures of a row's weighted exponentials, shifted by its largest entry *)

(** [encloses P E v]: every entry [v_c] lies in [[lo_c/2^P, hi_c/2^P]], [lo_c ≥ 0]. *)
Definition encloses (P : nat) (E : list (I * I)) (v : list R) : Prop :=
  Forall2 (fun e x => 0 <= fx P (zv (fst e)) /\ fx P (zv (fst e)) <= x <= fx P (zv (snd e))) E v.

Definition eencl (P k : nat) (w : list nat) (l : list (I * I)) : list (I * I) :=
  let M := rowmax l in
  map (fun p => let e := iexp P k (fst (qshift M (snd p))) (snd (qshift M (snd p))) in
                let wc := iofZ K (Z.of_nat (fst p)) in (imul K wc (fst e), imul K wc (snd e)))
      (combine w l).

Lemma fx_scale P (c : nat) m : fx P (Z.of_nat c * m) = INR c * fx P m.
Proof. unfold fx; rewrite mult_IZR, <- INR_IZR_INZ; unfold Rdiv; ring. Qed.

Lemma eencl_sound P k w l : Forall posden l ->
  encloses P (eencl P k w l) (weighted w (map (fun a => qv a - qv (rowmax l)) l)).
Proof.
  intro Hl. destruct (rowmax_sound l Hl) as [HM Hle]. unfold eencl. set (M := rowmax l) in *.
  clearbody M. revert l Hl Hle; induction w as [|c w IH]; intros [|a l] Hl Hle; simpl; try constructor.
  - inversion Hl as [|a1 l1 Ha Hl']; inversion Hle as [|a2 l2 Hal Hle']; subst.
    destruct (qshift_sound M a HM Ha Hal) as [Hp [Hn Hq]].
    unfold posden in Hp.
    destruct (zexp_sound P k _ _ Hp Hn) as [G0 [G1 G2]].
    rewrite <- (proj1 (iexp_zv _ _ _ _)) in G0, G1. rewrite <- (proj2 (iexp_zv _ _ _ _)) in G2.
    change (IZR (zv (fst (qshift M a))) / IZR (zv (snd (qshift M a)))) with (qv (qshift M a)) in G1, G2.
    rewrite Hq in G1, G2. cbn [fst snd]. zsimpl. rewrite !fx_scale.
    pose proof (pos_INR c). split; [apply Rmult_le_pos; assumption|].
    split; apply Rmult_le_compat_l; assumption.
  - inversion Hl as [|a1 l1 Ha Hl']; inversion Hle as [|a2 l2 Hal Hle']; subst. apply IH; assumption.
Qed.

(** The row's weighted exponentials are [e^M] times the shifted row's. *)
Lemma weighted_unshift w (l : list R) (M : R) :
  weighted w l = map (fun x => exp M * x) (weighted w (map (fun x => x - M) l)).
Proof.
  rewrite <- weighted_shift, map_map.
  replace (map (fun x => x - M + M) l) with l; [reflexivity|].
  rewrite <- (map_id l) at 1. apply map_ext; intro; ring.
Qed.

Definition isum (l : list I) : I := fold_right (iadd K) (iofZ K 0) l.

Lemma fx_isum P (l : list I) : fx P (zv (isum l)) = ssum (map (fun z => fx P (zv z)) l).
Proof.
  induction l as [|z l IH]; simpl; zsimpl; [apply fx_0|]. rewrite fx_plus, IH. reflexivity.
Qed.

Definition z0 : I * I := (iofZ K 0, iofZ K 0).

Lemma encloses_nth P E v c : encloses P E v ->
  0 <= fx P (zv (fst (nth c E z0))) /\ fx P (zv (fst (nth c E z0))) <= nth c v 0 <= fx P (zv (snd (nth c E z0))).
Proof.
  intro H; revert c; induction H as [|e x E v He H IH]; intros [|c]; simpl; try apply IH; try exact He.
  all: unfold z0; simpl; zsimpl; rewrite fx_0; lra.
Qed.

Lemma encloses_group P E v g : encloses P E v ->
  fx P (zv (isum (map (fun c => fst (nth c E z0)) g))) <= ssum (map (fun c => nth c v 0) g)
  <= fx P (zv (isum (map (fun c => snd (nth c E z0)) g))).
Proof.
  intro H; rewrite !fx_isum, !map_map. induction g as [|c g IH]; cbn [map]; [unfold ssum; simpl; lra|].
  rewrite !ssum_cons. pose proof (encloses_nth P E v c H). lra.
Qed.

Lemma encloses_total P E v : encloses P E v ->
  0 <= fx P (zv (isum (map fst E))) /\
  fx P (zv (isum (map fst E))) <= ssum v <= fx P (zv (isum (map snd E))).
Proof.
  intro H; rewrite !fx_isum, !map_map. induction H as [|e x E v He H IH]; cbn [map]; [unfold ssum; simpl; lra|].
  rewrite !ssum_cons. lra.
Qed.

Definition iqrow (l : list Q) : list (I * I) := map iq l.

Lemma iqrow_posden l : Forall posden (iqrow l).
Proof. apply Forall_forall; intros a Ha; apply in_map_iff in Ha as [q [<- _]]; apply posden_iq. Qed.

Lemma map_qv_iqrow l : map qv (iqrow l) = map Q2R l.
Proof. unfold iqrow; rewrite map_map; apply map_ext, qv_iq. Qed.

(** The shifted real row of a rational row: [l − M], M = its largest entry. *)
Lemma eencl_row P k w (l : list Q) :
  let M := qv (rowmax (iqrow l)) in
  weighted w (map Q2R l) = map (fun x => exp M * x) (weighted w (map (fun x => x - M) (map Q2R l))) /\
  encloses P (eencl P k w (iqrow l)) (weighted w (map (fun x => x - M) (map Q2R l))).
Proof.
  intro M. split; [apply weighted_unshift|].
  rewrite <- map_qv_iqrow, map_map. apply eencl_sound, iqrow_posden.
Qed.

Lemma nth_scale (a : R) (v : list R) c : nth c (map (fun x => a * x) v) 0 = a * nth c v 0.
Proof. revert c; induction v as [|x v IH]; intros [|c]; simpl; try ring; apply IH. Qed.

Lemma gsum_scale w (l : list R) (M : R) g :
  gsum w l g = exp M * gsum w (map (fun x => x - M) l) g.
Proof.
  unfold gsum. rewrite (weighted_unshift w l M), <- ssum_scale, map_map. f_equal. apply map_ext; intro c.
  apply nth_scale.
Qed.

(** *** Lower bounds: [2 W(own) − W(flat) − ε T > 0] *)

(** The precision: k = t squarings, P = 2t + 10 fractional binary digits. *)
Definition sq_count (t : nat) : nat := t.
Definition frac_bits (t : nat) : nat := 2 * t + 10.

Definition lower_row (P k : nat) (w : list nat) (l : list Q) (own flat : list nat) (eps : Q) : bool :=
  let E := eencl P k w (iqrow l) in
  let own_lo := isum (map (fun c => fst (nth c E z0)) own) in
  let flat_hi := isum (map (fun c => snd (nth c E z0)) flat) in
  let T_hi := isum (map snd E) in
  Z.leb 0 (Qnum eps) &&
  iltb K (imul K (iofZ K (Qnum eps)) T_hi)
         (imul K (isub K (iadd K own_lo own_lo) flat_hi) (iofZ K (Zpos (Qden eps)))).

Lemma lower_row_sound P k w l own flat eps : lower_row P k w l own flat eps = true ->
  0 < margin_expr w (map Q2R l) own flat (Q2R eps).
Proof.
  unfold lower_row; intro H. apply andb_prop in H as [He H]. rewrite (zv_ltb K) in H. zsimpl.
  apply Z.leb_le in He. apply Z.ltb_lt in H.
  destruct (eencl_row P k w l) as [Hw HE]. set (M := qv (rowmax (iqrow l))) in *.
  set (E := eencl P k w (iqrow l)) in *. set (l' := map (fun x => x - M) (map Q2R l)) in *.
  unfold margin_expr. rewrite !(gsum_scale w (map Q2R l) M), Hw, ssum_scale. fold l'.
  pose proof (exp_pos M) as HM.
  pose proof (encloses_group P E _ own HE) as Go. pose proof (encloses_group P E _ flat HE) as Gf.
  pose proof (encloses_total P E _ HE) as [_ Gt]. unfold gsum.
  set (ol := zv (isum (map (fun c => fst (nth c E z0)) own))) in *.
  set (fh := zv (isum (map (fun c => snd (nth c E z0)) flat))) in *.
  set (th := zv (isum (map snd E))) in *.
  assert (Hq : Q2R eps * fx P th < 2 * fx P ol - fx P fh).
  { apply IZR_lt in H. rewrite !mult_IZR, minus_IZR, plus_IZR in H.
    pose proof (pow2_pos P). assert (0 < IZR (Z.pos (Qden eps))) by (apply IZR_lt; lia).
    set (d := IZR (Z.pos (Qden eps))) in *.
    assert (E1 : Q2R eps * fx P th = IZR (Qnum eps) * IZR th * / (d * 2 ^ P)) by (unfold Q2R, fx; fold d; field; split; lra).
    assert (E2 : 2 * fx P ol - fx P fh = (IZR ol + IZR ol - IZR fh) * d * / (d * 2 ^ P)) by (unfold fx; field; split; lra).
    rewrite E1, E2. apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; nra | exact H]. }
  assert (He' : 0 <= Q2R eps) by (unfold Q2R; apply Rmult_le_pos; [apply IZR_le, He | left; apply Rinv_0_lt_compat, IZR_lt; lia]).
  set (T := ssum (weighted w l')) in *.
  assert (Q2R eps * T <= Q2R eps * fx P th) by (apply Rmult_le_compat_l; lra).
  set (A := ssum (map (fun c => nth c (weighted w l') 0) own)) in *.
  set (B := ssum (map (fun c => nth c (weighted w l') 0) flat)) in *.
  replace (2 * (exp M * A) - exp M * B - Q2R eps * (exp M * T)) with (exp M * (2 * A - B - Q2R eps * T)) by ring.
  apply Rmult_lt_0_compat; [exact HM | lra].
Qed.

Definition lower_rows_check (t : nat) (w : list nat) (Lq : list (list Q)) (rows : list nat)
  (groups : list (list nat)) (eps : Q) : bool :=
  forallb (fun p => lower_row (frac_bits t) (sq_count t) w (nth (fst p) Lq []) (snd p) (concat groups) eps)
          (combine rows groups).

Theorem lower_rows_sound (t : nat) (w : list nat) (Lq : list (list Q)) (rows : list nat)
  (groups : list (list nat)) (eps : Q) :
  lower_rows_check t w Lq rows groups eps = true ->
  Forall (fun p => 0 < margin_expr w (nth (fst p) (QR Lq) []) (snd p) (concat groups) (Q2R eps)) (combine rows groups).
Proof.
  unfold lower_rows_check; intro H. apply Forall_forall; intros p Hp.
  rewrite forallb_forall in H. rewrite nth_QR. apply (lower_row_sound (frac_bits t) (sq_count t)), H, Hp.
Qed.

(** *** Upper bounds: [Σ_j |w_j e^{l_j} − b_j T| ≤ ε T] for T in an enclosure of the total *)

(** [|v − b T| ≤ B] on the box [lo ≤ v ≤ hi], [Tl ≤ T ≤ Th] when B bounds
    [v − b T] and [b T − v] at its four corners ([v − b T] is affine). *)
Lemma corner_bound (lo hi Tl Th b v T B : R) : lo <= v <= hi -> Tl <= T <= Th ->
  hi - b * Tl <= B -> hi - b * Th <= B -> b * Tl - lo <= B -> b * Th - lo <= B -> Rabs (v - b * T) <= B.
Proof.
  intros Hv HT H1 H2 H3 H4. apply Rabs_le. destruct (Rle_or_lt 0 b) as [Hb|Hb].
  - assert (b * Tl <= b * T <= b * Th) by (split; apply Rmult_le_compat_l; lra). lra.
  - assert (b * Th <= b * T <= b * Tl) by (split; apply Rmult_le_compat_neg_l; lra). lra.
Qed.

(** The corner bound for one entry, at scale [2^P]: the largest of the four
    corners (over the common denominator of b), rounded up. *)
Definition corner (Tlo Thi : I) (e b : I * I) : I :=
  let lo := fst e in let hi := snd e in let bn := fst b in let bd := snd b in
  let z := imax K (imax K (isub K (imul K hi bd) (imul K bn Tlo)) (isub K (imul K hi bd) (imul K bn Thi)))
                  (imax K (isub K (imul K bn Tlo) (imul K lo bd)) (isub K (imul K bn Thi) (imul K lo bd))) in
  iopp K (idiv K (iopp K z) bd).

Lemma corner_sound P Tlo Thi e b v T : posden b ->
  fx P (zv (fst e)) <= v <= fx P (zv (snd e)) -> fx P (zv Tlo) <= T <= fx P (zv Thi) ->
  Rabs (v - qv b * T) <= fx P (zv (corner Tlo Thi e b)).
Proof.
  unfold posden, corner, qv; intros Hb Hv HT. zsimpl.
  set (lo := zv (fst e)) in *. set (hi := zv (snd e)) in *. set (bn := zv (fst b)) in *. set (bd := zv (snd b)) in *.
  set (tl := zv Tlo) in *. set (th := zv Thi) in *.
  set (z := Z.max (Z.max (hi * bd - bn * tl) (hi * bd - bn * th)) (Z.max (bn * tl - lo * bd) (bn * th - lo * bd))).
  pose proof (pow2_pos P) as HP. assert (Hd : 0 < IZR bd) by (apply IZR_lt, Hb).
  pose proof (zdiv_ceil z bd Hb) as Hc.
  apply Rle_trans with (IZR z / IZR bd / 2 ^ P); [|unfold fx; unfold Rdiv at 2 3; apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact Hc]].
  assert (Hz : forall c, (c <= z)%Z -> IZR c / IZR bd / 2 ^ P <= IZR z / IZR bd / 2 ^ P).
  { intros c Hcz. apply IZR_le in Hcz. unfold Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra|].
    apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact Hcz]. }
  assert (Hm : forall a b c, (a - b * c) = (a - b * c)%R) by reflexivity.
  apply (corner_bound (fx P lo) (fx P hi) (fx P tl) (fx P th)); [exact Hv | exact HT | ..].
  - eapply Rle_trans; [|apply (Hz (hi * bd - bn * tl)%Z); unfold z; lia].
    right; unfold fx; rewrite minus_IZR, !mult_IZR; field; lra.
  - eapply Rle_trans; [|apply (Hz (hi * bd - bn * th)%Z); unfold z; lia].
    right; unfold fx; rewrite minus_IZR, !mult_IZR; field; lra.
  - eapply Rle_trans; [|apply (Hz (bn * tl - lo * bd)%Z); unfold z; lia].
    right; unfold fx; rewrite minus_IZR, !mult_IZR; field; lra.
  - eapply Rle_trans; [|apply (Hz (bn * th - lo * bd)%Z); unfold z; lia].
    right; unfold fx; rewrite minus_IZR, !mult_IZR; field; lra.
Qed.

Definition upper_row (P k : nat) (w : list nat) (l b : list Q) (eps : Q) : bool :=
  let E := eencl P k w (iqrow l) in
  let Tlo := isum (map fst E) in
  let Thi := isum (map snd E) in
  let S := isum (map (fun p => corner Tlo Thi (fst p) (iq (snd p))) (combine E b)) in
  Z.leb 0 (Qnum eps) && ileb K (imul K S (iofZ K (Zpos (Qden eps)))) (imul K (iofZ K (Qnum eps)) Tlo).

Lemma err_corners P E v (b : list Q) Tlo Thi T : encloses P E v -> fx P (zv Tlo) <= T <= fx P (zv Thi) ->
  ssum (map (fun p => Rabs (fst p - snd p * T)) (combine v (map Q2R b)))
  <= fx P (zv (isum (map (fun p => corner Tlo Thi (fst p) (iq (snd p))) (combine E b)))).
Proof.
  intros H HT; rewrite fx_isum, map_map. revert b; induction H as [|e x E v He H IH]; intros [|q b]; cbn [combine map];
    try (unfold ssum; simpl; lra).
  rewrite !ssum_cons. apply Rplus_le_compat; [|apply IH]. cbn [fst snd]. rewrite <- qv_iq.
  apply corner_sound; [apply posden_iq | lra | exact HT].
Qed.

Lemma err_expr_scale w (l b : list R) (M T : R) :
  err_expr w l b T = exp M * err_expr w (map (fun x => x - M) l) b (T / exp M).
Proof.
  unfold err_expr. rewrite (weighted_unshift w l M). generalize (weighted w (map (fun x => x - M) l)); intro v.
  pose proof (exp_pos M). revert b; induction v as [|a v IH]; intros [|c b]; cbn [combine map]; unfold ssum; simpl; try ring.
  fold (ssum (map (fun p => Rabs (fst p - snd p * T)) (combine (map (fun x => exp M * x) v) b))).
  fold (ssum (map (fun p => Rabs (fst p - snd p * (T / exp M))) (combine v b))).
  rewrite IH, Rmult_plus_distr_l. f_equal.
  replace (exp M * a - c * T) with (exp M * (a - c * (T / exp M))) by (field; lra).
  rewrite Rabs_mult, Rabs_right by lra. reflexivity.
Qed.

Lemma upper_row_sound P k w l b eps : upper_row P k w l b eps = true ->
  row_upper_ok w (Q2R eps) (map Q2R l) (map Q2R b).
Proof.
  unfold upper_row; intro H. apply andb_prop in H as [He H]. rewrite (zv_leb K) in H. zsimpl.
  apply Z.leb_le in He. apply Z.leb_le in H.
  destruct (eencl_row P k w l) as [Hw HE]. set (M := qv (rowmax (iqrow l))) in *.
  set (E := eencl P k w (iqrow l)) in *. set (l' := map (fun x => x - M) (map Q2R l)) in *.
  set (tl := zv (isum (map fst E))) in *. set (th := zv (isum (map snd E))) in *.
  set (S := zv (isum (map (fun p => corner (isum (map fst E)) (isum (map snd E)) (fst p) (iq (snd p))) (combine E b)))) in *.
  pose proof (exp_pos M) as HM. pose proof (encloses_total P E _ HE) as [Ht0 Ht]. fold tl th in Ht0, Ht.
  assert (He' : 0 <= Q2R eps) by (unfold Q2R; apply Rmult_le_pos; [apply IZR_le, He | left; apply Rinv_0_lt_compat, IZR_lt; lia]).
  assert (HS : fx P S <= Q2R eps * fx P tl).
  { apply IZR_le in H. rewrite !mult_IZR in H. pose proof (pow2_pos P).
    assert (0 < IZR (Z.pos (Qden eps))) by (apply IZR_lt; lia). set (d := IZR (Z.pos (Qden eps))) in *.
    assert (E1 : fx P S = IZR S * d * / (d * 2 ^ P)) by (unfold fx; field; split; lra).
    assert (E2 : Q2R eps * fx P tl = IZR (Qnum eps) * IZR tl * / (d * 2 ^ P)) by (unfold Q2R, fx; fold d; field; split; lra).
    rewrite E1, E2. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; nra | exact H]. }
  exists (exp M * fx P tl), (exp M * fx P th). split.
  - rewrite Hw, ssum_scale. split; apply Rmult_le_compat_l; lra.
  - intros T HT. rewrite (err_expr_scale w _ _ M T). fold l'.
    assert (HT' : fx P tl <= T / exp M <= fx P th).
    { split; [apply (Rmult_le_reg_r (exp M)) | apply (Rmult_le_reg_r (exp M))]; try exact HM;
        unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra; lra. }
    pose proof (err_corners P E _ b _ _ _ HE HT') as Hc. fold S in Hc. unfold err_expr at 1.
    set (er := ssum (map (fun p => Rabs (fst p - snd p * (T / exp M))) (combine (weighted w l') (map Q2R b)))) in *.
    assert (Q2R eps * fx P tl <= Q2R eps * (T / exp M)) by (apply Rmult_le_compat_l; lra).
    replace (Q2R eps * T) with (exp M * (Q2R eps * (T / exp M))) by (field; lra).
    rewrite <- Rmult_minus_distr_l. rewrite <- (Rmult_0_r (exp M)). apply Rmult_le_compat_l; lra.
Qed.

Fixpoint upper_rows_go (P k : nat) (w : list nat) (Lq Bq : list (list Q)) (eps : Q) : bool :=
  match Lq, Bq with
  | [], [] => true
  | l :: Lq, b :: Bq => upper_row P k w l b eps && upper_rows_go P k w Lq Bq eps
  | _, _ => false
  end.

Definition upper_rows_check (t : nat) (w : list nat) (Lq Bq : list (list Q)) (eps : Q) : bool :=
  upper_rows_go (frac_bits t) (sq_count t) w Lq Bq eps.

Theorem upper_rows_sound (t : nat) (w : list nat) (Lq Bq : list (list Q)) (eps : Q) :
  upper_rows_check t w Lq Bq eps = true -> Forall2 (row_upper_ok w (Q2R eps)) (QR Lq) (QR Bq).
Proof.
  unfold upper_rows_check. generalize (frac_bits t) (sq_count t); intros P k.
  revert Bq; induction Lq as [|l Lq IH]; intros [|b Bq] H; simpl in H; try discriminate; [constructor|].
  apply andb_prop in H as [H1 H2]. constructor; [apply (upper_row_sound P k), H1 | apply IH, H2].
Qed.

(** *** Differing attention: the sign of [e_j(l) T(s) − e_j(s) T(l)] *)

(** With [a = e_j(l)], [c = e_j(s)] and the totals [T(l)], [T(s)] enclosed:
    [c⁺ T(l)⁺ < a⁻ T(s)⁻] proves the difference positive, [a⁺ T(s)⁺ < c⁻ T(l)⁻]
    negative (at scale [2^{2P}]; every enclosure is nonnegative). *)
Definition differs_sides (t : nat) (Lq Sq : list (list Q)) (i j : nat) : bool * bool :=
  let P := frac_bits t in let k := sq_count t in
  let l := nth i Lq [] in let s := nth i Sq [] in
  let El := eencl P k (ones (length l)) (iqrow l) in
  let Es := eencl P k (ones (length s)) (iqrow s) in
  let a := nth j El z0 in let c := nth j Es z0 in
  (iltb K (imul K (snd c) (isum (map snd El))) (imul K (fst a) (isum (map fst Es))),
   iltb K (imul K (snd a) (isum (map snd Es))) (imul K (fst c) (isum (map fst El)))).

Definition differs_pos_check t Lq Sq i j : bool := fst (differs_sides t Lq Sq i j).
Definition differs_neg_check t Lq Sq i j : bool := snd (differs_sides t Lq Sq i j).
Definition differs_check t Lq Sq i j : bool := differs_pos_check t Lq Sq i j || differs_neg_check t Lq Sq i j.

Lemma differ_scale (l s : list R) (Ml Ms : R) j :
  differ_expr l s j = exp Ml * exp Ms * differ_expr (map (fun x => x - Ml) l) (map (fun x => x - Ms) s) j.
Proof.
  unfold differ_expr. rewrite !map_length.
  rewrite (weighted_unshift (ones (length l)) l Ml), (weighted_unshift (ones (length s)) s Ms).
  rewrite !nth_scale, !ssum_scale. ring.
Qed.

Lemma fx_mul_lt P a b c d : (a * b < c * d)%Z -> fx P a * fx P b < fx P c * fx P d.
Proof.
  intro H; apply IZR_lt in H; rewrite !mult_IZR in H. pose proof (pow2_pos P). unfold fx.
  replace (IZR a / 2 ^ P * (IZR b / 2 ^ P)) with (IZR a * IZR b * / (2 ^ P * 2 ^ P)) by (field; lra).
  replace (IZR c / 2 ^ P * (IZR d / 2 ^ P)) with (IZR c * IZR d * / (2 ^ P * 2 ^ P)) by (field; lra).
  apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; nra | exact H].
Qed.

Lemma differs_both (t : nat) (Lq Sq : list (list Q)) (i j : nat) :
  (differs_pos_check t Lq Sq i j = true -> 0 < differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j) /\
  (differs_neg_check t Lq Sq i j = true -> differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j < 0).
Proof.
  unfold differs_pos_check, differs_neg_check, differs_sides; cbn [fst snd]. rewrite !nth_QR.
  set (l := nth i Lq []) in *. set (s := nth i Sq []) in *. set (P := frac_bits t) in *. set (k := sq_count t) in *.
  destruct (eencl_row P k (ones (length l)) l) as [_ HL]. destruct (eencl_row P k (ones (length s)) s) as [_ HS].
  rewrite (differ_scale _ _ (qv (rowmax (iqrow l))) (qv (rowmax (iqrow s)))).
  set (Ml := qv (rowmax (iqrow l))) in *. set (Ms := qv (rowmax (iqrow s))) in *.
  unfold differ_expr. rewrite !map_length.
  set (l' := map (fun x => x - Ml) (map Q2R l)) in *. set (s' := map (fun x => x - Ms) (map Q2R s)) in *.
  set (El := eencl P k (ones (length l)) (iqrow l)) in *. set (Es := eencl P k (ones (length s)) (iqrow s)) in *.
  pose proof (encloses_nth P El _ j HL) as [A0 A]. pose proof (encloses_nth P Es _ j HS) as [C0 C].
  pose proof (encloses_total P El _ HL) as [TL0 TL]. pose proof (encloses_total P Es _ HS) as [TS0 TS].
  pose proof (exp_pos Ml). pose proof (exp_pos Ms).
  assert (Hpos : 0 < exp Ml * exp Ms) by (apply Rmult_lt_0_compat; assumption).
  set (ea := nth j (weighted (ones (length l)) l') 0) in *. set (ec := nth j (weighted (ones (length s)) s') 0) in *.
  set (tL := ssum (weighted (ones (length l)) l')) in *. set (tS := ssum (weighted (ones (length s)) s')) in *.
  split; intro Hc; rewrite (zv_ltb K) in Hc; zsimpl; apply Z.ltb_lt, (fx_mul_lt P) in Hc.
  - apply Rmult_lt_0_compat; [exact Hpos|].
    assert (ec * tL <= fx P (zv (snd (nth j Es z0))) * fx P (zv (isum (map snd El)))) by (apply Rmult_le_compat; lra).
    assert (fx P (zv (fst (nth j El z0))) * fx P (zv (isum (map fst Es))) <= ea * tS) by (apply Rmult_le_compat; lra).
    lra.
  - rewrite <- (Rmult_0_r (exp Ml * exp Ms)). apply Rmult_lt_compat_l; [exact Hpos|].
    assert (ea * tS <= fx P (zv (snd (nth j El z0))) * fx P (zv (isum (map snd Es)))) by (apply Rmult_le_compat; lra).
    assert (fx P (zv (fst (nth j Es z0))) * fx P (zv (isum (map fst El))) <= ec * tL) by (apply Rmult_le_compat; lra).
    lra.
Qed.

Theorem differs_pos_sound (t : nat) (Lq Sq : list (list Q)) (i j : nat) :
  differs_pos_check t Lq Sq i j = true -> 0 < differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j.
Proof. exact (proj1 (differs_both t Lq Sq i j)). Qed.

Theorem differs_neg_sound (t : nat) (Lq Sq : list (list Q)) (i j : nat) :
  differs_neg_check t Lq Sq i j = true -> differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j < 0.
Proof. exact (proj2 (differs_both t Lq Sq i j)). Qed.

Theorem differs_check_sound (t : nat) (Lq Sq : list (list Q)) (i j : nat) :
  differs_check t Lq Sq i j = true ->
  0 < differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j \/ differ_expr (nth i (QR Lq) []) (nth i (QR Sq) []) j < 0.
Proof.
  unfold differs_check; intro H. apply orb_prop in H as [H|H]; [left; exact (differs_pos_sound t Lq Sq i j H) | right; exact (differs_neg_sound t Lq Sq i j H)].
Qed.

End Checkers.

(** ** Bignums' machine-digit integers *)

Definition BigZints : ints :=
  Ints BigZ.t BigZ.to_Z BigZ.of_Z BigZ.add BigZ.sub BigZ.mul BigZ.opp BigZ.div BigZ.shiftl BigZ.shiftr BigZ.max
       BigZ.leb BigZ.ltb
       BigZ.spec_of_Z BigZ.spec_add BigZ.spec_sub BigZ.spec_mul BigZ.spec_opp BigZ.spec_div
       BigZ.spec_shiftl BigZ.spec_shiftr BigZ.spec_max BigZ.spec_leb BigZ.spec_ltb.
