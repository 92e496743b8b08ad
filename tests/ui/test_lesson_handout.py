"""Lesson > Export handout... in the real window: what the steps showed here, the teacher's
edit included, written off the GUI thread; a MyST notebook opens as a lesson."""

from __future__ import annotations

import nbformat
from PySide6.QtWidgets import QApplication

from tests.ui.test_lesson_stage import ENGINE_MS, _open_trusted

MYST = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
  language: python
---

# Handout in class

```{code-cell}
print("first step")
```

```{code-cell}
print("second step")
```
"""


def test_export_writes_what_the_steps_showed_with_the_teachers_edit(qtbot, make_window,
                                                                     tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "class.md", MYST)
    lesson = window.lessons.lesson
    assert lesson.format == "myst" and len(lesson.steps) == 2
    assert window.actions_.action_export_lesson.isEnabled()
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    window.editor.setPlainText('print("edited in class")\n')  # the teacher's edit, run
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.action_run.trigger()
    qtbot.waitUntil(lambda: "edited in class" in window.lesson_panel.outputs.toPlainText(),
                    timeout=ENGINE_MS)
    out = tmp_path / "handout.ipynb"
    view = window.lesson_view
    with qtbot.waitSignal(view.handouts.sig_done, timeout=ENGINE_MS) as done:
        assert view.handouts.export(lesson, window.lessons.codes, window.lessons.shown(), out)
        QApplication.processEvents()  # the window stays live while it is written
    message, written = done.args
    assert written, message
    assert message == (f"handout written: {out} (1 of 2 code steps with their outputs: run "
                       "the others (Run all above) to include theirs)")
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == message)
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    first, second = (c for c in nb.cells if c.cell_type == "code")
    assert first.source == 'print("edited in class")'
    assert first.outputs[0].text == "edited in class\n"
    assert second.source == 'print("second step")' and second.outputs == []


def test_a_pdf_is_written_or_says_what_to_install(qtbot, make_window, tmp_path):
    from workbench.ui.lesson.lesson_export import PDF_NEEDS, pdf_route

    window = _open_trusted(qtbot, make_window, tmp_path, "class.md", MYST)
    handouts = window.lesson_view.handouts
    out = tmp_path / "h.pdf"
    with qtbot.waitSignal(handouts.sig_done, timeout=ENGINE_MS) as done:
        started = handouts.export(window.lessons.lesson, {}, {}, out)
    if pdf_route() is None:  # this machine has neither nbconvert's browser nor xelatex
        assert not started and done.args == [f"no handout written: {PDF_NEEDS}", False]
        assert not out.exists()
    else:
        assert started and done.args[1] and out.read_bytes().startswith(b"%PDF")
