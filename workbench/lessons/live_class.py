"""A live class as plain data: where the teacher is, how each student is doing, and the
teacher's view of the class, one row a step.

Each window publishes its state in the shared lesson's awareness (the collaboration
server's per-peer state, which every peer sees). Peers are untrusted: a state that is
not exactly one of the two shapes below is dropped with a log line, never applied, so a
hostile or broken peer cannot move a follower or skew the class view. Nothing of a
student's code or data is in a state: only a step number, whether it ran, the error
kind when it failed (a key of the error catalog) and, when the student chose to share
it, a name. No Qt and no server here, so all of it is tested without either.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

log = logging.getLogger(__name__)

MAX_STEPS = 10_000
MAX_NAME_CHARS = 40
MAX_TEXT_CHARS = 200
# The error catalog's keys (``tracer-bool``, ``dot-shape``, ...): lower case and dashes.
KIND = re.compile(r"[a-z][a-z0-9-]{0,39}")
SESSION = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class TeacherState:
    """The teacher's window: the lesson taught, its current step (1-based) and mode."""

    session: str
    lesson: str
    step: int
    steps: int
    presenting: bool = False
    ended: bool = False


@dataclass(frozen=True)
class StudentState:
    """A student's window: the step shown, whether it follows the teacher, and how the
    step's last run went (``failed`` is the catalog's kind, or None)."""

    step: int
    following: bool = True
    ran: bool = False
    failed: str | None = None
    name: str | None = None  # only when the student chose to share it


PeerState = TeacherState | StudentState


def to_awareness(state: PeerState) -> dict[str, object]:
    """The JSON-ready form a window puts in the awareness."""
    if isinstance(state, TeacherState):
        return {"role": "teacher", "session": state.session, "lesson": state.lesson,
                "step": state.step, "steps": state.steps, "presenting": state.presenting,
                "ended": state.ended}
    out: dict[str, object] = {"role": "student", "step": state.step,
                              "following": state.following, "ran": state.ran,
                              "failed": state.failed}
    if state.name is not None:
        out["name"] = state.name
    return out


def _int(raw: Mapping[str, object], key: str, low: int, high: int) -> int:
    value = raw.get(key)
    # bool is an int in Python; a JSON true is not a step.
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{key} is {value!r}, not a whole number in {low}..{high}")
    return value


def _bool(raw: Mapping[str, object], key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if type(value) is not bool:
        raise ValueError(f"{key} is {value!r}, not true or false")
    return value


def _text(raw: Mapping[str, object], key: str, limit: int, pattern: re.Pattern[str] | None = None,
          optional: bool = False) -> str | None:
    value = raw.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ValueError(f"{key} is not a text of 1..{limit} characters")
    if pattern is not None and not pattern.fullmatch(value):
        raise ValueError(f"{key} {value[:40]!r} is not of the form {pattern.pattern}")
    if any(ch < " " for ch in value):
        raise ValueError(f"{key} has control characters")
    return value


def read_peer(raw: object, peer: object = "?") -> PeerState | None:
    """A peer's awareness state, checked; None (and a log line) for anything else.

    An empty state (a peer that has not said anything yet, or has left) is None too,
    without a log line.
    """
    if raw is None or raw == {}:
        return None
    try:
        if not isinstance(raw, Mapping):
            raise ValueError(f"a {type(raw).__name__}, not an object")
        role = raw.get("role")
        if role == "teacher":
            steps = _int(raw, "steps", 1, MAX_STEPS)
            return TeacherState(
                session=_text(raw, "session", 64, SESSION) or "",
                lesson=_text(raw, "lesson", MAX_TEXT_CHARS) or "",
                step=_int(raw, "step", 1, steps), steps=steps,
                presenting=_bool(raw, "presenting", False), ended=_bool(raw, "ended", False))
        if role == "student":
            failed = _text(raw, "failed", 40, KIND, optional=True)
            ran = _bool(raw, "ran", False)
            if failed is not None and not ran:
                raise ValueError("failed without having run")
            return StudentState(step=_int(raw, "step", 1, MAX_STEPS),
                                following=_bool(raw, "following", True), ran=ran,
                                failed=failed,
                                name=_text(raw, "name", MAX_NAME_CHARS, optional=True))
        raise ValueError(f"role is {role!r}, not teacher or student")
    except ValueError as exc:
        log.warning("live class: dropped the state of peer %s: %s", peer, exc)
        return None


def the_teacher(states: Mapping[object, object]) -> TeacherState | None:
    """The one teacher among the peers' raw states; None when none (or several) teach.

    Two peers both claiming to teach is a hostile or confused class: nobody is followed
    until one of them stops, rather than whichever spoke last.
    """
    teachers = [s for peer, raw in states.items()
                if isinstance(s := read_peer(raw, peer), TeacherState)]
    if len(teachers) > 1:
        log.warning("live class: %d peers claim to teach; following none", len(teachers))
    return teachers[0] if len(teachers) == 1 else None


@dataclass(frozen=True)
class StepRow:
    """One row of the teacher's class view."""

    step: int
    on: int  # students whose window shows this step
    ran: int  # ... and ran it
    failed: int  # ... and whose run failed
    kinds: tuple[tuple[str, int], ...]  # failures by catalog kind, most first
    names: tuple[str, ...]  # names shared by the students on it


def class_view(states: Mapping[object, object], steps: int) -> tuple[StepRow, ...]:
    """Per step, what the class is doing, from the peers' raw states (teachers and
    dropped states are not counted; a step past the lesson's end is not shown)."""
    students = [s for peer, raw in states.items()
                if isinstance(s := read_peer(raw, peer), StudentState)]
    rows = []
    for step in range(1, steps + 1):
        here = [s for s in students if s.step == step]
        kinds = Counter(s.failed for s in here if s.failed is not None)
        rows.append(StepRow(
            step=step, on=len(here), ran=sum(s.ran for s in here),
            failed=sum(kinds.values()),
            kinds=tuple(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
            names=tuple(sorted(s.name for s in here if s.name is not None))))
    return tuple(rows)


@dataclass(frozen=True)
class FollowMove:
    """What a follower's window does with the teacher's state: go to ``step`` (None:
    stay), and the words for the button that brings a student back."""

    step: int | None
    back_label: str | None
    notice: str | None = None


def follow(teacher: TeacherState | None, me: StudentState, lesson: str) -> FollowMove:
    """A follower's move: to the teacher's step while following; a student exploring on
    their own stays put and is offered the way back."""
    if teacher is None:
        return FollowMove(None, None, f"{lesson} is not being taught right now")
    if teacher.lesson != lesson:
        return FollowMove(None, None, f"the teacher is teaching {teacher.lesson}, not {lesson}")
    if teacher.ended:
        return FollowMove(None, None, "the teacher ended the class")
    if me.following:
        return FollowMove(teacher.step if teacher.step != me.step else None, None)
    if teacher.step == me.step:
        return FollowMove(None, None)
    return FollowMove(None, f"back to the teacher: step {teacher.step}")


def counts_line(rows: Iterable[StepRow]) -> str:
    """The class view as one plain-text line per step with anyone on it (the CLI's and
    the tests' view of it)."""
    lines = []
    for row in rows:
        if not row.on:
            continue
        kinds = ", ".join(f"{kind} {n}" for kind, n in row.kinds)
        lines.append(f"step {row.step}: {row.on} on it, {row.ran} ran, {row.failed} failed"
                     + (f" ({kinds})" if kinds else "")
                     + (f"; {', '.join(row.names)}" if row.names else ""))
    return "\n".join(lines)
