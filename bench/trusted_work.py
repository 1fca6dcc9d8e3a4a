"""CPU seconds per estimated work unit of every trusted certificate kind.

Usage: ``python bench/trusted_work.py DIR [DIR ...] [--scale]`` where each DIR holds
``*.cert.json`` files (e.g. the ``--out`` folder of a default ``attnproof check``).
For every kind it checks each certificate once in this process (``time.process_time``),
sums the estimate ``work(data)`` the core refuses on, and prints

    kind, certificates, units, seconds, us/unit, the implied worst case at MAX_WORK

(worst case = MAX_WORK x the largest us/unit of one certificate of the kind, over
certificates of at least ``MIN_SECONDS`` so timer noise does not decide; a kind with
none that long shows its mean, marked ``*``: the fixed cost of one check dominates it).  With
``--scale`` it also checks grown variants (:func:`grown`): rows repeated, matrices
tiled, points repeated with their column groups, rationals with many digits, kept only when the grown certificate is still
accepted, so its cost is the cost of a real check.  ``--sample K`` takes every K-th certificate of each
folder (a full S7 point has 4608).

``--discharge`` measures the discharge instead: for every ``outcome.json`` under DIR, its certificates
checked once (not timed), then the outcome judged (``verdicts.verdict``, no limit) and timed against the
estimate ``limits.discharge_work`` the checker refuses on; it prints the comparisons made against those
estimated (every judgment of an obligation's name: the worst order), and us per unit of both.
"""

from __future__ import annotations

import copy
import gc
import json
import pathlib
import sys
import time
from fractions import Fraction

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from solvers.trusted import core, families, limits, verdicts  # noqa: E402,F401  (families registers the kinds)

MIN_SECONDS = 0.002


def measure(cert: dict, repeat_below: float = 0.05):
    """(estimate, CPU seconds of one check, accepted?) — a fast check is repeated to beat timer noise."""
    _fields, work, _function = core.KINDS[cert["kind"]]
    estimate = work(cert["data"])
    runs, spent = 0, 0.0
    ok = True
    while True:
        start = time.process_time()
        try:
            core.check(cert, max_work=10**18)
        except (core.CertificateError, core.Refused):
            ok = False
        spent += time.process_time() - start
        runs += 1
        if spent >= repeat_below or runs >= 50 or not ok:
            break
    return estimate, spent / runs, ok


# ---------------------------------------------------------------- grown variants


def _scaled_rows(rows, k: int):
    return [[v * k if isinstance(v, int) and not isinstance(v, bool) else
             (str(Fraction(v) * k) if isinstance(v, str) else v) for v in row] for row in rows]


def _repeated(cert: dict, keys, label: str, factors=(4, 16)):
    """The certificate with each of the lists ``keys`` (those present) repeated k times, per k."""
    for k in factors:
        c = copy.deepcopy(cert)
        for key in keys:
            if isinstance(cert["data"].get(key), list):
                c["data"][key] = cert["data"][key] * k
        yield f"{label} x{k}", c


def grown(cert: dict):
    """Bigger certificates of the same kind, still valid where the kind's meaning allows:
    yields (label, certificate)."""
    name, data = cert["kind"], cert["data"]
    if name in ("rank-one-infeasible", "rank-one-reduced-infeasible"):
        yield from _repeated(cert, ("rows", "nonnegative"), "rows")
    if name == "readout-infeasible":
        yield from _repeated(cert, ("sequences", "multipliers"), "sequences")
    if name == "rank-upper":  # tile A = F G vertically: [A; A] = [F; F] G
        yield from _repeated(cert, ("matrix", "left"), "rows")
        big = 10**60 + 7
        c = copy.deepcopy(cert)  # (F s) (G / s) = A with a 60-digit s
        c["data"]["left"] = _scaled_rows(data["left"], big)
        c["data"]["right"] = [[str(Fraction(v) / big) for v in row] for row in data["right"]]
        yield "60-digit factors", c
    if name == "rank-lower":
        c = copy.deepcopy(cert)  # scaling a row by a positive integer keeps the minor nonsingular
        c["data"]["matrix"] = _scaled_rows(data["matrix"], 10**80 + 3)
        yield "80-digit entries", c
    if name == "row-shift":
        yield from _repeated(cert, ("logits", "shifted"), "rows")
    if name in ("approx-rank-lower-inverse", "approx-rank-lower-points"):
        n = len(data["points"])
        for k in (4, 16):  # every point k times, each group with its copies: the grouped matrix C (and every margin) is the same
            c = copy.deepcopy(cert)
            c["data"]["points"] = data["points"] * k
            c["data"]["multiplicities"] = data["multiplicities"] * k
            c["data"]["groups"] = [[j + t * n for t in range(k) for j in g] for g in data["groups"]]
            yield f"points x{k}", c
        big = 10**60 + 7
        c = copy.deepcopy(cert)  # (s X)(s X)^T beta / s^2 = beta X X^T with a 60-digit s: the same logits
        c["data"]["points"] = _scaled_rows(data["points"], big)
        c["data"]["beta"] = str(Fraction(data["beta"]) / big**2)
        yield "60-digit points", c
    if name in ("approx-rank-upper", "approx-rank-lower", "visible-dimension", "residual-bound"):
        key = "logits"
        if isinstance(data.get(key), list):
            for k in (4,):
                c = copy.deepcopy(cert)
                c["data"][key] = data[key] * k
                for other in ("left", "approximation"):
                    if isinstance(data.get(other), list) and len(data[other]) == len(data[key]):
                        c["data"][other] = data[other] * k
                yield f"rows x{k}", c


