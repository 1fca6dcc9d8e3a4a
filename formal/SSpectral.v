(** * Paper S, singular values above τ: [#{i : σ_i(L P) > τ} = count] on rational instances.

    The trusted checker's kind [visible-dimension] (solvers/trusted/ranks.py,
    [_visible_dimension]) decides [#{i : σ_i(L P) > τ} = count] by the
    characteristic polynomial of a Gram matrix and Descartes' rule of signs.
    Here the same count is a Coq theorem in SDefs' words ([sv_count], the
    Courant–Fischer characterisation), from checkers over exact rationals:

    - [sv_ge_sound]: k vectors V of Q^N whose k × k form
      [G = V^T (M^T M − τ² I) V] (computed in Q) equals [L D L^T] with L unit
      lower triangular and D > 0 give [sv_count_ge M τ k];
    - [sv_le_sound]: N − k vectors W of Q^N with a left inverse Z ([Z W = I]
      in Q) and [−G = Σ_i d_i ℓ_i ℓ_i^T] with every [d_i ≥ 0] give
      [sv_count_le M τ k];
    - [sv_sound] both, and [sv_count_sound] both for [centered L], the
      row-centred logits computed in Q.

    τ = 0 is included: there [sv_count M 0 k] says rank M = k.  The vectors,
    the triangular factors and the weights are hints written by the exporter
    (theorems/formal/softmax.py); Coq checks every one of them. *)

From Coq Require Import Reals List QArith Qreals Lra Lia.
From AttnProof Require Import SDefs SLemmas SRank SGrouped SInstances.
Import ListNotations.
Open Scope R_scope.

(** ** Finite sums and quadratic forms over the reals *)

Lemma rdot_sumn (a b : list R) (n : nat) : length a = n -> length b = n ->
  rdot a b = sumn n (fun j => nth j a 0 * nth j b 0).
Proof.
  revert b n; induction a as [|x a IH]; intros [|y b] n Ha Hb; simpl in Ha, Hb; subst n; try discriminate.
  - reflexivity.
  - injection Hb as Hb. rewrite sumn_shift. unfold rdot in *. cbn [combine map].
    rewrite ssum_cons, (IH b (length a) eq_refl Hb). reflexivity.
Qed.

Lemma sumn_mult_r n (f : nat -> R) a : sumn n f * a = sumn n (fun i => f i * a).
Proof. induction n as [|n IH]; simpl; [ring | rewrite <- IH; ring]. Qed.

Lemma sumn_prod n (f g : nat -> R) : sumn n f * sumn n g = sumn n (fun s => sumn n (fun t => f s * g t)).
Proof. rewrite sumn_mult_r. apply sumn_ext; intros s _. rewrite <- sumn_scale. reflexivity. Qed.

Lemma sumn_minus n f g a : sumn n f - a * sumn n g = sumn n (fun i => f i - a * g i).
Proof. induction n as [|n IH]; simpl; [ring | rewrite <- IH; ring]. Qed.

Lemma sumn_nonneg n f : (forall i, (i < n)%nat -> 0 <= f i) -> 0 <= sumn n f.
Proof.
  induction n as [|n IH]; intros H; simpl; [lra|].
  pose proof (IH (fun i Hi => H i ltac:(lia))). pose proof (H n ltac:(lia)). lra.
Qed.

Lemma sumn_ge_term n f i : (forall j, (j < n)%nat -> 0 <= f j) -> (i < n)%nat -> f i <= sumn n f.
Proof.
  intros H Hi. rewrite (sumn_pick n i f Hi).
  assert (0 <= sumn n (fun j => if (j =? i)%nat then 0 else f j)); [|lra].
  apply sumn_nonneg; intros j Hj. destruct (j =? i)%nat; [lra | apply H, Hj].
Qed.

