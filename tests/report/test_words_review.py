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
    assert "<code>certified_bounds</code>" in out and "<div class=\"key\">sandwiches (per" in out
    assert "⌈" in out and "⌉" in out and "β" in out and "τ" in out and "ρ" in out
    assert "<mo>osc</mo>" in out or "<mi>osc</mi>" in out
    assert "<mo>∂</mo>" not in out and "key\"><code>rho</code>" not in out


def test_a_subscript_given_its_value_reads_at_not_as_a_call():
    """r_tau (tau = 1) is r_τ at τ = 1, never r_τ(τ = 1); a bracketed remark after a space is not an argument."""
    for text in ("r_tau (tau = 1)", "mean r_tau (tau = 1) per head"):
        assert "r_τ at τ = 1" in tex.plain(text)
        out = tex.words(text)
        assert " at " in _outside_math(out) and "(" not in "".join(_math(out))
    out = tex.words("L0H9 on sentence 0 (n = 13, c = 1): r_tau = 9")
    assert "sentence 0 " in _outside_math(out) and all(not m.startswith("<mrow><mn>0</mn>") for m in _math(out))
    assert "<mo>rank</mo><mo stretchy=\"false\">(</mo><mi>L</mi><mi>P</mi>" in tex.words("r = rank(LP) = 12")


def test_a_python_power_is_an_exponent_and_a_product_is_not_a_star():
    out = tex.words("3*(15744*rho**5+46720*rho**4+1)")
    assert "<msup><mi>ρ</mi><mrow><mn>5</mn></mrow></msup>" in out and "<mo>*</mo>" not in out
    assert tex.plain("3*(15744*rho**5+1)") == "3·(15744·ρ⁵+1)"
    assert "<msup><mi>r</mi><mrow><mo>*</mo></mrow></msup>" in tex.words("r*(m) >= 3")  # r* stays a star
    assert tex.plain("beta* = ln 4") == "β* = ln 4"


def test_the_checkers_codes_read_as_words_and_long_fractions_get_a_decimal():
    from theorems.report import model

    said = model.checker_words("lengths [3] at m=4: 4096 sequences (none), worst error 20590670707055/41402883164663")
    assert "(none)" not in said and "4096 sequences (each evaluated, no symmetry used)" in said
    assert "20590670707055/41402883164663 ≈ 0.49732" in tex.plain(said)
    assert "≈ 0.49732" in _outside_math(tex.words(said))
    assert tex.plain("error 1/2 and 79/170") == "error 1/2 and 79/170"  # short fractions are read as they are
    first = model.checker_words("refuted; first {'weight': 2, 'inner': [0], 'order': [0]})")
    assert "{'" not in first and "weight = 2, inner = [0], order = [0]" in first


def test_markdown_keys_and_prose_carry_greek_letters_not_their_names():
    from theorems.report import values

    text = values.to_markdown({"r_tau=1 vs lower": {"rho": 1}, "beta": 3, "certified_bounds (per beta: lower..upper)": [1],
                               "heads": [{"r_tau (tau = 1)": 6}], "words": "rank_eps <= 3 at eps = 1/10"})
    assert not re.search(r"\b(beta|tau|rho|eps)\b", text), text
    assert "- β: 3" in text and "`certified_bounds` (per β" in text and "r_τ at τ = 1: 6" in text
    assert "rank_ε ≤ 3 at ε = 1/10" in text


def test_a_rounded_matrix_wears_a_tilde_and_a_size_across_a_line_break_is_a_times_sign():
    """S7's reading: ``L = c (Q/sqrt d)~ K~^T (n x n, ...)`` — the tildes are accents, n x n a size; its prose
    "6 layers x\\n12" (a line break beside the x) reads 6 layers × 12."""
    from theorems.report import reading

    out = reading.to_html("The heads (6 layers x\n12, head dimension d = 32).\n\n"
                          "    L = c (Q/sqrt d)~ K~^T   (n x n, rational, rank <= d)\n")
    assert "6 layers × 12" in out and "<mi>x</mi>" not in out
    assert out.count("<mover>") == 2 and "<mo>×</mo>" in out
    assert tex.ascii_tex("a ~ b") == "a \\sim b"  # a tilde between two terms stays the relation


