"""Which steps of a lesson have run in the engine, and what that means for the step shown.

Going to a step runs that step only, as a presenter expects: steps passed on the way (or
jumped over in the list) do not run, and a restarted engine forgets what ran before. The
step shown then says which code steps above it have not run here, the window offers to
run them, and a name the step needs that one of them binds is named with its step.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from workbench.api.cells import bound_names
from workbench.lessons.model import Lesson

_UNDEFINED = re.compile(r"name '(?P<name>[^']{1,200})' is not defined")


def unrun_above(lesson: Lesson, number: int, ran: Collection[int]) -> tuple[int, ...]:
    """The code steps before step ``number`` that have not run in this engine (steps tagged
    skip-execution are never run, so never missing)."""
    return tuple(step.number for step in lesson.steps[: max(0, number - 1)]
                 if step.has_code and not step.skip and step.number not in ran)


def steps_text(numbers: Sequence[int]) -> str:
    """``step 2``, ``steps 2 and 5``, ``steps 2-4``, ``steps 2, 4 and 7-9``."""
    runs: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    parts: list[str] = []
    for a, b in runs:
        parts.extend([str(a)] if a == b else [str(a), str(b)] if b == a + 1 else [f"{a}-{b}"])
    if len(parts) == 1:
        return f"step {parts[0]}" if len(numbers) == 1 else f"steps {parts[0]}"
    return f"steps {', '.join(parts[:-1])} and {parts[-1]}"


def not_run_note(numbers: Sequence[int]) -> str:
    """What the step shown says when steps above it have not run here."""
    verb = "has" if len(numbers) == 1 else "have"
    return (f"{steps_text(numbers)} above {verb} not run in this engine: the names "
            f"{'it defines are' if len(numbers) == 1 else 'they define are'} not defined "
            "here (Run steps above runs them)")


def undefined_name(message: str) -> str | None:
    """The name a ``NameError``'s message says is not defined."""
    match = _UNDEFINED.search(message)
    return match.group("name") if match else None


def binding_step(lesson: Lesson, numbers: Sequence[int], name: str) -> tuple[int, str] | None:
    """The last of the steps ``numbers`` whose code binds ``name``, and how ("defines",
    "imports")."""
    for number in sorted(numbers, reverse=True):
        how = bound_names(lesson.step(number).code).get(name)
        if how is not None:
            return number, how
    return None


def missing_name_note(lesson: Lesson, number: int, ran: Collection[int], message: str) -> str:
    """For a ``NameError`` (its ``message``) of step ``number``, when a code step above that
    has not run binds the name: which step, and how (else "")."""
    name = undefined_name(message)
    found = binding_step(lesson, unrun_above(lesson, number, ran), name) if name else None
    if found is None:
        return ""
    step, how = found
    return (f"{name!r} is not defined: step {step}, which {how} it, has not run in this "
            "engine (Run steps above runs it)")

