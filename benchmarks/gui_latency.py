"""How fast the window follows the user, offscreen, on a real engine kernel.

* edit -> tree: from the live-mode debounce firing to the jaxpr tree painted,
  median and p90 over edits of every bundled example; beside it, the same
  trace in-process (no kernel, no Qt), so the ratio is what the window and the
  kernel add. Target: median under 50 ms.
* start: from launching the process to the window's first frame painted, and
  to the engine ready (first answer). Targets: window under 0.6 s, engine under
  2 s.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_latency.py [--edits 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _util import spin_until  # noqa: E402

STARTUP_CHILD = r"""
import sys, time
t0 = float(sys.argv[1])
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.ui.window.main_window import MainWindow
from workbench.ui.storage.settings import Settings
w = MainWindow(None, settings=Settings(sys.argv[2]), autosave_dir=sys.argv[3], ask=False,
               console=False)
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            print("SHOWN", time.time() - t0, flush=True)
        return False
first_paint = FirstPaint()
w.installEventFilter(first_paint)
w.show()
def ready():
    print("READY", time.time() - t0, flush=True)
    w.close()
    app.quit()
w.sig_engine_ready.connect(ready)
app.exec()
"""


def startup(runs: int) -> tuple[list[float], list[float]]:
    shown, ready = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            t0 = time.time()
            out = subprocess.run(
                [sys.executable, "-c", STARTUP_CHILD, repr(t0), f"{tmp}/s{i}.ini", f"{tmp}/a{i}"],
                capture_output=True, text=True, timeout=120,
            ).stdout
            for line in out.splitlines():
                key, _, value = line.partition(" ")
                if key == "SHOWN":
                    shown.append(float(value))
                elif key == "READY":
                    ready.append(float(value))
    return shown, ready


def edit_to_tree(edits: int) -> tuple[list[float], list[float]]:
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.engine.source import load_source
    from workbench.engine.trace import trace_function
    from workbench.examples import bundled_examples
    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    tmp = tempfile.mkdtemp()
    window = MainWindow(None, settings=Settings(f"{tmp}/s.ini"), autosave_dir=f"{tmp}/a",
                        ask=False, console=False)
    window.resize(1280, 800)
    window.show()


    spin_until(app, lambda: window.engine.state == "idle")
    marks: dict[str, float] = {}

    class PaintWatch(QObject):
        def eventFilter(self, obj, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint and "traced" in marks and "painted" not in marks:
                marks["painted"] = time.perf_counter()
            return False

    watch = PaintWatch()
    window.jaxpr.tree.viewport().installEventFilter(watch)
    window.tracer.live_timer.timeout.connect(lambda: marks.setdefault("fired", time.perf_counter()))
    # A reply to a request sent before this edit (opening the example sends one) can land
    # after ``marks.clear()``: only a trace that follows the debounce firing counts.
    window.sig_traced.connect(
        lambda _r: "fired" in marks and marks.setdefault("traced", time.perf_counter()))

    gui, engine = [], []
    for example in bundled_examples():
        window.open_example(example)
        marks.clear()
        spin_until(app, lambda: "painted" in marks)
        source = example.path.read_text()
        for i in range(edits):
            marks.clear()
            window.editor.setPlainText(source + f"\n# edit {i}\n")
            spin_until(app, lambda: "painted" in marks)
            gui.append(marks["painted"] - marks["fired"])
            t0 = time.perf_counter()
            loaded = load_source(source + f"\n# edit {i}\n", example.path.name)
            trace_function(loaded, example.function, example.args, example.transforms)
            engine.append(time.perf_counter() - t0)
    QTimer.singleShot(0, window.close)
    window.close()
    return gui, engine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=10, help="edits per example")
    parser.add_argument("--starts", type=int, default=5, help="cold starts")
    opts = parser.parse_args()

    gui, engine = edit_to_tree(opts.edits)
    gui_ms = sorted(t * 1e3 for t in gui)
    eng_ms = sorted(t * 1e3 for t in engine)
    p90 = gui_ms[int(0.9 * (len(gui_ms) - 1))]
    med, eng_med = statistics.median(gui_ms), statistics.median(eng_ms)
    print(f"edit -> tree painted ({len(gui_ms)} edits over the examples)")
    print(f"  window (kernel + Qt)  median {med:6.1f} ms   p90 {p90:6.1f} ms   "
          "target median < 25 ms, p90 < 50 ms")
    print(f"  load + trace in-process median {eng_med:6.1f} ms")
    print(f"  ratio window / engine {med / eng_med:6.2f}")
    shown, ready = startup(opts.starts)
    print(f"cold start ({len(shown)} runs, medians)")
    print(f"  window shown   {statistics.median(shown):5.2f} s   target < 0.6 s")
    print(f"  engine ready   {statistics.median(ready):5.2f} s   target < 2 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
