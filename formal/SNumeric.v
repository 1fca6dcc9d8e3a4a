(** * Paper S, the numeric step of instance certificates: Coq's Interval library.

    Kept apart from [SInstances] so that only the certificates with
    exponentials to evaluate (rank_ε bounds, differing attentions) load the
    Interval library.  [sreduce] and [sinterval] decide; they prove nothing
    general (FORMAL.md: [interval] only for numeric instances). *)

From Coq Require Import Reals List QArith Qreals.
From Interval Require Import Tactic.
From AttnProof Require Import SDefs SInstances.
Import ListNotations.
Open Scope R_scope.

(** [sreduce] unfolds one row's numeric fact into a single expression in
    exponentials of rational literals (lists computed, multiplicities and
    rationals written as [IZR] quotients); [sinterval] closes it with Coq's
    Interval library, at 53 bits of precision and more if needed. *)
Ltac zlits :=
  repeat match goal with |- context [Z.of_nat ?n] =>
    let z := eval vm_compute in (Z.of_nat n) in change (Z.of_nat n) with z end.

Ltac sreduce :=
  unfold margin_expr, err_expr, gsum, weighted, ssum, QR;
  lazy beta iota delta [map combine fold_right fst snd nth];
  rewrite ?INR_IZR_INZ; zlits; unfold Q2R; cbn [Qnum Qden].

Ltac sinterval :=
  first [interval | interval with (i_prec 80) | interval with (i_prec 160) | interval with (i_prec 320)].

Ltac lower_row := sreduce; sinterval.
Ltac upper_row lo hi := exists lo, hi; split; [sreduce; sinterval | intros T HT; sreduce; sinterval].
