"""`workbench` with no sub-command opens the window; without a display it says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_no_display_is_one_clear_line():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "workbench.cli"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0]


@pytest.mark.parametrize(("args", "said"), [
    (["--teach", "x.ipynb"], "--teach needs --server URL (the class's Jupyter Server)"),
    (["--follow", "x.ipynb"], "--follow needs --server URL (the class's Jupyter Server)"),
    (["--student-name", "Ada"], "--student-name goes with --follow LESSON"),
    (["--server", "http://127.0.0.1:9/", "--teach", "x.ipynb", "--follow", "x.ipynb"],
     "--teach and --follow: a window teaches or follows, not both"),
    (["--server", "http://127.0.0.1:9/", "--teach", "missing.ipynb"],
     "--teach missing.ipynb: no such lesson file"),
    (["--server", "http://127.0.0.1:9/", "--follow", "../x.ipynb"],
     "'../x.ipynb' is not a lesson's name on the server (a file name such as "
     "02_transformations.ipynb, or folder/name.ipynb)"),
])
def test_a_live_class_asked_for_wrongly_is_one_line(capsys, args, said):
    from workbench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"workbench: error: {said}"]
