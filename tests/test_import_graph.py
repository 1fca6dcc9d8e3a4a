"""The project's modules import each other without a circle: the graph is read from the sources (ast).

Every ``import`` and ``from ... import`` counts, at module level or inside a function (a lazy import
is still an arrow a reader follows); ``from a import b`` is an arrow to the module ``a.b`` when it is
one, else to ``a``.  A circle means two modules can only be read together; a layer below must not
need the one above it.
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("theorems", "solvers")


def modules() -> dict[str, str]:
    """Module name -> file, for every Python file of the project's packages."""
    found = {}
    for package in PACKAGES:
        for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in files:
                if name.endswith(".py"):
                    parts = os.path.relpath(os.path.join(folder, name), ROOT)[:-3].split(os.sep)
                    found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = os.path.join(folder, name)
    return found


def imports(name: str, file: str, known: dict) -> set[str]:
    """The project modules ``file`` (module ``name``) imports."""
    with open(file, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), file)
    package = name if file.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            out |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, file, known) for name, file in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read_from_every_module():
    edges = graph()
    assert "theorems.core" in edges and "solvers.trusted.core" in edges["solvers.trusted.verdicts"]
    assert "theorems.registry" in edges["theorems.core"]  # a lazy import counts too


def test_a_circle_is_found_when_there_is_one():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_the_project_modules():
    assert circles(graph()) == []


def test_the_trusted_package_imports_nothing_of_the_project_above_it():
    edges = graph()
    for name, targets in edges.items():
        if name.startswith("solvers.trusted"):
            assert all(t.startswith("solvers.trusted") or t == "solvers" for t in targets), (name, targets)
