"""Every figure is checked for what it claims: axes, ranges, categorical tokens, reference lines drawn as lines."""

import re

import matplotlib

from theorems.core import Plot, get
from theorems.report import plots


def figure(plot: Plot):
    with matplotlib.rc_context(plots.RC):
        return plots.figure_of(plot)


def test_bit_strings_are_categorical_tokens_never_the_numbers_0_1_10_11():
    record = {"facts": {"values": {"00": "sqrt(2)", "01": "sqrt(5)", "10": "sqrt(3)", "11": "sqrt(7)"}}}
    (plot,) = plots.tables(record, "default")  # the generic figure of exact_real_decoding's values
    assert plot.series[0][1] == ("00", "01", "10", "11") and "category" in plot.xlabel
    axes = figure(plot).axes[0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["00", "01", "10", "11"]
    assert list(axes.get_xticks()) == [0, 1, 2, 3]  # evenly spaced: 10 is not ten
    (points,) = axes.collections
    assert [x for x, _ in points.get_offsets()] == [0, 1, 2, 3]
    # integers as keys stay numbers
    (numeric,) = plots.tables({"facts": {"r": {"1": 1, "2": 4, "10": 100}}}, "default")
    assert numeric.series[0][1] == (1, 2, 10)


def test_a_threshold_is_drawn_as_a_line_across_the_axes_and_m_ticks_are_integers():
    plot = Plot(name="w", title="worst error by m", xlabel="m", ylabel="worst error", kind="scatter",
                series=(("witness", (1, 2, 3, 4), (0.25, 0.3, 0.3, 0.4)), ("1/2", (1, 2, 3, 4), (0.5,) * 4)))
    axes = figure(plot).axes[0]
    (line,) = axes.lines  # the threshold: one line, not four dots
    assert line.get_label() == "1/2" and list(line.get_ydata()) == [0.5, 0.5] and list(line.get_xdata()) == [0, 1]
    assert line.get_linestyle() == "--"
    (dots,) = axes.collections
    assert len(dots.get_offsets()) == 4  # the data stay points
    assert all(float(t).is_integer() for t in axes.get_xticks())  # no m = 1.5
    # a constant run of data is data, not a reference line
    flat = Plot(name="f", title="t", xlabel="m", ylabel="e", kind="scatter", series=(("witness", (1, 2, 3), (0.3,) * 3),))
    assert len(figure(flat).axes[0].lines) == 0 and len(figure(flat).axes[0].collections) == 1


def test_the_softmax_figure_says_in_its_title_the_range_its_legend_draws():
    record = {"parameters": {"m": 200, "base": 4}, "facts": {}}
    plot = next(p for p in get("softmax_three_tokens").plots(record) if p.name == "error-against-temperature")
    drawn = re.search(r"m <= (\d+)", plot.series[0][0]).group(1)
    assert f"m' <= {drawn}" in plot.title and "m = 200" in plot.title
    axes = figure(plot).axes[0]
    assert any(line.get_label().startswith("1/2") and list(line.get_ydata()) == [0.5, 0.5] for line in axes.lines)



def test_the_communication_bound_is_drawn_only_where_it_applies():
    from math import comb

    counts = {"4": {str(n): v for n, v in zip(range(2, 9), (16, 71, 135, 160, 166, 167, 167))},
              "5": {str(n): v for n, v in zip(range(2, 7), (32, 317, 1407, 3427, 5573))}}
    (plot,) = get("communication_bound").plots({"parameters": {}, "facts": {"N": counts}})
    bounds = [(label, xs) for label, xs, _ in plot.series if label.startswith("(n - 1) log2")]
    assert bounds  # drawn, and only for n - 1 <= C(m, m/2)/m, where the fooling family gives it
    for label, xs in bounds:
        m = int(re.search(r"log2 (\d+)", label).group(1))
        assert xs and all((n - 1) * m <= comb(m, m // 2) for n in xs)
    counted = {label: xs for label, xs, _ in plot.series if label.startswith("log2 N(n)")}
    assert counted["log2 N(n), m = 4"] == tuple(range(2, 9))  # the counts themselves: every n
