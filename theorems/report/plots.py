"""Figures: :class:`theorems.core.Plot` data drawn with matplotlib (Agg, imported only when drawing).

Plots show, never decide: the numbers are floats made from exact values for
display.  The SVG is byte-for-byte reproducible: no date or software in the
metadata, a fixed ``svg.hashsalt`` for element ids, text drawn as paths (no
font needed by the reader's browser).
"""

from __future__ import annotations

import functools
import io
import re

from theorems.core import Plot
from theorems.report import mathml

RC = {
    "svg.hashsalt": "attnproof-report",
    "svg.fonttype": "path",
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
}


_SUBSCRIPT = re.compile(r"(?<![\w$\\])([A-Za-zα-ωΑ-Ω]{1,4})_([A-Za-z0-9α-ωΑ-Ω]{1,3})(?![\w])")


def subscripts(text: str) -> str:
    """A figure's text with each short subscripted name (``r_τ``, ``rank_ε``, ``σ_i``) in matplotlib's mathtext,
    so the subscript is drawn lowered; a longer name with underscores (a fact's key) is left as it is."""
    def one(m) -> str:
        base, sub = m.group(1), m.group(2)
        base = base if len(base) == 1 else "\\mathrm{" + base + "}"
        return f"${base}_{{{sub}}}$"

    return _SUBSCRIPT.sub(one, str(text).replace("$", ""))


def draw(plot: Plot) -> bytes:
    """The figure as SVG bytes (remembered within a process: the same plot data gives the same bytes)."""
    try:
        return _drawn(plot)
    except TypeError:  # plot data that cannot be hashed: draw it afresh
        return _draw(plot)


@functools.lru_cache(maxsize=128)
def _drawn(plot: Plot) -> bytes:
    return _draw(plot)


def _draw(plot: Plot) -> bytes:
    import matplotlib

    with matplotlib.rc_context(RC):
        figure = figure_of(plot)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue().decode("utf-8")
    # matplotlib names its version in a comment: not content, and it would make reports differ by install
    text = re.sub(r"<!-- Created with matplotlib.*?-->\n?", "", text)
    return text.encode("utf-8")


