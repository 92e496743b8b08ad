"""Paging past slow steps, offscreen, on a real engine kernel: three PageDowns from the
lesson's overview past two steps that each take ``--slow`` seconds (a ``%timeit`` in a
course notebook, a training loop) to a quick step.

* landing painted: from the third PageDown to the landing step shown (its code in the
  editor, the step selected, its outputs pane saying what it waits for). Target < 1 s
  for a 20 s step. Beside it, the slow step's own time: a window that ran every step it
  passed (as before) painted the landing step's outputs only after both.
* landing ran: from the third PageDown to the landing step's outputs painted: the step
  on its way (the first) finishes, the second is never run.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/lesson_paging.py [--slow 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _util import spin_until  # noqa: E402

TARGET_PAINT_S = 1.0


def paging_lesson(path: Path, slow: float) -> Path:
    path.write_text(
        "# %% [markdown]\n# # Paging\n\n"
        f"# %%\nimport time\ntime.sleep({slow})\nfirst = 1\n\n"
        f"# %%\ntime.sleep({slow})\nsecond = 2\n\n"
        "# %%\nlanded = 3\nlanded\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=float, default=20.0, help="seconds each slow step takes")
    opts = parser.parse_args()

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    tmp = Path(tempfile.mkdtemp())
    lesson = paging_lesson(tmp / "paging.py", opts.slow)
    window = MainWindow(None, settings=Settings(tmp / "s.ini"), autosave_dir=tmp / "a",
                        ask=False, console=False)
    window.resize(1280, 800)
    window.show()
    window.trust_lesson(lesson)
    window.open_lesson(lesson)
    spin_until(app, lambda: window.tracer.engine_ready, timeout=120)
    outputs = window.lesson_panel.outputs
    started = time.perf_counter()
    for _ in range(3):
        QTest.keyClick(window, Qt.Key.Key_PageDown)
    spin_until(app, lambda: window.lesson_panel.current() == 3
               and window.editor.toPlainText().startswith("landed"), timeout=30)
    painted = time.perf_counter() - started
    spin_until(app, lambda: "Out[" in outputs.toPlainText(), timeout=3 * opts.slow + 60)
    ran = time.perf_counter() - started
    window.document.ask = False
    window.close()
    before = 2 * opts.slow  # every step passed ran first
    print(f"landing step painted: {painted * 1000:.0f} ms after the third PageDown "
          f"(target < {TARGET_PAINT_S * 1000:.0f} ms); ratio to one slow step "
          f"({opts.slow:.0f} s): {painted / opts.slow:.3f}")
    print(f"landing step ran: {ran:.1f} s (the step on its way finished, the one passed never "
          f"ran); running every step passed: at least {before:.0f} s; ratio {ran / before:.2f}")
    return 0 if painted < TARGET_PAINT_S else 1


if __name__ == "__main__":
    sys.exit(main())
