"""A window builds the panel in front after its first paint, and each other panel only when
its tab comes to the front, starting from what the session already holds."""

from __future__ import annotations

ENGINE_MS = 60000

SOURCE = """\
import jax.numpy as jnp


def wave(x):
    return jnp.sin(x) * 2.0
"""


def test_only_the_panel_in_front_is_built_and_a_later_one_starts_from_the_session(
        qtbot, make_window, tmp_path):
    path = tmp_path / "wave.py"
    path.write_text(SOURCE)
    window = make_window(path)
    panels = window.panels
    qtbot.waitUntil(lambda: panels.built("plotDock") is not None, timeout=ENGINE_MS)
    window.run()
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == "wave"
                    and window.session.devices is not None, timeout=ENGINE_MS)
    assert [panels.built(name) for name in ("timingDock", "kmeansDock", "graphDock")] == [
        None, None, None]
    assert panels.code_panels()[1:] == (None, None)

    # A click on the Timing tab brings its dock to the front: that builds it, with the
    # devices and the function the session knows, though it missed their signals.
    timing_dock = next(d for d in window.docks.panel_docks if d.objectName() == "timingDock")
    timing_dock.raise_()
    qtbot.waitUntil(lambda: panels.built("timingDock") is not None, timeout=5000)
    timing = panels.built("timingDock")
    assert timing_dock.widget().widget() is timing  # in its dock's scroll area
    assert timing.device_choices()[0] == "all"
    qtbot.waitUntil(lambda: timing.function_choice.currentText() == "wave", timeout=5000)
    assert panels.built("graphDock") is None

    # The graph panel built after the trace shows that trace, and is linked to the tree.
    window.show_panel("graphDock")
    graph = panels.built("graphDock")
    assert graph is not None and graph.trace is window.session.trace
    qtbot.waitUntil(lambda: graph.values is not None, timeout=ENGINE_MS)
    assert panels.built("kmeansDock") is None
