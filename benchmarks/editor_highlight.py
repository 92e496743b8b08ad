"""Editor highlighting speed on a 2,000-line file, beside Pygments lexing the same text.

Prints medians of:
  * open: `setPlainText` of a 2,000-line file into a shown editor, (a) until it returns
    (the window is frozen that long; long passes are split into ~40 ms slices) and (b)
    until every line is coloured (lexing cache emptied first, as when a file is opened);
  * keystroke: one character typed in the middle of that file (one line re-lexed);
  * flip: typing `\"\"\"` on the first line turns the whole rest of the file into a
    string (every line re-lexed, the worst single keystroke);
and the peer: Pygments `PythonLexer` lexing the whole text at once (no Qt).

Two files: argparse.py from the standard library (distinct lines) and the bundled
examples repeated (many identical lines, which the line cache shares).

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/editor_highlight.py
Target: open under ~100 ms.
(Measured on a shared 2-core machine: the figures are noisy.)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pygments.lexers.python import PythonLexer  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.ui.editor.editor import CodeEditor  # noqa: E402
from workbench.ui.editor.highlighter import lex_line  # noqa: E402

LINES = 2000
REPEATS = 7


def examples_corpus() -> str:
    """The bundled examples repeated to 2,000 lines: few distinct lines, as in a class demo."""
    lines: list[str] = []
    examples = sorted((ROOT / "assets" / "examples").glob("*.py"))
    while len(lines) < LINES:
        for path in examples:
            lines.extend(path.read_text(encoding="utf-8").splitlines())
    return "\n".join(lines[:LINES])


def distinct_corpus() -> str:
    """2,000 mostly distinct lines of real Python: the standard library's argparse module."""
    import argparse

    lines = Path(argparse.__file__).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[:LINES])


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(app: QApplication, text: str) -> dict[str, float]:
    editor = CodeEditor()
    editor.resize(900, 700)
    editor.show()
    app.processEvents()

    lexer = PythonLexer()
    peer = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        for _token in lexer.get_tokens_unprocessed(text):
            pass
        peer.append(time.perf_counter() - t)

    opened, coloured = [], []
    for _ in range(REPEATS):
        editor.clear()
        app.processEvents()
        lex_line.cache_clear()
        editor.highlighter._runs.clear()
        t = time.perf_counter()
        editor.setPlainText(text)
        opened.append(time.perf_counter() - t)
        while editor.highlighter.is_pending():
            app.processEvents()
        coloured.append(time.perf_counter() - t)

    keystroke = []
    middle = editor.document().findBlockByNumber(LINES // 2)
    for i in range(REPEATS):
        cursor = QTextCursor(middle)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        t = time.perf_counter()
        cursor.insertText("x" if i % 2 == 0 else "y")
        keystroke.append(time.perf_counter() - t)
        app.processEvents()

    flip = []
    for _ in range(REPEATS):
        lex_line.cache_clear()
        editor.highlighter._runs.clear()
        cursor = QTextCursor(editor.document())
        t = time.perf_counter()
        cursor.insertText('"""')
        while editor.highlighter.is_pending():
            app.processEvents()
        flip.append(time.perf_counter() - t)
        cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, 3)
        cursor.removeSelectedText()
        app.processEvents()
    editor.close()
    editor.deleteLater()
    return {
        "peer": median_ms(peer),
        "open": median_ms(opened),
        "coloured": median_ms(coloured),
        "keystroke": median_ms(keystroke),
        "flip": median_ms(flip),
    }


def main() -> None:
    app = QApplication.instance() or QApplication([])
    rows = [
        ("peer: Pygments lexes the whole text", "peer"),
        ("open: setPlainText returns (window frozen)", "open"),
        ("open: every line coloured", "coloured"),
        ("keystroke in the middle line", "keystroke"),
        ("flip: typing triple quotes on line 1", "flip"),
    ]
    results = {}
    for name, text in (("argparse.py", distinct_corpus()), ("examples", examples_corpus())):
        results[name] = (len(text.encode()) / 1024, measure(app, text))
    print(f"2,000-line files, median of {REPEATS} runs, ms")
    header = "".join(f"{f'{n} ({kb:.0f} KiB)':>24}" for n, (kb, _) in results.items())
    print(f"{'measure':<42}{header}")
    for label, key in rows:
        print(f"{label:<42}" + "".join(f"{r[key]:24.2f}" for _, r in results.values()))
    print(
        f"{'ratio all coloured / peer':<42}"
        + "".join(f"{r['coloured'] / r['peer']:24.2f}" for _, r in results.values())
    )


if __name__ == "__main__":
    main()
