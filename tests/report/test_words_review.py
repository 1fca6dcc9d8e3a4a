"""English words in prose stay words; raw TeX and spelled-out Greek never reach a table; plots have human labels."""

import re

from theorems.report import tex, values


def _math(html: str) -> list[str]:
    return re.findall(r"<math[^>]*>(.*?)</math>", html)


def test_an_article_after_a_number_is_a_word_not_a_variable():
    out = tex.words("sharp: at e^delta = 3 a two-point perturbation")
    assert "a two-point perturbation" in re.sub(r"<math.*?</math>", "", out)
    assert all("<mi>a</mi>" not in m for m in _math(out))
    assert "<mn>3</mn>" in out and "δ" in out
    assert "= 3 a two-point" in tex.plain("at e^delta = 3 a two-point")
    assert "<mi>a</mi>" in tex.words("if x = a and y")  # after an operator it is still a variable


def test_partial_is_a_word_unless_it_is_a_derivative():
    for text in ("partial: 4 of 4 obligation(s)", "unknown: open (partial)"):
        assert "∂" not in tex.words(text) and "∂" not in tex.plain(text)
        assert "partial" in tex.words(text)
    assert tex.words("partial f / partial x").count("∂") == 2


def test_x_between_sizes_is_a_times_sign():
    for text, bare in (("n x N", ("n", "N")), ("6 layers x 12", ())):
        out = tex.words(text)
        assert "×" in out and "<mi>x</mi>" not in out
        assert "×" in tex.plain(text)
    assert "<mi>x</mi>" in tex.words("for x in X")


_RAW = re.compile(r"\\[A-Za-z]|e\^\{|\bceil\b|\bbeta\b|\btau\b|\brho\b|\bosc_i\b")


def _outside_math(html: str) -> str:
    return re.sub(r"<math.*?</math>", "", html, flags=re.S)


def test_table_keys_and_values_have_no_raw_tex_or_spelled_out_greek():
    facts = {
        "certified_bounds (per beta: lattice instances; multiplicities m_j = ceil(64 e^{beta(1-|x|^2)/2}))": {
            "16": {"annulus": {"cap ceil(64 e^{beta/8})": 473}}},
        "sandwiches (per r, beta: lattice instance, S = 4 beta)": {"beta >= 64": 1},
        "r_tau=1 vs lower": {"rho": "0.816"},
        "rows": [{"r_tau (tau = 1)": 6.0, "residual of the r_tau-subspace at tau = 1": 0.2}],
        "bound": "every row within 2 tanh(osc_i/4) in l1",
    }
    out = values.to_html(facts)
    assert not _RAW.search(_outside_math(out)), _outside_math(out)
    assert "<code>symbolic_lambda</code>" in values.to_html({"symbolic_lambda": 1})
    assert "<code>certified_bounds</code>" in out and "<th>sandwiches (per" in out
    assert "⌈" in out and "⌉" in out and "β" in out and "τ" in out and "ρ" in out
    assert "<mo>osc</mo>" in out or "<mi>osc</mi>" in out
    assert "<mo>∂</mo>" not in out and "<th><code>rho</code>" not in out
