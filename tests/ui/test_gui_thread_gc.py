"""The window's cyclic garbage is collected in the GUI thread, on a timer, never in whichever
thread happens to allocate (the engine client's I/O thread would destroy Qt objects there)."""

from __future__ import annotations

import gc
import threading
import weakref

from workbench.ui.window.app import collect_in_gui_thread


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_cycles_are_collected_by_the_gui_threads_timer(qtbot):
    collector = collect_in_gui_thread()
    try:
        assert not gc.isenabled()  # the automatic collector is off
        collected_in: list[str] = []

        class Probe(_Cycle):
            def __del__(self) -> None:
                collected_in.append(threading.current_thread().name)

        probe = Probe()
        dead = weakref.ref(probe)
        del probe
        junk = [_Cycle() for _ in range(3 * gc.get_threshold()[0])]
        del junk  # enough new objects that a collection is due
        qtbot.waitUntil(lambda: dead() is None, timeout=5000)
        assert collected_in == [threading.main_thread().name]
    finally:
        collector.timer.stop()