(** [Σ_i w_i (Σ_t c_t f_ti)² = Σ_s Σ_t c_s c_t Σ_i w_i f_si f_ti]. *)
Lemma quad n k (w : nat -> R) (f : nat -> nat -> R) (c : nat -> R) :
  sumn n (fun i => w i * (sumn k (fun t => c t * f t i) * sumn k (fun t => c t * f t i)))
  = sumn k (fun s => sumn k (fun t => c s * c t * sumn n (fun i => w i * (f s i * f t i)))).
Proof.
  rewrite (sumn_ext n _ (fun i => sumn k (fun s => sumn k (fun t => c s * c t * (w i * (f s i * f t i)))))).
  2:{ intros i _. rewrite sumn_prod, <- sumn_scale. apply sumn_ext; intros s _.
      rewrite <- sumn_scale. apply sumn_ext; intros t _. ring. }
  rewrite (sumn_swap n k (fun s i => sumn k (fun t => c s * c t * (w i * (f s i * f t i))))).
  apply sumn_ext; intros s _.
  rewrite (sumn_swap n k (fun t i => c s * c t * (w i * (f s i * f t i)))).
  apply sumn_ext; intros t _. rewrite <- sumn_scale. reflexivity.
Qed.

(** A unit lower triangular system [Σ_s c_s ℓ_is = 0] (i < k) has only c = 0. *)
Lemma unit_lower_kernel k (l : nat -> nat -> R) (c : nat -> R) :
  (forall i s, (i < k)%nat -> (s <= i)%nat -> l i s = if Nat.eqb s i then 1 else 0) ->
  (forall i, (i < k)%nat -> sumn k (fun s => c s * l i s) = 0) ->
  forall s, (s < k)%nat -> c s = 0.
Proof.
  intros Hl Hy.
  assert (H : forall m, (m <= k)%nat -> forall s, (k - m <= s < k)%nat -> c s = 0).
  { induction m as [|m IH]; intros Hm s Hs; [lia|].
    destruct (Nat.eq_dec s (k - S m)) as [->|Hne]; [|apply IH; lia].
    set (i := (k - S m)%nat).
    specialize (Hy i ltac:(lia)). rewrite (sumn_pick k i) in Hy by lia.
    rewrite sumn_zero in Hy.
    - rewrite Hl in Hy by lia. rewrite Nat.eqb_refl in Hy. lra.
    - intros j Hj. destruct (Nat.eqb j i) eqn:E; [reflexivity|]. apply Nat.eqb_neq in E.
      destruct (Nat.lt_ge_cases j i).
      + rewrite Hl by lia. rewrite (proj2 (Nat.eqb_neq j i) E). ring.
      + rewrite (IH ltac:(lia) j) by lia. ring. }
  intros s Hs. apply (H k); lia.
Qed.

(** ** Combinations of vectors given as rows *)

(** Coordinate j of vector t of a list of vectors: the N × k matrix whose
    columns are the vectors. *)
Definition col (vs : list (list R)) (j t : nat) : R := nth j (nth t vs []) 0.

Lemma combo_length N k V c : length (combo N k V c) = N.
Proof. unfold combo; rewrite map_length, seq_length; reflexivity. Qed.

Lemma combo_nth N k V c j : (j < N)%nat -> nth j (combo N k V c) 0 = sumn k (fun t => V j t * c t).
Proof.
  intro H. unfold combo. rewrite (nth_map_lt _ (seq 0 N) O 0 j) by (rewrite seq_length; exact H).
  rewrite seq_nth by exact H. reflexivity.
Qed.

Lemma mat_apply_length M x : length (mat_apply M x) = length M.
Proof. apply map_length. Qed.

Lemma mat_apply_nth M x i : (i < length M)%nat -> nth i (mat_apply M x) 0 = rdot (nth i M []) x.
Proof. intro H. unfold mat_apply. apply (nth_map_lt (fun r => rdot r x) M [] 0 i H). Qed.

Lemma rdot_combo (r : list R) (vs : list (list R)) N k c :
  length r = N -> length vs = k -> Forall (fun v => length v = N) vs ->
  rdot r (combo N k (col vs) c) = sumn k (fun t => c t * rdot r (nth t vs [])).
