(** * [r*(5) = 3]: rank three solves exact length three over {0,1}^5, rank two does not.

    The upper bound is the stored rank-3 head of the r*(m) table, checked
    exhaustively ([KWitness.rank3_witness_m5]); the lower bound is
    [KRankTwo.rank_le_two_fails] at m = 5 (docs/kernel_rank.rank_two.md). *)

From Coq Require Import Arith Lia.
From AttnProof Require Import KDefs KTable KRankTwo KWitness.

Theorem r_star_5 : min_feature_rank 5 3 3.
Proof.
  split; [exact rank3_witness_m5|].
  intros r Hr; apply rank_le_two_fails; lia.
Qed.
