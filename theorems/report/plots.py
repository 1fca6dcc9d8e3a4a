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
    """The matplotlib Figure of a plot (call inside ``rc_context(RC)`` to draw it as the report does)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.4, 4.0))
    axes = figure.add_subplot()
    tokens = categories(plot)
    data = [series for series in plot.series if reference(series) is None]
    for label, xs, ys in data:
        # tokens (bit strings) are categories, in the order met: never read as the numbers 0, 1, 10, 11
        xs = [tokens.index(str(x)) for x in xs] if tokens else [float(x) for x in xs]
        ys = [float(y) for y in ys]
        if plot.kind == "scatter" or tokens:
            axes.scatter(xs, ys, label=label, s=14)
        elif plot.kind == "step":
            axes.step(xs, ys, where="post", label=label)
        else:
            axes.plot(xs, ys, label=label, marker="o" if len(xs) == 1 or 3 <= len(xs) <= 30 else None, markersize=3)
    for series in plot.series:  # a constant series is a reference line: drawn across the axes, as a line
        found = reference(series)
        if found is not None:
            axis, value = found
            draw_line = axes.axhline if axis == "y" else axes.axvline
            draw_line(value, label=series[0], linestyle="--", linewidth=1.2, color="#6e7781" if axis == "y" else "#a40e26")
    if tokens:
        axes.set_xticks(range(len(tokens)), tokens)
        axes.set_xlim(-0.5, len(tokens) - 0.5)
    elif data and all(float(x).is_integer() for _, xs, _ in data for x in xs):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # m, n, lengths: integer ticks only
    if plot.logx:
        axes.set_xscale("log")
    if plot.logy:
        axes.set_yscale("log")
    axes.set_title(plot.title, fontsize=10)
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    if any(label for label, _, _ in plot.series):
        axes.legend(fontsize=8)
    figure.tight_layout()
    return figure


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
    if len(xs) < 2 or len(ys) != len(xs):
        return None
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
            xlabel = "index (the fact's key)"
        else:
            continue
        if any(y is None for _, y in pairs):
            continue
        found.append(Plot(
            name=f"fact-{name}",
            title=f"{name} ({parameters_text})",
            xlabel=xlabel,
            ylabel=name,
            series=(("", tuple(x for x, _ in pairs), tuple(y for _, y in pairs)),),
            kind="scatter" if isinstance(pairs[0][0], str) else "line",
            note=f"the fact {name} of this outcome, drawn as recorded (exact values shown as floats)",
        ))
    return found