Proof.
  intros Hr Hk Hv. rewrite (rdot_sumn _ _ N Hr (combo_length _ _ _ _)).
  rewrite (sumn_ext N _ (fun j => sumn k (fun t => c t * (nth j r 0 * col vs j t))))
    by (intros j Hj; rewrite combo_nth by exact Hj; rewrite <- sumn_scale; apply sumn_ext; intros; ring).
  rewrite (sumn_swap N k (fun t j => c t * (nth j r 0 * col vs j t))).
  apply sumn_ext; intros t Ht. rewrite sumn_scale. f_equal.
  rewrite Forall_forall in Hv. assert (Hn : In (nth t vs []) vs) by (apply nth_In; lia).
  rewrite (rdot_sumn _ _ N Hr (Hv _ Hn)). reflexivity.
Qed.

(** [||M (V c)||² − τ² ||V c||² = Σ_s Σ_t c_s c_t (<M v_s, M v_t> − τ² <v_s, v_t>)]. *)
Lemma form_expand (M vs : list (list R)) (N k : nat) (tau : R) (c : nat -> R) :
  Forall (fun r => length r = N) M -> length vs = k -> Forall (fun v => length v = N) vs ->
  sqnorm (mat_apply M (combo N k (col vs) c)) - tau ^ 2 * sqnorm (combo N k (col vs) c)
  = sumn k (fun s => sumn k (fun t => c s * c t *
      (rdot (mat_apply M (nth s vs [])) (mat_apply M (nth t vs [])) - tau ^ 2 * rdot (nth s vs []) (nth t vs [])))).
Proof.
  intros HM Hk Hv. set (x := combo N k (col vs) c). set (n := length M).
  assert (HMi : forall i, (i < n)%nat -> length (nth i M []) = N)
    by (intros i Hi; rewrite Forall_forall in HM; apply HM, nth_In, Hi).
  assert (Hvt : forall t, (t < k)%nat -> length (nth t vs []) = N)
    by (intros t Ht; rewrite Forall_forall in Hv; apply Hv, nth_In; lia).
  assert (E1 : sqnorm (mat_apply M x) = sumn k (fun s => sumn k (fun t => c s * c t *
                 rdot (mat_apply M (nth s vs [])) (mat_apply M (nth t vs []))))).
  { unfold sqnorm. rewrite (rdot_sumn _ _ n (mat_apply_length _ _) (mat_apply_length _ _)).
    rewrite (sumn_ext n _ (fun i => 1 * (sumn k (fun t => c t * rdot (nth i M []) (nth t vs []))
                                         * sumn k (fun t => c t * rdot (nth i M []) (nth t vs [])))))
      by (intros i Hi; rewrite mat_apply_nth by exact Hi; unfold x; rewrite (rdot_combo _ _ N k) by auto; ring).
    rewrite (quad n k (fun _ => 1) (fun t i => rdot (nth i M []) (nth t vs [])) c).
    apply sumn_ext; intros s Hs; apply sumn_ext; intros t Ht. f_equal.
    rewrite (rdot_sumn _ _ n (mat_apply_length _ _) (mat_apply_length _ _)).
    apply sumn_ext; intros i Hi. rewrite !mat_apply_nth by exact Hi. ring. }
  assert (E2 : sqnorm x = sumn k (fun s => sumn k (fun t => c s * c t * rdot (nth s vs []) (nth t vs [])))).
  { unfold sqnorm. rewrite (rdot_sumn x x N (combo_length _ _ _ _) (combo_length _ _ _ _)).
    rewrite (sumn_ext N _ (fun j => 1 * (sumn k (fun t => c t * col vs j t) * sumn k (fun t => c t * col vs j t))))
      by (intros j Hj; unfold x; rewrite combo_nth by exact Hj;
          rewrite (sumn_ext k (fun t => col vs j t * c t) (fun t => c t * col vs j t)) by (intros; ring); ring).
    rewrite (quad N k (fun _ => 1) (fun t j => col vs j t) c).
    apply sumn_ext; intros s Hs; apply sumn_ext; intros t Ht. f_equal.
    rewrite (rdot_sumn _ _ N (Hvt s Hs) (Hvt t Ht)). apply sumn_ext; intros j Hj. unfold col; ring. }
  rewrite E1, E2, sumn_minus. apply sumn_ext; intros s _. rewrite sumn_minus. apply sumn_ext; intros t _. ring.
