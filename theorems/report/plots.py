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

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(6.4, 4.0))
        axes = figure.add_subplot()
        for label, xs, ys in plot.series:
            xs, ys = [float(x) for x in xs], [float(y) for y in ys]
            if plot.kind == "scatter":
                axes.scatter(xs, ys, label=label, s=14)
            elif plot.kind == "step":
                axes.step(xs, ys, where="post", label=label)
            else:
                axes.plot(xs, ys, label=label, marker="o" if len(xs) == 1 or 3 <= len(xs) <= 30 else None, markersize=3)
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
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue().decode("utf-8")
    # matplotlib names its version in a comment: not content, and it would make reports differ by install
    text = re.sub(r"<!-- Created with matplotlib.*?-->\n?", "", text)
    return text.encode("utf-8")


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
    """Generic figures: every fact that is a table of numbers indexed by integers (at least 3 rows)."""
    found, facts = [], record.get("facts")
    for name, value in sorted(facts.items() if isinstance(facts, dict) else []):
        if not isinstance(value, dict) or len(value) < 3:
            continue
        if not all(re.fullmatch(r"-?\d+", str(k)) for k in value):
            continue
        pairs = sorted((int(k), number(v)) for k, v in value.items())
        if any(y is None for _, y in pairs):
            continue
        found.append(Plot(
            name=f"fact-{name}",
            title=f"{name} ({parameters_text})",
            xlabel="index (the fact's key)",
            ylabel=name,
            series=(("", tuple(x for x, _ in pairs), tuple(y for _, y in pairs)),),
            note=f"the fact {name} of this outcome, drawn as recorded (exact values shown as floats)",
        ))
    return found
