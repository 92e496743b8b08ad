"""One real window on a real X server (Xvfb): `workbench` starts, draws, traces and quits.

`.ci/run` installs Xvfb and the libraries Qt's xcb plugin loads where they are missing;
elsewhere these tests skip and say why, naming the missing libraries.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

XVFB = shutil.which("Xvfb")
pytestmark = pytest.mark.skipif(XVFB is None, reason="Xvfb is not installed (apt-get install xvfb)")

# Qt's own account of a plugin it found but could not load (QT_DEBUG_PLUGINS=1): the
# dynamic loader's error, which names the first library it could not load.
_LOAD_ERROR = re.compile(r"Cannot load library (\S*libqxcb\.so): \(?([^\n\"]+?)\)?\"?$",
                         re.MULTILINE)
_PROBE = "from PySide6.QtGui import QGuiApplication\nQGuiApplication([])\n"


def xcb_load_failure(display: str) -> str | None:
    """Why Qt's xcb platform plugin cannot start on ``display``, or None when it can.

    A load failure of the plugin is reported with every library it lacks: the one
    in the loader's error and, where ``ldd`` runs, every other it lists as not found.
    Any other failure to start fails the calling test with Qt's output.
    """
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", QT_DEBUG_PLUGINS="1")
    probe = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                           text=True, timeout=60)
    if probe.returncode == 0:
        return None
    said = probe.stdout + probe.stderr
    match = _LOAD_ERROR.search(said)
    if match is None:
        pytest.fail(f"Qt could not start on {display} (exit {probe.returncode}):\n{said}")
    plugin, error = match.groups()
    names = [error.split(":")[0]]
    if shutil.which("ldd"):
        listed = subprocess.run(["ldd", plugin], env=env, capture_output=True, text=True,
                                timeout=60).stdout
        names += re.findall(r"^\s*(\S+) => not found", listed, re.MULTILINE)
    return (f"Qt's xcb platform plugin cannot load {', '.join(dict.fromkeys(names))} "
            f"({error}); .ci/run installs the libraries it needs")


@pytest.fixture
def xserver(tmp_path):
    read_fd, write_fd = os.pipe()
    log = open(tmp_path / "xvfb.log", "w")  # noqa: SIM115 (closed at teardown)
    # -noreset: an X server resets when its last client leaves, and refuses connections
    # meanwhile; each screenshot is a client that leaves, so without it the window's own
    # connection can land in a reset ("could not connect to display").
    proc = subprocess.Popen(
        [XVFB, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp",
         "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=log,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as fh:
        display = fh.readline().strip()  # Xvfb writes the display number once it listens
    if not display:
        proc.kill()
        pytest.fail("Xvfb did not start")
    try:
        why = xcb_load_failure(f":{display}")
        if why is not None:
            pytest.skip(why)
        yield f":{display}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _screenshot(display: str):
    from PIL import ImageGrab

    return ImageGrab.grab(xdisplay=display)


def _drawn(image) -> bool:
    """A drawn window: many colours, and no single colour covering 97% of the screen."""
    colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    if colours is None:  # more than 65536 colours: certainly drawn
        return True
    top = max(count for count, _ in colours)
    return len(colours) > 50 and top < 0.97 * image.width * image.height


def test_workbench_window_is_drawn(qtbot, xserver, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(
        os.environ,
        DISPLAY=xserver,
        QT_QPA_PLATFORM="xcb",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_RUNTIME_DIR=str(tmp_path),
    )
    exe = Path(sys.executable).with_name("workbench")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "workbench.cli"]
    app = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    try:
        shots = [None]  # the latest only: 4 MB each, taken until the window shows

        def drawn() -> bool:
            shots[-1] = _screenshot(xserver)
            return _drawn(shots[-1])

        try:
            qtbot.waitUntil(drawn, timeout=30000)
        except qtbot.TimeoutError:
            app.kill()
            xvfb = (tmp_path / "xvfb.log").read_text()
            pytest.fail(f"the window was not drawn in 30 s; its output:\n{app.communicate()[0]}"
                        f"\nXvfb said:\n{xvfb}")
        shots[-1].save(tmp_path / "workbench.png")
        assert shots[-1].size == (1280, 800)
        # A first start fills a screen of a projector's size: the bottom-right corner is the
        # window's status bar (the colour of its menu bar), not the X server's bare root.
        image = shots[-1].convert("RGB")
        assert image.getpixel((1279, 799)) == image.getpixel((0, 0)) != (0, 0, 0)
        app.send_signal(signal.SIGINT)
        assert app.wait(timeout=20) == 0, app.stdout.read()
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    out = app.stdout.read()
    assert "Traceback" not in out, out


XDOTOOL = shutil.which("xdotool")


@pytest.mark.skipif(XDOTOOL is None, reason="xdotool is not installed (apt-get install xdotool)")
def test_a_teachers_session_with_real_key_events(xserver, tmp_path):
    """Type, trace, fail a trace, crash the engine, present, step a lesson: on a real X
    server."""
    out = tmp_path / "seen.json"
    env = dict(os.environ, DISPLAY=xserver, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / ".config"), XDG_RUNTIME_DIR=str(tmp_path))
    driver = Path(__file__).with_name("e2e_teacher.py")
    run = subprocess.run([sys.executable, str(driver), str(out)], env=env, text=True,
                         capture_output=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    seen = json.loads(out.read_text())
    assert seen["typed"].startswith("def selu(x): return")  # the keys reached the editor
    assert seen["traced"] == "selu" and seen["tree_rows"] > 0
    assert seen["stale_banner"].startswith("last good: selu(f32[1000]) — this call failed")
    assert seen["tree_enabled_after_failure"] is False
    assert seen["marks"] == [seen["abort_line"]]
    assert seen["visible_lines"] >= 10
    assert seen["notice"].count("engine died") == 1
    assert seen["presentation_points"] == pytest.approx(seen["button_points"] * 1.5)
    assert seen["lesson_opened"] is True
    assert "step 2 of 8" in seen["lesson_title"]
    assert seen["lesson_text_left_of_editor"] is True
    assert seen["plot_tab_clicks"][-1] == "Plot" and len(seen["plot_tab_clicks"]) <= 5
    assert seen["plot_from_tab_whole"] is True and seen["plot_from_tab_height"] >= 220
