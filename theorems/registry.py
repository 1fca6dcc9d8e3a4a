"""Where claims come from: the built-in packages, the user's project, installed packages.

Every command (``check``, ``verify``, ``report``, ``list``) sees the same claims,
found in this order:

1. the built-in modules of ``theorems.kernel_rank``, ``theorems.softmax_rank`` and
   ``theorems.conjectures``;
2. the entry points of the group ``attnproof.claims`` of installed packages (each names a
   module with ``CLAIM``/``CLAIMS``, a :class:`~theorems.core.Claim` or a subclass of it);
3. the **project** — the nearest folder, from the working directory upward, that holds a
   ``pyproject.toml`` or a ``conjectures/`` folder:

   * the modules listed in its ``pyproject.toml`` (importable from the project folder)::

         [tool.attnproof]
         conjectures = ["my_conjecture", "my_package.another"]

   * every ``conjectures/*.py`` beside it (not starting with ``_``), imported by its file
     name — what ``attnproof new`` writes;
4. ``$ATTNPROOF_CLAIMS`` (comma-separated modules importable from the working
   directory), kept for quick experiments; nothing above needs it.

So registration persists with the project, not with a shell variable.  Every problem —
a module that does not import, a module without ``CLAIM``/``CLAIMS``, a file whose name
is taken by another module (``conjectures/os.py``), two claims with one id, a malformed
``[tool.attnproof]`` table — raises :class:`RegistrationError` with one
line naming where the registration came from; nothing is registered then.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable, Iterable

BUILTIN_PACKAGES = ("theorems.kernel_rank", "theorems.softmax_rank", "theorems.conjectures")
ENTRY_POINT_GROUP = "attnproof.claims"
MODULES_VARIABLE = "ATTNPROOF_CLAIMS"  # comma-separated modules, importable from the working directory


class RegistrationError(Exception):
    """The claims cannot be registered: a module that does not import, one with no ``CLAIM``,
    two claims with one id.  The command line turns it into one line and exit status 2."""


class Registrable:
    """What the registry registers: :class:`theorems.core.Claim` derives from it.  The registry names
    the type it needs here, below the claims, so that it never imports them (nor they it, in a circle)."""


Claim = Registrable  # the registry's name for a claim (the class every claim derives from)

CONJECTURES_FOLDER = "conjectures"
PYPROJECT = "pyproject.toml"
STATE_FOLDER = ".attnproof"  # per-project state (the random search's example database)


@dataclass(frozen=True)
class Project:
    """The user's project: its folder, the modules its ``pyproject.toml`` lists, its conjectures folder."""

    root: str
    modules: tuple[str, ...] = ()
    folder: str | None = None  # <root>/conjectures when it exists
    pyproject: str | None = None

    @property
    def state(self) -> str:
        """``<root>/.attnproof``: where per-project state lives (created on demand)."""
        return os.path.join(self.root, STATE_FOLDER)


def find_project(start: str | None = None) -> Project:
    """The nearest folder from ``start`` (default: the working directory) upward holding a
    ``pyproject.toml`` or a ``conjectures/`` folder; the working directory itself when none does."""
    here = os.path.abspath(start or os.getcwd())
    current = here
    while True:
        pyproject = os.path.join(current, PYPROJECT)
        folder = os.path.join(current, CONJECTURES_FOLDER)
        if os.path.isfile(pyproject) or os.path.isdir(folder):
            has_file = os.path.isfile(pyproject)
            return Project(
                root=current,
                modules=_listed_modules(pyproject) if has_file else (),
                folder=folder if os.path.isdir(folder) else None,
                pyproject=pyproject if has_file else None,
            )
        parent = os.path.dirname(current)
        if parent == current:
            return Project(root=here)
        current = parent


