import sympy as sp

from solvers import symbolic

d = sp.Symbol("d")


def test_true_inequality_on_a_ray():
    assert symbolic.positive_from(80 * d**2 - 112 * d + 20, d, 2)
    assert symbolic.nonnegative_from((d - 1) ** 2 * (d + 3), d, 1)


def test_false_inequality_is_never_proved():
    assert not symbolic.positive_from(d**2 - 5 * d + 4, d, 1)  # vanishes at d = 1 and 4
    assert not symbolic.nonnegative_from(d - 3, d, 0)
