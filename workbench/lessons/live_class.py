"""A live class as plain data: where the teacher is, how each student is doing, and the
teacher's view of the class, one row a step.

Each window publishes its state in the shared lesson's awareness (the collaboration
server's per-peer state, which every peer sees). Peers are untrusted: a state that is
not exactly one of the two shapes below is dropped with a log line, never applied, so a
hostile or broken peer cannot move a follower or skew the class view. Nothing of a
student's code or data is in a state unless the student asks for help: a step number,
whether it ran, the error kind when it failed (a key of the error catalog) and, when the
student chose to share it, a name. "Ask for help" adds the step's code and error; the
room sends it to every window in it (awareness has no private messages), and only the
teacher's shows it. No Qt and no server here, so all of it is tested without either.

The room lets any peer write a state under any peer's id, so a teacher's state is signed
(Ed25519, the key kept on the teacher's machine) and numbered: a follower follows the
key it first followed (``TeacherWatch``), and a state that key did not sign, or one of
its older states said again, moves nobody.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import logging
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from workbench.api.writer import atomic_write_bytes

log = logging.getLogger(__name__)

MAX_STEPS = 10_000
MAX_NAME_CHARS = 40
MAX_TEXT_CHARS = 200
MAX_HELP_CODE_CHARS = 20_000
MAX_HELP_ERROR_CHARS = 2_000
SHARED_FOLDER = "workbench-live"
"""Where a taught lesson is put on the server (and where JupyterLab shows it)."""
LESSON_SUFFIXES = (".ipynb", ".md", ".myst", ".mystnb", ".py")
# The error catalog's keys (``tracer-bool``, ``dot-shape``, ...): lower case and dashes.
KIND = re.compile(r"[a-z][a-z0-9-]{0,39}")
SESSION = re.compile(r"[A-Za-z0-9_-]{1,64}")
KEY = re.compile(r"[A-Za-z0-9_-]{43}")  # an Ed25519 public key, base64url without padding
SIGNATURE = re.compile(r"[A-Za-z0-9_-]{86}")
MAX_SEQ = 2**53  # what JSON numbers hold exactly
# A teacher's state older than this by a follower's clock is not followed: the teacher says
# it again every 15 s, and clocks of a class's machines differ by less.
MAX_AGE_S = 600
MAX_TEACHER_KEYS = 8  # more keys that say they teach: a flood, followed by no one
VERIFY_PER_KEY = 4  # a key's newest states whose signatures are checked


@dataclass(frozen=True)
class TeacherState:
    """The teacher's window: the lesson taught, its current step (1-based; 0 while the
    lesson's overview shows) and mode."""

    session: str
    lesson: str
    step: int
    steps: int
    presenting: bool = False
    ended: bool = False
    key: str = ""  # the teacher's public key: whose state this is
    seq: int = 0  # rises with every state the teacher says
    sig: str = ""  # the key's signature of all the fields above

    def signed_bytes(self) -> bytes:
        return json.dumps([self.session, self.lesson, self.step, self.steps, self.presenting,
                           self.ended, self.key, self.seq], separators=(",", ":")).encode()

    def verified(self) -> bool:
        return _verified(self.key, self.sig, self.signed_bytes())


