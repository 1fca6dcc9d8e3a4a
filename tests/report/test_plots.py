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


def _inside(inner, outer) -> bool:
    return inner.x0 >= outer.x0 - 1 and inner.x1 <= outer.x1 + 1 and inner.y0 >= outer.y0 - 1 and inner.y1 <= outer.y1 + 1


def test_a_slope_reference_is_dashed_without_markers_behind_the_data_and_the_legend_is_outside_the_axes():
    # the ball law's own figure, from the numbers a default check records (16, 64, 256 as beta)
    table = {b: {"disk": {"lower": lo}, "annulus": {"lower": an}, "unweighted": {"lower": un}, "dense": {"upper": up}}
             for b, lo, an, un, up in (("16", 13, 6, 3, 31), ("64", 55, 24, 4, 129), ("256", 210, 72, 9, None))}
    table["256"]["dense"] = {}
    plot = get("ball_law").plots({"parameters": {"d": 2, "epsilon": "1/10"}, "facts": {"certified_bounds": table}})
    assert len(plot) == 1
    fig = figure(plot[0])
    axes = fig.axes[0]
    guide = next(line for line in axes.lines if "reference" in line.get_label())
    assert guide.get_linestyle() == "--" and guide.get_marker() in ("None", None, "")
    data = [line for line in axes.lines if "reference" not in line.get_label()]
    assert data and all(line.get_marker() not in ("None", None, "") for line in data)  # data: points, joined
    assert guide.get_zorder() < min(line.get_zorder() for line in data)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    legend = axes.get_legend().get_window_extent(renderer)
    box = axes.get_window_extent(renderer)
    assert legend.y1 <= box.y0  # below the axes: it never covers the data
    assert _inside(legend, fig.bbox) and _inside(axes.title.get_window_extent(renderer), fig.bbox)  # nothing clipped
    labels = [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
    assert labels == sorted(set(labels), key=labels.index)  # ticks at the sizes, none repeated or overlapping
    extents = [t.get_window_extent(renderer) for t in axes.get_xticklabels() if t.get_text()]
    assert all(a.x1 <= b.x0 for a, b in zip(extents, extents[1:]))


def test_a_two_point_series_has_markers_and_greek_names_are_letters():
    plot = Plot(name="v", title="r = 1: certified rank_eps against 1 + S at beta = 4", xlabel="1 + S", ylabel="rank_eps",
                series=(("lattice instance: certified lower", (2, 1025), (11.0, 24.0)),), logx=True, logy=True)
    axes = figure(plot).axes[0]
    (line,) = axes.lines
    assert line.get_marker() not in ("None", None, "")  # two points are two points, not a line from nowhere
    assert "ε" in axes.get_title() and "β" in axes.get_title() and "eps" not in axes.get_title()
    assert axes.get_ylabel() == "$\\mathrm{rank}_{ε}$"  # the subscript drawn lowered (mathtext), not "rank_ε"
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert all("_" not in t.replace("_{", "") for t in legend + [axes.get_title()]), legend


def test_figure_text_draws_short_subscripts_and_leaves_keys_alone():
    from theorems.report.plots import subscripts

    assert subscripts("r_τ at τ = 1") == "$r_{τ}$ at τ = 1"
    assert subscripts("certified rank_ε: lower") == "certified $\\mathrm{rank}_{ε}$: lower"
    assert subscripts("worst_error_by_length") == "worst_error_by_length" and subscripts("a $5") == "a 5"


def test_an_interval_plot_draws_one_interval_per_category():
    plot = Plot(name="c", title="per head", xlabel="head", ylabel="dimension", kind="interval",
                series=(("certified rank_eps: from its lower bound", ("L0H9", "L2H3"), (2.0, 3.0)),
                        ("its upper bound", ("L0H9", "L2H3"), (6.0, 6.0)),
                        ("visible dimension r", ("L0H9", "L2H3"), (12.0, 12.0))))
    axes = figure(plot).axes[0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["L0H9", "L2H3"]
    bars = [c for c in axes.collections if c.__class__.__name__ == "LineCollection"]
    (segments,) = [b.get_segments() for b in bars]
    assert [[tuple(p) for p in s] for s in segments] == [[(0, 2), (0, 6)], [(1, 3), (1, 6)]]


def test_a_table_of_errors_is_read_against_one_half_from_zero_with_a_human_label():
    (plot,) = plots.tables({"facts": {"worst_error_by_length_unchecked": {"2": "2/5", "3": "2/5", "4": "3/7"}}},
                           "m = 16")
    assert plot.ylabel == "worst error" and plot.xlabel == "length"
    assert plot.title == "Worst error at each length (not checked)"  # no raw key, no parameter dump
    assert "unchecked" not in plot.title + plot.ylabel and "m = 16" not in plot.title
    axes = figure(plot).axes[0]
    (half,) = [line for line in axes.lines if line.get_label() == "1/2 (the tolerance)"]
    assert list(half.get_ydata()) == [0.5, 0.5] and half.get_linestyle() == "--"
    low, high = axes.get_ylim()
    assert low == 0 and high > 0.5
