"""Take the projector screenshot set: the real window at 1024x768 and 1280x800 in
presentation mode, one bundled lesson step per panel, saved under
assets/screenshots/projector/.

Run it on an X server the size of the screen (no window manager needed)::

    Xvfb :99 -screen 0 1280x800x24 &
    DISPLAY=:99 .venv/bin/python docs/screenshots.py 1280x800
    DISPLAY=:99 .venv/bin/python docs/screenshots.py 1024x768   # on a 1024x768 server

One shot of any lesson (a teacher's own notebook, one of JAX's MyST tutorials)::

    DISPLAY=:99 .venv/bin/python docs/screenshots.py 1280x800 --lesson FILE --step 7 \
        --out assets/screenshots/lesson_myst.png

Each step waits until the engine is idle and the panel has drawn, then the screen is
grabbed (the whole screen: what a projector shows).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSize, QTimer
from PySide6.QtWidgets import QApplication

from workbench.lessons.bundled import LESSONS_DIR
from workbench.ui.storage.settings import Settings
from workbench.ui.window.main_window import MainWindow

OUT = Path(__file__).resolve().parents[1] / "assets" / "screenshots" / "projector"
# (file stem, lesson, step, seconds to let it draw: timing measures, k-means animates)
SHOTS = (
    ("tree", "02_transformations.ipynb", 1, 2.0),
    ("plot", "01_quick_peek.ipynb", 6, 3.0),
    ("crosshair", "01_quick_peek.ipynb", 5, 3.0),
    ("timing", "01_quick_peek.ipynb", 7, 12.0),
    ("kmeans", "04_kmeans_from_scratch.ipynb", 6, 6.0),
    ("graph", "02_transformations.ipynb", 3, 3.0),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", choices=("1024x768", "1280x800"))
    parser.add_argument("--only", help="one shot's name: " + ", ".join(s[0] for s in SHOTS))
    parser.add_argument("--lesson", type=Path, help="one shot of this lesson (with --step, --out)")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    shots = [s for s in SHOTS if args.only in (None, s[0])]
    if args.lesson is not None:
        shots = [(str(args.out), str(args.lesson.resolve()), args.step, 4.0)]
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    app = QApplication(sys.argv[:1])
    window = MainWindow(None, settings=Settings(tmp / "settings.ini"),
                        autosave_dir=tmp / "autosave", ask=False, console=True)
    window.move(0, 0)
    window.resize(width, height)
    window.show()
    window.set_presentation(True)
    for _, lesson, _, _ in shots:
        window.trust_lesson(LESSONS_DIR / lesson)
    queue = list(shots)
    state = {"open": None, "until": 0.0, "shot": None}

    def tick() -> None:
        if state["shot"] is None:
            if not queue:
                app.quit()
                return
            name, lesson, step, settle = queue.pop(0)
            if state["open"] != lesson:
                window.open_lesson(LESSONS_DIR / lesson)
                state["open"] = lesson
            window.lessons.go_to(step)
            state["shot"], state["until"] = name, time.monotonic() + settle
            return
        if window.engine.state != "idle" or time.monotonic() < state["until"]:
            return
        if window.size() != QSize(width, height):
            # As a window manager keeps a maximised window: the screen's size (a window
            # whose minimum is larger cannot be: that is an error, said here).
            hint = window.minimumSizeHint()
            if hint.width() > width or hint.height() > height:
                print(f"the window's minimum {hint.width()}x{hint.height()} exceeds the screen")
            window.resize(width, height)
            state["until"] = time.monotonic() + 1.0
            return
        path = Path(state["shot"]) if args.lesson else OUT / f"{state['shot']}_{args.size}.png"
        app.primaryScreen().grabWindow(0, 0, 0, width, height).save(str(path))
        print(f"wrote {path} (window {window.width()}x{window.height()})")
        state["shot"] = None

    timer = QTimer(interval=200)
    timer.timeout.connect(tick)
    QTimer.singleShot(2000, timer.start)  # the engine starts after the first frame
    app.exec()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
