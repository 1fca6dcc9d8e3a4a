"""The public API takes the checker's tolerance: "rank one solves length 3 with error < 2/5" can be stated,
witnessed and checked, and the default (1/2) is the problem of before, row for row."""

from __future__ import annotations

from fractions import Fraction

import pytest

from solvers import trusted
from theorems.api import ScoreHead, check_score_head, rank_one_problem, rank_one_refutation, rank_one_witness
from theorems.conjectures.softmax_temperature_length import SoftmaxTemperatureLength
from theorems.core import Budget, Evidence
from theorems.kernel_rank import _linearised as lin


@pytest.fixture
def ev(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the random search's database goes under the project folder
    claim = SoftmaxTemperatureLength()
    return Evidence(claim, claim.point(), Budget(None))


@pytest.mark.parametrize("tolerance", [Fraction(1, 2), Fraction(1, 4), Fraction(2, 5)])
def test_each_sequence_gives_the_rows_T_minus_t_below_P_over_D_below_T_plus_t_times_the_denominator(tolerance):
    """For t = a/b and a sequence with target T and token x k_x times: b P - (b T - a) D > 0 and
    (b T + a) D - b P > 0, with P = sum_x k_x P[q,x] and D = sum_x k_x psi(x) -- at t = 1/2 the rows of before."""
    problem, (a, b) = rank_one_problem(2, 3, tolerance=tolerance), (tolerance.numerator, tolerance.denominator)
    checked = 0
    for row, label in zip(problem.system.rows, problem.labels):
        if label[0] != "seq":
            continue
        seq, sign = label[2], 1 if label[1] == "lo" else -1
        target, q = min(bin(x & seq[-1]).count("1") for x in seq), seq[-1]
        want: dict = {}
        for x in seq:
            for key, c in ((("P", 0, q, x), sign * b), (("psi", 0, x), -sign * (b * target - sign * a))):
                want[problem.index[key]] = want.get(problem.index[key], 0) + c
        assert row.coefs == {k: v for k, v in want.items() if v} and row.sense == ">" and row.rhs == 0
        checked += 1
    assert checked == 2 * 4 * 10  # both rows of each (query, context multiset of 2 of 4 tokens)
    assert (rank_one_problem(2, 3).tolerance, problem.tolerance) == (Fraction(1, 2), tolerance)


def test_rank_one_solves_length_3_at_m_2_with_error_below_two_fifths_and_the_checker_says_so(ev):
    problem = rank_one_problem(2, 3, tolerance=Fraction(2, 5))
    decision = problem.decide(60)
    assert isinstance(decision, lin.lp.Feasible)
    worst = rank_one_witness(ev, problem, decision.point, 2, 3)
    assert worst < Fraction(2, 5)
    (certificate,) = ev.certificates
    judgment = trusted.check(certificate).judgment
    assert judgment["judgment"] == "solves" and Fraction(judgment["tolerance"]) == Fraction(2, 5)
    assert judgment["rank"] == 1 and judgment["m"] == [2, 2]


def test_at_one_quarter_rank_one_fails_and_no_kind_refutes_it_so_the_api_refuses(ev):
    problem = rank_one_problem(2, 3, tolerance=Fraction(1, 4))
    decision = problem.decide(60)
    assert isinstance(decision, lin.lp.Infeasible)
    with pytest.raises(ValueError, match="refutes error < 1/2 only"):
        rank_one_refutation(ev, problem, decision.multipliers, 2)
    assert ev.certificates == []


@pytest.mark.parametrize("tolerance", [Fraction(0), Fraction(3, 5), Fraction(-1, 2)])
def test_a_tolerance_outside_zero_to_one_half_is_refused(tolerance, ev):
    with pytest.raises(ValueError, match=r"must lie in \(0, 1/2\]"):
        rank_one_problem(2, 3, tolerance=tolerance)
    head = ScoreHead(kappa=lambda w, s: Fraction(1, 4 ** s), value=lambda w, s: Fraction(s))
    with pytest.raises(ValueError, match=r"must lie in \(0, 1/2\]"):
        check_score_head(ev, head, 3, 3, examples=0, tolerance=tolerance)


def test_softmax_at_length_3_errs_by_two_fifths_so_it_fails_one_third_and_solves_nine_twentieths(ev):
    """Softmax at beta = ln 3, length 3: worst error (n - 1)/(2n - 1) = 2/5 at |q| = 1."""
    head = ScoreHead(kappa=lambda w, s: Fraction(1, 3 ** s), value=lambda w, s: Fraction(s))
    found = check_score_head(ev, head, 6, 3, examples=0, tolerance=Fraction(1, 3))
    assert found is not None and found["error"] >= Fraction(1, 3)
    failed = trusted.check(ev.certificates[-1])
    assert ev.certificates[-1]["kind"] == "score-counterexample" and failed.judgment["judgment"] == "fails"
    assert check_score_head(ev, head, 6, 3, examples=0, tolerance=Fraction(9, 20)) is None
    solved = trusted.check(ev.certificates[-1]).judgment
    assert solved["judgment"] == "solves" and Fraction(solved["tolerance"]) == Fraction(9, 20)