@functools.lru_cache(maxsize=256)
def _verified(key: str, sig: str, signed: bytes) -> bool:
    """Once per state: every peer's message has a window read all the states again."""
    try:
        Ed25519PublicKey.from_public_bytes(_unb64(key)).verify(_unb64(sig), signed)
    except (InvalidSignature, ValueError):
        return False
    return True


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TeacherKey:
    """The key a teacher's states are signed with, kept in a private file so that a
    teacher's window started again is the same teacher to the class."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public = _b64(private.public_key().public_bytes_raw())
        self._seq = 0

    @classmethod
    def generate(cls) -> TeacherKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def stored(cls, path: Path) -> TeacherKey:
        """The key in ``path`` (made there, readable by its owner only, the first time)."""
        try:
            return cls(Ed25519PrivateKey.from_private_bytes(path.read_bytes()))
        except FileNotFoundError:
            key = Ed25519PrivateKey.generate()
        except (OSError, ValueError) as exc:  # left as it is: it may be readable again
            log.warning("live class: the teacher's key in %s is unreadable (%s): a key for "
                        "this session only", path, exc)
            return cls.generate()
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write_bytes(path, key.private_bytes_raw(), mode=0o600)
        except OSError as exc:  # this session's key only: a window started again is new
            log.warning("live class: the teacher's key was not kept: %s", exc)
        return cls(key)

    def sign(self, state: TeacherState) -> TeacherState:
        """``state`` as this key's, numbered after every one signed before (microseconds of
        the clock: still rising when the window is started again)."""
        self._seq = max(self._seq + 1, time.time_ns() // 1000)
        unsigned = dataclasses.replace(state, key=self.public, seq=self._seq, sig="")
        return dataclasses.replace(unsigned,
                                   sig=_b64(self._private.sign(unsigned.signed_bytes())))


@dataclass(frozen=True)
class HelpRequest:
    """What a student sent with "ask for help": the step, its code as the student has it,
    and its error (the catalog's words and Python's first lines)."""

    step: int
    code: str
    error: str = ""


@dataclass(frozen=True)
class StudentState:
    """A student's window: the step shown (0: none yet), whether it follows the teacher,
    and how the step's last run went (``failed`` is the catalog's kind, or None)."""

    step: int
    following: bool = True
    ran: bool = False
    failed: str | None = None
    name: str | None = None  # only when the student chose to share it
    help: HelpRequest | None = None  # only when the student asked


PeerState = TeacherState | StudentState


def to_awareness(state: PeerState) -> dict[str, object]:
    """The JSON-ready form a window puts in the awareness."""
    if isinstance(state, TeacherState):
        return {"role": "teacher", "session": state.session, "lesson": state.lesson,
                "step": state.step, "steps": state.steps, "presenting": state.presenting,
                "ended": state.ended, "key": state.key, "seq": state.seq, "sig": state.sig}
    out: dict[str, object] = {"role": "student", "step": state.step,
                              "following": state.following, "ran": state.ran,
                              "failed": state.failed}
    if state.name is not None:
        out["name"] = state.name
    if state.help is not None:
        out["help"] = {"step": state.help.step, "code": state.help.code,
                       "error": state.help.error}
    return out


def shared_path(lesson: str) -> str:
    """The server path of the lesson named ``lesson`` (a file name: the teacher's
    ``02_transformations.ipynb`` is ``workbench-live/02_transformations.ipynb``; a path
    with a folder is the server's own). Raises ValueError for anything else."""
    name = lesson.strip().replace("\\", "/")
    parts = [part for part in name.split("/") if part]
    if (not parts or name.startswith("/") or any(part in (".", "..") for part in parts)
            or any(ch < " " for ch in name) or len(name) > MAX_TEXT_CHARS):
        raise ValueError(f"{lesson[:80]!r} is not a lesson's name on the server (a file "
                         "name such as 02_transformations.ipynb, or folder/name.ipynb)")
    if not parts[-1].lower().endswith(LESSON_SUFFIXES):
        raise ValueError(f"{parts[-1][:80]!r} is not a lesson file (.ipynb, MyST .md, or a "
                         "Jupytext .py)")
    return "/".join(parts) if len(parts) > 1 else f"{SHARED_FOLDER}/{parts[0]}"


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
    if not printable(value):
        raise ValueError(f"{key} has control or formatting characters")
    return value


def printable(text: str, keep: str = "") -> bool:
    """No control or formatting character (a terminal's escapes, a right-to-left override
    that makes a name read otherwise) but those in ``keep``."""
    return all(ch in keep or unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def make_printable(text: str, keep: str = "") -> str:
    """``text`` without the characters ``printable`` refuses."""
    return "".join(ch for ch in text if ch in keep or unicodedata.category(ch) not in
                   ("Cc", "Cf"))


def _help(raw: object) -> HelpRequest | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ValueError("help is not an object")
    code, error = raw.get("code"), raw.get("error", "")
    for key, value, limit in (("code", code, MAX_HELP_CODE_CHARS),
                              ("error", error, MAX_HELP_ERROR_CHARS)):
        if not isinstance(value, str) or len(value) > limit:
            raise ValueError(f"help's {key} is not a text of at most {limit} characters")
        # Code has lines and tabs; no other control character (a terminal's escapes).
        if not printable(value, keep="\n\t"):
            raise ValueError(f"help's {key} has control or formatting characters")
    return HelpRequest(step=_int(raw, "step", 1, MAX_STEPS), code=str(code), error=str(error))


def read_peer(raw: object, peer: object = "?", verify: bool = True) -> PeerState | None:
    """A peer's awareness state, checked; None (and a log line) for anything else.

    An empty state (a peer that has not said anything yet, or has left) is None too,
    without a log line. ``verify=False``: a teacher's signature is left to the caller.
    """
    if raw is None or raw == {}:
        return None
    try:
        if not isinstance(raw, Mapping):
            raise ValueError(f"a {type(raw).__name__}, not an object")
        role = raw.get("role")
        if role == "teacher":
            steps = _int(raw, "steps", 1, MAX_STEPS)
            teacher = TeacherState(
                session=_text(raw, "session", 64, SESSION) or "",
                lesson=_text(raw, "lesson", MAX_TEXT_CHARS) or "",
                step=_int(raw, "step", 0, steps), steps=steps,
                presenting=_bool(raw, "presenting", False), ended=_bool(raw, "ended", False),
                key=_text(raw, "key", 43, KEY) or "", seq=_int(raw, "seq", 0, MAX_SEQ),
                sig=_text(raw, "sig", 86, SIGNATURE) or "")
            if verify and not teacher.verified():
                raise ValueError("a teacher's state its key did not sign")
            return teacher
        if role == "student":
            failed = _text(raw, "failed", 40, KIND, optional=True)
            ran = _bool(raw, "ran", False)
            if failed is not None and not ran:
                raise ValueError("failed without having run")
            return StudentState(step=_int(raw, "step", 0, MAX_STEPS),
                                following=_bool(raw, "following", True), ran=ran,
                                failed=failed,
                                name=_text(raw, "name", MAX_NAME_CHARS, optional=True),
                                help=_help(raw.get("help")))
        raise ValueError(f"role is {role!r}, not teacher or student")
    except ValueError as exc:
        log.warning("live class: dropped the state of peer %s: %s", peer, exc)
        return None


def the_teacher(states: Mapping[Any, object], key: str | None = None,
                fresh_after: int = 0) -> TeacherState | None:
    """The one teacher among the peers' raw states (the one of ``key``, when given); None
    when none (or, with no key, several) teach. States numbered before ``fresh_after``
    are not looked at.

    Two keys both teaching is a hostile or confused class: nobody is followed until one of
    them stops, rather than whichever spoke last. Signatures are checked last, newest
    first and a few a key: a room full of forged states costs a window little.
    """
    by_key: dict[str, list[tuple[Any, TeacherState]]] = {}
    for peer, raw in states.items():
        s = read_peer(raw, peer, verify=False)
        if isinstance(s, TeacherState) and (key is None or s.key == key):
            if s.seq < fresh_after:
                log.warning("live class: dropped the state of peer %s: a teacher's state "
                            "from %.0f minutes before", peer,
                            (fresh_after - s.seq) / 60e6 + MAX_AGE_S / 60)
            else:
                by_key.setdefault(s.key, []).append((peer, s))
    if len(by_key) > MAX_TEACHER_KEYS:
        log.warning("live class: %d keys claim to teach; following none", len(by_key))
        return None
    found = []
    for said in by_key.values():
        # One teacher's window that joined again has a new peer id, and its old state
        # lingers a while: the same key, and its newest state is where the teacher is.
        signed = None
        for peer, s in sorted(said, key=lambda p: p[1].seq, reverse=True)[:VERIFY_PER_KEY]:
            if not s.verified():
                log.warning("live class: dropped the state of peer %s: a teacher's state its "
                            "key did not sign", peer)
            elif signed is None:
                signed = s
        if signed is not None:
            found.append(signed)
    if len(found) > 1:
        log.warning("live class: %d peers claim to teach; following none", len(found))
    return found[0] if len(found) == 1 else None


@dataclass
class TeacherWatch:
    """Whom a follower follows: the key of the first teacher it followed, and that key's
    newest state. An older state of that key said again by any peer is stale, and so is
    one signed over ``MAX_AGE_S`` ago by this machine's clock (a teacher renews its state
    every 15 s): an old class's states said again move nobody who joins later. A teacher
    first seen ending its class has not been followed: it has ended nothing here."""

    key: str | None = None
    newest: TeacherState | None = None

    def teacher(self, states: Mapping[Any, object], now: float | None = None
                ) -> TeacherState | None:
        now = time.time() if now is None else now
        found = the_teacher(states, self.key, int((now - MAX_AGE_S) * 1e6))
        if found is None or (found.ended and self.newest is None):
            return None
        if self.newest is not None and found.seq < self.newest.seq:
            log.warning("live class: dropped an older state of the teacher said again "
                        "(session %s)", found.session)
            return self.newest
        self.key, self.newest = found.key, found
        return found


@dataclass(frozen=True)
class StepRow:
    """One row of the teacher's class view."""

    step: int
    on: int  # students whose window shows this step
    ran: int  # ... and ran it
    failed: int  # ... and whose run failed
    kinds: tuple[tuple[str, int], ...]  # failures by catalog kind, most first
    names: tuple[str, ...]  # names shared by the students on it


def students(states: Mapping[Any, object]) -> dict[Any, StudentState]:
    """The peers that are students, by peer, their states checked (see ``read_peer``)."""
    return {peer: s for peer, raw in states.items()
            if isinstance(s := read_peer(raw, peer, verify=False), StudentState)}


def class_view(states: Mapping[Any, object], steps: int) -> tuple[StepRow, ...]:
    """Per step, what the class is doing, from the peers' raw states (teachers and
    dropped states are not counted; a step past the lesson's end is not shown)."""
    return class_rows(students(states).values(), steps)


def class_rows(students: Iterable[StudentState], steps: int) -> tuple[StepRow, ...]:
    """``class_view`` of states already checked."""
    students = list(students)
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


def follow(teacher: TeacherState | None, me: StudentState, lesson: str,
           gone: bool = False) -> FollowMove:
    """A follower's move: to the teacher's step while following; a student exploring on
    their own stays put and is offered the way back. ``gone``: the teacher followed until
    now is no longer in the room (its window went without ending the class)."""
    if teacher is None and gone:
        return FollowMove(None, None, "the teacher's window went quiet without ending the "
                          "class (its connection dropped?): waiting for it to come back")
    if teacher is None:
        return FollowMove(None, None, f"{lesson} is not being taught right now")
    if teacher.lesson != lesson:
        return FollowMove(None, None, f"the teacher is teaching {teacher.lesson}, not {lesson}")
    if teacher.ended:
        return FollowMove(None, None, "the teacher ended the class")
    if teacher.step == 0:  # the teacher shows the lesson's overview: no step to go to
        return FollowMove(None, None)
    if me.following:
        return FollowMove(teacher.step if teacher.step != me.step else None, None)
    if teacher.step == me.step:
        return FollowMove(None, None)
    return FollowMove(None, f"back to the teacher: step {teacher.step}")


@dataclass(frozen=True)
class HelpRow:
    """A student's request for help, as the teacher's class view lists it."""

    peer: object
    who: str  # the shared name, or "a student"
    request: HelpRequest
    failed: str | None  # the kind of the step's last failure, if it failed


def help_rows(students: Mapping[Any, StudentState]) -> tuple[HelpRow, ...]:
    """The requests for help, by step then name."""
    rows = [HelpRow(peer, s.name or "a student", s.help, s.failed if s.step == s.help.step
                    else None)
            for peer, s in students.items() if s.help is not None]
    return tuple(sorted(rows, key=lambda r: (r.request.step, r.who, str(r.peer))))


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


@dataclass(frozen=True)
class ClassSnapshot:
    """The teacher's class view at one moment: a row a step, the requests for help."""

    rows: tuple[StepRow, ...]
    helps: tuple[HelpRow, ...]
    students: int
    teacher_step: int

    def summary(self) -> str:
        """One line for the top of the class view."""
        if not self.students:
            return "no student has joined yet"
        here = self.rows[self.teacher_step - 1].on if 1 <= self.teacher_step <= len(
            self.rows) else 0
        failed = sum(row.failed for row in self.rows)
        parts = [f"{self.students} student{'s' if self.students != 1 else ''}"]
        if self.teacher_step:
            parts.append(f"{here} on your step {self.teacher_step}")
        if failed:
            parts.append(f"{failed} failing")
        if self.helps:
            parts.append(f"{len(self.helps)} asking for help")
        return ", ".join(parts)


def snapshot(states: Mapping[Any, object], steps: int, teacher_step: int) -> ClassSnapshot:
    """The class view from the peers' raw states (each checked once)."""
    checked = students(states)
    asking = {peer: s for peer, s in checked.items()
              if s.help is not None and s.help.step <= steps}
    return ClassSnapshot(class_rows(checked.values(), steps), help_rows(asking),
                         len(checked), teacher_step)
