(** * Paper K, the witnesses: heads that solve, as theorems.

    Each theorem restates the [judgment] of one file of [formal/data/],
    written by the Coq exporter ([theorems/formal/evaluation.py]) from a
    certificate of the project's own checks ([formal/data/generate.py] names
    the claim and certificate of each; each file's first line too).  A data
    file holds the certificate's tables as Coq terms and proves its judgment
    by one soundness theorem of KEval and [vm_compute]:

    - [exhaustive_solvable] re-evaluates a table head (φ, ψ, readout U) on
      every sequence of exact length 3 over {0,1}^m;
    - [positional_psolvable] / [positional_csolvable] re-evaluate a
      position-dependent rank-one head on every sequence of exact length n /
      on every prefix of length k <= n. *)

From AttnProof Require Import KDefs.
From AttnProof.data Require
  k3_m1 k3_m2 k3_m3
  pos_m1_n3 pos_m2_n3 pos_m3_n3 pos_m1_n4 pos_m2_n4 pos_m3_n4
  causal_m1_n3 causal_m2_n3 causal_m3_n3
  tok_m1_n4 tok_m2_n4 tok_m3_n4
  rank2_m4 rank3_m5.

(** ** K3: rank one solves exact length 3 for m <= 3
    (claim [kernel_rank.three_token_lower_bound], its [exhaustive] certificates). *)

Theorem k3_witness_m1 : solvable 1 1 3.
Proof. exact k3_m1.judgment. Qed.

Theorem k3_witness_m2 : solvable 1 2 3.
Proof. exact k3_m2.judgment. Qed.

Theorem k3_witness_m3 : solvable 1 3 3.
Proof. exact k3_m3.judgment. Qed.

(** ** Rank one, tokenwise, solves exact length 4 for m <= 3 too
    (claim [kernel_rank.position_and_causal], its [exhaustive] certificates of
    the reduced LP at n = 4). *)

Theorem len4_witness_m1 : solvable 1 1 4.
Proof. exact tok_m1_n4.judgment. Qed.

Theorem len4_witness_m2 : solvable 1 2 4.
Proof. exact tok_m2_n4.judgment. Qed.

Theorem len4_witness_m3 : solvable 1 3 4.
Proof. exact tok_m3_n4.judgment. Qed.

(** ** K5: with position-dependent maps, rank one solves exact lengths 3 and 4
    for m <= 3, and every prefix of length <= 3
    (claim [kernel_rank.position_and_causal], its [rank-one-positional-witness]
    certificates at the default point). *)

Theorem pos_witness_m1_n3 : psolvable 1 1 3.
Proof. exact pos_m1_n3.judgment. Qed.

Theorem pos_witness_m2_n3 : psolvable 1 2 3.
Proof. exact pos_m2_n3.judgment. Qed.

Theorem pos_witness_m3_n3 : psolvable 1 3 3.
Proof. exact pos_m3_n3.judgment. Qed.

Theorem pos_witness_m1_n4 : psolvable 1 1 4.
Proof. exact pos_m1_n4.judgment. Qed.

Theorem pos_witness_m2_n4 : psolvable 1 2 4.
Proof. exact pos_m2_n4.judgment. Qed.

Theorem pos_witness_m3_n4 : psolvable 1 3 4.
Proof. exact pos_m3_n4.judgment. Qed.

Theorem causal_witness_m1_n3 : csolvable 1 1 3.
Proof. exact causal_m1_n3.judgment. Qed.

Theorem causal_witness_m2_n3 : csolvable 1 2 3.
Proof. exact causal_m2_n3.judgment. Qed.

Theorem causal_witness_m3_n3 : csolvable 1 3 3.
Proof. exact causal_m3_n3.judgment. Qed.

(** ** The feature-rank table: rank 2 at m = 4 and rank 3 at m = 5 solve exact length 3
    (claim [kernel_rank.feature_rank_table]: the searched heads "m4_r2", "m5_r3"
    of [theorems/kernel_rank/feature_rank_witnesses.json], φ, ψ and readout U
    stored there, as its [exhaustive] certificates carry them). *)

Theorem rank2_witness_m4 : solvable 2 4 3.
Proof. exact rank2_m4.judgment. Qed.

Theorem rank3_witness_m5 : solvable 3 5 3.
Proof. exact rank3_m5.judgment. Qed.
