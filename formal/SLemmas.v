(** * Paper S, general lemmas: the row-scalar quotient (S4), the multiplicity
    lemma, the ℓ1 / sign-vector duality (S1).  Stated in SDefs' words. *)

From Coq Require Import Reals List Lra Lia.
From AttnProof Require Import SDefs.
Import ListNotations.
Open Scope R_scope.

Lemma ssum_cons (x : R) (l : list R) : ssum (x :: l) = x + ssum l.
Proof. reflexivity. Qed.

Lemma ssum_scale (c : R) (l : list R) : ssum (map (fun x => c * x) l) = c * ssum l.
Proof. induction l as [|x l IH]; simpl; [ring | unfold ssum in *; simpl in *; rewrite IH; ring]. Qed.

Lemma weighted_shift (w : list nat) (l : list R) (c : R) :
  weighted w (map (fun x => x + c) l) = map (fun x => exp c * x) (weighted w l).
Proof.
  revert l; induction w as [|a w IH]; intros [|x l]; simpl; try reflexivity.
  unfold weighted in *; simpl; rewrite IH, exp_plus; f_equal; ring.
Qed.

(** S4, the row-scalar quotient: adding a constant c to every logit of a row
    leaves its softmax unchanged, for every row and multiplicities. *)
Theorem S4_row_scalar_quotient : forall (w : list nat) (l : list R) (c : R),
  softmax w (map (fun x => x + c) l) = softmax w l.
Proof.
  intros w l c; unfold softmax; rewrite weighted_shift, ssum_scale, map_map.
  apply map_ext; intro x.
  assert (exp c <> 0) by (apply Rgt_not_eq, exp_pos).
  unfold Rdiv; rewrite Rinv_mult.
  transitivity (exp c * / exp c * (x * / ssum (weighted w l))); [ring | rewrite Rinv_r by assumption; ring].
Qed.

Lemma combine_app' {A B} (a1 a2 : list A) (b1 b2 : list B) :
  length a1 = length b1 -> combine (a1 ++ a2) (b1 ++ b2) = combine a1 b1 ++ combine a2 b2.
Proof.
  revert b1; induction a1 as [|x a1 IH]; intros [|y b1] H; simpl in *; try discriminate; auto.
  rewrite IH by lia; reflexivity.
Qed.

(** The multiplicity lemma, on one row: a point of multiplicity [w1 + w2]
    equals two copies of it with multiplicities [w1] and [w2].  The row with
    the entry [x] once (weight [w1 + w2]) after the columns [la] (weights
    [wa]) has the softmax of the row with [x] repeated (weights [w1], [w2]),
    the two copies' columns merged by summing. *)
Theorem multiplicity_lemma : forall (wa wb : list nat) (la lb : list R) (w1 w2 : nat) (x : R),
  length wa = length la ->
  let s := softmax (wa ++ w1 :: w2 :: wb) (la ++ x :: x :: lb) in
  let k := length wa in
  softmax (wa ++ (w1 + w2)%nat :: wb) (la ++ x :: lb)
  = firstn k s ++ (nth k s 0 + nth (S k) s 0) :: skipn (S (S k)) s.
Proof.
  intros wa wb la lb w1 w2 x Hlen s k; subst s k.
  unfold softmax, weighted.
  rewrite !combine_app' by exact Hlen. cbn [combine].
  rewrite !map_app. cbn [map fst snd].
  set (P := map (fun p : nat * R => INR (fst p) * exp (snd p)) (combine wa la)).
  set (Q := map (fun p : nat * R => INR (fst p) * exp (snd p)) (combine wb lb)).
  assert (HP : length P = length wa)
    by (subst P; rewrite map_length, combine_length, Hlen; apply Nat.min_id).
  assert (Hsum : ssum (P ++ INR (w1 + w2) * exp x :: Q)
                 = ssum (P ++ INR w1 * exp x :: INR w2 * exp x :: Q)).
  { unfold ssum; rewrite !fold_right_app; simpl; rewrite plus_INR.
    f_equal; ring_simplify. induction P; simpl; auto. }
  rewrite Hsum. set (S0 := ssum (P ++ INR w1 * exp x :: INR w2 * exp x :: Q)).
  set (P' := map (fun y => y / S0) P). set (Q' := map (fun y => y / S0) Q).
  assert (HP' : length P' = length wa) by (subst P'; rewrite map_length; exact HP).
  rewrite <- HP'.
  rewrite firstn_app, Nat.sub_diag, firstn_O, app_nil_r, firstn_all.
  rewrite skipn_app, skipn_all2 by lia.
  replace (S (S (length P')) - length P')%nat with 2%nat by lia.
  rewrite app_nth2 by lia. rewrite Nat.sub_diag.
  rewrite app_nth2 by lia. rewrite Nat.sub_succ_l, Nat.sub_diag by lia. simpl.
  f_equal. f_equal. rewrite plus_INR. unfold Rdiv; ring.
Qed.

Lemma l1norm_nonneg (m : list R) : 0 <= l1norm m.
Proof.
  induction m as [|a m IH]; unfold l1norm in *; simpl; [lra|].
  pose proof (Rabs_pos a); lra.
Qed.

(** S1, the duality on one row, as the project states it
    (docs/softmax_rank.duality.md): [Σ_j |M_ij| = max over v ∈ {−1,1}^N of
    |Σ_j M_ij v_j|], the max attained at [v = sign(M_i)].  First: every [v]
    with [|v_j| ≤ 1] gives [|Σ_j M_ij v_j| ≤ Σ_j |M_ij|]. *)
Theorem S1_duality_bound : forall m v : list R,
  Forall (fun x => Rabs x <= 1) v -> Rabs (rdot m v) <= l1norm m.
Proof.
  induction m as [|a m IH]; intros v Hv.
  - unfold rdot; simpl. rewrite Rabs_R0. unfold l1norm; simpl; lra.
  - destruct v as [|b v].
    + unfold rdot; simpl. rewrite Rabs_R0. apply l1norm_nonneg.
    + inversion Hv as [|? ? Hb Hv']; subst.
      specialize (IH v Hv').
      unfold rdot, l1norm in *; cbn [combine map] in *; rewrite !ssum_cons.
      set (D := ssum (map (fun p : R * R => fst p * snd p) (combine m v))) in *.
      set (N := ssum (map Rabs m)) in *.
      pose proof (Rabs_triang (a * b) D) as T.
      rewrite Rabs_mult in T.
      assert (Rabs a * Rabs b <= Rabs a * 1)
        by (apply Rmult_le_compat_l; [apply Rabs_pos | exact Hb]).
      cbn [fst snd]; lra.
Qed.

(** Second: the sign vector lies in [{−1,1}^N] and attains the bound. *)
Theorem S1_sign_attains : forall m : list R,
  length (sign_vector m) = length m /\
  Forall (fun s => s = 1 \/ s = -1) (sign_vector m) /\
  rdot m (sign_vector m) = l1norm m.
Proof.
  intro m; split; [unfold sign_vector; apply map_length|split].
  - unfold sign_vector; apply Forall_forall; intros s Hs.
    apply in_map_iff in Hs; destruct Hs as [x [<- _]].
    unfold sgn; destruct (Rle_dec 0 x); auto.
  - induction m as [|a m IH]; [reflexivity|].
    unfold rdot, l1norm, sign_vector in *; simpl in *.
    rewrite IH. f_equal.
    unfold sgn; destruct (Rle_dec 0 a).
    + rewrite Rabs_right by lra; ring.
    + rewrite Rabs_left by lra; ring.
Qed.

Lemma fold_Rmax_attained (l : list R) : l <> [] -> Forall (fun x => 0 <= x) l ->
  exists i, (i < length l)%nat /\ nth i l 0 = fold_right Rmax 0 l.
Proof.
  induction l as [|a l IH]; intros Hne Hnn; [congruence|].
  inversion Hnn as [|? ? Ha Hl]; subst.
  destruct l as [|b l].
  - exists O; split; [simpl; lia|]. simpl. rewrite Rmax_left by lra. reflexivity.
  - destruct (IH ltac:(discriminate) Hl) as [i [Hi Hm]].
    simpl fold_right in *. destruct (Rle_dec a (Rmax b (fold_right Rmax 0 l))) as [Hle|Hgt].
    + exists (S i); split; [simpl in *; lia|].
      change (nth (S i) (a :: b :: l) 0) with (nth i (b :: l) 0). rewrite Hm. symmetry; apply Rmax_right, Hle.
    + exists O; split; [simpl; lia|]. simpl. rewrite Rmax_left by lra. reflexivity.
Qed.

Lemma fold_Rmax_ge (l : list R) x : In x l -> x <= fold_right Rmax 0 l.
Proof.
  induction l as [|a l IH]; intros H; [destruct H|]. simpl.
  destruct H as [<-|H]; [apply Rmax_l | eapply Rle_trans; [apply IH, H | apply Rmax_r]].
Qed.

(** S1, the duality, for a matrix M as the project states it
    (docs/softmax_rank.duality.md): [max_i ||M_i||_1 = max over v ∈ [−1,1]^N
    of max_i |(M v)_i|] — every v in the cube gives [|M_i · v| ≤ max_i ||M_i||_1]
    on every row, and a vertex of the cube (a sign vector) attains it. *)
Theorem S1_duality : forall M : list (list R),
  (forall v, Forall (fun x => Rabs x <= 1) v ->
     forall i, (i < length M)%nat -> Rabs (rdot (nth i M []) v) <= max_row_l1 M) /\
  (M <> [] -> exists i v, (i < length M)%nat /\ length v = length (nth i M []) /\
     Forall (fun s => s = 1 \/ s = -1) v /\ Rabs (rdot (nth i M []) v) = max_row_l1 M).
Proof.
  intro M; split.
  - intros v Hv i Hi. eapply Rle_trans; [apply S1_duality_bound, Hv|].
    unfold max_row_l1. apply fold_Rmax_ge, in_map, nth_In, Hi.
  - intro Hne. destruct (fold_Rmax_attained (map l1norm M)) as [i [Hi Hm]].
    + destruct M; [congruence | discriminate].
    + apply Forall_forall; intros x Hx; apply in_map_iff in Hx as [m [<- _]]; apply l1norm_nonneg.
    + rewrite map_length in Hi. exists i, (sign_vector (nth i M [])).
      destruct (S1_sign_attains (nth i M [])) as [Hl [Hs Hd]].
      repeat split; [exact Hi | exact Hl | exact Hs |].
      rewrite Hd, Rabs_right by (apply Rle_ge, l1norm_nonneg).
      unfold max_row_l1. rewrite <- Hm.
      change [] with (@nil R) at 1. rewrite <- (map_nth l1norm M [] i). f_equal.
Qed.
