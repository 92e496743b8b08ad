"""The live class's shared state: peers' awareness states checked, the class view counted,
a follower's move decided, all without Qt or a server."""

from __future__ import annotations

import logging

import pytest

from workbench.lessons.live_class import (
    MAX_AGE_S,
    MAX_HELP_CODE_CHARS,
    HelpRequest,
    StudentState,
    TeacherKey,
    TeacherState,
    TeacherWatch,
    class_view,
    counts_line,
    follow,
    read_peer,
    shared_path,
    snapshot,
    the_teacher,
    to_awareness,
)

KEY = TeacherKey.generate()
TEACHER = KEY.sign(TeacherState(session="s-1", lesson="02_transformations.ipynb", step=3,
                                steps=8))


def test_states_go_through_the_awareness_and_back():
    students = [StudentState(step=2), StudentState(step=3, ran=True, failed="dot-shape",
                                                   name="Ada", following=False)]
    for state in (TEACHER, *students):
        assert read_peer(to_awareness(state)) == state
    assert "name" not in to_awareness(students[0])  # not shared: not sent at all


@pytest.mark.parametrize("raw", [
    [1, 2],
    "teacher",
    {"role": "admin", "step": 1},
    {"role": "student"},
    {"role": "student", "step": -1},
    {"role": "student", "step": True},  # a JSON true is not step 1
    {"role": "student", "step": 2.0},
    {"role": "student", "step": 10**9},
    {"role": "student", "step": 1, "following": "yes"},
    {"role": "student", "step": 1, "ran": False, "failed": "dot-shape"},
    {"role": "student", "step": 1, "ran": True, "failed": "<script>"},
    {"role": "student", "step": 1, "name": "x" * 41},
    {"role": "student", "step": 1, "name": "Ada\x1b[2J"},
    {"role": "teacher", "session": "s", "lesson": "l", "step": 9, "steps": 8},
    {"role": "teacher", "session": "../../etc", "lesson": "l", "step": 1, "steps": 8},
    {"role": "teacher", "session": "s", "lesson": "", "step": 1, "steps": 8},
    {"role": "student", "step": 1, "help": "please"},
    {"role": "student", "step": 1, "help": {"step": 1, "code": "x" * (MAX_HELP_CODE_CHARS + 1)}},
    {"role": "student", "step": 1, "help": {"step": 1, "code": "x", "error": "\x1b[31mred"}},
    {"role": "student", "step": 1, "help": {"step": 0, "code": "x"}},
])
def test_a_malformed_or_hostile_state_is_dropped_with_a_log_line(raw, caplog):
    with caplog.at_level(logging.WARNING, logger="workbench.lessons.live_class"):
        assert read_peer(raw, peer=7) is None
    assert len(caplog.records) == 1
    assert caplog.records[0].getMessage().startswith("live class: dropped the state of peer 7")


def test_an_empty_state_is_no_one_and_no_log_line(caplog):
    with caplog.at_level(logging.WARNING):
        assert read_peer({}) is None and read_peer(None) is None
    assert not caplog.records


def test_the_class_view_counts_each_step_and_failures_by_kind():
    states = {
        1: to_awareness(TEACHER),
        2: {"role": "student", "step": 3, "ran": True, "failed": "tracer-bool", "name": "Ada"},
        3: {"role": "student", "step": 3, "ran": True, "failed": "tracer-bool"},
        4: {"role": "student", "step": 3, "ran": True, "failed": "dot-shape"},
        5: {"role": "student", "step": 3, "ran": True},
        6: {"role": "student", "step": 2},
        7: {"role": "student", "step": "3"},  # dropped, not counted
        8: {"role": "student", "step": 12},  # past the end: not a row
    }
    rows = class_view(states, steps=8)
    assert len(rows) == 8
    three = rows[2]
    assert (three.on, three.ran, three.failed) == (4, 4, 3)
    assert three.kinds == (("tracer-bool", 2), ("dot-shape", 1))
    assert three.names == ("Ada",)
    assert (rows[1].on, rows[1].ran, rows[1].failed) == (1, 0, 0)
    assert sum(r.on for r in rows) == 5
    assert counts_line(rows) == ("step 2: 1 on it, 0 ran, 0 failed\n"
                                 "step 3: 4 on it, 4 ran, 3 failed (tracer-bool 2, dot-shape 1);"
                                 " Ada")


def test_two_teachers_are_followed_by_no_one(caplog):
    other = to_awareness(TeacherKey.generate().sign(
        TeacherState(session="s-2", lesson=TEACHER.lesson, step=5, steps=8)))
    assert the_teacher({1: to_awareness(TEACHER)}) == TEACHER
    with caplog.at_level(logging.WARNING):
        assert the_teacher({1: to_awareness(TEACHER), 2: other}) is None
    assert "2 peers claim to teach" in caplog.text
    assert the_teacher({3: {"role": "student", "step": 1}}) is None


