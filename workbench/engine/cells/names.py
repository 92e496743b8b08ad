"""A NameError that names the earlier step which failed to bind the name (the names a
cell binds are ``api.cells.bound_names``: the window asks them too)."""

from __future__ import annotations

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