def figure_of(plot: Plot):
    """The matplotlib Figure of a plot (call inside ``rc_context(RC)`` to draw it as the report does).

    What a figure claims is drawn so that it reads right: data as points (joined by a line when the x values
    are ordered numbers), reference lines (a constant threshold, a slope or law drawn for comparison) dashed
    and without markers, behind the data; the legend below the axes, never over the data; tokens and other
    text on the x axis as evenly spaced categories; a ``kind="interval"`` plot draws its first two series as
    one interval per category (certified lower to upper); title and labels in the report's words
    (:func:`theorems.report.tex.plain`: Greek names as letters, ``<=`` as ≤), a long title wrapped, never clipped.
    """
    import textwrap

    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    from theorems.report.tex import plain as words

    def plain(text) -> str:  # the report's words, and a subscript drawn as one (r_τ, rank_ε), never an underscore
        return subscripts(words(text))

    tokens = categories(plot)
    data = [series for series in plot.series if reference(series) is None and not is_guide(series)]
    guides = [series for series in plot.series if reference(series) is None and is_guide(series)]
    labelled = [label for label, _, _ in plot.series if label]
    figure = Figure(figsize=(6.4, 4.0 + (0.25 * ((len(labelled) + 1) // 2) if labelled else 0)))
    axes = figure.add_subplot()
    markers = "osD^vP*X"
    interval = plot.kind == "interval" and len(data) >= 2
    for i, (label, xs, ys) in enumerate(data):
        # tokens (bit strings) are categories, in the order met: never read as the numbers 0, 1, 10, 11
        xs = [tokens.index(str(x)) for x in xs] if tokens else [float(x) for x in xs]
        ys = [float(y) for y in ys]
        if interval and i == 0:
            continue  # drawn with the upper bounds below
        if interval and i == 1:
            lows = [float(y) for y in data[0][2]]
            axes.vlines(xs, lows, ys, color="#0969da", linewidth=2.2, label=f"{plain(data[0][0])} to {plain(label)}", zorder=2)
            axes.scatter(xs, lows, marker="_", s=160, color="#0969da", zorder=3)
            axes.scatter(xs, ys, marker="_", s=160, color="#0969da", zorder=3)
            continue
        if plot.kind in ("scatter", "interval") or tokens:
            axes.scatter(xs, ys, label=plain(label), s=22, marker=markers[i % len(markers)], zorder=3)
        elif plot.kind == "step":
            axes.step(xs, ys, where="post", label=plain(label), zorder=3)
        else:
            axes.plot(xs, ys, label=plain(label), marker=markers[i % len(markers)] if len(xs) <= 30 else None,
                      markersize=4, zorder=3)
    for label, xs, ys in guides:  # a slope or law drawn for comparison: dashed, no markers, behind the data
        axes.plot([float(x) for x in xs], [float(y) for y in ys], label=plain(label), linestyle="--", linewidth=1.1,
                  color="#8c959f", marker=None, zorder=1)
    for series in plot.series:  # a constant series is a reference line: drawn across the axes, as a line
        found = reference(series)
        if found is not None:
            axis, value = found
            draw_line = axes.axhline if axis == "y" else axes.axvline
            draw_line(value, label=plain(series[0]), linestyle="--", linewidth=1.2, zorder=1,
                      color="#6e7781" if axis == "y" else "#a40e26")
    if tokens:
        axes.set_xticks(range(len(tokens)), tokens)
        axes.set_xlim(-0.5, len(tokens) - 0.5)
        if len(tokens) > 8 or max(len(t) for t in tokens) > 6:
            axes.tick_params(axis="x", labelrotation=45)
    elif data and all(float(x).is_integer() for _, xs, _ in data for x in xs):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # m, n, lengths: integer ticks only
    for log, axis, index in ((plot.logx, axes.xaxis, 1), (plot.logy, axes.yaxis, 2)):
        if not log:
            continue
        values = [float(v) for series in data for v in series[index]]
        (axes.set_xscale if axis is axes.xaxis else axes.set_yscale)("log")
        axis.set_minor_formatter(NullFormatter())  # minor labels at 2, 3, ... 9 would overlap the major ones
        shown = sorted({v for v in values if v > 0})
        if axis is axes.xaxis and 1 < len(shown) <= 8:  # few sizes: a tick at each, labelled by its value
            axis.set_major_locator(FixedLocator(shown))
        else:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=8))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes.set_title("\n".join(textwrap.wrap(plain(plot.title), 70)), fontsize=10)
    axes.set_xlabel(plain(plot.xlabel))
    axes.set_ylabel("\n".join(textwrap.wrap(plain(plot.ylabel), 40)))
    if not plot.logy and data and all(float(y) >= 0 for _, _, ys in data for y in ys):
        axes.set_ylim(bottom=0)  # counts, ranks and errors from 0: a threshold is seen at its true height
        lines = [found[1] for found in map(reference, plot.series) if found is not None and found[0] == "y"]
        if lines and max(lines) >= axes.get_ylim()[1] * 0.97:  # a threshold at the top: room above it
            axes.set_ylim(top=max(lines) * 1.1)
    if labelled:  # below the axes: the legend never covers the data
        axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    figure.tight_layout()
    return figure


def is_guide(series) -> bool:
    """A series drawn for comparison, not measured: a slope, a law or a reference curve (by its label)."""
    return bool(re.search(r"\breference\b|\bslope\b|\blaw\b|\bguide\b|∝", str(series[0]), re.I))


def categories(plot: Plot) -> list[str]:
    """The x values as category labels when they are tokens (bit strings, or any text), in the order met; else []."""
    xs = [x for series in plot.series if reference(series) is None for x in series[1]]
    if not xs or not all(isinstance(x, str) for x in xs):
        return []
    return list(dict.fromkeys(xs))


def reference(series) -> tuple[str, float] | None:
    """("y", c) for a series at the constant height c (a threshold such as the tolerance 1/2), ("x", c) for one
    at the constant abscissa c (a critical value such as beta*); else None.  Only a two-point segment or a
    series whose label is its value counts: a constant run of data points stays data."""
    label, xs, ys = series
    if len(xs) < 2 or len(ys) != len(xs) or any(isinstance(x, str) for x in xs):
        return None  # categories (heads, tokens) carry data, never a threshold
    # a two-point segment, or a series named by its value ("1/2", "0.5 (the tolerance)"); a constant run of
    # data (the same worst error at every m) stays data
    if len(xs) != 2 and not re.match(r"\s*-?\d+(?:\.\d+)?(?:/\d+)?(?:\s|$)", str(label)):
        return None
    if all(isinstance(y, (int, float)) for y in ys) and len({float(y) for y in ys}) == 1 and len(set(xs)) > 1:
        return ("y", float(ys[0]))
    if all(isinstance(x, (int, float)) for x in xs) and len({float(x) for x in xs}) == 1 and len(set(ys)) > 1:
        return ("x", float(xs[0]))
    return None


def number(value) -> float | None:
    """A float for display from an exact fact value (int, "p/q", a sympy constant such as "log(6)/2")."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return float(value)
    if isinstance(value, str):
        q = mathml.rational(value)
        if q is not None:
            return float(q)
        if re.fullmatch(r"-?\d+", value):
            return float(int(value))
        c = mathml.constant(value)
        if c is not None:
            return float(c.evalf(17))
    return None


def tables(record: dict, parameters_text: str) -> list[Plot]:
    """Generic figures: every fact that is a table of numbers (at least 3 rows) indexed by integers — drawn
    against them — or by tokens (equal-length bit strings) — drawn against the tokens as categories."""
    found, facts = [], record.get("facts")
    for name, value in sorted(facts.items() if isinstance(facts, dict) else []):
        if not isinstance(value, dict) or len(value) < 3:
            continue
        keys = [str(k) for k in value]
        if all(re.fullmatch(r"[01]+", k) for k in keys) and len({len(k) for k in keys}) == 1 and (
                len(keys[0]) > 1 or len(keys) <= 2):
            pairs = sorted((k, number(v)) for k, v in value.items())  # tokens, in lexicographic order
            xlabel = "token x (a bit string; a category, not a number)"
        elif all(re.fullmatch(r"-?\d+", k) for k in keys):
            pairs = sorted((int(k), number(v)) for k, v in value.items())
            by = re.search(r"_by_([a-z]+)", name)
            xlabel = by.group(1) if by else "index (the fact's key)"
        else:
            continue
        if any(y is None for _, y in pairs):
            continue
        series = [("", tuple(x for x, _ in pairs), tuple(y for _, y in pairs))]
        if "error" in name and not isinstance(pairs[0][0], str) and len({x for x, _ in pairs}) > 1:
            ends = (min(x for x, _ in pairs), max(x for x, _ in pairs))
            series.append(("1/2 (the tolerance)", ends, (0.5, 0.5)))  # an error is read against the tolerance
        found.append(Plot(
            name=f"fact-{name}",
            title=title(name),
            xlabel=xlabel,
            ylabel=quantity(name),
            series=tuple(series),
            kind="scatter" if isinstance(pairs[0][0], str) else "line",
            note=f"the fact {name} of this outcome, drawn as recorded (exact values shown as floats)",
        ))
    return found


def quantity(name: str) -> str:
    """What a fact's table measures, as an axis reads it: ``worst_error_by_length_unchecked`` -> "worst error"."""
    return human(re.sub(r"_by_[a-z]+|_unchecked$", "", str(name))) or human(name)


def title(name: str) -> str:
    """A figure's title from a fact's key, in words (the parameters stand on the page beside it):
    ``worst_error_by_length_unchecked`` -> "Worst error at each length (not checked)"."""
    by = re.search(r"_by_([a-z]+)", str(name))
    text = quantity(name) + (f" at each {by.group(1)}" if by else "")
    text = text[:1].upper() + text[1:]
    return text + (" (not checked)" if str(name).endswith("_unchecked") else "")


def human(name: str) -> str:
    """A fact's key as a label a reader reads: words for underscores (``worst_error`` -> "worst error")."""
    return re.sub(r"_+", " ", str(name)).strip()
