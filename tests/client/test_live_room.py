"""A live class over a real Jupyter Server with its collaboration layer (jupyter-server-ydoc):
a teacher and three headless followers in the shared lesson's room, the class view counted
from what the followers say, a hostile peer dropped, a wrong token refused."""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time

import pytest

from tests.kernel_util import wait_until
from tests.server_util import running_jupyter_server
from workbench.client.live_room import FIELD, LiveRoom, LiveRoomError
from workbench.lessons.bundled import LESSONS_DIR
from workbench.lessons.live_class import (
    StudentState,
    TeacherKey,
    TeacherState,
    class_view,
    follow,
    the_teacher,
    to_awareness,
)

pytest.importorskip("jupyter_server_ydoc", reason="needs jupyter-server-ydoc (the test extra)")

LESSON = "02_transformations.ipynb"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("live")
    shutil.copy(LESSONS_DIR / LESSON, folder / LESSON)
    with running_jupyter_server(folder) as server:
        yield server


def _room(server, **kwargs) -> LiveRoom:
    return LiveRoom(server.url, server.token, LESSON, **kwargs).open()


def test_the_room_holds_the_notebook_as_jupyterlab_opens_it(server):
    with open(LESSONS_DIR / LESSON, encoding="utf-8") as fh:
        cells = json.load(fh)["cells"]
    room = _room(server)
    try:
        # The server loads the file into the room after the first sync: it comes as updates.
        wait_until(lambda: len(room.cell_sources()) == len(cells), 30, "the notebook's cells")
        assert room.cell_sources() == ["".join(c["source"]) for c in cells]
    finally:
        room.close()


def test_followers_move_with_the_teacher_and_the_class_view_counts_them(server):
    teacher = _room(server)
    changed = threading.Event()
    followers = [_room(server, on_peers=lambda _: changed.set()) for _ in range(3)]
    try:
        key = TeacherKey.generate()
        for step in (2, 5):
            taught = key.sign(TeacherState(session="s1", lesson=LESSON, step=step, steps=8))
            teacher.say(to_awareness(taught))
            wait_until(lambda t=taught: all(the_teacher(f.peers()) == t for f in followers),
                       30, f"every follower to see step {step}")
            for i, f in enumerate(followers):
                me = StudentState(step=1 if step == 2 else 2)
                move = follow(the_teacher(f.peers()), me, LESSON)
                assert move.step == step
                failed = "dot-shape" if i == 0 else None
                f.say(to_awareness(StudentState(step=step, ran=True, failed=failed,
                                                name="Ada" if i == 2 else None)))
            wait_until(lambda s=step: class_view(teacher.peers(), 8)[s - 1].on == 3, 30,
                       "the teacher to see the three students")
            row = class_view(teacher.peers(), 8)[step - 1]
            assert (row.on, row.ran, row.failed) == (3, 3, 1)
            assert row.kinds == (("dot-shape", 1),) and row.names == ("Ada",)
        assert changed.is_set()
        # A student on their own stays put, and is offered the way back.
        away = follow(the_teacher(followers[0].peers()), StudentState(step=7, following=False),
                      LESSON)
        assert away.step is None and away.back_label == "back to the teacher: step 5"
    finally:
        for room in (teacher, *followers):
            room.close()
    # A closed window leaves the room: the others no longer count it.
    watcher = _room(server)
    try:
        wait_until(lambda: not [s for s in watcher.peers().values() if s], 30,
                   "the closed windows' states to go")
    finally:
        watcher.close()


def test_a_hostile_peer_is_dropped_with_a_log_line(server, caplog):
    teacher, student = _room(server), _room(server)
    try:
        taught = to_awareness(TeacherKey.generate().sign(
            TeacherState(session="s2", lesson=LESSON, step=3, steps=8)))
        teacher.say(taught)
        # The teacher's state with another step, its signature kept: a forgery.
        student.say({**taught, "step": 99, "steps": 128})
        with caplog.at_level(logging.WARNING):
            wait_until(lambda: any(isinstance(s, dict) and s.get("step") == 99
                                   for s in teacher.peers().values()), 30, "the hostile state")
            assert class_view(teacher.peers(), 8)[2].on == 0
            watcher = _room(server)
            try:
                wait_until(lambda: len([s for s in watcher.peers().values() if s]) == 2, 30,
                           "the teacher's state and the forged one")
                assert the_teacher(watcher.peers()).step == 3  # the forged one dropped
            finally:
                watcher.close()
        assert "dropped the state of peer" in caplog.text
        assert FIELD == "workbench"
    finally:
        teacher.close()
        student.close()


def test_a_peer_whose_connection_dropped_is_gone_once_its_state_is_outdated(
        server, monkeypatch):
    # The server only relays awareness: a window that vanished (no goodbye) leaves its last
    # state behind, so states not renewed in time are not peers any more.
    from workbench.client import live_room

    monkeypatch.setattr(live_room, "OUTDATED_S", 1.0)
    teacher, student = _room(server), _room(server)
    try:
        student.say(to_awareness(StudentState(step=2)))
        wait_until(lambda: len(teacher.peers()) == 1, 30, "the student")
        # A window that renews its unchanged state stays: peers take a renewal only under a
        # new clock (the same state sent again would be ignored, and outdated in 1 s).
        def clock() -> int:
            return teacher._awareness.meta[student.client_id]["clock"]

        stays_until = time.monotonic() + 2.5  # well past OUTDATED_S
        while time.monotonic() < stays_until:
            before = clock()
            student.renew()
            wait_until(lambda b=before: clock() > b, 5, "the renewal taken as new")
            assert teacher.peers() == {student.client_id: to_awareness(StudentState(step=2))}
        student._ws.sock.shutdown(2)  # gone without a word
        wait_until(lambda: not teacher.peers(), 30, "the vanished student dropped")
        teacher.renew()  # a live window renews its state and pings the server: still there
        assert teacher.connected
    finally:
        teacher.close()
        student.close()


def test_a_wrong_token_is_refused_with_a_readable_message(server):
    with pytest.raises(LiveRoomError, match="refused the token"):
        LiveRoom(server.url, "not-the-token", LESSON, timeout=10).open()
