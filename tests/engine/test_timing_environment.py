"""User code in the engine runs as it runs in plain Python, so a timing a class sees is Jupyter's.

What would make ``%timeit`` or the Timing panel differ from a plain process: a trace or
profile hook left on (``sys`` or ``threading``), a changed GIL switch interval or
priority, or malloc settings of ours (the kernel once kept blocks up to 1 GiB in one
arena, which made a small jitted call 1.3-1.7x slower). Each is read from inside user
code, in the three places it runs (a console cell, a lesson step in the kernel, a lesson
step under ``workbench lesson --check``), and compared with a plain Python process.
glibc's defaults are observed through glibc itself: a fresh 100 MB block is mapped, not
taken from a heap kept for reuse.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.cli_util import run_cli_process
from tests.kernel_util import plain_console
from workbench.api import messages as p
from workbench.api.process_env import glibc

pytestmark = pytest.mark.skipif(glibc() is None or not hasattr(glibc(), "mallinfo2"),
                                reason="needs glibc 2.33+ (mallinfo2)")

PROBE = """
def _timing_environment():
    import ctypes, json, os, sys, threading
    from workbench.api.process_env import MallInfo2, glibc
    libc = glibc()
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.mallinfo2.restype = MallInfo2
    before = libc.mallinfo2().hblkhd
    block = libc.malloc(100 << 20)
    mapped = libc.mallinfo2().hblkhd - before
    libc.free(block)
    return json.dumps({
        "trace": repr(sys.gettrace()), "profile": repr(sys.getprofile()),
        "thread_trace": repr(threading.gettrace()),
        "thread_profile": repr(threading.getprofile()),
        "switch_interval": sys.getswitchinterval(),
        "priority": os.getpriority(os.PRIO_PROCESS, 0),
        "scheduler": os.sched_getscheduler(0),
        "malloc_env": sorted(k for k in os.environ if k.startswith("MALLOC_")),
        "fresh_100_mb_block_mapped": mapped >= 100 << 20,
    })
"""


@pytest.fixture(scope="module")
def plain() -> dict:
    """The same probe in a bare Python process (no workbench code run, no hooks)."""
    run = subprocess.run([sys.executable, "-c", PROBE + "print(_timing_environment())"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["trace"] == seen["profile"] == "None"  # the yardstick is itself plain
    assert seen["fresh_100_mb_block_mapped"] is True
    return seen


@pytest.mark.kernel
def test_a_console_cell_runs_as_in_plain_python(engine, plain):
    console = plain_console(engine.client.connection_file)
    try:
        reply = console.execute_interactive(
            PROBE, user_expressions={"seen": "_timing_environment()"}, timeout=120)
    finally:
        console.stop_channels()
    content = reply["content"]
    assert content["status"] == "ok", content
    text = content["user_expressions"]["seen"]["data"]["text/plain"]
    assert json.loads(eval(text)) == plain  # a str's repr, as IPython shows it


@pytest.mark.kernel
def test_a_lesson_step_in_the_kernel_runs_as_in_plain_python(engine, plain):
    reply = engine.call(p.LoadSource(source=PROBE + "print(_timing_environment())\n",
                                     filename="t.ipynb, step 1", cell=True, keep_names=True),
                        timeout=120)
    value = p.result_value(reply, p.Functions)
    assert value is not None, p.reply_text(reply)
    assert json.loads(value.outputs[0].text) == plain


def test_a_step_under_lesson_check_runs_as_in_plain_python(tmp_path, plain):
    lesson = tmp_path / "probe.py"
    lesson.write_text(
        "# %% [markdown]\n# The engine's environment, read by the user's code\n\n# %%\n"
        + PROBE + f"assert __import__('json').loads(_timing_environment()) == {plain!r}\n",
        encoding="utf-8")
    run = run_cli_process("lesson", str(lesson), "--check", timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
