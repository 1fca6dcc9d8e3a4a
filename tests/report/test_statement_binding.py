"""Every variable of a claim's formula is bound (∀, ∃, an operator's index) or defined — none is left free.

"Free" is :func:`theorems.report.statement.analyse`'s own verdict: a plain name of the formula (or the
subscript of a function written ``y_h``) that no quantifier of the formula binds, no operator binds and
neither the words nor the project's notation define.  The rendered formula is then read back: every
name the analysis binds stands in a binder of the formula as shown, and nothing else does.
"""

import re

import sympy

from theorems.core import Statement, get, registry
from theorems.report import statement

# Statements that still leave a name free, each for its own claim module to fix (the report cannot bind
# them honestly: neither the formula nor its words say what they range over).  The test fails when one is
# fixed, so that the entry goes too.
STILL_FREE: dict = {}  # none left: visible_dimension_bounds_rank now reads r_eps(h) <= v(h) for every head h

_BINDER = re.compile(r"\\(forall|exists) (.*?):\\ ")


def binders(tex: str) -> list[tuple[str, str]]:
    """The (quantifier, variable) pairs of a formula as the report writes it in TeX."""
    return [(kind, name.strip()) for kind, names in _BINDER.findall(tex) for name in names.split(", ")]


def test_no_registered_claim_leaves_a_variable_free():
    free = {}
    for claim_id, claim in sorted(registry().items()):
        names = statement.free(claim.statement())
        if names:
            free[claim_id] = names
    assert free == STILL_FREE


def test_the_formula_shown_binds_exactly_what_the_analysis_binds():
    for claim_id, claim in sorted(registry().items()):
        said = claim.statement()
        found = statement.analyse(said)
        tex = statement.tex_formula(said)
        shown = binders(tex)
        expected = [(kind, sympy.latex(symbol)) for kind, symbol in found.outer] + [
            (kind, sympy.latex(symbol)) for binding in found.inner.values() for kind, symbol in binding]
        assert sorted(shown) == sorted(expected), claim_id
        names = {n for e in [*found.hypotheses, found.conclusion] for n in statement._names(e)}
        accounted = set(found.bound) | set(found.defined) | set(found.operators) | set(found.free)
        assert names <= accounted, (claim_id, names - accounted)
        assert not set(found.bound) & set(found.defined), claim_id
        mathml = statement.mathml_formula(said)
        assert mathml.count("<mo>∀</mo>") + mathml.count("<mo>∃</mo>") == len(
            [1 for kind, run in statement._runs(found.outer)] + [1 for b in found.inner.values() for _ in statement._runs(b)])


def test_three_tokens_reads_exists_a_head_for_every_sequence_iff_m_at_most_3():
    said = get("kernel_rank.three_token_lower_bound").statement()
    assert statement.tex_formula(said) == (
        r"\forall m:\ \left(m \geq 1\right) \implies \left(\left(\exists h:\ \operatorname{rank}{\left(h \right)} = 1 "
        r"\wedge \left(\forall X:\ \operatorname{len}{\left(X \right)} = 3 \implies \left|{T{\left(X \right)} - "
        r"y_{h}{\left(X \right)}}\right| < \frac{1}{2}\right)\right) \iff m \leq 3\right)")
    mathml = statement.mathml_formula(said)
    # ∃h comes first, ∀X inside its scope, and the equivalence is with m ≤ 3 outside both
    assert mathml.index("<mo>∃</mo><mrow><mi>h</mi></mrow>") < mathml.index("<mo>∀</mo><mrow><mi>X</mi></mrow>")
    assert mathml.index("<mo>∀</mo><mrow><mi>X</mi></mrow>") < mathml.index("<mo>⟺</mo>")
    assert re.search(r"<mo>⟺</mo>.*<mi>m</mi><mo>≤</mo><mn>3</mn>", mathml)
    found = statement.analyse(said)
    assert [(k, s.name) for k, s in found.outer] == [("forall", "m")]  # not every q, x: the head is h
    assert statement.free(said) == []


