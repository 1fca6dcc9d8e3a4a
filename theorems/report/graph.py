"""The dependency graph of claims and lemmas: laid out by grandalf (Sugiyama layering), drawn as SVG.

Nodes are the registered claims and every id a claim ``uses`` (an id that is
not registered is drawn dashed).  An edge ``B -> A`` means A rests on B.

Layout.  Each connected component is laid out by grandalf's
:class:`~grandalf.layouts.SugiyamaLayout` (layers by depth, crossings reduced
by barycentre sweeps, coordinates by Brandes-Köpf), turned on its side so that
a claim stands right of what it rests on.  A long edge runs through dummy
vertices that grandalf places in the layers it crosses, so it never passes
through a box; its end points are clipped to the box borders.  Components are
stacked top to bottom, largest first; the claims that stand alone (no edge)
are packed in rows below them.  Every edge has its own ports (a height on
each box's side, at least :data:`PORT_GAP` from its neighbours) and runs
horizontally for :data:`STUB` px out of and into its boxes, so arrows that
end at one box stay apart and each can be followed by eye.  The SVG is drawn
at its natural size (the page puts it in a box that scrolls on a narrow
window).  Everything is computed from sorted data, so the same claims give
the same drawing, byte for byte.
"""

from __future__ import annotations

import html

CHAR = 6.9  # width of one character of the 11.5 px monospace label
LINE = 15  # height of one label line
PAD_X, PAD_Y = 10, 7
LAYER_GAP, NODE_GAP, COMPONENT_GAP, MARGIN = 72, 14, 26, 12
PORT_GAP = 14  # vertical distance between two edges' ends on one side of a box (an arrowhead is about 9 px)
PORT_MARGIN = 4  # ports keep this far from a box's corners
STUB = 14  # each edge leaves and enters a box horizontally for this long, so arrows at one box never converge
WIDTH = 1200  # the width isolated claims are packed into (the page is about as wide)
COLOURS = {
    "proved": "#1a7f37", "verified": "#2da44e", "searched": "#9a6700", "open": "#8250df", "budget": "#9a6700",
    "refuted": "#a40e26", "mismatch": "#ff0000", "stale": "#bc4c00", "not-run": "#6e7781", "stated": "#6e7781",
    "unknown": "#6e7781", "missing": "#afb8c1",
}


def label_lines(node: str, label: str) -> list[str]:
    """A node's label: its id in two lines (the package, then the name) and its short status (which may run
    over lines of its own, split at " | ": a proved claim names what carries every parameter)."""
    head, dot, tail = node.partition(".")
    return ([head + dot, tail] if dot and tail else [node]) + label.split(" | ")


def box_size(node: str, label: str) -> tuple[float, float]:
    lines = label_lines(node, label)
    return max(len(line) for line in lines) * CHAR + 2 * PAD_X, len(lines) * LINE + 2 * PAD_Y


class _View:
    """What grandalf reads and writes of a vertex: its size and centre."""

    def __init__(self, w: float, h: float):
        self.w, self.h, self.xy = w, h, (0.0, 0.0)


class _EdgeView:
    def __init__(self):
        self.points: list[tuple[float, float]] = []

    def setpath(self, points):
        self.points = [(float(x), float(y)) for x, y in points]


def components(nodes: dict[str, tuple[str, ...]]) -> list[list[str]]:
    """The connected components (edges taken both ways), each sorted; largest first, then by first id."""
    neighbours: dict[str, set[str]] = {n: set() for n in nodes}
    for n, uses in nodes.items():
        for u in uses:
            if u != n:
                neighbours[n].add(u)
                neighbours[u].add(n)
    seen, found = set(), []
    for start in sorted(nodes):
        if start in seen:
            continue
        todo, part = [start], []
        seen.add(start)
        while todo:
            n = todo.pop()
            part.append(n)
            for m in sorted(neighbours[n]):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        found.append(sorted(part))
    return sorted(found, key=lambda part: (-len(part), part[0]))


