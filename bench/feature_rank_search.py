"""Research script of ``kernel_rank.feature_rank_table``: searching rank-r heads at m and storing the best.

    nice -n 19 python bench/feature_rank_search.py M R [--seeds 0,1] [--steps 6000] [--denominator 10000] [--store]

For each seed: the descent of :func:`solvers.factor_search.fit` on every sequence of exact length 3 over
{0,1}^M (floats), then the exact step of :func:`theorems.kernel_rank.feature_rank_table.search_features`
(Phi, Psi, U on the grid 1/denominator, every sequence evaluated exactly; exact readout LPs if the rounded U errs).  With
``--store`` the first exact head found is written to ``feature_rank_witnesses.json`` as ``m{M}_r{R}`` (the
other entries kept): the claim re-checks it at every run, and its table states rank R at M only where
``SEARCHED`` says so.  CPU seconds and the load average are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import time

from theorems.kernel_rank import feature_rank_table as frt


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("m", type=int)
    parser.add_argument("r", type=int)
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--denominator", type=int, default=10**4)
    parser.add_argument("--store", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    start, load = time.process_time(), os.getloadavg()[0]
    found = frt.search_features(args.m, args.r, seeds=seeds, denominator=args.denominator, steps=args.steps,
                                say=lambda text: print(text, flush=True))
    cpu = time.process_time() - start
    if found is None:
        print(f"m={args.m} rank {args.r}: no exact head from seeds {seeds} ({cpu:.1f} s CPU, load {load:.1f})")
        return
    Phi, Psi, U, worst = found
    print(f"m={args.m} rank {args.r}: exact head, worst error {worst} = {float(worst):.5f} "
          f"({cpu:.1f} s CPU, load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    if args.store:
        entries = frt.load_witnesses()
        entries[f"m{args.m}_r{args.r}"] = {"phi": Phi, "psi": Psi, "readout": U}
        frt.save_witnesses(entries)
        print(f"stored as m{args.m}_r{args.r} in {frt._WITNESS_FILE}")


if __name__ == "__main__":
    main()
