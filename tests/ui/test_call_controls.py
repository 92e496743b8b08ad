"""The function chooser keeps the function last asked for, whatever order the engine's replies
arrive in (a presenter paging through lesson steps faster than they load); on a projector the
args box shows its whole spec and the row still fits the editor column beside a lesson."""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget
from pytestqt.exceptions import TimeoutError as WaitTimedOut

from tests.ui.projector import presentation_font
from workbench.api.functions import FunctionInfo
from workbench.ui.editor.call_controls import (
    SPEC_MAX_CHARS,
    SPEC_MIN_CHARS,
    CallControls,
    FunctionBox,
)


def _info(name: str) -> FunctionInfo:
    return FunctionInfo(name, 1, f"{name}(x)", ())


def test_a_later_choice_replaces_one_still_waiting_for_its_source(qtbot):
    controls = CallControls()
    qtbot.addWidget(controls)
    controls.set_functions([_info("selu"), _info("selu_np")])
    controls.select("standardise", "f32[6]")  # its source never loads: superseded
    controls.select("selu", "f32[5]")  # known now, chosen at once
    controls.set_functions([_info("sigmoid"), _info("relu"), _info("selu")])
    assert controls.function() == "selu"
    assert controls.args() == "f32[5]"


def test_a_wanted_function_the_new_source_lacks_keeps_the_box_choice(qtbot):
    controls = CallControls()
    qtbot.addWidget(controls)
    controls.set_functions([_info("f"), _info("g")])
    controls.select("g")
    controls.select("h")  # waits for a source that defines h
    controls.set_functions([_info("a"), _info("g")])
    assert controls.function() == "g"
    controls.set_functions([_info("a"), _info("h")])
    assert controls.function() == "h"


# ---------------------------------------------------------------- on a projector

EDITOR_AREA = 680  # the editor column beside a lesson at 1024x768 in presentation mode
WIDE_AREA = 1250
LOSS_SPEC = "f32[3], f32[8,3], f32[8]"


