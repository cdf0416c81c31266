"""The package's modules import one another without a cycle (issue 38).

A cycle makes the import order matter: which module is half-initialised depends on which one a
caller imported first. ``report`` and ``experiments.runner`` had one (the report took the
claims' default tolerance from ``experiments``, whose ``__init__`` imports the runner, which
imports the report). The graph is read from the source: the imports that run when a module is
imported, those under ``if TYPE_CHECKING:`` left out. An import inside a function runs on first
call, once every module is loaded, so it cannot leave a module half-initialised; but it still
makes the two modules depend on each other (``api``, ``results`` and ``sweep`` did, issue 38),
so a second graph counts those imports too, and it must have no cycle either.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "python" / "dcnsim"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _import_time(tree: ast.AST, functions: bool = False):
    """The nodes of `tree` that run when the module is imported: not under ``if
    TYPE_CHECKING:``, nor inside a function unless ``functions``."""
    for node in ast.iter_child_nodes(tree):
        if not functions and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.Lambda)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in _import_time_of(child, functions))
            continue
        yield node
        yield from _import_time(node, functions)


def _import_time_of(node: ast.AST, functions: bool):
    yield node
    yield from _import_time(node, functions)


def _imports(name: str, path: Path, known: set[str], functions: bool = False) -> set[str]:
    """The package's modules that importing ``name`` runs (with ``functions``, or that its
    functions import when called): each module named by an import, and the packages above it
    (their ``__init__`` runs first) that ``name`` is not itself inside."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _import_time(ast.parse(path.read_text(), str(path)), functions):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets.add(base)
            # `from . import core`: a submodule, when there is one of that name.
            targets.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known)
    found = set()
    for t in targets:
        parts = t.split(".")
        for i in range(1, len(parts) + 1):
            m = ".".join(parts[:i])
            if m in known and m != name and not name.startswith(m + "."):
                found.add(m)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` (its modules in import order), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (c := visit(n)):
                return c
        state[m] = 2
        stack.pop()
        return None

    for m in sorted(graph):
        if m not in state and (c := visit(m)):
            return c
    return None


def test_the_package_has_no_import_cycle():
    modules = _modules()
    known = set(modules)
    graph = {m: _imports(m, p, known) for m, p in modules.items()}
    # The check sees the edges it is meant to: the runner imports the report.
    assert "dcnsim.report" in graph["dcnsim.experiments.runner"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_import_cycle_even_through_imports_inside_functions():
    """A module may import one below it inside a function (to load it only when needed), never
    one above it: counting those imports, the graph still has no cycle."""
    modules = _modules()
    known = set(modules)
    graph = {m: _imports(m, p, known, functions=True) for m, p in modules.items()}
    # The check sees the imports inside functions: ``api.run`` imports the results.
    assert "dcnsim.results" in graph["dcnsim.api"]
    assert "dcnsim.results" not in _imports("dcnsim.api", modules["dcnsim.api"], known)
    cycle = _cycle(graph)
    assert cycle is None, "import cycle (imports inside functions counted): " + " -> ".join(cycle)


def test_the_subpackages_have_no_import_cycle():
    """The same a level up, each subpackage (``experiments``, ``plots``) one node: ``report``
    importing ``experiments.claims`` and ``experiments.runner`` importing ``report`` is a cycle
    between ``report`` and ``experiments`` even though no single module closes it."""
    modules = _modules()
    known = set(modules)
    top = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    graph: dict[str, set[str]] = {}
    for m, p in modules.items():
        graph.setdefault(top(m), set()).update(top(n) for n in _imports(m, p, known))
    for m, deps in graph.items():
        deps.discard(m)
    assert "dcnsim.report" in graph["dcnsim.experiments"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_importing_the_report_leaves_the_experiments_alone():
    """In a fresh interpreter: ``dcnsim.report`` loads neither the runner nor its package."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    script = ("import sys, dcnsim.report; "
              "print(*sorted(m for m in sys.modules if m.startswith('dcnsim.experiments')))")
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == []
