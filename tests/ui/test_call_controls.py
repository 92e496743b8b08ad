"""The function chooser keeps the function last asked for, whatever order the engine's replies
arrive in (a presenter paging through lesson steps faster than they load)."""

from __future__ import annotations

from workbench.api.functions import FunctionInfo
from workbench.ui.editor.call_controls import CallControls


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