Qed.

(** ** Computed in Q *)

(** Sums and dot products, reduced to lowest terms at every step (the
    numbers stay short under [vm_compute]): SInstances' [qsum] and [qdot]. *)
Definition qdotr (x y : list Q) : Q := qdot x y.

(** The number of columns, and every row of that length. *)
Definition qncols (M : list (list Q)) : nat := length (hd [] M).
Definition rect_check (N : nat) (M : list (list Q)) : bool := forallb (fun r => Nat.eqb (length r) N) M.

Definition qmatvec (M : list (list Q)) (x : list Q) : list Q := map (fun r => qdotr r x) M.

(** The form [G_st = <a_s, a_t> − τ² <v_s, v_t>] with [a_s = M v_s]
    (computed once) on the vectors [Vq]. *)
Definition qform_of (A Vq : list (list Q)) (tau : Q) : list (list Q) :=
  map (fun s => map (fun t =>
    Qred (qdotr (nth s A []) (nth t A []) - tau * tau * qdotr (nth s Vq []) (nth t Vq [])))
    (seq 0 (length Vq))) (seq 0 (length Vq)).

Definition qform (M : list (list Q)) (tau : Q) (Vq : list (list Q)) : list (list Q) :=
  qform_of (map (qmatvec M) Vq) Vq tau.

(** [Σ_i d_i ℓ_i ℓ_i^T], k × k ([ℓ_i] the rows of [ls], padded with zeros). *)
Definition qsos (k : nat) (ls : list (list Q)) (d : list Q) : list (list Q) :=
  map (fun s => map (fun t =>
    qsum (map (fun i => nth i d 0 * nth s (nth i ls []) 0 * nth t (nth i ls []) 0)%Q (seq 0 (length ls))))
    (seq 0 k)) (seq 0 k).

(** [ℓ_i] is 0 before position i and 1 at i (any entries after): the
    columns of a unit lower triangular k × k matrix. *)
Definition unit_lower (k : nat) (ls : list (list Q)) : bool :=
  forallb (fun i => forallb (fun s => Qeq_bool (nth s (nth i ls []) 0%Q) (if Nat.eqb s i then 1 else 0)%Q)
                            (seq 0 (S i))) (seq 0 k).

(** Each row minus its mean, in Q. *)
Definition qcentered (L : list (list Q)) : list (list Q) :=
  map (fun l => map (fun x => x - qsum l / inject_Z (Z.of_nat (length l)))%Q l) L.

Lemma qsum_R l : Q2R (qsum l) = ssum (map Q2R l).
Proof.
  induction l as [|x l IH]; [unfold ssum, Q2R; simpl; lra|].
  simpl map; rewrite ssum_cons, <- IH. change (qsum (x :: l)) with (Qred (x + qsum l)).
  rewrite (Qeq_eqR _ _ (Qred_correct _)), Q2R_plus. reflexivity.
Qed.

Lemma rdot_Qr (x y : list Q) : rdot (map Q2R x) (map Q2R y) = Q2R (qdotr x y).
Proof. apply rdot_Q. Qed.

Lemma ncols_QR M : ncols (QR M) = qncols M.
Proof. destruct M; unfold ncols, qncols, QR; simpl; [reflexivity | apply map_length]. Qed.

Lemma rect_QR N M : rect_check N M = true -> Forall (fun r => length r = N) (QR M).
Proof.
  intro H. unfold rect_check in H. rewrite forallb_forall in H. apply Forall_forall; intros r Hr.
  unfold QR in Hr. apply in_map_iff in Hr as [r' [<- Hr']]. rewrite map_length. apply Nat.eqb_eq, H, Hr'.
