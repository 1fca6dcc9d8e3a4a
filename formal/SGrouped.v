(** * Paper S, the grouped-columns lower bound for rank_ε
    (docs/softmax_rank.certificates.md, the [lower] certificate): rows R,
    disjoint column groups G_i (i ∈ R) with margin
    [A_i(G_i) − Σ_{k≠i} |A_i(G_k)| > ε] on every i ∈ R give [rank_ε(A) ≥ |R|]. *)

From Coq Require Import Reals List Lra Lia.
From AttnProof Require Import SDefs SLemmas SRank.
Import ListNotations.
Open Scope R_scope.

Lemma ssum_app l1 l2 : ssum (l1 ++ l2) = ssum l1 + ssum l2.
Proof. induction l1 as [|x l IH]; unfold ssum in *; simpl; [ring | rewrite IH; ring]. Qed.

Lemma ssum_seq (k : nat) (f : nat -> R) : ssum (map f (seq 0 k)) = sumn k f.
Proof.
  induction k as [|k IH]; [reflexivity|].
  rewrite seq_S, map_app, ssum_app, IH. unfold ssum; simpl; ring.
Qed.

Lemma sumn_shift n f : sumn (S n) f = f O + sumn n (fun j => f (S j)).
Proof. induction n as [|n IH]; [simpl; ring|]. change (sumn (S (S n)) f) with (sumn (S n) f + f (S n)).
  rewrite IH; simpl; ring. Qed.

Lemma ssum_concat (f : nat -> R) (gs : list (list nat)) :
  ssum (map f (concat gs)) = sumn (length gs) (fun j => ssum (map f (nth j gs []))).
Proof.
  induction gs as [|g gs IH]; [reflexivity|].
  simpl concat; rewrite map_app, ssum_app, IH. simpl length; rewrite sumn_shift. reflexivity.
Qed.

Lemma ssum_filter (p : nat -> bool) (f : nat -> R) (g : list nat) :
  ssum (map f g) = ssum (map f (filter p g)) + ssum (map f (filter (fun c => negb (p c)) g)).
Proof.
  induction g as [|c g IH]; [unfold ssum; simpl; ring|].
  simpl; destruct (p c); simpl; unfold ssum in *; simpl; rewrite IH; ring.
Qed.

Lemma ssum_nodup_le (f : nat -> R) : forall (N : nat) (g : list nat),
  NoDup g -> (forall c, In c g -> (c < N)%nat) -> (forall c, 0 <= f c) ->
  ssum (map f g) <= sumn N f.
