"""A live class in real windows over a real Jupyter Server with its collaboration layer: a
teacher and two followers move together through a bundled lesson, a follower's edits
survive the teacher's moves, a student who explores is offered the way back, the class
view counts failures by kind and lists a request for help, a dropped follower catches up,
and the teacher's leaving ends the class with one notice."""

from __future__ import annotations

import shutil

import pytest

from tests.server_util import running_jupyter_server
from workbench.client.server import JupyterServer, server_target
from workbench.lessons.bundled import LESSONS_DIR
from workbench.lessons.formats import content_key
from workbench.lessons.live_class import SHARED_FOLDER

pytest.importorskip("jupyter_server_ydoc", reason="needs jupyter-server-ydoc (the test extra)")

LESSON = "02_transformations.ipynb"
BROKEN = ("import jax.numpy as jnp\n\n\ndef loss(w, x, y):\n"
          "    return jnp.sum(x @ jnp.ones(4))\n")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    with running_jupyter_server(folder) as server:
        yield server


def _target(server):
    return server_target(server.url, server.token)


def _teacher(qtbot, make_window, server, tmp_path):
    teacher = make_window()
    lesson = tmp_path / LESSON
    shutil.copy(LESSONS_DIR / LESSON, lesson)
    teacher.trust_lesson(lesson)
    assert teacher.live_class.teach(lesson, target=_target(server))
    qtbot.waitUntil(lambda: teacher.live_class.link is not None
                    and teacher.live_class.link.connected, timeout=30000)
    return teacher


def _follower(qtbot, make_window, server, name=None):
    window = make_window()
    window.trust_lesson(LESSONS_DIR / LESSON)  # the same bytes the teacher shared
    assert window.live_class.follow(LESSON, name, target=_target(server))
    def joined() -> None:
        link = window.live_class.link
        assert window.lessons.lesson is not None and link is not None and link.connected, (
            f"not joined: {window.live_class.bar.status.text()!r}; "
            f"{window.notice_bar.entries}")
    qtbot.waitUntil(joined, timeout=30000)
    return window


def _class_row(teacher, step):
    rows = teacher.live_class.panel.table_rows()
    return rows[step - 1]


def test_followers_move_with_the_teacher_keep_their_edits_and_the_class_is_counted(
        qtbot, make_window, server, tmp_path):
    teacher = _teacher(qtbot, make_window, server, tmp_path)
    ada = _follower(qtbot, make_window, server, name="Ada")
    bo = _follower(qtbot, make_window, server)
    followers = (ada, bo)
    # the shared lesson is the teacher's file, byte for byte, where JupyterLab shows it
    shared = JupyterServer(_target(server)).read_file(f"{SHARED_FOLDER}/{LESSON}")
    assert shared == (tmp_path / LESSON).read_bytes()
    assert ada.live_class.link.local.read_bytes() == shared

    for step in (1, 2):
        teacher.lessons.go_to(step)
        qtbot.waitUntil(lambda s=step: all(f.lessons.current == s for f in followers),
                        timeout=30000)
    qtbot.waitUntil(lambda: _class_row(teacher, 2)[1:3] == ("2", "2"), timeout=30000)
    # joined while the class ran: never told it was not being taught (a room's reader hears
    # other peers before the teacher's answer; that was once said as "not taught")
    assert not [e for f in followers for e in f.notice_bar.entries if "taught" in e]
    assert _class_row(teacher, 2)[0] == "▶ 2"
    assert "Ada" in _class_row(teacher, 2)[5]

    # Ada breaks step 2's code: her step fails, and the class view counts it by kind
    ada.editor.setPlainText(BROKEN)
    qtbot.waitUntil(lambda: _class_row(teacher, 2)[3] == "1", timeout=30000)
    kind = ada.live_class.link.me.failed
    assert kind == "dot-shape"  # the catalog's kind, not the student's code
    assert _class_row(teacher, 2)[4] == f"{kind} ×1"
    # and asks for help: her code and error reach the teacher's view, and nothing before
    assert teacher.live_class.panel.helps.count() == 0
    ada.live_class.ask_for_help()
    qtbot.waitUntil(lambda: teacher.live_class.panel.helps.count() == 1, timeout=30000)
    assert teacher.live_class.panel.helps.item(0).text() == (
        f"step 2: Ada asks for help — {kind}")
    teacher.live_class.panel.helps.setCurrentRow(0)
    assert "x @ jnp.ones(4)" in teacher.live_class.panel.help_text.toPlainText()
    assert kind in teacher.live_class.panel.help_text.toPlainText()

    # The teacher moves on: Ada follows, and her edit of step 2 is still hers
    teacher.lessons.go_to(3)
    qtbot.waitUntil(lambda: all(f.lessons.current == 3 for f in followers), timeout=30000)
    assert ada.lessons.codes[2] == BROKEN
    assert teacher.live_class.panel.helps.count() in (0, 1)  # her request goes with step 2
    qtbot.waitUntil(lambda: teacher.live_class.panel.helps.count() == 0, timeout=30000)

    # Bo explores step 1 on his own: the teacher's moves leave him there, and one click
    # brings him back
    bo.lessons.go_to(1)
    qtbot.waitUntil(lambda: bo.live_class.bar.back_button.text()
                    == "back to the teacher: step 3", timeout=30000)
    assert bo.live_class.bar.back_button.isVisible()
    teacher.lessons.go_to(4)
    qtbot.waitUntil(lambda: ada.lessons.current == 4 and bo.live_class.bar.back_button.text()
                    == "back to the teacher: step 4", timeout=30000)
    assert bo.lessons.current == 1
    qtbot.waitUntil(lambda: _class_row(teacher, 1)[1] == "1", timeout=30000)
    bo.live_class.bar.back_button.click()
    assert bo.lessons.current == 4
    assert not bo.live_class.bar.back_button.isVisible()
    qtbot.waitUntil(lambda: _class_row(teacher, 4)[1] == "2", timeout=30000)

    # Bo's connection drops: he joins again and catches up on the step the teacher took
    link = bo.live_class.link
    link.room._ws.sock.shutdown(2)
    teacher.lessons.go_to(5)
    qtbot.waitUntil(lambda: ada.lessons.current == 5, timeout=30000)
    qtbot.waitUntil(lambda: bo.lessons.current == 5 and link.connected, timeout=30000)
    assert bo.live_class.link is link  # the same class, joined again

    # The teacher's connection drops: the teacher joins again (a new peer id, the old
    # state lingering), and the class still follows one teacher
    teaching = teacher.live_class.link
    teaching.room._ws.sock.shutdown(2)
    qtbot.waitUntil(lambda: not teaching.connected, timeout=30000)
    qtbot.waitUntil(lambda: teaching.connected, timeout=30000)
    teacher.lessons.go_to(6)
    qtbot.waitUntil(lambda: all(f.lessons.current == 6 for f in followers), timeout=30000)

    # The teacher leaves: each follower hears once that the class ended, and keeps the lesson
    teacher.live_class.leave()
    for follower in followers:
        qtbot.waitUntil(lambda f=follower: f.live_class.link is None, timeout=30000)
        ended = [e for e in follower.notice_bar.entries if "ended the class" in e]
        assert len(ended) == 1, follower.notice_bar.entries
        assert follower.lessons.lesson is not None
        assert not follower.live_class.bar.isVisible()


