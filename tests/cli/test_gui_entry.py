"""`workbench` with no sub-command opens the window; without a display it says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys


def test_no_display_is_one_clear_line():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "workbench.cli"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0]
