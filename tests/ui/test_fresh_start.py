"""Nothing carried over: another file, a new buffer or a lesson step starts from its own call,
with no line highlighted and every view of the code before marked as such until it runs."""

from __future__ import annotations

ENGINE_MS = 60000

FIRST = """\
import jax.numpy as jnp


def first(x):
    return jnp.sin(x) * 2.0
"""

SECOND = """\
import jax.numpy as jnp


def second(x):
    return jnp.cos(x) + 1.0
"""


def _traced(qtbot, window, name):
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == name, timeout=ENGINE_MS)


def test_opening_another_file_starts_from_its_own_state(qtbot, make_window, tmp_path):
    a, b = tmp_path / "first.py", tmp_path / "second.py"
    a.write_text(FIRST)
    b.write_text(SECOND)
    window = make_window(a)
    window.build_panels()
    window.run()
    _traced(qtbot, window, "first")
    window.controls.select("first", "f32[3]", ("vmap",))
    qtbot.waitUntil(lambda: window.jaxpr.trace().transforms == ("vmap",), timeout=ENGINE_MS)
    window.editor.highlight_lines([5])
    assert window.plot_panel.stale_text() is None

    assert window.open_path(b)
    # The views of first.py say where they are from; the call is second.py's own.
    assert window.controls.transforms() == ()
    assert window.editor.highlighted_lines() == []
    assert window.jaxpr.trace() is None
    assert window.jaxpr.stats_label.text() == "second.py: not run yet"
    assert window.plot_panel.stale_text() == "from first.py: second.py has not run yet"
    assert window.graph_panel.stale_text() == "from first.py: second.py has not run yet"

    window.run()
    _traced(qtbot, window, "second")
    assert window.jaxpr.trace().transforms == ()
    qtbot.waitUntil(lambda: window.plot_panel.stale_text() is None, timeout=ENGINE_MS)
    assert window.graph_panel.stale_text() is None


def test_a_new_buffer_drops_the_transform_chain(qtbot, make_window, tmp_path):
    a = tmp_path / "first.py"
    a.write_text(FIRST)
    window = make_window(a)
    window.controls.select("first", "f32[3]", ("vmap",))
    window.new_file()
    assert window.controls.transforms() == ()
    assert window.jaxpr.stats_label.text() == "untitled.py: not run yet"


def test_a_line_highlight_goes_with_the_selection_it_belonged_to(qtbot, make_window, tmp_path):
    a = tmp_path / "first.py"
    a.write_text(FIRST)
    window = make_window(a)
    window.run()
    _traced(qtbot, window, "first")
    window.editor.highlight_lines([5])  # as picking the tree's row of line 5 does
    with qtbot.waitSignal(window.sig_traced, timeout=ENGINE_MS):
        window.editor.setPlainText(FIRST + "\n# edited\n")
        window.run()
    assert window.jaxpr.selected_path() is None
    assert window.editor.highlighted_lines() == []
