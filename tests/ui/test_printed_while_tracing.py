"""The jaxpr panel shows what the code printed while it was traced, and only for this trace.

The Overview tutorial's lesson: a ``print`` in a jitted function runs while JAX
traces it, and not when a call reuses the cached trace.
"""

from __future__ import annotations

TUTORIAL = """\
@jax.jit
def new_function(x):
    print("Function is compiling. X has shape:", x.shape)
    return x * 2
"""


def _traced(qtbot, window, edit):
    with qtbot.waitSignal(window.sig_traced, timeout=30000) as blocker:
        edit()
    return blocker.args[0]


def _type_spec(window, spec):
    window.controls.arg_spec.setText(spec)
    window.controls.arg_spec.editingFinished.emit()


def test_the_panel_shows_what_this_trace_printed(qtbot, make_window):
    window = make_window()
    window.new_file()
    box = window.jaxpr.printed_tracing
    result = _traced(qtbot, window, lambda: window.editor.setPlainText(TUTORIAL))
    assert result.printed.text == "Function is compiling. X has shape: (1000,)\n"
    assert box.isVisible()
    assert box.label.text() == "printed while tracing new_function(f32[1000]):"
    assert box.text.toPlainText() == "Function is compiling. X has shape: (1000,)"
    assert not window.jaxpr.printed_loading.isVisible()

    # An edit replaces it with what the new trace printed ...
    _traced(qtbot, window, lambda: window.editor.setPlainText(
        TUTORIAL.replace("Function is compiling.", "Tracing now.")))
    assert box.text.toPlainText() == "Tracing now. X has shape: (1000,)"

    # ... a new shape traces (and prints) again ...
    _traced(qtbot, window, lambda: _type_spec(window, "f32[3]"))
    assert box.label.text() == "printed while tracing new_function(f32[3]):"
    assert box.text.toPlainText() == "Tracing now. X has shape: (3,)"

    # ... and the same call traced again reuses JAX's cached trace: nothing printed now.
    again = _traced(qtbot, window, window.tracer.trace)
    assert not again.printed
    assert not box.isVisible()


def test_top_level_prints_show_as_printed_while_loading(qtbot, make_window):
    window = make_window()
    window.new_file()
    source = TUTORIAL + "print('result', new_function(jnp.ones(1000)).sum())\n"
    _traced(qtbot, window, lambda: window.editor.setPlainText(source))
    loading = window.jaxpr.printed_loading
    assert loading.isVisible()
    assert loading.text.toPlainText() == (
        "Function is compiling. X has shape: (1000,)\nresult 2000.0")
    # The call at load time traced new_function for f32[1000]: the trace reuses it.
    assert not window.jaxpr.printed_tracing.isVisible()


def test_a_failed_edit_greys_the_old_output_under_the_banner(qtbot, make_window):
    window = make_window()
    window.new_file()
    _traced(qtbot, window, lambda: window.editor.setPlainText(TUTORIAL))
    with qtbot.waitSignal(window.session.sig_source_failed, timeout=30000):
        window.editor.setPlainText(TUTORIAL + "1 / 0\n")
    assert window.jaxpr.is_stale()
    assert not window.jaxpr.printed_tracing.isEnabled()