def test_rank_two_binds_m_where_it_ranges_and_no_n():
    said = get("kernel_rank.rank_two").statement()
    assert statement.tex_formula(said) == (
        r"r^{*}{\left(4 \right)} = 2 \wedge \left(\forall m:\ m \geq 5 \implies r^{*}{\left(m \right)} \geq 3\right)")
    assert statement.free(said) == [] and "n" not in statement._names(said.conclusion[0])


def test_the_spherical_law_binds_its_instances_and_names_its_certified_bounds():
    said = get("softmax_rank.spherical_law").statement()
    tex = statement.tex_formula(said)
    assert tex.startswith(r"\forall \beta, \beta_{max}, \beta_{min}, step, \varepsilon, d:\ \left(\beta \in ")
    assert binders(tex)[-2:] == [("forall", "X"), ("forall", "Y")]
    assert (r"\left(\forall X:\ \operatorname{rank}_\varepsilon{\left(\operatorname{rowsoftmax}{\left(\beta X X^{\top} "
            r"\right)} \right)} \in \left[\operatorname{lower}{\left(X \right)}, \operatorname{upper}{\left(X \right)}\right]\right)") in tex
    assert r"d = 2 \implies \left(\forall Y:\ " in tex
    assert statement.free(said) == [] and "lower" not in statement._names(said.conclusion[0])
    # long: set on several lines, one per hypothesis and per conjunct of the conclusion
    assert statement.mathml_formula(said).count("<mtr>") == 6


def test_the_rules_on_small_statements():
    m, n, x, y, a, b = sympy.symbols("m n x y a b")
    # a quantifier word ranges m, although "m = 4" follows: a case, not a definition
    said = Statement(((sympy.Ge(m, 4), "for every m >= 4 (the point m = 4 checks it)"),), (sympy.Ge(a, m), "a >= m"))
    assert [(k, s.name) for k, s in statement.analyse(said).outer] == [("forall", "m")]
    assert statement.free(said) == ["a"]  # a: nothing binds or defines it
    # a list after one quantifier binds each name in it; a possessive stops it
    said = Statement(((sympy.Ge(m, n), "for every m >= n and tokens x, y"),), (sympy.Ge(x + y, a), "x + y >= a, each cell's a"))
    found = statement.analyse(said)
    assert {s.name for _, s in found.outer} == {"m", "n", "x", "y"} and found.free == ["a"]
    # "some" gives ∃ at the smallest subformula holding every mention; "every" inside it
    h, X = sympy.symbols("h X")
    said = Statement((), (sympy.Equivalent(sympy.Lt(sympy.Function("e_h")(X), 1), sympy.Le(b, 3)),
                          "some head h has e < 1 on every X iff b <= 3, b the bound"))
    found = statement.analyse(said)
    side = next(i for i, arg in enumerate(said.conclusion[0].args) if isinstance(arg, sympy.StrictLessThan))
    assert found.free == ["b"] and found.inner == {(side,): [("exists", sympy.Symbol("h")), ("forall", X)]}
    assert statement.tex_formula(said).startswith(r"\left(\exists h:\ \forall X:\ ")
    # defined by the words, or by the project's notation (q is the query of X)
    q, s = sympy.symbols("q s")
    said = Statement((), (sympy.Eq(sympy.Function("R")(q, s), sympy.Function("T")(X)), "R returns T(X) on every X; s = |q|"))
    found = statement.analyse(said)
    assert found.free == [] and set(found.defined) == {"q", "s"} and [(k, v.name) for _, b in found.inner.items() for k, v in b] == [("forall", "X")]


def test_the_visible_dimension_conjecture_binds_its_heads():
    """It read r_eps <= v with h in its words only (r_eps and v free); now the head is the formula's variable."""
    said = get("conjectures.visible_dimension_bounds_rank").statement()
    found = statement.analyse(said)
    assert statement.free(said) == []
    assert [(kind, str(symbol)) for binding in found.inner.values() for kind, symbol in binding] == [("forall", "h")]
    assert "\\forall h:" in statement.tex_formula(said)