def test_a_lesson_nobody_teaches_says_so_and_a_missing_one_is_one_line(
        qtbot, make_window, server):
    JupyterServer(_target(server)).write_file(f"{SHARED_FOLDER}/untaught.ipynb",
                                              (LESSONS_DIR / LESSON).read_bytes())
    window = make_window()
    assert window.live_class.follow("untaught.ipynb", target=_target(server))
    qtbot.waitUntil(lambda: any("untaught.ipynb is not being taught right now" in e
                                for e in window.notice_bar.entries), timeout=30000)
    assert window.live_class.bar.status.text() == ("untaught.ipynb is not being taught "
                                                   "right now")
    qtbot.waitUntil(lambda: window.lessons.lesson is not None, timeout=30000)
    window.lessons.close()  # closing the class's lesson leaves the class, said once
    assert window.live_class.link is None
    assert [e for e in window.notice_bar.entries if "left the class" in e] == [
        "you left the class on untaught.ipynb: the lesson was closed"]
    assert window.live_class.follow("nowhere.ipynb", target=_target(server))
    qtbot.waitUntil(lambda: any("has no file 'workbench-live/nowhere.ipynb'" in e
                                for e in window.notice_bar.entries), timeout=30000)
    assert window.live_class.link is None


def test_following_again_opens_the_lesson_as_the_server_has_it_now(
        qtbot, make_window, server):
    """The copy fetched the first time may still be open when the window follows again; the
    teacher's lesson has changed since: the window opens what it fetched now."""
    shared = f"{SHARED_FOLDER}/again.ipynb"
    server_api = JupyterServer(_target(server))
    server_api.write_file(shared, (LESSONS_DIR / LESSON).read_bytes())
    window = make_window()
    assert window.live_class.follow("again.ipynb", target=_target(server))
    qtbot.waitUntil(lambda: window.lessons.lesson is not None
                    and window.live_class.link is not None
                    and window.live_class.link.connected, timeout=30000)
    first = window.lessons.lesson
    window.live_class.leave()
    assert window.lessons.lesson is first  # left the class, the lesson stays open
    changed = (LESSONS_DIR / "01_quick_peek.ipynb").read_bytes()
    server_api.write_file(shared, changed)
    # Edits of the copy open are not written over: the window says what to do instead.
    window.lessons.go_to(1)
    window.editor.setPlainText("mine = 1\n")
    assert window.lessons.has_unsaved_edits()
    assert window.live_class.follow("again.ipynb", target=_target(server))
    qtbot.waitUntil(lambda: any("your edits of it are not saved" in e
                                for e in window.notice_bar.entries), timeout=30000)
    assert window.lessons.lesson is first and window.live_class.link is None
    assert first.path.read_bytes() == (LESSONS_DIR / LESSON).read_bytes()
    assert window.lessons.codes == {1: "mine = 1\n"}
    window.lessons.reset_step()  # the edit given up
    qtbot.waitUntil(lambda: not window.lessons.busy, timeout=30000)
    assert window.live_class.follow("again.ipynb", target=_target(server))
    qtbot.waitUntil(lambda: window.lessons.lesson is not first, timeout=30000)
    assert window.lessons.lesson.content_key == content_key(changed)
    assert window.lessons.lesson.path == first.path  # the same copy, fetched afresh


def test_without_a_server_the_window_says_how_to_get_one(make_window, tmp_path):
    window = make_window()
    assert not window.live_class.follow(LESSON)
    assert "workbench --server URL" in window.statusBar().currentMessage()