Proof.
  induction N as [|N IH]; intros g Hnd Hin Hf.
  - destruct g as [|c g]; [unfold ssum; simpl; lra|]. specialize (Hin c (or_introl eq_refl)); lia.
  - rewrite (ssum_filter (fun c => (c =? N)%nat)). simpl sumn.
    assert (H1 : ssum (map f (filter (fun c => (c =? N)%nat) g)) <= f N).
    { assert (Hnd' := NoDup_filter (fun c => (c =? N)%nat) Hnd).
      assert (Heq : forall c, In c (filter (fun c => (c =? N)%nat) g) -> c = N)
        by (intros c Hc; apply filter_In in Hc; apply Nat.eqb_eq; apply Hc).
      destruct (filter (fun c => (c =? N)%nat) g) as [|a [|b l]].
      - unfold ssum; simpl; apply Hf.
      - unfold ssum; simpl; rewrite (Heq a (or_introl eq_refl)); lra.
      - exfalso. inversion Hnd' as [|? ? Hna _]; subst.
        apply Hna. rewrite (Heq a (or_introl eq_refl)), <- (Heq b (or_intror (or_introl eq_refl))).
        left; reflexivity. }
    assert (H2 : ssum (map f (filter (fun c => negb (c =? N)%nat) g)) <= sumn N f).
    { apply IH; [apply NoDup_filter, Hnd | | exact Hf].
      intros c Hc; apply filter_In in Hc; destruct Hc as [Hc Hne].
      apply Bool.negb_true_iff, Nat.eqb_neq in Hne. specialize (Hin c Hc); lia. }
    lra.
Qed.

Lemma l1_sumn : forall a b : list R, length a = length b ->
  l1 a b = sumn (length a) (fun c => Rabs (nth c a 0 - nth c b 0)).
Proof.
  induction a as [|x a IH]; intros [|y b] H; simpl in H; try discriminate; [reflexivity|].
  unfold l1 in *; simpl combine; simpl map; simpl length. rewrite sumn_shift, ssum_cons.
  rewrite IH by lia. reflexivity.
Qed.

Lemma l1_le_maxrow : forall (A B : list (list R)) r, length A = length B -> (r < length A)%nat ->
  l1 (nth r A []) (nth r B []) <= maxrow_l1 A B.
Proof.
  induction A as [|a A IH]; intros [|b B] r H Hr; simpl in *; try lia.
  unfold maxrow_l1; simpl. destruct r as [|r].
  - apply Rmax_l.
  - eapply Rle_trans; [apply IH; lia | apply Rmax_r].
Qed.

Lemma same_shape_row : forall A B r, same_shape A B -> (r < length A)%nat ->
  length (nth r B []) = length (nth r A []).
Proof.
  intros A B r [_ HF]; revert r; induction HF as [|a b A B Hab HF IH]; intros r Hr; simpl in *; [lia|].
  destruct r; [symmetry; exact Hab | apply IH; lia].
Qed.

Lemma ssum_map_sumn (k : nat) (F : nat -> nat -> R) (g : list nat) :
  ssum (map (fun c => sumn k (fun t => F t c)) g) = sumn k (fun t => ssum (map (F t) g)).
Proof.
  induction g as [|c g IH]; cbn [map].
  - symmetry; apply sumn_zero; reflexivity.
  - rewrite ssum_cons, IH, <- sumn_plus. apply sumn_ext; intros; rewrite ssum_cons; reflexivity.
Qed.

Lemma ssum_map_scale (a : R) (f : nat -> R) (g : list nat) :
  ssum (map (fun c => a * f c) g) = a * ssum (map f g).
Proof. induction g as [|c g IH]; unfold ssum in *; simpl; [ring | rewrite IH; ring]. Qed.

Lemma ssum_map_err (a b : nat -> R) (g : list nat) :
  Rabs (ssum (map b g) - ssum (map a g)) <= ssum (map (fun c => Rabs (a c - b c)) g).
Proof.
  induction g as [|c g IH]; unfold ssum in *; simpl.
  - rewrite Rminus_0_r, Rabs_R0; lra.
  - set (X := fold_right Rplus 0 (map b g)) in *. set (Y := fold_right Rplus 0 (map a g)) in *.
    replace (b c + X - (a c + Y)) with (- (a c - b c) + (X - Y)) by ring.
    pose proof (Rabs_triang (- (a c - b c)) (X - Y)). rewrite Rabs_Ropp in H. lra.
Qed.

(** The grouped-columns lower bound.  Rows [rows] of A (indices), one column
    group [nth i groups []] per row, the groups disjoint (their concatenation
    has no repeated column) and inside the row; on every chosen row the
    group's mass beats the other groups' (absolute) masses by more than ε.
    Then rank_ε(A) ≥ |R|. *)
Theorem grouped_lower_bound : forall (A : list (list R)) (eps : R) (rows : list nat) (groups : list (list nat)),
  length groups = length rows ->
  NoDup (concat groups) ->
  (forall i, (i < length rows)%nat ->
     (nth i rows O < length A)%nat /\
     forall c, In c (concat groups) -> (c < length (nth (nth i rows O) A []))%nat) ->
  (forall i, (i < length rows)%nat ->
     let mass g := ssum (map (fun c => nth c (nth (nth i rows O) A []) 0) g) in
     mass (nth i groups []) - sumn (length rows) (fun j => if (j =? i)%nat then 0 else Rabs (mass (nth j groups []))) > eps) ->
  approx_rank_ge A eps (length rows).
Proof.
  intros A eps rows groups Hlen Hnd Hrange Hmargin B Hshape Hdist k Hk [L [Rt HB]].
  set (n := length rows) in *.
  set (r := fun i => nth i rows O).
  set (G := fun j => nth j groups []).
  set (C := fun i j => ssum (map (fun c => nth c (nth (r i) B []) 0) (G j))).
  assert (HinG : forall j c, (j < n)%nat -> In c (G j) -> In c (concat groups)).
  { intros j c Hj Hc. apply in_concat. exists (G j); split; [apply nth_In; lia | exact Hc]. }
  assert (HlenB : length A = length B) by apply Hshape.
  apply (diagonally_dominant_full_rank n k C (fun i t => L (r i) t) (fun t j => ssum (map (Rt t) (G j))) Hk).
  - intros i Hi.
    destruct (Hrange i Hi) as [Hri Hcols]. fold (r i) in Hri, Hcols.
    set (a := fun c => nth c (nth (r i) A []) 0).
    set (b := fun c => nth c (nth (r i) B []) 0).
    set (e := fun c => Rabs (a c - b c)).
    set (E := fun j => ssum (map e (G j))).
    set (Ms := fun j => ssum (map a (G j))).
    assert (HCM : forall j, Rabs (C i j - Ms j) <= E j) by (intro j; apply ssum_map_err).
    assert (HE : sumn n E <= eps).
    { rewrite <- Hlen. unfold E, G. rewrite <- ssum_concat.
      eapply Rle_trans; [apply (ssum_nodup_le e (length (nth (r i) A [])) _ Hnd Hcols);
                         intro; apply Rabs_pos|].
      eapply Rle_trans; [|exact Hdist].
      eapply Rle_trans; [|apply (l1_le_maxrow A B (r i)); lia].
      rewrite l1_sumn by (rewrite (same_shape_row A B (r i) Hshape) by lia; reflexivity).
      right; reflexivity. }
    pose proof (Hmargin i Hi) as Hm. cbn beta zeta in Hm. fold (r i) in Hm.
    change (Ms i - sumn n (fun j => if (j =? i)%nat then 0 else Rabs (Ms j)) > eps) in Hm.
    rewrite (sumn_pick n i E Hi) in HE.
    assert (Hoff : sumn n (fun j => if (j =? i)%nat then 0 else Rabs (C i j))
                   <= sumn n (fun j => if (j =? i)%nat then 0 else Rabs (Ms j))
                      + sumn n (fun j => if (j =? i)%nat then 0 else E j)).
    { rewrite <- sumn_plus. apply sumn_le; intros j Hj. destruct (j =? i)%nat; [lra|].
      pose proof (HCM j). pose proof (Rabs_triang_inv (C i j) (Ms j)).
      pose proof (Rabs_triang (C i j - Ms j) (Ms j)). replace (C i j - Ms j + Ms j) with (C i j) in H1 by ring.
      lra. }
    assert (Hdiag : Ms i - E i <= Rabs (C i i)).
    { pose proof (HCM i) as H. rewrite Rabs_minus_sym in H.
      pose proof (Rle_abs (Ms i - C i i)). pose proof (Rle_abs (C i i)). lra. }
    lra.
  - intros i j Hi Hj.
    destruct (Hrange i Hi) as [Hri Hcols]. fold (r i) in Hri, Hcols.
    unfold C. rewrite (map_ext_in _ (fun c => sumn k (fun t => L (r i) t * Rt t c))).
    + rewrite ssum_map_sumn. apply sumn_ext; intros t Ht. apply ssum_map_scale.
    + intros c Hc. rewrite <- ssum_seq. apply HB; [lia|].
      rewrite (same_shape_row A B (r i) Hshape) by lia. apply Hcols, (HinG j c Hj Hc).
Qed.
