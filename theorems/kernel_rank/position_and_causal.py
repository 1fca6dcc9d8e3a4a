"""K5 — positions and the causal query: the rank-one threshold stays at m = 4.

Model: one head of feature rank one whose maps may depend on the position j,
``kappa_j(q, x) = phi(q) psi_j(x)``, values ``v_j``, the query last and only the final
position scored ("final causal query": causal attention, the query at position n; in
one layer this is the same LP).  The stronger reading — every prefix scored against
its own minimum with the same ``psi_j`` and ``U_j`` — has more rows, so every
refutation below covers it; its feasible side (m <= 3, n = 3) is checked too.  The output is
``y(X) = sum_j psi_j(x_j) U_j[q, x_j] / sum_j psi_j(x_j)`` over sequences (not
multisets: positions break the symmetry of the context).

Checked:

* feasible for m <= 3 at exact lengths 3 and 4 — exact witnesses from the linearised LP
  with positions, re-evaluated on every sequence;
* infeasible at m = 4, n = 3 — the full LP's exact certificate;
* infeasible for every m >= 4 and every n >= 3 — the pen-and-paper certificate:
  ``a = 0101``, ``b = 1010``, positions 1 and 2 vary, every later position holds the
  query.  Numerators and denominators are sums of one term per position, so
  ``N(aa) + N(bb) = N(ab) + N(ba)`` (the same for D); the rows lo(aa), hi(ab), hi(ba),
  lo(bb) with weight 1 leave ``psi_1(b) + psi_2(b) - psi_1(a) - psi_2(a) > 0`` for query
  a (the later positions cancel: ``-3/2 + 1/2 + 1/2 + 1/2 = 0``), and the reverse for
  query b.  It needs ``|a - b|, |b - a| >= 2``, i.e. m >= 4; the restriction lemma lifts
  it to every m >= 4.  The cancellation is checked symbolically in n and the certificate
  exactly for n = 3..n_paper;
* the orbit-type reduced LP (valid for one head: convex and invariant, see
  ``_linearised``): feasible for m <= 3, infeasible for m = 4..m_reduced at n = 3, with
  and without positions, and at n = 4; its minimal certificate at n = 3 has 3 rows and
  holds for every m >= 4 at once.

What the verdict rests on (:meth:`PositionAndCausal.obligations`): positional witnesses
(m <= 3, n = 3..n_feasible) and every-prefix witnesses (m <= 3, n = 3); the paper
certificate at every n = 3..n_paper, valid for every m >= 4 (zero padding, in the
checker); the reduced refutations (n = 3 with and without positions, n = 4 without) for
every m >= 4, and the reduced witnesses for m <= 3.  "Every n >= 3" rests on the
symbolic (sympy) cancellation, so the reach is n <= n_paper, never "all".  That the
every-prefix reading is refuted too (its rows contain the final-position rows) is an
argument, not an obligation.
"""

from __future__ import annotations

import sys
from fractions import Fraction

from solvers.lazy import sympy as sp

from solvers import lp
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import _linearised as lin
from theorems.kernel_rank import POSITIONS

A, B = "0101", "1010"


def paper_certificate(n: int) -> list:
    """The 8 rows of the pen-and-paper certificate at exact length n (tokens as bit strings)."""
    rows = []
    for q in (A, B):
        for side, (x1, x2) in (("lo", (A, A)), ("hi", (A, B)), ("hi", (B, A)), ("lo", (B, B))):
            x1, x2 = (x1, x2) if q == A else ({A: B, B: A}[x1], {A: B, B: A}[x2])
            rows.append([side, 1, [x1, x2] + [q] * (n - 2)])
    return rows


def paper_residual():
    """The certificate's combination for query a with symbolic n: coefficients of the psi's."""
    n = sp.Symbol("n", integer=True, positive=True)
    half = sp.Rational(1, 2)
    # lo(aa): T = 2; hi(ab), hi(ba), lo(bb): T = 0.  Denominator coefficients:
    #   lo: -(T - 1/2) per position, hi: +(T + 1/2) per position.
    lo_aa, hi, lo_bb = -(2 - half), (0 + half), -(0 - half)
    coef = {
        "psi_1(a)": lo_aa + hi,          # positions 1: a in aa and ab
        "psi_2(a)": lo_aa + hi,          # position 2: a in aa and ba
        "psi_1(b)": hi + lo_bb,          # position 1: b in ba and bb
        "psi_2(b)": hi + lo_bb,
        "psi_j(a), j >= 3": (n - 2) * (lo_aa + 2 * hi + lo_bb),
    }
    return {k: sp.simplify(v) for k, v in coef.items()}


