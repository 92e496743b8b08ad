"""No import circle in ``workbench``, including ones hidden by function-level imports.

A function-level import still runs, just later; a circle through one works only
while nobody imports the modules in another order. So the graph here is built
with ``ast`` from every import statement of every module, at module level, in
functions and in ``if TYPE_CHECKING:`` blocks alike. Importing ``a.b.c`` also
runs the ``__init__`` of ``a.b`` and ``a``, so those count as imported too,
except the packages that hold the importing module (already being imported).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "workbench"

# Cycles outside the engine that other restructurings are still removing, each as the
# sorted tuple of the modules on it. The lead empties this list.
ALLOWED_CYCLES: frozenset[tuple[str, ...]] = frozenset()


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` if it is a module of ours, else its longest prefix that is one."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ours that ``module`` imports anywhere in its body."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join([*up, base]) if base else ".".join(up)
            # ``from pkg import name``: the submodule pkg.name if there is one, else pkg.
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
            names = [n for n in names if n in modules] or [base]
        else:
            continue
        for name in names:
            found = _resolve(name, modules)
            if found is None:
                continue
            # The packages above the target run their __init__ first, unless they hold
            # this module too (then they are already being imported).
            parts = found.split(".")
            for i in range(1, len(parts) + 1):
                ancestor = ".".join(parts[:i])
                holds_us = module == ancestor or module.startswith(ancestor + ".")
                if ancestor in modules and not holds_us:
                    targets.add(ancestor)
    targets.discard(module)
    return targets


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imported(m, p, modules) for m, p in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_cycle(graph, set(c)) for c in components]


def _one_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest circle through the component's first module, as a readable path."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(graph[v] & component):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                todo.append(w)
    return sorted(component)


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    assert "workbench.engine" in graph
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]


def test_no_import_cycles():
    cycles = find_cycles(import_graph())
    unexpected = [c for c in cycles if tuple(sorted(set(c))) not in ALLOWED_CYCLES]
    assert not unexpected, "import cycles (function-level imports included):\n" + "\n".join(
        " -> ".join(c) for c in unexpected
    )
