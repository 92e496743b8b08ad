"""The names a cell binds, and a NameError that names the earlier step which failed to
bind the name."""

from __future__ import annotations

import ast
from dataclasses import replace

from workbench.engine.errors import Explanation, explain


def explain_cell_error(error: BaseException, filename: str,
                       failed: dict[str, tuple[int, str]]) -> Explanation:
    """The catalog's explanation; a NameError for a name that an earlier step, which failed,
    was to bind names that step (``failed``: name -> (step, "imports"/"defines"))."""
    explanation = explain(error, filename)
    name = getattr(error, "name", None)
    if not (isinstance(error, NameError) and isinstance(name, str)):
        return explanation
    if name in failed:
        step, verb = failed[name]
        return replace(explanation,
                       title=f"{name!r} is not defined: step {step}, which {verb} it, failed",
                       hint=f"Step {step} failed before it bound {name}: fix that step (or run "
                       "it again) first; this step then finds the name.")
    return replace(explanation, title=f"{name!r} is not defined",
                   hint="Define or import it in this step or one before it: a notebook's "
                   "steps share their names, and nothing is imported for you.")


def bound_names(source: str) -> dict[str, str]:
    """Top-level names a cell binds, each with how ("imports", "defines"): what a failed cell
    leaves undefined. ``source`` is the transformed cell; one that does not parse binds none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = "defines"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = "imports"
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.setdefault(sub.id, "defines")
    return names