def discharge(outcome: pathlib.Path) -> None:
    """One outcome's discharge: CPU seconds of ``verdicts.verdict`` against ``limits.discharge_work``."""
    import os
    folder = os.path.realpath(outcome.parent)
    results = {}
    for path in sorted(outcome.parent.glob("*.cert.json")):
        results[os.path.join(folder, path.name)] = core.certificate(str(path), max_work=10**18)[1]
    record = json.loads(outcome.read_text())
    judgments, compared = {}, 0
    for name in dict.fromkeys(os.path.basename(n) for n in record["certificates"]):
        _state, _envelope, judgment = results[os.path.join(folder, name)]
        judgments.setdefault(judgment["judgment"], []).append((name, judgment))
    wanted = [(side, o, o["judgment"]["judgment"]) for side in ("verify", "refute") for o in record["obligations"][side]]
    for _side, o, n in wanted:  # the comparisons the scan makes: up to the first judgment that discharges
        for _file, j in judgments.get(n, ()):
            compared += 1
            if core.discharges(j, o["judgment"]):
                break
    worst = sum(len(judgments.get(n, ())) for _, _, n in wanted)
    units = limits.discharge_work(wanted, judgments, core.RULES)
    start = time.process_time()
    out = verdicts.verdict(str(outcome), record, results, max_work=10**18)
    seconds = time.process_time() - start
    print(f"{outcome.parent.name}: {len(wanted)} obligations, ok={out['ok']}; {compared} comparisons made of {worst} "
          f"estimated; {units:.3g} units, {seconds:.2f} s CPU: {seconds / units * 1e6:.3f} us/unit, "
          f"{seconds / (units * compared / max(worst, 1)) * 1e6:.3f} us per unit of the comparisons made")


def main(argv: list[str]) -> None:
    scale = "--scale" in argv
    every = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else 1
    dirs = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--sample")]
    if "--discharge" in argv:
        for d in dirs:
            for outcome in sorted(pathlib.Path(d).rglob("outcome.json")):
                discharge(outcome)
        return
    certs = []
    for d in dirs:
        for path in sorted(pathlib.Path(d).rglob("*.cert.json"))[::every]:
            try:
                certs.append(json.loads(path.read_text()))
            except (OSError, ValueError):
                continue
    gc.freeze()  # as the checker does (runner.main): the certificates held here are not walked by every collection
    rows: dict = {}
    for cert in certs:
        if cert.get("kind") not in core.KINDS:
            continue
        variants = [("", cert)] + (list(grown(cert)) if scale else [])
        for label, c in variants:
            estimate, seconds, ok = measure(c)
            if label and not ok:
                continue  # a grown variant the kind rejects costs less than a check; not a measurement
            key = c["kind"]
            r = rows.setdefault(key, {"n": 0, "units": 0, "seconds": 0.0, "worst": 0.0, "grown": 0})
            r["n"] += 1
            r["grown"] += bool(label)
            r["units"] += estimate
            r["seconds"] += seconds
            if seconds >= MIN_SECONDS and estimate > 0:
                r["worst"] = max(r["worst"], seconds / estimate * 1e6)
    print(f"{'kind':34} {'certs':>6} {'units':>12} {'seconds':>9} {'us/unit':>9} {'worst':>9} {'at MAX_WORK':>12}")
    for key in sorted(rows, key=lambda k: -max(rows[k]["worst"], rows[k]["seconds"] / max(rows[k]["units"], 1) * 1e6)):
        r = rows[key]
        mean = r["seconds"] / max(r["units"], 1) * 1e6
        # no certificate of MIN_SECONDS: the mean, dominated by the fixed cost of one check, marked *
        worst, mark = (r["worst"], " ") if r["worst"] else (mean, "*")
        at_max = core.MAX_WORK * worst / 1e6
        certs_txt = f"{r['n']}" + (f"({r['grown']}g)" if r["grown"] else "")
        print(f"{key:34} {certs_txt:>6} {r['units']:>12.4g} {r['seconds']:>9.4f} {mean:>9.3f} {worst:>8.3f}{mark} {at_max:>10.0f} s")
    missing = sorted(set(core.KINDS) - set(rows))
    if missing:
        print("kinds with no certificate here:", ", ".join(missing))


if __name__ == "__main__":
    main(sys.argv[1:])
