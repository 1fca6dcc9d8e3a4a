"""The dependency graph of claims and lemmas, laid out and drawn as SVG by the package itself.

Nodes are the registered claims and every id a claim ``uses`` (an id that is
not registered is drawn dashed).  An edge ``B -> A`` means A rests on B.
Layout: columns by depth (a node stands one column right of the deepest thing
it rests on; foundations on the left), rows ordered by the mean row of their
foundations (one barycentre pass, ties by id) so that edges mostly run
straight.  Everything is computed from sorted data, so the drawing is the
same for the same claims.
"""

from __future__ import annotations

import html

CHAR = 6.9  # width of one character of the 11.5 px monospace label
ROW_HEIGHT, NODE_HEIGHT, COLUMN_GAP, MARGIN = 58, 40, 70, 12
COLOURS = {
    "proved": "#1a7f37", "verified": "#2da44e", "searched": "#9a6700", "open": "#8250df",
    "refuted": "#a40e26", "mismatch": "#ff0000", "not-run": "#6e7781", "stated": "#6e7781", "missing": "#afb8c1",
}


def layout(nodes: dict[str, tuple[str, ...]]) -> dict[str, tuple[int, int]]:
    """``{id: (column, row)}`` for ``{id: ids it uses}``; a cycle is cut where it is met."""
    depth: dict[str, int] = {}

    def visit(node: str, path: tuple[str, ...]) -> int:
        if node in depth:
            return depth[node]
        below = [visit(u, path + (node,)) for u in sorted(nodes.get(node, ())) if u not in path + (node,)]
        depth[node] = 1 + max(below) if below else 0
        return depth[node]

    for node in sorted(nodes):
        visit(node, ())
    columns: dict[int, list[str]] = {}
    for node in sorted(depth):
        columns.setdefault(depth[node], []).append(node)
    row: dict[str, int] = {}
    for col in sorted(columns):
        def centre(n: str) -> tuple[float, str]:
            used = [row[u] for u in nodes.get(n, ()) if u in row]
            return (sum(used) / len(used) if used else float("inf"), n)

        for r, node in enumerate(sorted(columns[col], key=centre)):
            row[node] = r
    return {n: (depth[n], row[n]) for n in sorted(depth)}


def svg(nodes: dict[str, tuple[str, ...]], status: dict[str, tuple[str, str]], titles: dict[str, str],
        href: dict[str, str]) -> str:
    """The graph as an SVG document.

    ``status`` maps an id to ``(css key, short label)``, ``titles`` to a hover title,
    ``href`` to the link of its page (ids without one are not links).
    """
    every = dict(nodes)
    for uses in nodes.values():
        for u in uses:
            every.setdefault(u, ())
    place = layout(every)
    width_of = {n: max(len(n), len(status.get(n, ("", "not registered"))[1])) * CHAR + 20 for n in place}
    columns = sorted({c for c, _ in place.values()})
    col_width = {c: max(width_of[n] for n, (cc, _) in place.items() if cc == c) for c in columns}
    col_x, x = {}, MARGIN
    for c in columns:
        col_x[c] = x
        x += col_width[c] + COLUMN_GAP
    rows = max((r for _, r in place.values()), default=0) + 1
    width, height = int(x - COLUMN_GAP + MARGIN), int(rows * ROW_HEIGHT + 2 * MARGIN - (ROW_HEIGHT - NODE_HEIGHT))
    box = {n: (col_x[c], MARGIN + r * ROW_HEIGHT, width_of[n]) for n, (c, r) in place.items()}

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="dependency graph of the claims">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>',
    ]
    for node in sorted(every):
        for used in sorted(every[node]):
            if used not in box or used == node:
                continue
            x0, y0, w0 = box[used]
            x1, y1, _ = box[node]
            sx, sy, ex, ey = x0 + w0, y0 + NODE_HEIGHT / 2, x1, y1 + NODE_HEIGHT / 2
            if ex <= sx:  # a cut cycle or same column: loop around below
                path = f"M {sx:.1f} {sy:.1f} C {sx + 40:.1f} {sy + 60:.1f} {ex - 40:.1f} {ey + 60:.1f} {ex:.1f} {ey:.1f}"
            else:
                mid = (sx + ex) / 2
                path = f"M {sx:.1f} {sy:.1f} C {mid:.1f} {sy:.1f} {mid:.1f} {ey:.1f} {ex:.1f} {ey:.1f}"
            out.append(f'<path class="edge" d="{path}" fill="none" stroke="#57606a" stroke-width="1.3" '
                       f'marker-end="url(#arrow)"><title>{html.escape(node)} rests on {html.escape(used)}</title></path>')
    for node in sorted(box):
        x0, y0, w = box[node]
        key, label = status.get(node, ("missing", "not registered"))
        colour = COLOURS.get(key, "#6e7781")
        dashed = ' stroke-dasharray="4 3"' if key in ("missing", "stated", "not-run") else ""
        stroke = 3 if key == "mismatch" else 1.5
        fill = "#ffebe9" if key == "mismatch" else "#ffffff"
        title = html.escape(titles.get(node, node))
        shape = (
            f'<rect x="{x0:.1f}" y="{y0}" width="{w:.1f}" height="{NODE_HEIGHT}" rx="6" fill="{fill}" '
            f'stroke="{colour}" stroke-width="{stroke}"{dashed}/>'
            f'<text x="{x0 + 10:.1f}" y="{y0 + 16}" font-family="monospace" font-size="11.5" fill="#1f2328">{html.escape(node)}</text>'
            f'<text x="{x0 + 10:.1f}" y="{y0 + 32}" font-family="monospace" font-size="11.5" fill="{colour}">{html.escape(label)}</text>'
            f"<title>{title}</title>"
        )
        if node in href:
            out.append(f'<a class="node" href="{html.escape(href[node])}" data-claim="{html.escape(node)}">{shape}</a>')
        else:
            out.append(f'<g class="node">{shape}</g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def mermaid(nodes: dict[str, tuple[str, ...]]) -> str:
    """The same graph as Mermaid text, for the Markdown copy (``B --> A``: A rests on B)."""
    lines = ["graph LR"]
    names = sorted(set(nodes) | {u for us in nodes.values() for u in us})
    ident = {n: f"n{i}" for i, n in enumerate(names)}
    for n in names:
        lines.append(f'  {ident[n]}["{n}"]')
    for n in sorted(nodes):
        for u in sorted(nodes[n]):
            lines.append(f"  {ident[u]} --> {ident[n]}")
    return "\n".join(lines) + "\n"