def test_an_inner_product_never_swallows_the_words_up_to_a_later_bracket():
    """row_lemma's obligation: "<= w - 2: every kernel row K[q,.] >" once read as one inner product ⟨…⟩, words
    and all, and overflowed its cell; "<=" never opens an inner product, and K[q,.] is one formula."""
    text = ("for every m, query q with |q| = w <= 10 and token z with <z,q> = s <= w - 2: every kernel row "
            "K[q,.] >= 0 with a readout row of error < 1/2 on (q,q,q), (z,q,q), (z,z,q) has K[q,z] > K[q,q]")
    spans = [piece for is_math, piece in tex._spans(text) if is_math]
    assert "<z,q> = s <= w - 2" in spans and "K[q,.] >= 0" in spans
    assert all("kernel" not in piece and "every" not in piece for piece in spans)
    assert "every kernel row" in _outside_math(tex.words(text))
    assert "⟨z,q⟩ = s ≤ w - 2" in tex.plain(text)


def test_a_table_of_records_scrolls_rather_than_break_its_numbers():
    """S7's heads table: in a narrow column, 13 broke into "1 3" and "layer" into "lay er"; numbers are unbreakable
    now and a table of records scrolls in its own box."""
    out = values.to_html([{"head": "L0H9", "n": 13, "r": 12, "max weight (mean over rows)": 0.314}])
    assert out.startswith('<div class="table-scroll"><table class="facts list">')
    assert '<span class="num">13</span>' in out and '<span class="num">0.314</span>' in out


def test_named_functions_stand_apart_and_tex_dashes_are_en_dashes():
    """Ω(n log m) and ln 4 read with their spaces (latex2mathml's plain <mi> ran them together: "nlogm", "ln4");
    the abstracts' "query--key" and "head--temperature" are en dashes, never two hyphens."""
    thin = '<mspace width="0.1667em"></mspace>'
    assert f"<mi>n</mi>{thin}<mi>log</mi>{thin}<mi>m</mi>" in tex.words("$\\Omega(n\\log m)$")
    assert f"<mi>ln</mi>{thin}<mn>4</mn>" in tex.words("beta = ln 4")
    assert "query–key" in tex.words("the visible query--key interaction") and "--" not in tex.plain("head--temperature")
    assert "<code>" not in tex.words("x") and "--param" in tex.words("use --param m=4")  # an option keeps its dashes


def test_a_primed_variable_is_mathematics():
    """K1's obligation "over {0,1}^m' for every m' <= 400" lost its exponent (the primed m was taken for a word)."""
    out = tex.words("every sequence over {0,1}^m' for every m' <= 400")
    assert "m'" not in _outside_math(out) and "<msup><mo>}</mo><mrow></mrow></msup>" not in out
    assert len(_math(out)) == 2 and "<mo>′</mo></mrow></math>" not in out  # the prime inside the exponent


def test_a_fraction_after_an_underscore_is_the_whole_subscript():
    """rank_1/10(A) read as rank₁ over 10; the subscript is 1/10."""
    out = tex.words("head 1: rank_1/10(A) >= 2 > rank(L P) = 1")
    assert '<msub><mo>rank</mo><mrow><mn>1</mn><mo lspace="0" rspace="0">/</mo><mn>10</mn></mrow></msub>' in out


def test_ranges_and_letter_minus_number_read_right_and_long_keys_keep_to_their_column():
    """spherical_law: local slopes over β 16-64 read "16 − 64" (a subtraction) and "law exponent (d-1)/2" left
    "d-1" as a word; a long key took two thirds of its table's width from the values."""
    assert values.key_html("16-64") == "16–64"
    out = tex.words("law exponent (d-1)/2")
    assert "d-1" not in _outside_math(out) and "<mi>d</mi><mo>−</mo><mn>1</mn>" in out
    assert "rank-one" in _outside_math(tex.words("a rank-one head"))
    assert '<th><div class="key">' in values.to_html({"fitted_slopes_unchecked (display only: least squares)": 1})


def test_the_markdown_copy_reads_greek_letters_in_its_prose_and_keeps_its_markup():
    from theorems.report import markdown

    out = markdown._docstring("* the **visible dimension** at eps = 1/10, ``beta = ln 4`` kept as code;\n"
                              "* $\\Theta(m)$ as TeX, 3*(rho**5) a power")
    assert "* the **visible dimension** at ε = 1/10, `beta = ln 4` kept as code;" in out
    assert "$\\Theta(m)$" in out and "ρ⁵" in out and "**" in out