def _in_editor_column(qtbot, width: int) -> tuple[CallControls, QSplitter]:
    """Call controls atop an editor, in a splitter beside the jaxpr area, as the window has
    them; the editor column ``width`` px wide. Keep the splitter: it owns the controls."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    left = QWidget()
    column = QVBoxLayout(left)
    column.setContentsMargins(4, 4, 4, 4)
    controls = CallControls()
    column.addWidget(controls)
    column.addWidget(QPlainTextEdit(), 1)
    splitter.addWidget(left)
    splitter.addWidget(QWidget())
    qtbot.addWidget(splitter)
    splitter.resize(width + splitter.handleWidth() + 300, 300)
    splitter.show()
    qtbot.waitExposed(splitter)
    splitter.setSizes([width, 300])
    qtbot.waitUntil(lambda: left.width() == width)
    return controls, splitter


def _whole_text_shown(box: QLineEdit) -> bool:
    """Both ends of the text in view at once: nothing scrolled out, nothing cut."""
    text, middle = box.text(), box.height() // 2
    box.setCursorPosition(len(text))
    first_shown = box.cursorPositionAt(QPoint(3, middle))
    box.setCursorPosition(0)
    last_shown = box.cursorPositionAt(QPoint(box.width() - 4, middle))
    return first_shown == 0 and last_shown == len(text)


def _settle(qtbot, done) -> None:
    """Give the row the turns of the event loop it takes to lay itself out after a change
    (``done`` says when); the assertions after it say what is wrong if it never does."""
    with contextlib.suppress(WaitTimedOut):
        qtbot.waitUntil(done, timeout=2000)


def _row_problems(controls: CallControls) -> str:
    """"" when every part of the row lies inside the controls at no less than its minimum."""
    problems = []
    for widget in (controls.function_list, controls.arg_spec, controls.chain,
                   controls.chain.add_button, controls.chain.undo_button,
                   controls.chain.clear_button):
        rect = QRect(widget.mapTo(controls, QPoint(0, 0)), widget.size())
        if not controls.rect().contains(rect):
            problems.append(f"{widget.objectName()} at {rect.getRect()} leaves the row")
        if widget.width() < widget.minimumSizeHint().width():
            problems.append(f"{widget.objectName()} squeezed to {widget.width()} px")
    return "; ".join(problems)


@pytest.mark.parametrize(("spec", "transforms"), [
    ("f32[5]", []),
    ("f32[100000]", ["jit"]),
    (LOSS_SPEC, ["grad"]),
])
def test_the_args_box_shows_its_whole_spec_at_presentation_size(qtbot, spec, transforms):
    """Beside a lesson at 1024x768 the box showed "2[5]" and "00]" for f32[5], f32[100000]."""
    with presentation_font():
        controls, _window = _in_editor_column(qtbot, EDITOR_AREA)
        controls.set_functions([_info("loss"), _info("selu_np")])
        controls.select("loss", spec, transforms)
        box = controls.arg_spec
        _settle(qtbot, lambda: _whole_text_shown(box) and not _row_problems(controls))
        assert _whole_text_shown(box), f"{box.text()!r} cut in a box {box.width()} px wide"
        assert box.width() >= SPEC_MIN_CHARS * box.fontMetrics().horizontalAdvance("0")
        assert _row_problems(controls) == ""
        assert controls.function_list.shown_text() == "loss"
        chain = controls.chain.label
        assert chain.shown_text() == chain.text() == (f"{transforms[0]}(f)" if transforms
                                                      else "f")
        assert spec in box.toolTip() and "Arguments:" in box.toolTip()


def test_the_transform_buttons_shorten_only_when_the_spec_needs_the_room(qtbot):
    with presentation_font():
        wide, _wide_window = _in_editor_column(qtbot, WIDE_AREA)
        wide.set_functions([_info("loss")])
        wide.select("loss", LOSS_SPEC, ["grad"])
        assert (wide.chain.add_button.text(), wide.chain.clear_button.text()) == (
            "+ transform", "clear")
        with_words = wide.preferred_width()  # the row with every text whole
        narrow, _narrow_window = _in_editor_column(qtbot, with_words - 20 + 8)
        narrow.set_functions([_info("loss")])
        narrow.select("loss", LOSS_SPEC, ["grad"])
        qtbot.waitUntil(lambda: narrow.chain.add_button.text() == "+")
        assert narrow.chain.clear_button.text() == "clear"  # one symbol was enough
        assert "transform" in narrow.chain.add_button.toolTip()
        _settle(qtbot, lambda: _whole_text_shown(narrow.arg_spec))
        assert _whole_text_shown(narrow.arg_spec)
        narrow.select("loss", "f32[5]", [])  # a short spec, a short chain: words again
        qtbot.waitUntil(lambda: narrow.chain.add_button.text() == "+ transform")


def test_a_long_function_name_is_elided_never_cut(qtbot):
    """Cut, "selu_np" could read "selu": another function of the same lesson."""
    with presentation_font():
        box = FunctionBox()
        qtbot.addWidget(box)
        box.addItems(["selu", "selu_np_scaled_again"])
        box.setCurrentText("selu_np_scaled_again")
        box.resize(box.minimumSizeHint())
        box.show()
        qtbot.waitExposed(box)
        assert box.shown_text().endswith("\u2026") and box.shown_text().startswith("sel")
        assert "selu_np_scaled_again" in box.toolTip()
        box.resize(box.sizeHint())
        assert box.shown_text() == "selu_np_scaled_again"


def test_a_long_spec_and_chain_still_fit_the_row(qtbot):
    """Past what fits, the box keeps its minimum and says the rest in its tooltip."""
    spec = "(f32[128,64], f32[64]), (f32[64,10], f32[10]), f32[32,128], i32[32]"
    with presentation_font():
        controls, _window = _in_editor_column(qtbot, EDITOR_AREA)
        controls.set_functions([_info("a_rather_long_function_name")])
        controls.select("a_rather_long_function_name", spec, ["jit", "grad", "vmap"])
        box = controls.arg_spec
        _settle(qtbot, lambda: controls.chain.shortened == 2 and not _row_problems(controls))
        assert controls.chain.shortened == 2
        assert _row_problems(controls) == ""
        assert box.width() >= SPEC_MIN_CHARS * box.fontMetrics().horizontalAdvance("0")
        assert box.cursorPositionAt(QPoint(3, box.height() // 2)) == 0  # its start in view
        assert spec in box.toolTip()
        assert "a_rather_long_function_name" in controls.function_list.toolTip()
        label = controls.chain.label
        assert "\u2026" in label.shown_text() and label.shown_text().startswith("vmap")
        assert "vmap(grad(jit(f)))" in label.toolTip()


def test_the_box_grows_with_its_text_up_to_a_maximum(qtbot):
    with presentation_font():
        controls, _window = _in_editor_column(qtbot, WIDE_AREA)
        box = controls.arg_spec
        fm = box.fontMetrics()
        least, most = (fm.horizontalAdvance("0" * n) for n in (SPEC_MIN_CHARS, SPEC_MAX_CHARS))
        box.setText("f32[5]")
        short = box.sizeHint().width()
        box.setText(LOSS_SPEC)
        longer = box.sizeHint().width()
        box.setText("f32[1], " * 20)
        longest = box.sizeHint().width()
        assert short == box.minimumSizeHint().width() and short > least
        assert longer - short == fm.horizontalAdvance(LOSS_SPEC) - least
        assert most < longest < fm.horizontalAdvance("f32[1], " * 20)


def test_reset_call_forgets_transforms_typed_arguments_and_the_wanted_function(qtbot):
    controls = CallControls()
    qtbot.addWidget(controls)
    controls.select("later", "f32[7]", ("grad", "vmap"))
    assert controls.requested() == "later" and controls.transforms() == ("grad", "vmap")
    controls.reset_call()
    assert controls.transforms() == ()
    assert controls.requested() == ""
    assert controls.is_guess("later")  # the typed spec is gone too