def _layout_component(part: list[str], nodes: dict[str, tuple[str, ...]], size: dict[str, tuple[float, float]]):
    """Grandalf's layered layout of one component, on its side: ({id: (x, y) centre}, {(used, node): points})."""
    from grandalf.graphs import Edge, Vertex, graph_core
    from grandalf.layouts import SugiyamaLayout
    from grandalf.routing import route_with_lines

    vertex = {n: Vertex(n) for n in part}
    for n in part:  # laid out top-down, then turned: a box's width runs along the layer axis
        w, h = size[n]
        vertex[n].view = _View(h, w)
    edges = []
    for n in part:
        for u in sorted(set(nodes.get(n, ())) - {n}):
            edge = Edge(vertex[u], vertex[n])
            edge.view = _EdgeView()
            edges.append(edge)
    # One connected component, built directly with its edges in id order (grandalf's Graph would collect a
    # component's edges in a set, whose order, and with it the layout, changes from run to run).
    component = graph_core([vertex[n] for n in part], edges)
    layout = SugiyamaLayout(component)
    layout.xspace, layout.yspace = NODE_GAP, LAYER_GAP
    layout.route_edge = route_with_lines
    # Roots and the edges that close a cycle are given, found by a depth-first search in id order: grandalf's
    # own search numbers vertices with a class-wide counter, so its answer would depend on earlier layouts.
    back = _back_edges(part, nodes)
    roots = [vertex[n] for n in part if not [u for u in nodes.get(n, ()) if u != n and (u, n) not in back]]
    layout.init_all(roots=roots or [vertex[part[0]]], inverted_edges=[e for e in edges if (e.v[0].data, e.v[1].data) in back])
    layout.draw()
    centre = {n: (vertex[n].view.xy[1], vertex[n].view.xy[0]) for n in part}  # turned on its side
    # Each layer is a band of x; boxes sit inside their band, edges cross a band only horizontally (at a box's
    # centre, or at a dummy vertex grandalf placed clear of the boxes) and run diagonally only between bands.
    bands: dict[float, tuple[float, float]] = {}
    for n in part:
        cx, w = round(centre[n][0], 3), size[n][0]
        low, high = bands.get(cx, (cx, cx))
        bands[cx] = (min(low, cx - w / 2), max(high, cx + w / 2))

    def band(x: float) -> tuple[float, float]:
        return bands[min(bands, key=lambda c: (abs(c - x), c))]

    # Ports: every edge leaves and enters its box at a height of its own (spread over the box's side, in the
    # order of the other end), so no two edges share an end point and each can be followed by eye.
    ports_in: dict[tuple[str, str], float] = {}
    ports_out: dict[tuple[str, str], float] = {}
    for n in part:
        h = size[n][1]
        incoming = sorted((e.v[0].data for e in edges if e.v[1].data == n), key=lambda u: (centre[u][1], u))
        outgoing = sorted((e.v[1].data for e in edges if e.v[0].data == n), key=lambda v: (centre[v][1], v))
        for ends, store, key in ((incoming, ports_in, lambda u: (u, n)), (outgoing, ports_out, lambda v: (n, v))):
            k = len(ends)
            for i, other in enumerate(ends):
                offset = 0.0 if k == 1 else (i - (k - 1) / 2) * min(PORT_GAP, (h - 2 * PORT_MARGIN) / (k - 1))
                store[key(other)] = centre[n][1] + offset

    paths = {}
    for e in edges:
        used, node = e.v[0].data, e.v[1].data
        (sx, _), (tx, _) = centre[used], centre[node]
        sy, ty = ports_out[(used, node)], ports_in[(used, node)]
        forward = tx > sx
        inner = sorted(((y, x) for x, y in e.view.points[1:-1]), key=lambda p: p[0] if forward else -p[0])
        side = 1 if forward else -1
        route = [(sx + side * size[used][0] / 2, sy), (band(sx)[forward] + side * STUB, sy)]
        for dx, dy in inner:
            low, high = band(dx)
            route += [((low, high)[not forward], dy), ((low, high)[forward], dy)]
        route += [(band(tx)[not forward] - side * STUB, ty), (tx - side * size[node][0] / 2, ty)]
        paths[(used, node)] = [p for i, p in enumerate(route) if i == 0 or p != route[i - 1]]
    return centre, paths


def _back_edges(part: list[str], nodes: dict[str, tuple[str, ...]]) -> set[tuple[str, str]]:
    """The edges (used, node) that close a cycle, in a depth-first search from each id in order."""
    state: dict[str, int] = {}
    back: set[tuple[str, str]] = set()

    def visit(n: str) -> None:
        state[n] = 1
        for u in sorted(set(nodes.get(n, ())) - {n}):
            if state.get(u) == 1:
                back.add((u, n))
            elif u not in state:
                visit(u)
        state[n] = 2

    for n in part:
        if n not in state:
            visit(n)
    return back


