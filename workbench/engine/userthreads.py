"""The threads the user's code started, and where each is: what may still hold the engine.

A thread printing in a loop runs on after a Stop (Python cannot stop a thread), and one
that a request waits for keeps the engine busy. Stop says so ("a thread started at line
6 still runs, at line 4") instead of leaving the teacher to guess. ``Thread.start`` is
wrapped once, in the engine's process, to note the line of the code that started each.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Collection
from typing import Any

from workbench.engine.source_info import running_at

_STARTED_AT = "_workbench_started_at"
_installed = False


def install() -> None:
    """Note, for every thread started from now on, the file and line that started it."""
    global _installed
    if _installed:
        return
    _installed = True
    original = threading.Thread.start

    def start(self: threading.Thread, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)
        setattr(self, _STARTED_AT, (caller.f_code.co_filename, caller.f_lineno or 0))
        original(self, *args, **kwargs)

    start.__wrapped__ = original  # type: ignore[attr-defined]
    threading.Thread.start = start  # type: ignore[method-assign]


def running_threads_note(user_files: Collection[str], own_file: str = "") -> str:
    """``a thread started at line 6 still runs, at line 4`` for each live thread the user's
    code started (other files are named); "" when there is none."""
    frames = sys._current_frames()
    notes = []
    for thread in threading.enumerate():
        started = getattr(thread, _STARTED_AT, None)
        if thread is threading.main_thread() or started is None or not thread.is_alive():
            continue
        file, line = started
        if file not in user_files:
            continue
        at_file, at_line, _ = running_at(frames.get(thread.ident or -1), user_files)
        where = f" line {line}" + ("" if file == own_file else f" of {_name(file)}")
        now = (f", at line {at_line}" + ("" if at_file in ("", own_file)
                                         else f" of {_name(at_file)}")) if at_line else ""
        notes.append(f"a thread started at{where} still runs{now}")
    if not notes:
        return ""
    return "; ".join(notes) + " (Stop cannot stop a thread: Restart engine ends it)"


def _name(path: str) -> str:
    return os.path.basename(path)