def test_a_teacher_who_joined_again_is_one_teacher_where_it_said_last():
    # Its old state lingers under its old peer id until outdated; states come oldest first.
    moved = KEY.sign(TeacherState(session=TEACHER.session, lesson=TEACHER.lesson, step=5,
                                  steps=8))
    states = {1: to_awareness(TEACHER), 9: to_awareness(moved)}
    assert the_teacher(states) == moved
    assert the_teacher({9: to_awareness(moved), 1: to_awareness(TEACHER)}) == moved


def test_a_state_under_the_teachers_key_that_it_did_not_sign_moves_no_one(caplog):
    # The room lets a peer write under any peer's id: a forged step, a key copied onto
    # another state, an unsigned state.
    forged = {**to_awareness(TEACHER), "step": 7}
    unsigned = to_awareness(TeacherState(session="s-1", lesson=TEACHER.lesson, step=7,
                                         steps=8))
    other_key = TeacherKey.generate().sign(TeacherState(session="s-1", lesson=TEACHER.lesson,
                                                        step=7, steps=8))
    borrowed = {**to_awareness(other_key), "key": TEACHER.key}
    for raw in (forged, unsigned, borrowed):
        with caplog.at_level(logging.WARNING, logger="workbench.lessons.live_class"):
            assert read_peer(raw, peer=2) is None
        assert "dropped the state of peer 2" in caplog.text
        caplog.clear()
    assert the_teacher({1: forged}) is None


def test_an_old_class_said_again_moves_no_one_who_joins_later(caplog):
    # Last week's states are genuine, signed by the teacher's key: said again, they are
    # too old by the follower's clock; and an end is no end for one who never followed.
    now = TEACHER.seq / 1e6
    later = now + MAX_AGE_S + 60
    with caplog.at_level(logging.WARNING, logger="workbench.lessons.live_class"):
        assert TeacherWatch().teacher({1: to_awareness(TEACHER)}, now=later) is None
    assert "a teacher's state from 11 minutes before" in caplog.text
    assert TeacherWatch().teacher({1: to_awareness(TEACHER)}, now=now + 30) == TEACHER
    ended = KEY.sign(TeacherState(session="s-1", lesson=TEACHER.lesson, step=3, steps=8,
                                  ended=True))
    assert TeacherWatch().teacher({1: to_awareness(ended)}) is None
    watch = TeacherWatch()
    assert watch.teacher({1: to_awareness(TEACHER)}) == TEACHER
    assert watch.teacher({1: to_awareness(ended)}) == ended  # followed, then ended


def test_a_room_full_of_forged_teachers_is_read_at_a_bounded_cost(caplog):
    forged = {i: {**to_awareness(TEACHER), "seq": TEACHER.seq + i, "step": 1 + i % 8}
              for i in range(1, 2000)}
    with caplog.at_level(logging.WARNING, logger="workbench.lessons.live_class"):
        assert the_teacher({**forged, 0: to_awareness(TEACHER)}) is None  # real one hidden
    assert "did not sign" in caplog.text
    intruders = {i: to_awareness(TeacherKey.generate().sign(TEACHER)) for i in range(9)}
    assert the_teacher({**intruders, 0: to_awareness(TEACHER)}) is None
    assert "keys claim to teach" in caplog.text


def test_a_follower_follows_the_key_it_first_followed_and_never_an_older_state():
    watch = TeacherWatch()
    assert watch.teacher({1: to_awareness(TEACHER)}) == TEACHER
    later = KEY.sign(TeacherState(session="s-1", lesson=TEACHER.lesson, step=5, steps=8))
    assert watch.teacher({1: to_awareness(later)}) == later
    # A peer says the teacher's step-3 state again (validly signed, but older): stale.
    assert watch.teacher({1: to_awareness(TEACHER)}) == later
    # Another key that says it teaches, alone or beside the teacher, is not followed.
    intruder = to_awareness(TeacherKey.generate().sign(
        TeacherState(session="s-9", lesson=TEACHER.lesson, step=8, steps=8)))
    assert watch.teacher({5: intruder, 1: to_awareness(later)}) == later
    assert watch.teacher({5: intruder}) is None
    assert watch.key == KEY.public
    # The teacher's window went without a word: the follower says so, and waits for it.
    gone = follow(watch.teacher({}), StudentState(step=5), TEACHER.lesson,
                  gone=watch.newest is not None)
    assert gone.step is None and gone.notice.startswith("the teacher's window went quiet")
    assert follow(None, StudentState(step=5), TEACHER.lesson).notice == (
        f"{TEACHER.lesson} is not being taught right now")