def _listed_modules(pyproject: str) -> tuple[str, ...]:
    """``[tool.attnproof] conjectures`` of a pyproject.toml: a list of dotted module names."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise RegistrationError(f"{pyproject}: reading it needs Python >= 3.11 or the package tomli") from None
    try:
        with open(pyproject, "rb") as handle:
            tool = tomllib.load(handle).get("tool", {})
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RegistrationError(f"{pyproject}: cannot be read: {_line(exc)}") from None
    if not isinstance(tool, dict):  # `tool = 1` is valid TOML
        raise RegistrationError(f"{pyproject}: [tool] must be a table")
    table = tool.get("attnproof")
    if table is None:
        return ()
    if not isinstance(table, dict):
        raise RegistrationError(f"{pyproject}: [tool.attnproof] must be a table")
    unknown = sorted(set(table) - {"conjectures"})
    if unknown:
        raise RegistrationError(f"{pyproject}: [tool.attnproof] has unknown key(s) {unknown}; it reads only 'conjectures'")
    names = table.get("conjectures", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and _dotted(n) for n in names):
        raise RegistrationError(f"{pyproject}: [tool.attnproof] conjectures must be a list of module names, "
                                f"e.g. [\"my_conjecture\"], got {str(names)[:80]}")
    return tuple(names)


def _dotted(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))


def _line(exc: BaseException) -> str:
    """An exception as one short line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


# --------------------------------------------------------------- loading


def _import(name: str, origin: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise RegistrationError(f"{origin}: no module named {name!r} (is it spelled right, and is its folder the project's?)") from None
        raise RegistrationError(f"{origin}: importing {name!r} failed: {_line(exc)}") from None
    except (Exception, SystemExit) as exc:  # a user's module may raise anything at import, even sys.exit():
        # one line and exit 2, never a traceback nor the module's own exit status
        raise RegistrationError(f"{origin}: importing {name!r} failed: {_line(exc)}") from None


_ADDED: list[str] = []  # folders this module appended to sys.path (the current project's)
_FROM_FOLDER: dict[str, str] = {}  # module name -> file, for modules imported from a conjectures/ folder


def _on_path(folder: str) -> None:
    """Make ``folder`` importable, after everything else: it never shadows an installed module."""
    if folder not in sys.path:
        sys.path.append(folder)
        _ADDED.append(folder)


def _forget_other_projects(project: Project) -> None:
    """A process that discovers again in another project (tests do) drops the folders and
    modules an earlier project contributed, so that a file name reused there is not stale here."""
    keep = {project.root, project.folder}
    for folder in [f for f in _ADDED if f not in keep]:
        _ADDED.remove(folder)
        if folder in sys.path:
            sys.path.remove(folder)
    for name, path in list(_FROM_FOLDER.items()):
        if project.folder is None or os.path.dirname(path) != os.path.realpath(project.folder):
            sys.modules.pop(name, None)
            del _FROM_FOLDER[name]


def _folder_modules(folder: str, only: str | None = None) -> Iterable[tuple[str, object]]:
    """Each ``conjectures/*.py`` (not ``_*``) imported by its file name, refusing a name another module holds
    (``only``: that one file name, the others not imported)."""
    _on_path(folder)
    importlib.invalidate_caches()  # files written since the last look (a process that discovers again)
    for entry in _folder_entries(folder):
        if only is not None and entry != only:
            continue
        stem, path = os.path.splitext(entry)[0], os.path.join(folder, entry)
        origin = os.path.join(CONJECTURES_FOLDER, entry)
        if not stem.isidentifier():
            raise RegistrationError(f"{origin}: the file name is not a Python identifier; rename it")
        found = _where(stem)
        if found != os.path.realpath(path):
            raise RegistrationError(f"{origin}: the name {stem!r} is taken by the module at {found or 'a built-in module'}; "
                                    "rename the file")
        loaded = _import(stem, origin)
        _FROM_FOLDER[stem] = os.path.realpath(path)
        yield origin, loaded


def _folder_entries(folder: str) -> list[str]:
    """The file names of ``conjectures/*.py`` that register (not starting with ``_``), sorted."""
    return [entry for entry in sorted(os.listdir(folder))
            if entry.endswith(".py") and not entry.startswith("_") and os.path.isfile(os.path.join(folder, entry))]


def _where(name: str) -> str | None:
    """The file a fresh ``import name`` would load (sys.path in order, built-ins first), or what holds the name now."""
    if name in sys.builtin_module_names:
        return "a built-in module"
    loaded = sys.modules.get(name)
    if loaded is not None and name not in _FROM_FOLDER:  # imported from elsewhere: the name is held
        return os.path.realpath(loaded.__file__) if getattr(loaded, "__file__", None) else "a module already imported"
    try:
        spec = importlib.machinery.PathFinder.find_spec(name, sys.path)
    except (ImportError, ValueError):
        return None
    return os.path.realpath(spec.origin) if spec is not None and spec.origin else None


def _claims_in(loaded, origin: str) -> list[Claim]:
    """The claims an entry point or a module provides: a Claim, a Claim subclass, or CLAIM / CLAIMS."""
    if isinstance(loaded, Claim):
        return [loaded]
    if isinstance(loaded, type) and issubclass(loaded, Claim):
        try:
            return [loaded()]
        except Exception as exc:
            raise RegistrationError(f"{origin}: {loaded.__name__}() failed: {_line(exc)}") from None
    found = getattr(loaded, "CLAIMS", None)
    if found is None:
        if not hasattr(loaded, "CLAIM"):
            raise RegistrationError(f"{origin}: {getattr(loaded, '__name__', loaded)!s} defines no CLAIM (or CLAIMS); "
                                    "end the module with CLAIM = YourClaim()")
        found = [loaded.CLAIM]
    try:
        found = list(found)
    except TypeError:
        raise RegistrationError(f"{origin}: CLAIMS must be a list of claims") from None
    for claim in found:
        if not isinstance(claim, Claim):
            raise RegistrationError(f"{origin}: {type(claim).__name__} is not a theorems.core.Claim (CLAIM = YourClaim(), an instance)")
    return found


BUILTIN = "builtin"  # the scope of the package's own claims: no code from outside it is imported


def plugin_origins(project: Project | None = None) -> list[str]:
    """The places outside the package that claims come from, as scope keys, found without importing any:
    ``entry:NAME`` (an entry point), ``module:NAME`` (``[tool.attnproof]``), ``file:NAME.py``
    (``conjectures/``), ``env:NAME`` (``$ATTNPROOF_CLAIMS``)."""
    project = find_project() if project is None else project
    keys = [f"entry:{e.name}" for e in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)]
    keys += [f"module:{name}" for name in project.modules]
    keys += [f"file:{entry}" for entry in (_folder_entries(project.folder) if project.folder else [])]
    keys += [f"env:{n.strip()}" for n in os.environ.get(MODULES_VARIABLE, "").split(",") if n.strip()]
    return list(dict.fromkeys(keys))