def layout(nodes: dict[str, tuple[str, ...]], status: dict[str, tuple[str, str]] | None = None):
    """Boxes and edge paths: ({id: (x, y, w, h)} top-left corners, {(used, node): [(x, y), ...]}, width, height)."""
    status = status or {}
    every = dict(nodes)
    for uses in nodes.values():
        for u in uses:
            every.setdefault(u, ())
    size = {n: box_size(n, status.get(n, ("missing", "not registered"))[1]) for n in every}
    boxes: dict[str, tuple[float, float, float, float]] = {}
    paths: dict[tuple[str, str], list[tuple[float, float]]] = {}
    top, width = MARGIN, 0.0
    alone = []
    for part in components(every):
        if len(part) == 1:
            alone.append(part[0])
            continue
        centre, routes = _layout_component(part, every, size)
        corners = [(centre[n][0] - size[n][0] / 2, centre[n][1] - size[n][1] / 2) for n in part]
        corners += [p for points in routes.values() for p in points]  # an edge may run outside every box
        left, up = min(x for x, _ in corners), min(y for _, y in corners)
        dx, dy = MARGIN - left, top - up
        for n in part:
            (cx, cy), (w, h) = centre[n], size[n]
            boxes[n] = (round(cx - w / 2 + dx, 1), round(cy - h / 2 + dy, 1), round(w, 1), round(h, 1))
        for key, points in routes.items():
            moved = [(round(x + dx, 1), round(y + dy, 1)) for x, y in points]
            paths[key] = [p for i, p in enumerate(moved) if i == 0 or p != moved[i - 1]]
        bottom = max([boxes[n][1] + boxes[n][3] for n in part] + [y for (u, v), ps in paths.items() if v in part for _, y in ps])
        width = max(width, max([boxes[n][0] + boxes[n][2] for n in part]
                               + [x for (u, v), ps in paths.items() if v in part for x, _ in ps]) + MARGIN)
        top = bottom + COMPONENT_GAP
    x, row_height = MARGIN, 0.0
    limit = max(width, WIDTH)
    for n in alone:  # the claims that stand alone: packed in rows
        w, h = size[n]
        if x > MARGIN and x + w > limit - MARGIN:
            x, top = MARGIN, top + row_height + NODE_GAP
            row_height = 0.0
        boxes[n] = (round(x, 1), round(top, 1), round(w, 1), round(h, 1))
        width = max(width, x + w + MARGIN)
        x, row_height = x + w + NODE_GAP, max(row_height, h)
    height = (top + row_height if alone else top - COMPONENT_GAP) + MARGIN
    return boxes, paths, int(width + 0.5), int(height + 0.5)


def svg(nodes: dict[str, tuple[str, ...]], status: dict[str, tuple[str, str]], titles: dict[str, str],
        href: dict[str, str]) -> str:
    """The graph as an SVG document.

    ``status`` maps an id to ``(css key, short label)``, ``titles`` to a hover title,
    ``href`` to the link of its page (ids without one are not links).
    """
    boxes, paths, width, height = layout(nodes, status)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="dependency graph of the claims">',
        "<style>path.edge { transition: stroke 0.1s; } svg.graph.focus path.edge { stroke-opacity: 0.18; } "
        "svg.graph.focus path.edge.lit { stroke: #0969da; stroke-opacity: 1; stroke-width: 2.4; } "
        "svg.graph.focus a.node:not(.lit) { opacity: 0.45; }</style>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>',
    ]
    for (used, node), points in sorted(paths.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if len(points) < 2:
            continue
        d = "M " + " L ".join(f"{x:.1f} {y:.1f}" for x, y in points)
        out.append(f'<path class="edge" d="{d}" fill="none" stroke="#57606a" stroke-width="1.3" '
                   f'data-from="{html.escape(used)}" data-to="{html.escape(node)}" '
                   f'marker-end="url(#arrow)"><title>{html.escape(node)} rests on {html.escape(used)}</title></path>')
    for node in sorted(boxes):
        x0, y0, w, h = boxes[node]
        key, label = status.get(node, ("missing", "not registered"))
        colour = COLOURS.get(key, "#6e7781")
        dashed = ' stroke-dasharray="4 3"' if key in ("missing", "stated", "not-run") else ""
        stroke = 3 if key == "mismatch" else 1.5
        fill = "#ffebe9" if key == "mismatch" else "#ffffff"
        lines = label_lines(node, label)
        texts = "".join(
            f'<text x="{x0 + PAD_X:.1f}" y="{y0 + PAD_Y + (i + 1) * LINE - 4:.1f}" font-family="monospace" '
            f'font-size="11.5" fill="{colour if i >= len(lines) - len(label.split(" | ")) else "#1f2328"}">'
            f"{html.escape(line)}</text>"
            for i, line in enumerate(lines))
        shape = (f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" fill="{fill}" '
                 f'stroke="{colour}" stroke-width="{stroke}"{dashed}/>{texts}'
                 f"<title>{html.escape(titles.get(node, node))}</title>")
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
