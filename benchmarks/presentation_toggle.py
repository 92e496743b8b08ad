"""How fast presentation mode takes effect: toggle, relayout and repaint the whole window.

Offscreen, a real window on a real engine, its panels built. One toggle is
timed from the action to the whole window painted again (``QWidget.grab``
renders every widget), beside a plain repaint of the same window as the
peer; then, presenting, a panel tab brought forward (the first time after a
zoom change, when a background panel takes the new zoom, and later). Target:
median under 100 ms for each.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/presentation_toggle.py [--toggles 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toggles", type=int, default=20)
    opts = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    tmp = tempfile.mkdtemp()
    window = MainWindow(None, settings=Settings(f"{tmp}/s.ini"), autosave_dir=f"{tmp}/a",
                        ask=False, console=True)
    window.resize(1280, 800)
    window.show()
    window.build_panels()
    end = time.monotonic() + 60
    while not (window.tracer.engine_ready and window.engine.state == "idle"):
        if time.monotonic() > end:
            raise TimeoutError("the engine did not start")
        app.processEvents()
    for _ in range(3):
        window.grab()
        app.processEvents()

    toggles, repaints = [], []
    for _ in range(opts.toggles):
        t0 = time.perf_counter()
        window.action_presentation.trigger()
        app.processEvents()
        window.grab()
        toggles.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        app.processEvents()
        window.grab()
        repaints.append(time.perf_counter() - t0)
    # A panel brought forward in presentation mode, right after a zoom change (a panel
    # in a background tab takes the new zoom only then) and again later.
    switches, first_switches = [], []
    for _ in range(max(1, opts.toggles // 4)):
        window.set_presentation(False)
        window.set_presentation(True)
        app.processEvents()
        for round_ in range(2):
            for dock in window.panel_docks:
                t0 = time.perf_counter()
                dock.raise_()
                app.processEvents()
                window.grab()
                (first_switches if round_ == 0 else switches).append(time.perf_counter() - t0)
    window.close()
    med = statistics.median(toggles) * 1e3
    peer = statistics.median(repaints) * 1e3
    print(f"presentation toggle -> whole window repainted ({opts.toggles} toggles, 1280x800)")
    print(f"  toggle + relayout + repaint  median {med:6.1f} ms   p90 "
          f"{sorted(toggles)[int(0.9 * (len(toggles) - 1))] * 1e3:6.1f} ms   target < 100 ms")
    print(f"  plain repaint (peer)         median {peer:6.1f} ms")
    print(f"  ratio toggle / repaint {med / peer:5.2f}")
    for label, times in (("panel switch, first after a zoom", first_switches),
                         ("panel switch, later", switches)):
        m = statistics.median(times) * 1e3
        print(f"  {label:32} median {m:6.1f} ms   p90 "
              f"{sorted(times)[int(0.9 * (len(times) - 1))] * 1e3:6.1f} ms   "
              f"target < 100 ms   ratio / repaint {m / peer:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
