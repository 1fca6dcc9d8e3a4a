from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from solvers import lp
from theorems import attention as att
from theorems.kernel_rank import _linearised as lin


@pytest.mark.parametrize("m", [1, 2, 3])
def test_rank_one_is_feasible_for_m_at_most_3_with_an_exact_witness(m):
    problem = lin.rank_one(m, 3)
    decision = problem.decide()
    assert isinstance(decision, lp.Feasible) and lp.holds(problem.system, decision.point)
    psi, U = lin.rank_one_witness(problem, decision.point, range(1 << m), 3)
    assert lin.worst_error(psi, U, range(1 << m), 3) < Fraction(1, 2)


def test_rank_one_is_infeasible_at_m4_and_the_certificate_is_accepted():
    problem = lin.rank_one(4, 3)
    decision = problem.decide()
    assert isinstance(decision, lp.Infeasible) and lp.refutes(problem.system, decision.multipliers)
    rows, nonneg, order = lin.certificate_rows(problem, decision.multipliers, 4)
    assert order == [] and len(rows) <= 8  # the checker's side: tests/solvers/trusted/test_linear.py


def test_a_perturbed_witness_errs():
    problem = lin.rank_one(3, 3)
    psi, U = lin.rank_one_witness(problem, problem.decide().point, range(8), 3)
    q = 0b111
    U[0, q, q] += 1  # (q, q, q) now has error >= 1/2
    assert lin.worst_error(psi, U, range(8), 3) >= Fraction(1, 2)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 6), st.booleans())
def test_reduced_problem_decides_like_the_threshold(m, positions):
    decision = lin.reduced_rank_one(m, 3, positions).decide()
    assert isinstance(decision, lp.Feasible if m <= 3 else lp.Infeasible)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_a_reduced_solution_expands_to_a_full_witness(m):
    problem = lin.reduced_rank_one(m, 3)
    psi, U = lin.expand_reduced(problem, problem.decide().point, m, 3)
    assert lin.worst_error(psi, U, range(1 << m), 3) < Fraction(1, 2)
    # the expanded witness is invariant: psi depends on the weight only
    assert len({psi[0, x] for x in range(1 << m) if att.weight(x) == 1}) == 1


@pytest.mark.parametrize("m,n", [(3, 3), (4, 3), (3, 4)])
def test_reduced_size_counts_the_rows(m, n):
    problem = lin.reduced_rank_one(m, n)
    seq_rows = sum(1 for label in problem.labels if label[0] == "seq")
    assert seq_rows == lin.reduced_size(m, n)


def test_the_reduced_m4_certificate_is_three_rows_valid_for_every_m():
    problem = lin.reduced_rank_one(4, 3)
    rows, nonneg, _ = lin.certificate_rows(problem, problem.decide().multipliers, 4, reduced=True)
    assert [(s, y) for s, y, _, _ in rows] == [("lo", 1), ("hi", 2), ("lo", 1)]
    assert max(w + v - s for _, _, w, context in rows for v, s in context) == 4  # realised from m = 4 on


def test_fixed_kernel_readout_solves_the_softmax_kernel_and_fails_a_flat_one():
    m = 3
    K = [[Fraction(1, 4 ** att.inner(q, x)) for x in range(8)] for q in range(8)]
    U, failed = lin.fixed_kernel_readout(K, m)
    assert failed is None and lin.kernel_worst_error(K, U, m) < Fraction(1, 2)
    flat = [[Fraction(1)] * 16 for _ in range(16)]  # uniform attention cannot solve m = 4
    U, failed = lin.fixed_kernel_readout(flat, 4)
    assert U is None and isinstance(failed[1], lp.Infeasible)


def test_class_kernel_counts_the_subsets_of_a_class_that_miss_the_token():
    m, w, degree = 5, 2, 2
    subsets = lin.complement_subsets(m, degree)
    for x in range(1 << m):
        tau = (att.weight(x), att.inner(x, (1 << w) - 1))
        for cls in lin.feature_classes(m, w, degree):
            members = [S for S in subsets if lin.feature_class(S, w) == cls]
            assert members and lin.class_kernel(m, w, cls, tau) == sum(not any(x >> i & 1 for i in S) for S in members)
    assert {lin.feature_class(S, w) for S in subsets} == set(lin.feature_classes(m, w, degree))


@pytest.mark.parametrize("m, family", [(4, "affine-complement"), (5, "affine-complement"), (4, "complement-2")])
def test_the_invariant_kernel_row_decides_as_the_full_row_and_its_solution_solves_it(m, family):
    subsets = lin.complement_subsets(m, lin.complement_degree(family))
    for w in range(m + 1):
        q = (1 << w) - 1
        small, full = lin.invariant_kernel_row(m, w, 3, family), lin.kernel_row(m, q, 3, family)
        a, b = small.decide(), full.decide()
        assert type(a) is type(b) and isinstance(a, (lp.Feasible, lp.Infeasible))
        if isinstance(a, lp.Feasible):  # c_S = c_(a,b), P[x] = P_(v,s) solves the full row exactly
            point = [Fraction(0)] * full.system.nvars
            for f, S in enumerate(subsets):
                point[full.index[("phi", f)]] = small.value(a.point, ("phi", lin.feature_class(S, w)))
            for x in range(1 << m):
                point[full.index[("P", x)]] = small.value(a.point, ("P", (att.weight(x), att.inner(x, q))))
            assert lp.holds(full.system, point)


def test_the_invariant_kernel_row_of_the_affine_family_fails_at_m6_as_the_full_one():
    assert isinstance(lin.invariant_kernel_row(6, 6, 3, "affine-complement").decide(), lp.Infeasible)
    with pytest.raises(ValueError):
        lin.invariant_kernel_row(4, 2, 3, "free")


def test_invariant_readout_solves_softmax_rows_and_refuses_a_row_that_is_not_invariant():
    m = 3
    K = [[Fraction(1, 4 ** att.inner(q, x)) for x in range(8)] for q in range(8)]
    U = [None] * 8
    for w in range(m + 1):
        q = (1 << w) - 1
        U[q], failed = lin.invariant_readout(K[q], m, w)
        assert failed is None and all(U[q][x] == U[q][y] for x in range(8) for y in range(8)
                                      if (att.weight(x), att.inner(x, q)) == (att.weight(y), att.inner(y, q)))
        assert lin.kernel_worst_error(K, U, m, queries=[q]) < Fraction(1, 2)
    flat = [Fraction(1)] * 16  # uniform attention cannot solve m = 4 at the query 1111
    assert lin.invariant_readout(flat, 4, 4)[0] is None
    with pytest.raises(ValueError):
        lin.invariant_readout([Fraction(x + 1) for x in range(8)], m, 1)
