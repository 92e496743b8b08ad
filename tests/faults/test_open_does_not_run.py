"""Opening a file never runs it: --open, File > Open and the last file wait for Run or an edit.

Each file's top-level code writes a marker file, so running it shows on disk. After the
window settles (engine idle, no live timer pending, a Ping answered after everything
the window sent) the marker must still be missing; pressing Run must then create it.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import in_process_bridge
from workbench.api import messages as p
from workbench.ui.control.engine_bridge import EngineBridge
from workbench.ui.storage.settings import Settings
from workbench.ui.window.fresh_start import PAUSED_FOR_DISK


def evil_file(folder: Path, name: str = "evil.py") -> tuple[Path, Path]:
    """A source file that appends one "x" to a marker each time its top level runs."""
    marker = folder / f"{name}.ran"
    source = folder / name
    source.write_text(f"open({str(marker)!r}, 'a').write('x')\n\n"
                      "def f(x):\n    return x * 2\n")
    return source, marker


def recording_engine() -> tuple[EngineBridge, list[p.Request]]:
    """A bridge that records every request the window sends through it, from the start."""
    engine = in_process_bridge()
    sent: list[p.Request] = []
    engine.sig_request_sent.connect(sent.append)
    return engine, sent


def settle(qtbot, window) -> None:
    """Wait until nothing more can be on its way: the engine has answered for the first time,
    is idle, no live timer is pending, and a Ping sent now (after anything the window sent)
    has come back."""
    qtbot.waitUntil(lambda: window.tracer.engine_ready and window.engine.state == "idle"
                    and not window.tracer.live_timer.isActive(), timeout=60000)
    box: list[p.Reply] = []
    window.engine.request(p.Ping(), box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=30000)
    assert isinstance(box[0], p.Result)


def loads(sent: list[p.Request]) -> list[p.LoadSource]:
    return [r for r in sent if isinstance(r, p.LoadSource)]


def assert_paused_then_run(qtbot, window, marker: Path) -> None:
    assert window.live_paused.text() == PAUSED_FOR_DISK
    assert not window.live_paused.isHidden()
    assert not marker.exists(), "opening the file ran it"
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.action_run.trigger()
    assert marker.read_text() == "x"
    assert window.live_paused.isHidden()
    assert window.controls.function() == "f"


def test_open_on_the_command_line_does_not_run(qtbot, make_window, tmp_path):
    source, marker = evil_file(tmp_path)
    engine, sent = recording_engine()
    window = make_window(source, engine=engine)  # what `workbench --open evil.py` builds
    settle(qtbot, window)
    assert window.editor.toPlainText() == source.read_text()
    assert loads(sent) == []
    assert_paused_then_run(qtbot, window, marker)
    assert len(loads(sent)) == 1


def test_reopening_the_last_file_does_not_run(qtbot, make_window, tmp_path):
    source, marker = evil_file(tmp_path)
    settings = Settings(tmp_path / "settings.ini")  # the file make_window's windows use
    settings.last_file = str(source)
    settings.sync()
    engine, sent = recording_engine()
    window = make_window(engine=engine)
    settle(qtbot, window)
    assert window.path == source.resolve()
    assert loads(sent) == []
    assert_paused_then_run(qtbot, window, marker)


def test_file_open_does_not_run_and_an_edit_resumes_live_mode(qtbot, make_window, tmp_path):
    source, marker = evil_file(tmp_path)
    engine, sent = recording_engine()
    window = make_window(engine=engine)  # opens the first bundled example, which runs live
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.session.trace is not None, timeout=60000)
    assert window.live_paused.isHidden()
    before = len(loads(sent))
    assert before == 1, "the example loaded more than once at start"
    assert window.open_path(source)  # File > Open, once the dialog has a name
    settle(qtbot, window)
    assert len(loads(sent)) == before
    assert window.live_paused.text() == PAUSED_FOR_DISK
    assert not marker.exists(), "File > Open ran the file"
    # Typing is the user's own act: live mode follows the editor again.
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.editor.appendPlainText("# looked at it")
    assert marker.read_text() == "x"
    assert window.live_paused.isHidden()


def test_run_pressed_while_the_engine_starts_loads_once(qtbot, make_window, tmp_path):
    source, marker = evil_file(tmp_path)
    engine, sent = recording_engine()
    window = make_window(source, engine=engine)
    window.action_run.trigger()  # before the first frame: the engine is not even started
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.session.trace is not None, timeout=60000)
    settle(qtbot, window)
    assert marker.read_text() == "x", "the file ran more than once"
    assert len(loads(sent)) == 1


def test_a_file_this_window_saved_and_a_bundled_example_run_live(qtbot, make_window,
                                                                  tmp_path):
    from workbench.examples import bundled_examples

    source, marker = evil_file(tmp_path)
    window = make_window()
    settle(qtbot, window)
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        window.editor.setPlainText(source.read_text())  # typed here: runs live
    assert marker.read_text() == "x"
    target = tmp_path / "mine.py"
    assert window.save_to(target)
    window.new_file()
    with qtbot.waitSignal(window.sig_traced, timeout=60000):
        assert window.open_path(target)
    assert marker.read_text() == "xx"
    assert window.live_paused.isHidden()
    example = next(e for e in bundled_examples() if e.name == "relu")
    window.open_path(source)
    assert window.live_paused.text() == PAUSED_FOR_DISK
    window.open_example(example)
    assert window.live_paused.isHidden()
    qtbot.waitUntil(lambda: window.session.trace.function == "relu"
                    and window.session.trace_is_current, timeout=60000)
    assert marker.read_text() == "xx"


def test_recovered_text_waits_for_run(qtbot, make_window, tmp_path):
    """A crashed window's buffer may be a lesson step the user declined to run: it comes back
    as text, with live mode paused, and runs only on Run."""
    from workbench.ui.storage.autosave import RecoveredBuffer
    from workbench.ui.window.fresh_start import PAUSED_RECOVERED

    source, marker = evil_file(tmp_path)
    engine, sent = recording_engine()
    window = make_window(engine=engine)
    settle(qtbot, window)
    left = tmp_path / "crashed" / "buffer.json"  # where a crashed window left it
    left.parent.mkdir()
    left.write_text("{}")
    buffer = RecoveredBuffer("buffer", None, source.read_text(), 0.0, str(left))
    assert window.document.restore(buffer)
    settle(qtbot, window)
    assert window.live_paused.text() == PAUSED_RECOVERED
    assert not marker.exists(), "recovering the buffer ran it"
    window.action_run.trigger()
    qtbot.waitUntil(lambda: marker.exists(), timeout=60000)
    assert marker.read_text() == "x" and window.live_paused.isHidden()
