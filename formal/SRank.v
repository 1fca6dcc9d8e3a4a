(** * Paper S, the linear algebra behind the grouped-columns lower bound:
    n vectors of R^k with k < n are linearly dependent, a strictly diagonally
    dominant n × n matrix has no nonzero null vector, hence such a matrix is
    no product [L · R] of inner dimension k < n.  Matrices are functions of
    their indices; [sumn n f = Σ_{i<n} f i]. *)

From Coq Require Import Reals Lra Lia.
From AttnProof Require Import SDefs.
Open Scope R_scope.


Lemma sumn_ext n f g : (forall i, (i < n)%nat -> f i = g i) -> sumn n f = sumn n g.
Proof.
  induction n as [|n IH]; intros H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). rewrite H by lia. reflexivity.
Qed.

Lemma sumn_zero n f : (forall i, (i < n)%nat -> f i = 0) -> sumn n f = 0.
Proof.
  induction n as [|n IH]; intros H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). rewrite H by lia. ring.
Qed.

Lemma sumn_plus n f g : sumn n (fun i => f i + g i) = sumn n f + sumn n g.
Proof. induction n as [|n IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma sumn_scale n c f : sumn n (fun i => c * f i) = c * sumn n f.
Proof. induction n as [|n IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma sumn_swap n k (F : nat -> nat -> R) :
  sumn n (fun j => sumn k (fun t => F t j)) = sumn k (fun t => sumn n (fun j => F t j)).
Proof.
  induction n as [|n IH]; simpl.
  - symmetry; apply sumn_zero; reflexivity.
  - rewrite IH, <- sumn_plus. reflexivity.
Qed.

Lemma sumn_abs n f : Rabs (sumn n f) <= sumn n (fun i => Rabs (f i)).
Proof.
  induction n as [|n IH]; simpl; [rewrite Rabs_R0; lra|].
  pose proof (Rabs_triang (sumn n f) (f n)); lra.
Qed.

Lemma sumn_le n f g : (forall i, (i < n)%nat -> f i <= g i) -> sumn n f <= sumn n g.
Proof.
  induction n as [|n IH]; intros H; simpl; [lra|].
  pose proof (IH (fun i Hi => H i ltac:(lia))). pose proof (H n ltac:(lia)). lra.
Qed.

(** Columns [0 .. n-1] with column [j0] left out, reindexed [0 .. n-2]. *)
Definition skip (j0 j : nat) : nat := if (j <? j0)%nat then j else S j.

Lemma sumn_skip n j0 g : (j0 < S n)%nat ->
  sumn (S n) g = g j0 + sumn n (fun j => g (skip j0 j)).
Proof.
  induction n as [|n IH]; intros H.
  - assert (j0 = 0%nat) by lia; subst; simpl; ring.
  - change (sumn (S (S n)) g) with (sumn (S n) g + g (S n)).
    destruct (Nat.eq_dec j0 (S n)) as [->|Hne].
    + rewrite (sumn_ext (S n) (fun j => g (skip (S n) j)) g); [ring|].
      intros i Hi; unfold skip; rewrite (proj2 (Nat.ltb_lt i (S n)) Hi); reflexivity.
    + rewrite IH by lia.
      change (sumn (S n) (fun j => g (skip j0 j)))
        with (sumn n (fun j => g (skip j0 j)) + g (skip j0 n)).
      assert (E : skip j0 n = S n)
        by (unfold skip; rewrite (proj2 (Nat.ltb_ge n j0)) by lia; reflexivity).
      rewrite E; ring.
Qed.

Lemma all_or_some n (f : nat -> R) :
  (forall j, (j < n)%nat -> f j = 0) \/ (exists j, (j < n)%nat /\ f j <> 0).
Proof.
  induction n as [|n IH].
  - left; intros; lia.
  - destruct IH as [H|[j [Hj Hf]]].
    + destruct (Req_dec (f n) 0) as [E|E].
      * left; intros j Hj. destruct (Nat.eq_dec j n) as [->|]; [exact E | apply H; lia].
      * right; exists n; split; [lia | exact E].
    + right; exists j; split; [lia | exact Hf].
Qed.

(** n vectors of R^k (the columns [M · j], j < n) with k < n are linearly
    dependent: some nonzero x has [Σ_j M_tj x_j = 0] for every t < k. *)
Theorem columns_dependent : forall (k n : nat) (M : nat -> nat -> R), (k < n)%nat ->
  exists x : nat -> R, (exists j, (j < n)%nat /\ x j <> 0) /\
    forall t, (t < k)%nat -> sumn n (fun j => M t j * x j) = 0.
Proof.
  induction k as [|k IH]; intros n M Hkn.
  - exists (fun _ => 1). split; [exists 0%nat; split; [lia | lra] | intros; lia].
  - destruct (all_or_some n (M k)) as [Z|[j0 [Hj0 Hp]]].
    + destruct (IH n M ltac:(lia)) as [x [Hx Hs]].
      exists x; split; [exact Hx|]. intros t Ht.
      destruct (Nat.eq_dec t k) as [->|]; [|apply Hs; lia].
      apply sumn_zero; intros j Hj; rewrite Z by exact Hj; ring.
    + destruct n as [|n]; [lia|].
      set (p := M k j0) in *.
      set (M' := fun t j => M t (skip j0 j) - M t j0 * (M k (skip j0 j) / p)).
      destruct (IH n M' ltac:(lia)) as [y [[j1 [Hj1 Hy1]] Hy]].
      set (c := - sumn n (fun j => M k (skip j0 j) / p * y j)).
      set (x := fun i => if (i =? j0)%nat then c else y (if (i <? j0)%nat then i else pred i)).
      assert (Xs : forall j, x (skip j0 j) = y j).
      { intro j; unfold x, skip; destruct (j <? j0)%nat eqn:E.
        - apply Nat.ltb_lt in E. rewrite (proj2 (Nat.eqb_neq j j0)) by lia.
          rewrite (proj2 (Nat.ltb_lt j j0)) by lia. reflexivity.
        - apply Nat.ltb_ge in E. rewrite (proj2 (Nat.eqb_neq (S j) j0)) by lia.
          rewrite (proj2 (Nat.ltb_ge (S j) j0)) by lia. reflexivity. }
      assert (X0 : x j0 = c) by (unfold x; rewrite Nat.eqb_refl; reflexivity).
      exists x; split.
      { exists (skip j0 j1); split.
        - unfold skip; destruct (j1 <? j0)%nat; lia.
        - rewrite Xs; exact Hy1. }
      intros t Ht.
      rewrite (sumn_skip n j0) by exact Hj0. rewrite X0.
      rewrite (sumn_ext n (fun j => M t (skip j0 j) * x (skip j0 j))
                          (fun j => M t (skip j0 j) * y j))
        by (intros; rewrite Xs; reflexivity).
      set (T := sumn n (fun j => M t (skip j0 j) * y j)).
      set (K := sumn n (fun j => M k (skip j0 j) / p * y j)) in *.
      destruct (Nat.eq_dec t k) as [->|Hne].
      * assert (E : T = p * K).
        { subst T K; rewrite <- sumn_scale; apply sumn_ext; intros; field; exact Hp. }
        rewrite E; unfold c, p; ring.
      * assert (E : sumn n (fun j => M' t j * y j) = T + (- M t j0) * K).
        { subst T K; rewrite <- sumn_scale, <- sumn_plus; apply sumn_ext; intros; subst M'; cbn beta; ring. }
        rewrite Hy in E by lia. subst c. lra.
Qed.

Lemma argmax n (f : nat -> R) : (0 < n)%nat ->
  exists i, (i < n)%nat /\ forall j, (j < n)%nat -> f j <= f i.
Proof.
  induction n as [|n IH]; intros H; [lia|].
  destruct n as [|n].
  - exists 0%nat; split; [lia|]. intros j Hj; assert (j = 0%nat) by lia; subst; lra.
  - destruct (IH ltac:(lia)) as [i [Hi Hm]].
    destruct (Rle_dec (f (S n)) (f i)).
    + exists i; split; [lia|]. intros j Hj; destruct (Nat.eq_dec j (S n)) as [->|]; [lra | apply Hm; lia].
    + exists (S n); split; [lia|]. intros j Hj; destruct (Nat.eq_dec j (S n)) as [->|]; [lra|].
      pose proof (Hm j ltac:(lia)); lra.
Qed.

Lemma sumn_pick n i f : (i < n)%nat ->
  sumn n f = f i + sumn n (fun j => if (j =? i)%nat then 0 else f j).
Proof.
  induction n as [|n IH]; intros H; [lia|]. simpl.
  destruct (Nat.eq_dec i n) as [->|Hne].
  - rewrite Nat.eqb_refl.
    rewrite (sumn_ext n (fun j => if (j =? n)%nat then 0 else f j) f); [ring|].
    intros j Hj; rewrite (proj2 (Nat.eqb_neq j n)) by lia; reflexivity.
  - rewrite IH by lia. rewrite (proj2 (Nat.eqb_neq n i)) by lia. ring.
Qed.

(** A strictly diagonally dominant n × n matrix C ([Σ_{j≠i} |C_ij| < |C_ii|]
    on every row i < n) has no nonzero null vector. *)
Theorem diagonally_dominant_kernel : forall (n : nat) (C : nat -> nat -> R) (x : nat -> R),
  (forall i, (i < n)%nat -> sumn n (fun j => if (j =? i)%nat then 0 else Rabs (C i j)) < Rabs (C i i)) ->
  (forall i, (i < n)%nat -> sumn n (fun j => C i j * x j) = 0) ->
  forall j, (j < n)%nat -> x j = 0.
Proof.
  intros n C x Hdd Hx j Hj.
  destruct (argmax n (fun j => Rabs (x j)) ltac:(lia)) as [i [Hi Hm]].
  cbn beta in Hm.
  assert (Hxi : Rabs (x i) <= 0).
  { pose proof (Hx i Hi) as E. rewrite (sumn_pick n i) in E by exact Hi.
    set (D := sumn n (fun j => if (j =? i)%nat then 0 else Rabs (C i j))) in *.
    set (O := sumn n (fun j => if (j =? i)%nat then 0 else C i j * x j)) in *.
    assert (HO : Rabs O <= D * Rabs (x i)).
    { subst O D. eapply Rle_trans; [apply sumn_abs|].
      rewrite Rmult_comm, <- sumn_scale. apply sumn_le; intros j' Hj'.
      destruct (j' =? i)%nat; [rewrite Rabs_R0; lra|].
      rewrite Rabs_mult. pose proof (Hm j' Hj'). pose proof (Rabs_pos (C i j')).
      rewrite (Rmult_comm (Rabs (x i))). apply Rmult_le_compat_l; assumption. }
    assert (HC : Rabs (C i i * x i) = Rabs O)
      by (replace (C i i * x i) with (- O) by lra; apply Rabs_Ropp).
    rewrite Rabs_mult in HC.
    pose proof (Hdd i Hi) as Hd. fold D in Hd.
    pose proof (Rabs_pos (x i)).
    set (a := Rabs (C i i)) in *. set (b := Rabs (x i)) in *.
    assert ((a - D) * b <= 0) by (set (ab := a * b) in *; set (Db := D * b) in *;
                                   replace ((a - D) * b) with (ab - Db) by (subst ab Db; ring); lra).
    destruct (Rle_lt_dec b 0); [assumption|].
    assert (0 < (a - D) * b) by (apply Rmult_lt_0_compat; lra). lra. }
  pose proof (Hm j Hj). pose proof (Rabs_pos (x j)).
  destruct (Req_dec (x j) 0) as [E|E]; [exact E|]. pose proof (Rabs_pos_lt (x j) E). lra.
Qed.

(** Hence a strictly diagonally dominant n × n matrix is no product
    [C = L · R] of inner dimension k < n: its rank is n. *)
Theorem diagonally_dominant_full_rank : forall (n k : nat) (C L Rm : nat -> nat -> R),
  (k < n)%nat ->
  (forall i, (i < n)%nat -> sumn n (fun j => if (j =? i)%nat then 0 else Rabs (C i j)) < Rabs (C i i)) ->
  ~ (forall i j, (i < n)%nat -> (j < n)%nat -> C i j = sumn k (fun t => L i t * Rm t j)).
Proof.
  intros n k C L Rm Hkn Hdd HC.
  destruct (columns_dependent k n Rm Hkn) as [x [[j [Hj Hx]] Hs]].
  apply Hx. apply (diagonally_dominant_kernel n C x Hdd); [|exact Hj].
  intros i Hi.
  rewrite (sumn_ext n (fun j => C i j * x j) (fun j => sumn k (fun t => L i t * Rm t j * x j)))
    by (intros j' Hj'; rewrite HC by assumption; rewrite Rmult_comm, <- sumn_scale;
        apply sumn_ext; intros; ring).
  rewrite sumn_swap. apply sumn_zero; intros t Ht.
  rewrite (sumn_ext n (fun j => L i t * Rm t j * x j) (fun j => L i t * (Rm t j * x j)))
    by (intros; ring).
  rewrite sumn_scale, Hs by exact Ht. ring.
Qed.