Qed.

Lemma Q2R_inject_nat n : Q2R (inject_Z (Z.of_nat n)) = INR n.
Proof. unfold Q2R, inject_Z; simpl. rewrite INR_IZR_INZ. field. Qed.

Lemma centered_Q L : centered (QR L) = QR (qcentered L).
Proof.
  unfold centered, qcentered, QR. rewrite !map_map. apply map_ext; intro l.
  rewrite !map_map, map_length. destruct l as [|a l]; [reflexivity|].
  apply map_ext; intro x. rewrite Q2R_minus, Q2R_div.
  - rewrite Q2R_inject_nat, qsum_R. reflexivity.
  - intro E. unfold Qeq in E. simpl in E. lia.
Qed.

Lemma mat_apply_Q M x : mat_apply (QR M) (map Q2R x) = map Q2R (qmatvec M x).
Proof. unfold mat_apply, qmatvec, QR. rewrite !map_map. apply map_ext; intro r. apply rdot_Qr. Qed.

Lemma qmat_eqb_entry A B s t : qmat_eqb A B = true -> Q2R (nth t (nth s A []) 0%Q) = Q2R (nth t (nth s B []) 0%Q).
Proof. intro H. apply qmat_eqb_sound in H. rewrite <- !nth_Q2R, <- !nth_QR, H. reflexivity. Qed.

Lemma qform_entry M tau Vq s t : (s < length Vq)%nat -> (t < length Vq)%nat ->
  Q2R (nth t (nth s (qform M tau Vq) []) 0%Q) =
  rdot (mat_apply (QR M) (nth s (QR Vq) [])) (mat_apply (QR M) (nth t (QR Vq) []))
  - Q2R tau ^ 2 * rdot (nth s (QR Vq) []) (nth t (QR Vq) []).
Proof.
  intros Hs Ht. unfold qform, qform_of.
  rewrite (nth_map_lt _ (seq 0 (length Vq)) O [] s) by (rewrite seq_length; exact Hs).
  rewrite (nth_map_lt _ (seq 0 (length Vq)) O 0%Q t) by (rewrite seq_length; exact Ht).
  rewrite !seq_nth by assumption. simpl plus.
  rewrite (nth_map_lt _ Vq [] [] s Hs), (nth_map_lt _ Vq [] [] t Ht).
  rewrite (Qeq_eqR _ _ (Qred_correct _)).
  rewrite Q2R_minus, !Q2R_mult, !nth_QR, !mat_apply_Q, !rdot_Qr. ring.
Qed.

Lemma qsos_entry k ls d s t : (s < k)%nat -> (t < k)%nat ->
  Q2R (nth t (nth s (qsos k ls d) []) 0%Q) =
  sumn (length ls) (fun i => Q2R (nth i d 0%Q) * (Q2R (nth s (nth i ls []) 0%Q) * Q2R (nth t (nth i ls []) 0%Q))).
Proof.
  intros Hs Ht. unfold qsos.
  rewrite (nth_map_lt _ (seq 0 k) O [] s) by (rewrite seq_length; exact Hs).
  rewrite (nth_map_lt _ (seq 0 k) O 0%Q t) by (rewrite seq_length; exact Ht).
  rewrite !seq_nth by assumption. simpl plus. rewrite qsum_R, map_map, ssum_seq.
  apply sumn_ext; intros i _. rewrite !Q2R_mult. ring.
Qed.

Lemma unit_lower_sound k ls : unit_lower k ls = true -> forall i s, (i < k)%nat -> (s <= i)%nat ->
  Q2R (nth s (nth i ls []) 0%Q) = if Nat.eqb s i then 1 else 0.
