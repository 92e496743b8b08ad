"""A NameError that names the earlier step which failed to bind the name (the names a
cell binds are ``api.cells.bound_names``: the window asks them too); a magic's refusal as
its own one line."""

from __future__ import annotations

from dataclasses import replace

from workbench.engine.errors import Explanation, explain


def explain_cell_error(error: BaseException, filename: str,
                       failed: dict[str, tuple[int, str]]) -> Explanation:
    """The catalog's explanation; a NameError for a name that an earlier step, which failed,
    was to bind names that step (``failed``: name -> (step, "imports"/"defines"))."""
    explanation = explain(error, filename)
    if _is_magic_refusal(error):  # IPython's own one line, as Jupyter shows it, no traceback
        return replace(explanation, title=explanation.title.removeprefix("UsageError: "),
                       hint="IPython refused this % line (a magic); the lines after it in "
                       "this step did not run.")
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


def _is_magic_refusal(error: BaseException) -> bool:
    """IPython's ``UsageError``: a magic's bad arguments, or a backend the workbench cannot
    show (``shell.no_windows``); its message is the whole story."""
    from IPython.core.error import UsageError

    return isinstance(error, UsageError)
