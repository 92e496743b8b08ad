"""Take the live class's two screenshots: the teacher's window with its Class dock, and a
follower's window offered the way back to the teacher's step (docs/live-class.md).

A real Jupyter Server with its collaboration layer is started for it; the teacher and
three followers are windows of this process (in-process engines). Run it on an X server
the size of the screen::

    Xvfb :99 -screen 0 1280x800x24 &
    DISPLAY=:99 .venv/bin/python docs/live_screenshots.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _jupyter_server import jupyter_server  # noqa: E402

from workbench.client.server import server_target  # noqa: E402
from workbench.engine.inprocess import InProcessClient  # noqa: E402
from workbench.lessons.bundled import LESSONS_DIR  # noqa: E402
from workbench.ui.control.engine_bridge import EngineBridge  # noqa: E402
from workbench.ui.storage.settings import Settings  # noqa: E402
from workbench.ui.window.app import collect_in_gui_thread  # noqa: E402
from workbench.ui.window.main_window import MainWindow  # noqa: E402

OUT = ROOT / "assets" / "screenshots"
LESSON = "02_transformations.ipynb"
BROKEN = ("import jax.numpy as jnp\n\n\ndef loss(w, x, y):\n"
          "    # (x @ w) was the lesson's: a student's slip\n"
          "    prediction = x @ jnp.ones(4)\n"
          "    return jnp.mean((prediction - y) ** 2)\n")
WIDTH, HEIGHT = 1280, 800


def main() -> int:
    app = QApplication(sys.argv[:1])
    tmp = Path(tempfile.mkdtemp())
    collector = collect_in_gui_thread()  # the cyclic collector on the GUI thread, as the app's

    def spin(done, timeout: float = 60, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            app.processEvents()
            time.sleep(0.01)

    def settle(seconds: float) -> None:
        end = time.monotonic() + seconds
        spin(lambda: time.monotonic() > end, seconds + 1)

    def window(i: int) -> MainWindow:
        w = MainWindow(None, settings=Settings(tmp / f"settings{i}.ini"),
                       autosave_dir=tmp / f"autosave{i}", ask=False, console=True,
                       engine=EngineBridge(client_factory=InProcessClient))
        w.move(0, 0)
        w.resize(WIDTH, HEIGHT)
        w.trust_lesson(tmp / LESSON)
        return w

    def shoot(w: MainWindow, name: str) -> None:
        for other in everyone:
            other.setVisible(other is w)
        w.move(0, 0)
        w.resize(WIDTH, HEIGHT)
        w.raise_()
        settle(2.0)
        path = OUT / name
        app.primaryScreen().grabWindow(0, 0, 0, WIDTH, HEIGHT).save(str(path))
        print(f"wrote {path}")

    shutil.copy(LESSONS_DIR / LESSON, tmp / LESSON)
    with jupyter_server(tmp / "server") as (url, token, _):
        target = server_target(url, token)
        teacher = window(0)
        students = [window(i) for i in (1, 2, 3)]
        everyone = [teacher, *students]
        for w in everyone:
            w.show()
        spin(lambda: all(w.engine.state == "idle" for w in everyone), 120, "the engines")
        teacher.set_presentation(True)
        teacher.live_class.teach(tmp / LESSON, target=target)
        spin(lambda: teacher.live_class.link is not None and teacher.live_class.link.connected,
             what="the teacher's room")
        for w, name in zip(students, ("Ada", None, "Bo"), strict=True):
            w.live_class.follow(LESSON, name, target=target)
        spin(lambda: all(w.live_class.link is not None and w.live_class.link.connected
                         and w.lessons.lesson is not None for w in students),
             what="the followers")
        for step in (1, 2, 3):
            teacher.lessons.go_to(step)
            spin(lambda s=step: all(w.lessons.current == s for w in students),
                 what=f"step {step}")
            spin(lambda: not any(w.lessons.busy for w in everyone), what="the runs")
        ada, anonymous, bo = students
        ada.editor.setPlainText(BROKEN)
        spin(lambda: ada.live_class.link.me.failed is not None, what="Ada's failure")
        ada.live_class.ask_for_help()
        bo.lessons.go_to(1)
        panel = teacher.live_class.panel
        spin(lambda: panel.helps.count() == 1 and panel.table_rows()[0][1] == "1",
             what="the class view")
        panel.helps.setCurrentRow(0)
        teacher.live_class.dock.raise_()  # the step brought its own panel in front of it
        shoot(teacher, "live_teacher.png")
        bo.set_presentation(False)
        shoot(bo, "live_follower.png")
        teacher.live_class.leave()
        spin(lambda: all(w.live_class.link is None for w in students), what="the end")
        for w in everyone:
            w.close()
        app.processEvents()
    del collector
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