Proof.
  intros H i s Hi Hs. unfold unit_lower in H. rewrite forallb_forall in H.
  specialize (H i ltac:(apply in_seq; lia)). rewrite forallb_forall in H.
  specialize (H s ltac:(apply in_seq; lia)). apply Qeq_bool_eq, Qeq_eqR in H. rewrite H.
  destruct (Nat.eqb s i); unfold Q2R; simpl; lra.
Qed.

Lemma identity_entry k s t : (s < k)%nat -> (t < k)%nat ->
  Q2R (nth t (nth s (identity k) []) 0%Q) = if Nat.eqb s t then 1 else 0.
Proof.
  intros Hs Ht. unfold identity. rewrite (nth_map_lt _ _ O [] s) by (rewrite seq_length; exact Hs).
  rewrite (nth_map_lt _ _ O 0%Q t) by (rewrite seq_length; exact Ht).
  rewrite !seq_nth by assumption. simpl. destruct (Nat.eqb s t); unfold Q2R; simpl; lra.
Qed.

(** ** At least k singular values above τ *)

(** The vectors [Vq] lie in Q^N (N the columns of M, every row of M of that
    length); the form G on them is [L D L^T], with [ls] the columns of L
    (unit lower triangular) and [d] the diagonal of D, every [d_i > 0]. *)
Definition sv_ge_check (M : list (list Q)) (tau : Q) (Vq ls : list (list Q)) (d : list Q) : bool :=
  rect_check (qncols M) M && rect_check (qncols M) Vq
  && Nat.eqb (length ls) (length Vq) && unit_lower (length Vq) ls
  && Nat.eqb (length d) (length Vq) && forallb (fun x => negb (Qle_bool x 0)) d
  && qmat_eqb (qform M tau Vq) (qsos (length Vq) ls d).

Theorem sv_ge_sound (M : list (list Q)) (tau : Q) (Vq ls : list (list Q)) (d : list Q) :
  sv_ge_check M tau Vq ls d = true -> sv_count_ge (QR M) (Q2R tau) (length Vq).
Proof.
  intro H. unfold sv_ge_check in H. repeat rewrite Bool.andb_true_iff in H.
  destruct H as [[[[[[HM HV] Hls] Hu] Hd] Hpos] HG].
  apply Nat.eqb_eq in Hls, Hd. rewrite forallb_forall in Hpos.
  set (k := length Vq) in *. set (N := qncols M) in *.
  exists (col (QR Vq)). intros c [t0 [Ht0 Hc0]]. rewrite ncols_QR. fold N.
  enough (0 < sqnorm (mat_apply (QR M) (combo N k (col (QR Vq)) c)) - Q2R tau ^ 2 * sqnorm (combo N k (col (QR Vq)) c)) by lra.
  rewrite (form_expand _ _ N k) by (try apply rect_QR; auto; apply length_QR).
  set (D := fun i => Q2R (nth i d 0%Q)). set (l := fun i s => Q2R (nth s (nth i ls []) 0%Q)).
  rewrite (sumn_ext k _ (fun s => sumn k (fun t => c s * c t * sumn k (fun i => D i * (l i s * l i t))))).
  2:{ intros s Hs. apply sumn_ext; intros t Ht. f_equal.
      rewrite <- (qform_entry M tau Vq s t Hs Ht), (qmat_eqb_entry _ _ s t HG), qsos_entry by assumption.
      rewrite Hls. reflexivity. }
  rewrite <- (quad k k D (fun s i => l i s) c).
  assert (HD : forall i, (i < k)%nat -> 0 < D i).
  { intros i Hi. unfold D. assert (Hin : In (nth i d 0%Q) d) by (apply nth_In; lia).
    specialize (Hpos _ Hin). apply Bool.negb_true_iff in Hpos.
    assert (Hq : (0 < nth i d 0%Q)%Q) by (apply Qnot_le_lt; intro E; apply Qle_bool_iff in E; congruence).
    apply Qlt_Rlt in Hq. unfold Q2R at 1 in Hq; simpl in Hq. lra. }
  destruct (all_or_some k (fun i => sumn k (fun t => c t * l i t))) as [Hall|[i [Hi Hy]]].
  - exfalso. apply Hc0. apply (unit_lower_kernel k l c); [|exact Hall|exact Ht0].
    intros i s Hi Hs. apply (unit_lower_sound k ls Hu i s Hi Hs).
  - eapply Rlt_le_trans; [|apply (sumn_ge_term k _ i); [|exact Hi]].
    + cbv beta. apply Rmult_lt_0_compat; [apply HD, Hi|]. set (y := sumn k (fun t => c t * l i t)) in *.
      assert (0 < y * y) by (destruct (Rlt_or_le 0 y); [nra|]; destruct (Rle_lt_or_eq_dec y 0 ltac:(assumption)); [nra | congruence]).
      exact H.
    + intros j Hj. pose proof (HD j Hj). set (y := sumn k (fun t => c t * l j t)). nra.
