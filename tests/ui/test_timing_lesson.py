"""A lesson's timing step in the window: paging back shows its measurement again at once.

A timing step measured for seconds every time the class paged back to it. Its code is
the same when it runs again, so the panel shows the measurement it made and the step
says so; Measure measures again.
"""

from __future__ import annotations

from tests.ui.test_lesson_window import ENGINE_S, blank_window, go, open_trusted
from workbench.api import messages as p

LESSON = """\
# %% [markdown]
# # Timing

# %%
# workbench: time double --args f32[8] --modes jit --repeats 1 --min-batch 0.001 --budget 0.2
def double(x):
    return 2 * x

# %% [markdown]
# ## After it

# %%
total = sum(range(10))
"""


def test_paging_back_to_a_timing_step_shows_its_measurement_at_once(qtbot, make_window,
                                                                      tmp_path):
    path = tmp_path / "timing.py"
    path.write_text(LESSON)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    sent: list[p.Time] = []
    window.engine.sig_request_sent.connect(
        lambda r: sent.append(r) if isinstance(r, p.Time) else None)
    go(qtbot, window, 1)
    timing = window.timing_panel
    qtbot.waitUntil(lambda: timing.report is not None and not timing.is_measuring(),
                    timeout=ENGINE_S)
    first = timing.report
    assert len(sent) == 1
    assert "earlier measurement" not in window.lesson_panel.message_text()
    go(qtbot, window, 2)
    with qtbot.waitSignal(timing.sig_report_shown, timeout=ENGINE_S):
        go(qtbot, window, 1)
    assert timing.report is first and len(sent) == 1 and not timing.is_measuring()
    assert "earlier measurement of double(f32[8])" in window.lesson_panel.message_text()
    assert "press Measure to measure again" in window.lesson_panel.message_text()
    assert timing.stale_text() is None
    with qtbot.waitSignal(timing.sig_report_shown, timeout=ENGINE_S):
        timing.measure_button.click()
    assert len(sent) == 2 and timing.report is not first