def sources(project: Project | None = None, scope: str | None = None) -> Iterable[tuple[str, object]]:
    """``(origin, loaded)`` for every place claims come from, in the order of the module docstring.

    ``scope``: None for every place; :data:`BUILTIN` for the package's own modules alone; a key of
    :func:`plugin_origins` for that one place alone (the package's modules are not imported for it:
    the claims it yields are the plugin's own)."""
    if scope is None or scope == BUILTIN:
        for package_name in BUILTIN_PACKAGES:
            package = importlib.import_module(package_name)
            for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
                if not info.name.startswith("_"):
                    yield f"{package_name}.{info.name}", importlib.import_module(f"{package_name}.{info.name}")
        if scope == BUILTIN:
            return
    kind, _, key = (scope or ":").partition(":")
    for entry in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if scope is not None and (kind, key) != ("entry", entry.name):
            continue
        origin = f"entry point {entry.name} = {getattr(entry, 'value', '?')!s}"
        try:
            loaded = entry.load()
        except Exception as exc:
            raise RegistrationError(f"{origin}: loading it failed: {_line(exc)}") from None
        yield origin, loaded
    project = find_project() if project is None else project
    _forget_other_projects(project)
    if project.modules and kind in ("", "module"):
        _on_path(project.root)
        for name in project.modules:
            if scope is None or key == name:
                origin = f"{project.pyproject} [tool.attnproof]"
                yield origin, _import(name, origin)
    if project.folder and kind in ("", "file"):
        yield from _folder_modules(project.folder, key if scope is not None else None)
    names = [n.strip() for n in os.environ.get(MODULES_VARIABLE, "").split(",") if n.strip()]
    if scope is not None:
        names = [n for n in names if kind == "env" and n == key]
    if names:
        _on_path(os.getcwd())  # after everything else, like the project: a stray colorsys.py there shadows nothing
    for name in names:
        yield f"${MODULES_VARIABLE}", _import(name, f"${MODULES_VARIABLE}")