# (length n, positions, the parameter giving the top m) of the reduced LP sweeps
REDUCED_RUNS = ((3, False, "m_reduced"), (3, True, "m_reduced_positions"), (4, False, "m_reduced_4"),
                (4, True, "m_reduced_4_positions"))


class PositionAndCausal(Claim):
    id = "kernel_rank.position_and_causal"
    paper = "2608.11427"
    sentence = POSITIONS
    title = "Positions do not move the rank-one threshold (m = 4)"
    relation = "a finite step of an asymptotic"
    formal = ('K5_positions_fail', 'K5_positions_solve', 'K3_length_four')
    expected = "verified"
    established = "verified"
    uses = ("kernel_rank.three_token_lower_bound", "kernel_rank.restriction_lemma")
    parameters = (
        # m_positions_full and m_reduced*: settings.  Direct refutations at larger m, each certified, but their
        # judgments (no head at any m' >= m; the reduced ones from the least m realising their rows, 4) are
        # implied by the m = 4 ones the obligations state: no obligation can name them, so never "covered"
        Parameter("n_feasible", 4, 3, 4, "positional witnesses for m <= 3 at every exact length 3..n_feasible"),
        Parameter("m_positions_full", 4, 4, 5, "the full positional LP (every ordered sequence) at n = 3 is refuted for m = 4..this",
                  size=False),
        Parameter("n_paper", 10, 3, 200, "the pen-and-paper certificate is checked exactly for n = 3..n_paper"),
        Parameter("m_reduced", 12, 4, 64, "reduced LP (n = 3, no positions) refuted for m = 4..m_reduced", size=False),
        Parameter("m_reduced_positions", 6, 4, 64, "reduced LP (n = 3, with positions) refuted for m = 4..this", size=False),
        Parameter("m_reduced_4", 5, 4, 64, "reduced LP (n = 4, no positions) refuted for m = 4..this", size=False),
        Parameter("m_reduced_4_positions", 4, 4, 64, "reduced LP (n = 4, with positions) refuted for m = 4..this", size=False),
    )

    def statement(self) -> Statement:
        m, n = sp.symbols("m n", integer=True, positive=True)
        y, T, psi = sp.Function("y"), sp.Function("T"), sp.Function("psi")
        X, j, x = sp.symbols("X j x")
        return Statement(
            hypotheses=(
                (sp.Ge(n, 3), "for every m >= 1 and exact length n >= 3"),
                (sp.Eq(sp.Function("kappa")(j, x), psi(j, x)), "one rank-one head with position-dependent psi_j >= 0 and readout tables U_j; query last, only position n scored"),
            ),
            conclusion=(sp.Equivalent(sp.Lt(sp.Abs(y(X) - T(X)), sp.Rational(1, 2)), sp.Le(m, 3)),
                        "for m >= 4 no such head has error < 1/2 on every sequence of length n (every n >= 3); "
                        "for m <= 3 one has at n = 3 and n = 4 (the feasible side is stated for these lengths only)"),
        )

    def obligations(self, point: dict) -> Obligations:
        """Witnesses for m <= 3, refutations for every m >= 4, at the lengths the point names."""
        half = Fraction(1, 2)

        def solves(model, m, lengths, words):
            return obligation(words, "solves", model=model, head="any", rank=1, alphabet="all", m=[m, m],
                              lengths=lengths, target="min-ip", tolerance=half)

        def unsolvable(model, n, words):
            return obligation(words, "unsolvable", model=model, rank=1, m=[4, None], length=n, target="min-ip", tolerance=half)

        verify = [solves("kernel-positional", m, [n], f"a rank-one head with position-dependent maps solves every "
                         f"sequence of exact length {n} over {{0,1}}^{m} with error < 1/2")
                  for n in range(3, point["n_feasible"] + 1) for m in (1, 2, 3)]
        verify += [solves("kernel-causal", m, [1, 2, 3], f"one rank-one positional head solves every prefix of length "
                          f"<= 3 over {{0,1}}^{m} (the every-prefix reading)") for m in (1, 2, 3)]
        verify += [unsolvable("kernel-positional", n, f"no rank-one head with position-dependent maps solves exact "
                              f"length {n} at any m >= 4") for n in range(3, point["n_paper"] + 1)]
        verify += [solves("kernel", m, [n], f"(reduced LP) a rank-one head solves every sequence of length {n} over "
                          f"{{0,1}}^{m}") for n in (3, 4) for m in (1, 2, 3)]
        verify += [unsolvable("kernel", n, f"(reduced LP) no rank-one head solves exact length {n} at any m >= 4")
                   for n in (3, 4)]
        reach = (f"every m >= 4 at exact lengths 3..{point['n_paper']}; m <= 3 at lengths 3..{point['n_feasible']} "
                 "(positions), length 3 (every prefix)")
        return Obligations(verify=tuple(verify), reach=reach)

    def cost(self, point: dict) -> float:
        return (0.4 + 0.6 * (point["n_feasible"] >= 4) + 0.3 + 0.01 * point["n_paper"] + 15.0 * (point["m_positions_full"] >= 5)
                + sum(lin.reduced_cost(m, n, positions) for n, positions, key in REDUCED_RUNS
                      for m in range(1, point[key] + 1)))

    def witness(self, point: dict):
        """Exact positional witnesses ``(psi, U)`` for m = 1..3 and n = 3..n_feasible."""
        out = {}
        for n in range(3, point["n_feasible"] + 1):
            for m in range(1, 4):
                problem = lin.rank_one(m, n, positions=True)
                decision = problem.decide()
                out[m, n] = (lin.rank_one_witness(problem, decision.point, range(1 << m), n, positions=True)
                             if isinstance(decision, lp.Feasible) else None)
        return out

    def run(self, point: dict, ev) -> None:
        say = lambda text: print(f"[{self.id}] {text}", file=sys.stderr)
        # 1. Feasible with positions for m <= 3.
        for (m, n), found in self.witness(point).items():
            ev.poll()
            if found is None:
                ev.fail(f"no exact positional witness at m = {m}, n = {n}", {"m": m, "n": n})
                continue
            psi, U = found
            size = 1 << m
            worst = lin.worst_error(psi, U, range(size), n, positions=True, poll=ev.poll)
            ev.fact(f"positions_m{m}_n{n}_worst_error_unchecked", worst)
            ev.certify("rank-one-positional-witness", {
                "m": m, "psi": [[psi[j, x] for x in range(size)] for j in range(1, n + 1)],
                "readout": [[[U[j, q, x] for x in range(size)] for q in range(size)] for j in range(1, n + 1)],
                "tolerance": Fraction(1, 2), "prefixes": False,
            })
        ev.cover("positions_feasible", {"m": [1, 3], "n": [3, point["n_feasible"]]})

        # 1b. The stronger reading: every prefix scored against its own minimum, the same
        # psi_j and U_j.  Its rows contain the final-position rows, so the refutations
        # below hold for it too; the feasible side needs its own witnesses.
        for m in range(1, 4):
            ev.poll()
            problem = lin.rank_one(m, 3, positions=True, prefixes=True)
            decision = problem.decide(ev.budget.remaining())
            ev.poll()
            if not ev.settle(decision, lp.Feasible, f"no exact witness for the every-prefix reading at m = {m}", {"m": m, "n": 3}):
                continue
            size = 1 << m
            psi, U = lin.rank_one_witness(problem, decision.point, range(size), 3, positions=True)
            worst = max(lin.worst_error(psi, U, range(size), k, positions=True) for k in (1, 2, 3))
            ev.fact(f"prefixes_m{m}_n3_worst_error_unchecked", worst)
            ev.certify("rank-one-positional-witness", {
                "m": m, "psi": [[psi[j, x] for x in range(size)] for j in range(1, 4)],
                "readout": [[[U[j, q, x] for x in range(size)] for q in range(size)] for j in range(1, 4)],
                "tolerance": Fraction(1, 2), "prefixes": True,
            })
        ev.cover("every_prefix_feasible", {"m": [1, 3], "n": 3})

        # 2. The full positional LP at m = 4 (and 5), n = 3.
        for m in range(4, point["m_positions_full"] + 1):
            say(f"deciding the positional LP at m={m}, n=3")
            problem = lin.rank_one(m, 3, positions=True, poll=ev.poll)
            decision = problem.decide(ev.budget.remaining())
            ev.poll()
            if ev.settle(decision, lp.Infeasible, f"the positional LP at m = {m}, n = 3 was not refuted", {"m": m, "n": 3}):
                rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m)
                ev.fact(f"positions_m{m}_n3_lp_rows_unchecked", len(problem.system.rows))
                ev.fact(f"positions_m{m}_n3_certificate_rows_unchecked", len(rows) + len(nonneg))
                ev.certify("rank-one-infeasible", {"m": m, "positions": True, "rows": rows, "nonnegative": nonneg})

        # 3. The pen-and-paper certificate, symbolic in n and exact for n = 3..n_paper.
        residual = paper_residual()
        ev.fact("symbolic_paper_residual_query_a", {"words": "symbolic (sympy): the combination for query a, every n"}
                | {k: str(v) for k, v in residual.items()})
        if residual["psi_j(a), j >= 3"] != 0 or residual["psi_1(a)"] != -1 or residual["psi_1(b)"] != 1:
            ev.fail("the pen-and-paper combination does not reduce to psi(b) - psi(a) > 0", {"residual": str(residual)})
        ev.fact("paper_certificate_n3_unchecked", [f"{s} q={seq[-1]} ({','.join(seq)})" for s, _, seq in paper_certificate(3)])
        for n in range(3, point["n_paper"] + 1):
            ev.poll()
            ev.certify("rank-one-infeasible", {"m": 4, "positions": True, "rows": paper_certificate(n), "nonnegative": []})
        ev.cover("paper_certificate", {"n": [3, point["n_paper"]], "m": "every m >= 4"})

        # 4. The reduced LP.
        self._reduced(point, ev, say)
        ev.note(f"positions: feasible for m <= 3 (n = 3..{point['n_feasible']}), infeasible for every m >= 4 at "
                f"n = 3..{point['n_paper']} (pen-and-paper certificate, zero-padded; every n >= 3 symbolic (sympy)); "
                f"reduced LP refuted for m = 4..{point['m_reduced']} (n = 3)")

    def _reduced(self, point: dict, ev, say) -> None:
        """The reduced LP for m = 1..m_top, decided by row generation (``_linearised.decide_reduced``);
        each m starts from the rows of the previous m's certificate (they are rows at every
        larger m too), so a sweep mostly confirms a certificate it already holds."""
        for n, positions, key in REDUCED_RUNS:
            m_top = point[key]
            tag = f"reduced_n{n}" + ("_positions" if positions else "")
            feasible, refuted, hint = [], [], []
            for m in range(1, m_top + 1):
                ev.poll()
                if m >= 16:
                    say(f"{tag}: m={m} ({lin.reduced_size(m, n, positions)} rows, generated)")
                found = lin.decide_reduced(m, n, positions, ev.budget.remaining(), ev.poll, hint=hint)
                problem, decision = found.problem, found.decision
                ev.poll()
                if isinstance(decision, lp.Feasible) and m <= 3:
                    feasible.append(m)
                    if not positions:  # (the positional witnesses for m <= 3 are certified above)
                        psi, U = lin.expand_reduced(problem, decision.point, m, n)
                        size = 1 << m
                        ev.certify("exhaustive", {
                            "m": m, "lengths": [n], "phi": [[1]] * size, "psi": [[psi[0, x]] for x in range(size)],
                            "readout": [[U[0, q, x] for x in range(size)] for q in range(size)],
                            "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "coordinates",
                        })
                elif isinstance(decision, lp.Infeasible) and m >= 4:
                    refuted.append(m)
                    rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m, reduced=True)
                    hint = rows
                    if m == 4:
                        ev.fact(f"{tag}_certificate_m4_unchecked", [f"{s} {y} x |q|={w} context types (|x|,<q,x>) {ctx}" for s, y, w, ctx in rows])
                    ev.certify("rank-one-reduced-infeasible", {"m": m, "positions": positions, "rows": rows, "nonnegative": nonneg})
                else:
                    ev.fail(f"{tag}: unexpected {type(decision).__name__} at m = {m}", {"m": m, "n": n, "positions": positions})
            ev.fact(f"{tag}_rows_at_m{m_top}_unchecked", {"rows": found.rows, "generated": found.used, "rounds": found.rounds})
            ev.fact(f"{tag}_feasible_m", feasible)
            ev.fact(f"{tag}_refuted_m", [min(refuted), max(refuted)] if refuted else [])
            ev.cover(tag, {"m": [1, m_top]})


CLAIM = PositionAndCausal()
