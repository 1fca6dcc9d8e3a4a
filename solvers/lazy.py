"""Heavy libraries imported on first use, so that a command needing none of them starts fast.

``attnproof list`` imports every claim module to read its parameters; were
sympy, numpy, scipy and z3 imported with them, every command would pay about
a second of CPU before doing anything.  ``module(name)`` registers ``name``
with :class:`importlib.util.LazyLoader`: the module object exists at once,
and its code runs the first time an attribute of it is read.  Only top-level
packages are made lazy here (finding a submodule's spec imports its parent).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def module(name: str) -> ModuleType:
    """``name`` as a module whose import runs on first attribute access (at once if already imported)."""
    if "." in name:
        raise ValueError(f"only top-level packages are made lazy, not {name!r}")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    spec.loader.exec_module(loaded)
    return loaded


sympy = module("sympy")
numpy = module("numpy")
z3 = module("z3")


class submodule:
    """A stand-in for the submodule ``name`` (e.g. "scipy.sparse"), imported on first attribute access."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
