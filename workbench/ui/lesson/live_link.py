"""A window's part in a live class: the teacher's window says where it is, a follower's
moves with it and says how its steps go, both through the lesson's room on the class's
Jupyter Server (``LiveRoom``).

Everything that waits on the network (putting the lesson on the server or fetching it,
joining, every state sent) runs off the GUI thread: a slow or lost server never freezes
the window. Peers' states arrive on the room's reader thread and reach the GUI thread by a
queued signal; what they mean, and whether to believe them, is
``workbench.lessons.live_class``'s to say. A room that drops is joined again, waiting
longer each time; joining says hello, and the teacher's answer brings a follower to the
teacher's step.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.api.errors import Explanation
from workbench.api.writer import atomic_write_bytes
from workbench.client.live_room import RENEW_S, LiveRoom, LiveRoomError
from workbench.client.server import JupyterServer, ServerError, ServerTarget
from workbench.lessons.formats import content_key
from workbench.lessons.live_class import (
    MAX_HELP_CODE_CHARS,
    MAX_HELP_ERROR_CHARS,
    HelpRequest,
    StudentState,
    TeacherKey,
    TeacherState,
    TeacherWatch,
    follow,
    make_printable,
    snapshot,
    to_awareness,
)
from workbench.ui.lesson.lesson_controller import LessonController

log = logging.getLogger(__name__)

TEACHER, STUDENT = "teacher", "student"
CLASS_VIEW_EVERY_MS = 100  # the class view repaints at most this often, however many speak
RETRY_FIRST_S, RETRY_MOST_S, RETRIES = 1, 15, 12
ANSWER_WAIT_S = 5.0  # after joining: how long the peers' answers to our hello may take


class LiveLink(QObject):
    """One window in one live class, as its teacher or as a student following."""

    sig_joined = Signal(str)
    """In the class: the lesson (a local file) is open."""
    sig_failed = Signal(str)
    """Could not join (or rejoin): why, in one line. The link is over."""
    sig_status = Signal(str)
    """Where the class is and how this window stands (the live bar's line)."""
    sig_notice = Signal(str)
    """Something to say once (the class ended, the lesson is not being taught)."""
    sig_back = Signal(str)
    """The words of the way back to the teacher's step ("" when there is none)."""
    sig_class = Signal(object)
    """The teacher's class view changed (a ``ClassSnapshot``)."""
    sig_left = Signal()
    """The link is over (left, ended, or gave up)."""
    _sig_peers = Signal(int, object)
    _sig_room = Signal(int, object, object)

    def __init__(self, role: str, target: ServerTarget, lesson: str, shared: str,
                 lessons: LessonController, *, local: Path, name: str | None = None,
                 key: TeacherKey | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.target = target
        self.lesson = lesson  # its name, as the class knows it
        self.shared = shared  # its path on the server
        self.local = local  # the teacher's file; a follower's copy of the server's
        self._fetched: bytes | None = None  # a follower's: the lesson as the server has it
        self.lessons = lessons
        self.room: LiveRoom | None = None
        self.presenting = False
        self.me = StudentState(step=0, name=name or None)
        self.teacher: TeacherState | None = None
        self.key = key or TeacherKey.generate()  # what a teacher's states are signed with
        self.watch = TeacherWatch()  # a follower's teacher: the key it first followed
        self.session = uuid.uuid4().hex[:16]
        self._generation = 0  # of the room: a dropped room's last words are ignored
        self._moving = False  # the follower moves with the teacher (not on its own)
        self._over = False
        self._last_notice = ""
        self._tries = 0
        self._peers: dict[int, object] = {}
        self._error: Explanation | None = None  # of the step shown's last run, if it failed
        self._answers_by = 0.0  # until then, no teacher may only mean no answer yet
        self._sender = ThreadPoolExecutor(1, thread_name_prefix="workbench-live-send")
        self._last_sent: Future[object] | None = None
        self._class_timer = QTimer(self, singleShot=True, interval=CLASS_VIEW_EVERY_MS)
        self._class_timer.timeout.connect(self._show_class)
        self._retry_timer = QTimer(self, singleShot=True)
        self._retry_timer.timeout.connect(self._rejoin)
        self._renew_timer = QTimer(self, interval=int(RENEW_S * 1000))
        self._renew_timer.timeout.connect(self._renew)
        self._joined = False  # the class's lesson is open here: its steps are the class's
        self._replay: tuple[int, dict[int, object]] | None = None
        self._sig_peers.connect(self._on_peers)
        self._sig_room.connect(self._on_room)
        lessons.sig_step_changed.connect(self._on_step)
        lessons.sig_step_chosen.connect(self._on_step_chosen)
        lessons.sig_judged.connect(self._on_judged)

    # ------------------------------------------------------------------ joining, leaving

    @property
    def teaching(self) -> bool:
        return self.role == TEACHER

    @property
    def connected(self) -> bool:
        return self.room is not None and self.room.connected

    def start(self) -> None:
        """Join on a thread: the teacher puts the lesson on the server first, a follower
        fetches it; ``sig_joined`` or ``sig_failed`` says how it went."""
        self.sig_status.emit(f"joining the class on {self.target.label}…")
        self._open(first=True)

    def _open(self, first: bool) -> None:
        self._generation += 1
        generation = self._generation
        threading.Thread(target=self._join, args=(generation, first), daemon=True,
                         name="workbench-live-join").start()

    def _join(self, generation: int, first: bool) -> None:
        try:
            if first:
                server = JupyterServer(self.target)
                if self.teaching:
                    server.write_file(self.shared, self.local.read_bytes())
                else:  # written where the window reads it (the copy may be open there)
                    self._fetched = server.read_file(self.shared)
            room = LiveRoom(self.target.url, self.target.token, self.shared,
                            on_peers=lambda peers: self._emit_peers(generation, peers))
            result: object = room.open()
        except (ServerError, LiveRoomError, OSError) as exc:
            result = str(exc)
        except Exception as exc:  # noqa: BLE001 (a thread's end must still be said)
            log.warning("live class: joining failed", exc_info=True)
            result = f"could not join the class on {self.target.label}: {exc}"
        try:
            self._sig_room.emit(generation, result, first)
        except RuntimeError:  # the window closed meanwhile
            if isinstance(result, LiveRoom):
                result.close()

    def _emit_peers(self, generation: int, peers: dict[int, object]) -> None:
        with contextlib.suppress(RuntimeError):  # the window closed meanwhile
            self._sig_peers.emit(generation, peers)

    def _on_room(self, generation: int, result: object, first: bool) -> None:
        if generation != self._generation or self._over:
            if isinstance(result, LiveRoom):  # joined too late: left at once, off this thread
                threading.Thread(target=result.close, daemon=True).start()
            return
        if not isinstance(result, LiveRoom):
            if first:
                self._finish()
                self.sig_failed.emit(str(result))
            else:
                self._retry(str(result))
            return
        self.room, self._tries = result, 0
        self._answers_by = time.monotonic() + ANSWER_WAIT_S
        if first:
            lesson = self.lessons.lesson
            opened = lesson is not None and lesson.path == self.local
            if not self.teaching and (problem := self._keep_fetched(opened)):
                self.leave()
                self.sig_failed.emit(problem)
                return
            opened = opened and (self.teaching or lesson is self.lessons.lesson)
            if not opened and not self.lessons.open(self.local):
                self.leave()
                self.sig_failed.emit(f"{self.lesson} was not opened: the lesson open before "
                                     "stays")
                return
            self.lessons.sig_opened.connect(self._on_other_lesson)
            self.lessons.sig_closed.connect(self._on_other_lesson)
            if not self.teaching:
                # Where this window was in the lesson before is not where the class is; and
                # its code may run is asked now, not when the teacher first moves it.
                self.me = StudentState(step=self.lessons.current, name=self.me.name)
                lesson = self.lessons.lesson
                if lesson is not None:
                    self.lessons.trust.may_run(lesson, self.lessons.document.ask)
            self._joined = True
            self._renew_timer.start()
            self.sig_joined.emit(str(self.local))
        self._say()
        self._on_peers(generation, self.room.peers())

    def _keep_fetched(self, opened: bool) -> str:
        """A follower's copy of the lesson as fetched, unless the copy open is those very
        bytes; what went wrong ("" when nothing did). Following again, the copy open may be
        older (the teacher's lesson changed): edits of it are not written over."""
        data, lesson = self._fetched or b"", self.lessons.lesson
        if opened and lesson is not None and lesson.content_key == content_key(data):
            return ""
        if opened and self.lessons.has_unsaved_edits():
            return (f"the teacher's {self.lesson} changed since your copy was opened, and "
                    "your edits of it are not saved: Lesson › Save Lesson As… keeps them "
                    "elsewhere; then follow again")
        try:
            self.local.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write_bytes(self.local, data)
        except OSError as exc:
            return f"could not keep the lesson at {self.local}: {exc}"
        if opened:
            self.lessons.close()  # the new bytes are read afresh below
        return ""

    def leave(self) -> None:
        """Leave the class; a teacher's leaving ends it for every follower (one notice)."""
        if self._over:
            return
        room = self.room
        if room is not None and self.teaching and room.connected:
            ended = self.key.sign(dataclasses.replace(self._teacher_state(), ended=True))
            self._sender.submit(self._send, room, to_awareness(ended))
        self._finish()

    def _finish(self) -> None:
        self._over = True
        self._generation += 1
        self._retry_timer.stop()
        self._class_timer.stop()
        self._renew_timer.stop()
        room, self.room = self.room, None
        if room is not None:
            self._last_sent = self._sender.submit(room.close)
        self._sender.shutdown(wait=False)
        self.sig_back.emit("")
        self.sig_left.emit()

    def wait_sent(self, timeout: float = 5.0) -> bool:
        """Wait until what was said has gone (a closing window's last words)."""
        last = self._last_sent
        if last is None:
            return True
        try:
            last.result(timeout)
        except Exception:  # noqa: BLE001 (timed out, or the close failed: gone either way)
            return last.done()
        return True

    def _retry(self, why: str) -> None:
        self._tries += 1
        if self._tries > RETRIES:
            self._finish()
            self.sig_failed.emit(f"lost the class on {self.target.label} ({why}): Follow "
                                 "again to rejoin")
            return
        delay = min(RETRY_FIRST_S * 2 ** (self._tries - 1), RETRY_MOST_S)
        self.sig_status.emit(f"lost the connection to the class: joining again in {delay} s")
        self._retry_timer.start(delay * 1000)

    def _rejoin(self) -> None:
        if not self._over:
            self._open(first=False)

    def _renew(self) -> None:
        """Say our state again and ping; look again at the peers (one whose state was not
        renewed is gone: a teacher whose window vanished, a student who left)."""
        room = self.room
        if room is None or self._over:
            return
        if self.teaching:  # signed anew: a state of long ago said again is told apart
            self._say()
        self._last_sent = self._sender.submit(self._quietly, room.renew)
        self._on_peers(self._generation, room.peers())

    # ------------------------------------------------------------------ saying

    def _teacher_state(self, step: int | None = None) -> TeacherState:
        lesson = self.lessons.lesson
        steps = len(lesson.steps) if lesson is not None else 1
        step = self.lessons.current if step is None else step
        return self.key.sign(TeacherState(session=self.session, lesson=self.lesson,
                                          step=min(step, steps), steps=max(steps, 1),
                                          presenting=self.presenting))

    def _say(self, step: int | None = None) -> None:
        room = self.room
        if room is None or self._over:
            return
        state = self._teacher_state(step) if self.teaching else self.me
        self._last_sent = self._sender.submit(self._send, room, to_awareness(state))

    @staticmethod
    def _send(room: LiveRoom, state: dict[str, object]) -> None:
        LiveLink._quietly(room.say, state)

    @staticmethod
    def _quietly(send: Callable[..., None], *args: object) -> None:
        try:
            send(*args)
        except Exception as exc:  # noqa: BLE001 (a dropped socket: the reader sees it too)
            log.info("live class: could not send: %s", exc)

    def set_presenting(self, on: bool) -> None:
        if on != self.presenting:
            self.presenting = on
            if self.teaching:
                self._say()

    # ------------------------------------------------------------------ the lesson moves

    def _on_other_lesson(self, _lesson: object = None) -> None:
        """Another lesson was opened, or this one closed: the class is over for this
        window (a teacher's ends it for everyone)."""
        lesson = self.lessons.lesson
        if self._over or (lesson is not None and lesson.path == self.local):
            return
        self.leave()
        self.sig_notice.emit(f"the class on {self.lesson} ended: the lesson was closed"
                             if self.teaching else
                             f"you left the class on {self.lesson}: the lesson was closed")

    def _on_step_chosen(self, number: int) -> None:
        """The teacher's class moves as the teacher's step is chosen, not after the
        teacher's own window has placed and started it."""
        if self.teaching and not self._over:
            self._say(step=number)
            if not self._class_timer.isActive():
                self._class_timer.start()  # the ▶ moves with the teacher

    def _on_step(self, number: int) -> None:
        if self._over or self.teaching or not self._joined:
            return
        teacher = self.teacher
        following = self._moving or (teacher is not None and number == teacher.step)
        help_ = self.me.help if self.me.help is not None and self.me.help.step == number \
            else None
        self.me = dataclasses.replace(self.me, step=number, following=following, ran=False,
                                      failed=None, help=help_)
        self._error = None
        self._say()
        self._show_follow()

    def _on_judged(self, number: int, kind: str, error: Explanation | None) -> None:
        if self._over or self.teaching or number != self.me.step:
            return
        self._error = error if kind else None
        help_ = None if not kind else self.me.help
        self.me = dataclasses.replace(self.me, ran=True, failed=kind or None, help=help_)
        self._say()

    def back_to_teacher(self) -> None:
        """The student comes back: to the teacher's step, following again."""
        teacher = self.teacher
        if self._over or self.teaching or teacher is None or not teacher.step:
            return
        self.me = dataclasses.replace(self.me, following=True)
        if teacher.step == self.lessons.current:
            self._say()
            self._show_follow()
            return
        self._go(teacher.step)

    def ask_for_help(self) -> str:
        """Send the step's code and error to the teacher; what was sent, in words."""
        lesson, number = self.lessons.lesson, self.me.step
        if self._over or self.teaching or lesson is None or not 1 <= number <= len(
                lesson.steps):
            return "pick a step first: help is asked about the step shown"
        code = self.lessons.codes.get(number, lesson.step(number).code)
        error = self._error
        words = ""
        if error is not None:
            specifics = f"\n{error.specifics}" if error.specifics else ""
            words = f"{error.kind}: {error.title}{specifics}\n\n{error.message}"
        self.me = dataclasses.replace(self.me, help=HelpRequest(
            step=number, code=make_printable(code, keep="\n\t")[:MAX_HELP_CODE_CHARS],
            error=make_printable(words, keep="\n\t")[:MAX_HELP_ERROR_CHARS]))
        self._say()
        return (f"sent to the teacher: step {number}'s code"
                + (" and its error" if error is not None else ""))

    def _go(self, number: int) -> None:
        lesson = self.lessons.lesson
        if lesson is None or lesson.path != self.local:
            return  # another lesson is open (a question about leaving this one is open)
        self._moving = True
        try:
            self.lessons.go_to(number)
        finally:
            self._moving = False
        replay, self._replay = self._replay, None
        if replay is not None:  # what the peers said while a question held the move
            QTimer.singleShot(0, lambda: self._on_peers(*replay))

    # ------------------------------------------------------------------ the peers speak

    def _on_peers(self, generation: int, peers: dict[int, object]) -> None:
        if generation != self._generation or self._over:
            return
        if self.room is None:
            return  # still joining (the room's reader hears peers first): judged on joining
        if self._moving:  # a modal question (trust, unsaved edits) runs the event loop
            self._replay = (generation, peers)
            return
        if not self.room.connected:
            dropped, self.room = self.room, None
            self._sender.submit(dropped.close)
            self._retry("the connection dropped")
            return
        self._peers = peers
        if self.teaching:
            if not self._class_timer.isActive():
                self._class_timer.start()
            return
        teacher = self.watch.teacher(peers)
        if teacher is not None and teacher.lesson == self.lesson and teacher.ended:
            self._notice("the teacher ended the class: the lesson stays open, yours to "
                         "explore")
            self._finish()
            return
        self.teacher = teacher
        move = follow(teacher, self.me, self.lesson, gone=self.watch.newest is not None)
        if move.notice and teacher is None and time.monotonic() < self._answers_by:
            # Just joined: the peers' answers to our hello are on their way.
            QTimer.singleShot(int((self._answers_by - time.monotonic()) * 1000) + 10,
                              lambda g=generation: self._on_peers(g, self._room_peers()))
            self.sig_status.emit("waiting for the teacher…")
            return
        if move.notice:
            self._notice(move.notice)
        elif self._last_notice and teacher is not None:
            self._notice(f"{self.lesson} is being taught now: following the teacher")
        if move.step is not None:
            self._go(move.step)
        self._show_follow()

    def _room_peers(self) -> dict[int, object]:
        return self.room.peers() if self.room is not None else {}

    def _show_follow(self) -> None:
        teacher, me = self.teacher, self.me
        if teacher is None or teacher.lesson != self.lesson:
            self.sig_status.emit(self._last_notice or "waiting for the teacher")
            self.sig_back.emit("")
            return
        self._last_notice = ""
        if not teacher.step:
            self.sig_status.emit("following the teacher: the lesson's overview")
            self.sig_back.emit("")
        elif me.following or me.step == teacher.step:
            self.sig_status.emit(f"following the teacher: step {teacher.step}")
            self.sig_back.emit("")
        else:
            self.sig_status.emit(f"on your own at step {me.step}; the teacher is on step "
                                 f"{teacher.step}")
            self.sig_back.emit(f"back to the teacher: step {teacher.step}")

    def _notice(self, text: str) -> None:
        if text != self._last_notice:
            self._last_notice = text
            self.sig_notice.emit(text)

    def _show_class(self) -> None:
        lesson = self.lessons.lesson
        if lesson is None or self._over:
            return
        view = snapshot(self._peers, len(lesson.steps), self.lessons.current)
        self.sig_class.emit(view)
        self.sig_status.emit(f"teaching {self.lesson} on {self.target.label}: "
                             f"{view.summary()}")