Qed.

(** ** At most k singular values above τ *)

(** [k ≤ N]; N − k vectors [Wq] of Q^N with a left inverse [Zq] ([Z W = I]);
    the form G on them is [−Σ_i d_i ℓ_i ℓ_i^T] with every [d_i ≥ 0]. *)
Definition sv_le_check (M : list (list Q)) (tau : Q) (k : nat) (Wq Zq ls : list (list Q)) (d : list Q) : bool :=
  rect_check (qncols M) M && Nat.leb k (qncols M)
  && Nat.eqb (length Wq) (qncols M - k) && Nat.eqb (length Zq) (qncols M - k)
  && rect_check (qncols M) Wq && rect_check (qncols M) Zq
  && qmat_eqb (map (fun z => map (fun w => qdotr z w) Wq) Zq) (identity (qncols M - k))
  && Nat.eqb (length d) (length ls) && forallb (fun x => Qle_bool 0 x) d
  && qmat_eqb (qform M tau Wq) (qsos (qncols M - k) ls (map Qopp d)).

Theorem sv_le_sound (M : list (list Q)) (tau : Q) (k : nat) (Wq Zq ls : list (list Q)) (d : list Q) :
  sv_le_check M tau k Wq Zq ls d = true -> sv_count_le (QR M) (Q2R tau) k.
Proof.
  intro H. unfold sv_le_check in H. repeat rewrite Bool.andb_true_iff in H.
  destruct H as [[[[[[[[[HM Hk] HWl] HZl] HW] HZ] HI] Hd] Hpos] HG].
  apply Nat.eqb_eq in HWl, HZl, Hd. apply Nat.leb_le in Hk. rewrite forallb_forall in Hpos.
  set (N := qncols M) in *. unfold sv_count_le. rewrite ncols_QR. fold N.
  set (m := (N - k)%nat) in *. split; [exact Hk|].
  pose proof (rect_QR _ _ HW) as HW'. pose proof (rect_QR _ _ HZ) as HZ'.
  exists (col (QR Wq)), (fun s j => nth j (nth s (QR Zq) []) 0). split.
  - intros s t Hs Ht. rewrite <- (identity_entry m s t Hs Ht), <- (qmat_eqb_entry _ _ s t HI).
    rewrite (nth_map_lt _ Zq [] [] s) by lia. rewrite (nth_map_lt _ Wq [] 0%Q t) by lia.
    rewrite <- rdot_Qr, <- !nth_QR. rewrite Forall_forall in HW', HZ'.
    rewrite (rdot_sumn _ _ N); [| apply HZ', nth_In; rewrite length_QR; lia | apply HW', nth_In; rewrite length_QR; lia].
    apply sumn_ext; intros j _. unfold col. ring.
  - intro c.
    enough (sqnorm (mat_apply (QR M) (combo N m (col (QR Wq)) c)) - Q2R tau ^ 2 * sqnorm (combo N m (col (QR Wq)) c) <= 0) by lra.
    rewrite (form_expand _ _ N m) by (try apply rect_QR; auto; rewrite length_QR; exact HWl).
    set (D := fun i => Q2R (nth i d 0%Q)). set (l := fun i s => Q2R (nth s (nth i ls []) 0%Q)).
    rewrite (sumn_ext m _ (fun s => sumn m (fun t => c s * c t * sumn (length ls) (fun i => - D i * (l i s * l i t))))).
    2:{ intros s Hs. apply sumn_ext; intros t Ht. f_equal.
        rewrite <- (qform_entry M tau Wq s t) by lia. rewrite (qmat_eqb_entry _ _ s t HG), qsos_entry by assumption.
        apply sumn_ext; intros i Hi. unfold D, l. rewrite (nth_map_lt _ d 0%Q 0%Q i) by lia. rewrite Q2R_opp. ring. }
    rewrite <- (quad (length ls) m (fun i => - D i) (fun s i => l i s) c).
    rewrite <- (sumn_zero (length ls) (fun _ => 0)) by reflexivity. apply sumn_le; intros i Hi.
    assert (0 <= D i).
    { unfold D. assert (Hin : In (nth i d 0%Q) d) by (apply nth_In; lia).
      pose proof (Qle_Rle _ _ (Qle_bool_imp_le _ _ (Hpos _ Hin))) as Hq. unfold Q2R at 1 in Hq; simpl in Hq. lra. }
    set (y := sumn m (fun t => c t * l i t)). nra.
