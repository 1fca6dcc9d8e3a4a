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
