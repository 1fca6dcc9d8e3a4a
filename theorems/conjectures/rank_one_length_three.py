"""Worked example (a): "rank one solves exact length 3 for every m" — refuted at m = 4.

The tempting extrapolation of K1 (uniform attention, rank one, solves length 2 for every
m): perhaps one rank-one head (``kappa(q, x) = phi(q) psi(x)``, any readout table U)
also solves Min-IP at exact length 3 for every m.

Search: the exact LP engine (:func:`theorems.api.linear_sizes`) decides, for m = 1, 2, ...,
m_max, the linearised problem "some rank-one head solves every sequence of exact length 3
over {0,1}^m" (``theorems.kernel_rank._linearised``).  A feasible m gives an exact head,
certified on every sequence (``exhaustive``); the first infeasible m gives an exact Motzkin
certificate (``rank-one-infeasible``).  The sizes are walked upward, so the counterexample
is the smallest m, and the witnesses at every smaller m are certified too: m = 4 is the
smallest m at which the conjecture fails, and the certificate's few sequences (two tokens
of weight 2 with disjoint supports, each as the query with the contexts aa, ab, bb) are
what no rank-one head gets right.  This is K3 read as a conjecture and refuted.
"""

from __future__ import annotations

from functools import lru_cache

from theorems.api import HALF, Conjecture, Obligations, Parameter, Statement, digest, linear_sizes, obligation
from theorems.api import rank_one_problem, rank_one_refutation, rank_one_witness, sp

LENGTH = 3  # the exact sequence length the sentence is about


def problem(m: int):
    """The linearised problem the search decides at m: "some rank-one head (any readout table) has error < 1/2
    on every sequence of exact length 3 over {0,1}^m" (``theorems.kernel_rank._linearised``)."""
    return rank_one_problem(m, LENGTH)


@lru_cache(maxsize=8)
def problem_digest(m_max: int) -> str:
    """The digest of the linear systems of :func:`problem` at m = 1 .. m_max (every row's coefficients, sense
    and right-hand side, exactly): the witness class the sentence speaks of, as the search sees it."""
    systems = []
    for m in range(1, m_max + 1):
        system = problem(m).system
        systems.append({"nvars": system.nvars, "rows": [[sorted(row[0].items()), row[1], row[2]] for row in system.rows]})
    return digest(systems)


# What the sentence describes, named by the digest of the linear systems the search decides at the default
# m <= 4 (no head is fixed: the conjecture is about every rank-one head, and these systems are that class).
# The statement names this digest too, so editing what the search decides (the length, the rank, the tolerance
# of ``problem``) changes the statement's hash (outcomes made before are stale), and until the sentence is
# rewritten and SENTENCE_HEAD set to the digest the report then shows, the report marks the sentence STALE.
SENTENCE_HEAD = "sha256:0aadea660c1b7d7ecb2dda161b7cbd2bbf3c4901f0012dc18f0233543955ed3e"


class RankOneLengthThree(Conjecture):
    id = "conjectures.rank_one_length_three"
    paper = "2608.11427"
    source = "attnproof worked example"
    sentence = "(conjecture) one head of feature rank one solves Min-IP at exact length 3 for every m."
    sentence_head = SENTENCE_HEAD  # the problem this sentence was written for (see above)
    title = "Rank one solves exact length 3 for every m (refuted: m = 4)"
    expected = "refuted"
    uses = ("kernel_rank.rank_one_short", "kernel_rank.three_token_lower_bound")
    parameters = (Parameter("m_max", 4, 1, 5, "the search decides m = 1 .. m_max, upward"),)

    def statement(self) -> Statement:
        m, X = sp.Symbol("m", integer=True, positive=True), sp.Symbol("X")
        y, T = sp.Function("y"), sp.Function("T")
        return Statement(
            hypotheses=((sp.Contains(m, sp.Naturals, evaluate=False), "for every number of bits m >= 1"),),
            conclusion=(sp.Lt(sp.Abs(y(X) - T(X)), HALF),
                        "some rank-one head (psi >= 0, any readout table) has error < 1/2 on every X of exact length 3 "
                        f"(the linear systems {self.head_digest()} decide it at m <= {self.point()['m_max']})"),
        )

    def head_digest(self) -> str:
        """The digest of the linear systems the search decides at the default point: what the statement names."""
        return problem_digest(self.point()["m_max"])

    def obligations(self, point: dict) -> Obligations:
        """verify, per m = 1 .. m_max: some rank-one head solves every sequence of length 3 over {0,1}^m;
        refute, per m: no rank-one head solves exact length 3 at m (one discharged refutes "every m")."""
        ms = range(1, point["m_max"] + 1)
        verify = tuple(obligation(f"a rank-one head solves every sequence of length 3 over {{0,1}}^{m} with error < 1/2",
                                  "solves", model="kernel", head="any", rank=1, alphabet="all", m=[m, m], lengths=[3],
                                  target="min-ip", tolerance=HALF) for m in ms)
        refute = tuple(obligation(f"no rank-one head solves exact length 3 with error < 1/2 at m = {m}",
                                  "unsolvable", model="kernel", rank=1, m=[m, m], length=3, target="min-ip", tolerance=HALF)
                       for m in ms)
        return Obligations(verify=verify, refute=refute, reach=f"m <= {point['m_max']}, length 3")

    def cost(self, point: dict) -> float:
        # measured (bench/estimates.py, CPU): 0.07 s for m_max = 1, 0.11 for 3, 0.25 for 4 and 5 (the walk stops at
        # m = 4, infeasible by K3); each feasible m's LP and certified head grow like the 8^m sequences
        return 0.07 + 3.4e-5 * sum(8**m for m in range(2, min(point["m_max"], 4) + 1))

    def witness(self, point: dict):
        return None  # the heads are found by the search, one per feasible m

    def run(self, point: dict, ev) -> None:
        problems = {}

        def system_at(m):
            problems[m] = problem(m)
            return problems[m].system

        search = linear_sizes(system_at, range(1, point["m_max"] + 1), ev.budget.remaining(), ev.poll)
        ev.cover("search", {"engine": search.engine, **search.covered})
        for m, found in search.witnesses.items():
            ev.fact(f"m{m}_worst_error_unchecked", rank_one_witness(ev, problems[m], found, m, LENGTH))
        if search.stopped:
            ev.unknown(f"the LP gave no answer at m = {search.covered.get('undecided')}: {search.stopped}")
        if search.found is None:
            ev.note(f"a rank-one head solves exact length 3 for every m <= {point['m_max']} (certified heads); "
                    "no counterexample up to there")
            return
        m, multipliers = search.found
        counterexample = rank_one_refutation(ev, problems[m], multipliers, m)
        ev.fact("smallest_m_unchecked", m)
        ev.fail(f"no rank-one head solves exact length 3 at m = {m}, the smallest m (heads certified for m < {m}); "
                f"{len(counterexample['sequences'])} sequences over the tokens {', '.join(counterexample['tokens'])} suffice",
                counterexample)


CLAIM = RankOneLengthThree()