def test_a_teachers_key_is_kept_privately_and_is_the_same_teacher_again(tmp_path):
    path = tmp_path / "live" / "teacher-key"
    first = TeacherKey.stored(path)
    assert path.stat().st_mode & 0o777 == 0o600
    one = first.sign(TeacherState(session="a", lesson="l.ipynb", step=1, steps=2))
    again = TeacherKey.stored(path)  # the window started again
    assert again.public == first.public
    two = again.sign(TeacherState(session="b", lesson="l.ipynb", step=2, steps=2))
    assert two.seq > one.seq  # still rising for a window started again
    path.write_bytes(b"not a key")  # unreadable: a key for this session, the file kept
    assert TeacherKey.stored(path).public != first.public
    assert path.read_bytes() == b"not a key"
    path.unlink()  # none there: a new key, kept
    made = TeacherKey.stored(path)
    assert TeacherKey.stored(path).public == made.public != first.public


def test_a_name_that_reads_otherwise_is_dropped(caplog):
    with caplog.at_level(logging.WARNING):
        assert read_peer({"role": "student", "step": 1, "name": "Ada\u202egnp.exe"}) is None
    assert read_peer({"role": "student", "step": 1, "name": "Zoë Ngũgĩ"}).name == "Zoë Ngũgĩ"


def test_a_follower_moves_with_the_teacher_and_an_explorer_is_offered_the_way_back():
    lesson = TEACHER.lesson
    assert follow(TEACHER, StudentState(step=1), lesson).step == 3
    assert follow(TEACHER, StudentState(step=3), lesson).step is None
    away = follow(TEACHER, StudentState(step=5, following=False), lesson)
    assert away.step is None and away.back_label == "back to the teacher: step 3"
    assert follow(TEACHER, StudentState(step=3, following=False), lesson).back_label is None


def test_a_follower_is_told_when_no_one_teaches_the_lesson():
    me = StudentState(step=1)
    assert follow(None, me, "03_vmap.ipynb").notice == "03_vmap.ipynb is not being taught right now"
    assert follow(TEACHER, me, "03_vmap.ipynb").notice == (
        "the teacher is teaching 02_transformations.ipynb, not 03_vmap.ipynb")
    ended = KEY.sign(TeacherState(session="s-1", lesson=TEACHER.lesson, step=3, steps=8,
                                  ended=True))
    move = follow(ended, me, TEACHER.lesson)
    assert move.step is None and move.notice == "the teacher ended the class"


def test_help_is_sent_only_when_asked_and_listed_for_the_teacher():
    code = "def loss(w):\n\treturn w @ w\n"
    asking = StudentState(step=2, ran=True, failed="dot-shape", name="Ada",
                          help=HelpRequest(step=2, code=code, error="dot-shape: ..."))
    assert read_peer(to_awareness(asking)) == asking
    assert "help" not in to_awareness(StudentState(step=2, ran=True, failed="dot-shape"))
    view = snapshot({1: to_awareness(TEACHER), 2: to_awareness(asking),
                     3: to_awareness(StudentState(step=3, ran=True))}, steps=8, teacher_step=3)
    assert [(h.who, h.request.step, h.failed) for h in view.helps] == [("Ada", 2, "dot-shape")]
    assert view.summary() == "2 students, 1 on your step 3, 1 failing, 1 asking for help"
    assert snapshot({}, steps=8, teacher_step=0).summary() == "no student has joined yet"


def test_the_teachers_overview_moves_no_one():
    overview = KEY.sign(TeacherState(session="s-1", lesson=TEACHER.lesson, step=0, steps=8))
    assert read_peer(to_awareness(overview)) == overview
    assert follow(overview, StudentState(step=4), TEACHER.lesson).step is None


@pytest.mark.parametrize(("name", "path"), [
    ("02_transformations.ipynb", "workbench-live/02_transformations.ipynb"),
    ("course/week1.md", "course/week1.md"),
    (" intro.py ", "workbench-live/intro.py"),
])
def test_a_lessons_name_is_its_place_on_the_server(name, path):
    assert shared_path(name) == path


@pytest.mark.parametrize("name", ["", "/etc/passwd.ipynb", "../x.ipynb", "a/../../x.ipynb",
                                  "notes.txt", "x\x00.ipynb", "folder/"])
def test_a_name_that_is_no_lesson_on_the_server_is_refused(name):
    with pytest.raises(ValueError, match="not a lesson"):
        shared_path(name)