Qed.

(** ** Exactly k, and the row-centred logits *)

Definition sv_check_M (M : list (list Q)) (tau : Q) (k : nat)
    (Vq lv : list (list Q)) (dv : list Q) (Wq Zq lw : list (list Q)) (dw : list Q) : bool :=
  Qle_bool 0 tau && Nat.eqb (length Vq) k && sv_ge_check M tau Vq lv dv && sv_le_check M tau k Wq Zq lw dw.

Theorem sv_sound (M : list (list Q)) (tau : Q) (k : nat)
    (Vq lv : list (list Q)) (dv : list Q) (Wq Zq lw : list (list Q)) (dw : list Q) :
  sv_check_M M tau k Vq lv dv Wq Zq lw dw = true -> sv_count (QR M) (Q2R tau) k.
Proof.
  intro H. unfold sv_check_M in H. repeat rewrite Bool.andb_true_iff in H.
  destruct H as [[[Ht Hk] Hge] Hle]. apply Nat.eqb_eq in Hk.
  unfold sv_count. split; [|split; [|split]].
  - apply Qle_bool_imp_le, Qle_Rle in Ht. unfold Q2R at 1 in Ht; simpl in Ht. lra.
  - rewrite ncols_QR. apply rect_QR. unfold sv_ge_check in Hge. repeat rewrite Bool.andb_true_iff in Hge. tauto.
  - rewrite <- Hk. apply (sv_ge_sound _ _ _ _ _ Hge).
  - apply (sv_le_sound _ _ _ _ _ _ _ Hle).
Qed.

(** The judgment [singular-values-above {logits, tau, count}]: the row-centred
    logits [L P], computed in Q, have exactly [count] singular values above τ. *)
Definition sv_check (L : list (list Q)) (tau : Q) (k : nat)
    (Vq lv : list (list Q)) (dv : list Q) (Wq Zq lw : list (list Q)) (dw : list Q) : bool :=
  sv_check_M (qcentered L) tau k Vq lv dv Wq Zq lw dw.

Theorem sv_count_sound (L : list (list Q)) (tau : Q) (k : nat)
    (Vq lv : list (list Q)) (dv : list Q) (Wq Zq lw : list (list Q)) (dw : list Q) :
  sv_check L tau k Vq lv dv Wq Zq lw dw = true -> sv_count (centered (QR L)) (Q2R tau) k.
Proof. intro H. rewrite centered_Q. apply (sv_sound _ _ _ _ _ _ _ _ _ _ H). Qed.
