"""What Stop and a crash say, as text a teacher reads out: where the user's code was, for how
long, and a crash's last words with the user's frames only (the real kernel's cases are in
``tests/faults``)."""

from __future__ import annotations

from workbench.client.stop import duration_text, where_text
from workbench.client.supervision import user_frames_only

FAULTHANDLER = """\
Fatal Python error: Segmentation fault

Current thread 0x00007f3c1f7fe740 (most recent call first):
  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at
  File "demo.ipynb, step 3", line 2 in poke
  File "/home/t/demo.py", line 7 in <module>
  File "/work/workbench/engine/source.py", line 149 in load_source
  File "/work/workbench/engine/service.py", line 87 in handle
  File "<frozen runpy>", line 88 in _run_code

Extension modules: numpy._core._multiarray_umath, jaxlib.cpu_feature_guard (total: 2)
"""


def test_a_crash_shows_the_users_frames_and_counts_the_rest():
    shown = user_frames_only(FAULTHANDLER, {"/home/t/demo.py", "demo.ipynb, step 3"})
    assert shown == """\
Fatal Python error: Segmentation fault

Current thread 0x00007f3c1f7fe740 (most recent call first):
  File "demo.ipynb, step 3", line 2 in poke
  File "/home/t/demo.py", line 7 in <module>
  (4 frames outside your code left out)"""


def test_a_crash_outside_the_users_code_says_so():
    shown = user_frames_only(FAULTHANDLER, {"editor.py"})
    assert "File " not in shown
    assert shown.endswith("(6 frames left out: none of them is your code)")


def test_a_traceback_in_the_log_keeps_the_users_code_lines_and_what_is_not_a_frame():
    log = """\
warming up
Traceback (most recent call last):
  File "/work/workbench/engine/kernel.py", line 263, in on_msg
    reply = self.run(comm, request)
  File "/tmp/ipykernel_4242/3141592653.py", line 1, in <module>
    sys.exit(3)
    ^^^^^^^^^^^
SystemExit: 3"""
    assert user_frames_only(log, set()) == """\
warming up
Traceback (most recent call last):
  File "/tmp/ipykernel_4242/3141592653.py", line 1, in <module>
    sys.exit(3)
    ^^^^^^^^^^^
  (1 frame outside your code left out)
SystemExit: 3"""
    assert user_frames_only("killed, no last words", {"editor.py"}) == "killed, no last words"


def test_how_long_it_ran_reads_out_loud():
    assert duration_text(8.14) == "8.1 s"
    assert duration_text(0.0) == "0.0 s"
    assert duration_text(59.97) == "1 min"
    assert duration_text(125.3) == "2 min 5 s"


def test_where_names_another_file_only_when_it_is_not_the_requests_own():
    assert where_text(22, "editor.py", "editor.py") == " at line 22"
    assert where_text(3, "/home/t/helpers.py", "/home/t/demo.py") == \
        " at line 3 of helpers.py"
    assert where_text(3, "loops.ipynb, step 1", "loops.ipynb, step 2") == \
        " at line 3 of loops.ipynb, step 1,"
    assert where_text(0, "", "editor.py") == ""