def discover(check: Callable[[Claim], object], project: Project | None = None, scope: str | None = None) -> list[Claim]:
    """Every claim from :func:`sources` (of ``scope``), each validated by ``check`` (which raises ValueError on a bad claim).

    A module reached twice (listed in pyproject.toml and lying in conjectures/) counts once;
    two different claims with one id are refused, naming where each came from.
    """
    seen: dict[str, tuple[Claim, str]] = {}
    for origin, loaded in sources(project, scope):
        for claim in _claims_in(loaded, origin):
            if not claim.id:
                raise RegistrationError(f"{origin}: {type(claim).__name__} has no id")
            if not isinstance(claim.id, str) or not _dotted(claim.id):
                # the id names the outcome's folder: "../x" or "a b" must not reach a path
                raise RegistrationError(f"{origin}: {type(claim).__name__}.id must be dotted Python names, "
                                        f"e.g. \"conjectures.my_conjecture\", got {str(claim.id)[:60]!r}")
            if claim.established == "open" and claim.expected == "verified":
                # an open conjecture's check reports unknown at best: CI would fail on every run
                raise RegistrationError(f"{origin}: {claim.id} is an open conjecture, so it never comes out verified; "
                                        "expect \"unknown\" (or \"refuted\" once a certified counterexample is known)")
            if claim.id in seen:
                first, where = seen[claim.id]
                if first is claim or type(first) is type(claim) or _same_class(first, claim):
                    continue
                raise RegistrationError(f"two claims share the id {claim.id!r}: one from {where}, one from {origin}; rename one")
            try:
                check(claim)
            except ValueError as exc:
                raise RegistrationError(f"{origin}: {_line(exc).partition(': ')[2] or exc}") from None
            seen[claim.id] = (claim, origin)
    return [claim for claim, _ in seen.values()]


def _same_class(one: Claim, other: Claim) -> bool:
    """One class imported under two module names (``conjectures.x`` listed in pyproject.toml and
    ``conjectures/x.py`` imported as ``x``): the same source file and the same qualified name."""
    try:
        files = {os.path.realpath(inspect.getfile(type(c))) for c in (one, other)}
    except (TypeError, OSError):
        return False
    return len(files) == 1 and type(one).__qualname__ == type(other).__qualname__


def shadowed(name: str, project: Project | None = None) -> str | None:
    """Where a module named ``name`` already lives (stdlib, installed, attnproof itself, or the
    ``project``'s own folder, from which its ``[tool.attnproof]`` modules import), or None."""
    if name in sys.builtin_module_names or name in getattr(sys, "stdlib_module_names", ()):
        return "the standard library"
    if name in ("theorems", "solvers", CONJECTURES_FOLDER):
        return "attnproof"
    if project is not None:
        # the project folder goes on sys.path before conjectures/ whenever pyproject.toml lists
        # modules: a conjectures/NAME.py beside a NAME.py there could never be imported
        for candidate in (os.path.join(project.root, f"{name}.py"), os.path.join(project.root, name, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        if any(listed.split(".")[0] == name for listed in project.modules):
            return f"{project.pyproject} [tool.attnproof]"
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return "an installed module"
    if spec is None:
        return None
    return spec.origin or "an installed package"
