"""Worked example (d): does softmax at beta = ln n solve Min-IP at exact length n, for every n and m?

A reader of paper K's softmax construction (K2: ``beta = ln 4``, readout ``<q, h>``) asks
how the temperature must grow with the length.  At ``|q| = 1`` with one context token
orthogonal to q and the other n - 2 tokens and the query scoring 1, the error is
``(n-1) b^-1 / (1 + (n-1) b^-1)`` for ``beta = ln b``: it is ``>= 1/2`` exactly when
``b <= n - 1``.  So ``beta > ln(n-1)`` is necessary; the conjecture is that
``beta = ln n`` suffices — for every sequence of exact length n over ``{0,1}^m``, every m.

Search, per n = 2 .. n_max: hypothesis draws ``(|q|, context scores)`` (seeded; a failure
would be shrunk to a smallest one), then every ``(|q|, multiset of context scores)`` with
``|q| <= m`` is swept, which covers every sequence of length n for every m' <= m
(:func:`theorems.api.check_score_head`).  Each n without a counterexample gets a
``score-statistic`` certificate; a counterexample would be certified
(``score-counterexample``) and refute the conjecture.  What a run finds: no counterexample,
the worst error 2/5 at n = 2 (|q| = 2) and ``(n-1)/(2n-1)`` at ``|q| = 1`` for n = 3, 4, 5 —
below 1/2 and tending to it, so ``ln n`` is tight up to the factor ``n/(n-1)`` of its base.
z3 then searches every n at once at ``|q| = 1`` (``z3_weights``; up to 3 by ``--param``): the
error there is a polynomial inequality in n and the counts of each score, and z3 answers
"unsat" — recorded as a fact, z3's word, not a certificate (with base n - 1 the same
encoding is satisfiable, as the derivation above says).
The outcome is ``unknown`` (open): every n and every m is more than any search covers.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from theorems.api import (
    HALF, Conjecture, Obligations, Parameter, ScoreHead, Statement, check_score_head, digest, obligation, smt_search,
    sp,
)


def failure_at_weight(w: int, offset: int = 0) -> list:
    """z3 constraints: "for some length n >= 2, softmax at base n - offset errs by >= 1/2 at |q| = w".

    Unknowns: n and the counts ``c_s`` of context tokens scoring s = 0 .. w (they sum to
    n - 1; the query adds one at s = w).  The target t is the least score present; with
    weights ``b^-s`` times ``b^w`` (b = n - offset, exact integers) the error is
    ``sum_s k_s b^(w-s) (s - t) / sum_s k_s b^(w-s)``, every term >= 0.  Every n at once,
    in nonlinear integer arithmetic: z3's answer, not a certificate.
    """
    from theorems.api import z3

    n = z3.Int("n")
    base = n - offset
    c = [z3.Int(f"c{s}") for s in range(w + 1)]
    k = [c[s] + (1 if s == w else 0) for s in range(w + 1)]
    cases = []
    for t in range(w + 1):
        least = [k[t] > 0] + [k[s] == 0 for s in range(t)]
        excess = z3.Sum([k[s] * base ** (w - s) * (s - t) for s in range(w + 1)])
        total = z3.Sum([k[s] * base ** (w - s) for s in range(w + 1)])
        cases.append(z3.And(*least, 2 * excess >= total))
    return [n >= 2 + offset, *(x >= 0 for x in c), z3.Sum(c) == n - 1, z3.Or(*cases)]


def head(n: int) -> ScoreHead:
    """Softmax at ``beta = ln n``: weights ``n^-s`` for score ``s = <q, x>``, readout value s (K2's ``<q, h>``)."""
    return ScoreHead(kappa=lambda w, s: Fraction(1, n**s), value=lambda w, s: Fraction(s))


# The heads the sentence describes, named by the digest of their kappa and value tables (n = 2 .. 6, m <= 4).
# The statement names this digest too, so editing ``head`` changes the statement's hash (outcomes made before
# are stale), and until the sentence is rewritten and SENTENCE_HEAD set to the digest the report then shows,
# the report marks the sentence STALE: written for another head.
SENTENCE_HEAD = "sha256:2eb82bc8d004688f32c8865bbdeb6f493a00c13e2a4b1b5bc62ebc5cf6a37299"


class SoftmaxTemperatureLength(Conjecture):
    id = "conjectures.softmax_temperature_length"
    paper = "2608.11427"
    source = "attnproof worked example"
    sentence = "(conjecture) softmax at beta = ln n with readout <q, h> solves Min-IP at exact length n, for every n and m."
    sentence_head = SENTENCE_HEAD  # the heads this sentence was written for (see above)
    title = "Softmax at beta = ln n solves exact length n (open)"
    expected = "unknown"
    uses = ("kernel_rank.softmax_three_tokens",)
    parameters = (
        Parameter("n_max", 5, 2, 6, "lengths n = 2 .. n_max are searched"),
        Parameter("m", 16, 1, 200, "token bits: every m' <= m is covered"),
        Parameter("examples", 25, 0, 10000, "random draws per length before the sweep (0: none)", size=False),
        Parameter("seed", 0, 0, 2**32 - 1, "seed of the random search"),
        Parameter("z3_weights", 1, 0, 3, "z3 searches every n at |q| = 1 .. this (uncertified; 0 = none)", size=False),
    )

    def statement(self) -> Statement:
        n, m, X = sp.Symbol("n", integer=True, positive=True), sp.Symbol("m", integer=True, positive=True), sp.Symbol("X")
        y, T = sp.Function("y"), sp.Function("T")
        return Statement(
            hypotheses=((sp.Contains(n, sp.Naturals, evaluate=False), "for every length n >= 2, softmax at beta = ln n"),
                        (sp.Contains(m, sp.Naturals, evaluate=False), "for every number of bits m >= 1")),
            conclusion=(sp.Lt(sp.Abs(y(X) - T(X)), HALF), "error < 1/2 on every sequence X of exact length n over {0,1}^m, "
                        f"with y the output of the heads {self.head_digest()} (their kappa and value tables)"),
        )

    def head_digest(self) -> str:
        """The digest of the heads' kappa and value tables for n = 2 .. 6 at m <= 4: what the statement names."""
        return digest({str(n): dict(zip(("kappa", "value"), head(n).tables(4))) for n in range(2, 7)})

    def obligations(self, point: dict) -> Obligations:
        """Per n = 2 .. n_max, about the head at beta = ln n (its tables up to m, digested): verify: error < 1/2
        on every sequence of length n for every m' <= m; refute: error >= 1/2 on one, at some m' <= m."""
        m, verify, refute = point["m"], [], []
        for n in range(2, point["n_max"] + 1):
            kappa, value = head(n).tables(m)
            named = dict(model="score-statistic", head=digest({"kappa": kappa, "value": value}), target="min-ip", tolerance=HALF)
            verify.append(obligation(f"softmax at beta = ln {n} has error < 1/2 on every sequence of length {n}, every m' <= {m}",
                                     "solves", rank="any", alphabet="all", m=[1, m], lengths=[n], **named))
            refute.append(obligation(f"softmax at beta = ln {n} errs by >= 1/2 on a sequence of length {n} at some m' <= {m}",
                                     "fails", m=[1, m], length=n, **named))
        return Obligations(verify=tuple(verify), refute=tuple(refute), reach=f"n <= {point['n_max']}, m <= {m}")

    def cost(self, point: dict) -> float:
        # measured (bench/estimates.py, CPU): 0.66 s at the default point, of it hypothesis 0.1 s to import and
        # ~2.7 ms a draw; z3 per |q| weight 0.05, 0.25, 1.7 s; the gap-reduced sweep and its trusted re-check
        # ~5 us per statistic with minimum 0, C(m + n - 1, n - 1) of them at length n (m = 100: 26 s)
        z3 = (0.0, 0.05, 0.3, 2.0)[point["z3_weights"]]
        lengths = range(2, point["n_max"] + 1)
        draws = (0.1 + 2.7e-3 * point["examples"] * len(lengths)) if point["examples"] else 0.0
        return 0.2 + z3 + draws + sum(comb(point["m"] + n - 1, n - 1) * 5e-6 for n in lengths)

    def witness(self, point: dict):
        return {n: head(n) for n in range(2, point["n_max"] + 1)}

    def run(self, point: dict, ev) -> None:
        m, worst = point["m"], {}
        for n, softmax in self.witness(point).items():
            ev.poll()
            if check_score_head(ev, softmax, m, n, seed=point["seed"], examples=point["examples"],
                                key=f"{self.id} n={n} m={m}", label=f"_n{n}") is not None:
                return  # the smallest n with a counterexample refutes "every n"
            worst[n] = ev.facts.pop("worst_error_unchecked")
        ev.fact("worst_error_by_length_unchecked", worst)
        # every n at once, for small |q|: z3 on the closed form (its word; it discharges nothing)
        for w in range(1, point["z3_weights"] + 1):
            ev.poll()
            remaining = ev.budget.remaining()
            found = smt_search(failure_at_weight(w), 10.0 if remaining is None else max(0.1, min(10.0, remaining)))
            ev.cover(f"z3_q{w}", {"engine": found.engine, "every_n": True, **found.covered})
            if found.refuted:  # a length beyond n_max (the sweep covered the others): certify it there
                ev.unknown(f"z3 proposes a counterexample at n = {found.found['n']}, |q| = {w}: "
                           f"check it with --param n_max={found.found['n']}")
            elif found.stopped:
                ev.fact(f"z3_q{w}_unchecked", f"z3 gave no answer: {found.stopped}")
            else:
                ev.fact(f"z3_q{w}_unchecked", f"no length n >= 2 fails at |q| = {w} (z3 unsat; not a certificate)")
        ev.note(f"no counterexample for n <= {point['n_max']}, m <= {m}; worst errors "
                f"{', '.join(f'{e} (n = {n})' for n, e in worst.items())}; open beyond")


CLAIM = SoftmaxTemperatureLength()
