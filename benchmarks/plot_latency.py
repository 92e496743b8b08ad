"""How fast does the plot follow a parameter slider, engine round trip included? Target: 33 ms.

Offscreen: a real engine kernel behind the GUI's EngineBridge, the real
FunctionPlotPanel. Each of ~100 slider steps is timed from ``setValue`` on the
alpha slider of selu (the panel sends ``SampleCurves`` for f, f', f'' at 1000
points), through the engine and back, ``setData`` on the curves, to the end of
a synchronous repaint of the plot. Printed beside the in-process
``sample_curves`` time for the same work (no process hop, no drawing).

    .venv/bin/python benchmarks/plot_latency.py [--steps 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SOURCE = '''
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
'''
TARGET_S = 1 / 30


def _wait_for(panel, alpha: float | None, timeout_s: float = 60.0):
    """Run the Qt event loop until the panel drew curves for ``alpha`` (None: any)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    box = []

    def on_curves(curves) -> None:
        if alpha is None or abs(curves.param_values()["alpha"] - alpha) < 1e-9:
            box.append(curves)
            loop.quit()

    panel.sig_curves_shown.connect(on_curves)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    panel.sig_curves_shown.disconnect(on_curves)
    if not box:
        raise SystemExit("no curves from the engine in time")
    return box[0]


def gui_steps(steps: int) -> tuple[list[float], list[float], list[float], int, list[float]]:
    from PySide6.QtWidgets import QApplication

    from workbench.api import messages as p
    from workbench.ui.control.engine_bridge import EngineBridge
    from workbench.ui.control.requests import EngineRequests
    from workbench.ui.control.session import Session
    from workbench.ui.panels.plot_panel import FunctionPlotPanel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    bridge = EngineBridge()
    bridge.start()
    try:
        reply = bridge.client.call(p.LoadSource(source=SOURCE, filename="bench.py"), 120)
        assert isinstance(reply, p.Result), reply
        session = Session(bridge)
        session.set_functions(reply.value.functions)
        panel = FunctionPlotPanel(session, EngineRequests(bridge))
        panel.resize(1000, 700)
        panel.show()
        panel.set_current("selu")
        _wait_for(panel, None)
        app.processEvents()
        slider = panel.slider("alpha")
        compiles_before = panel.compilations
        totals, replies, paints = [], [], []
        ticks = [20 + (i * 7) % 160 for i in range(steps + 5)]
        for i, tick in enumerate(ticks):
            if slider.slider.value() == tick:
                tick += 1
            t0 = time.perf_counter()
            slider.slider.setValue(tick)
            _wait_for(panel, slider.value())
            t1 = time.perf_counter()
            panel.plot.viewport().repaint()
            t2 = time.perf_counter()
            if i >= 5:  # the first few warm caches on both sides
                totals.append(t2 - t0)
                replies.append(t1 - t0)
                paints.append(t2 - t1)
        recompiles = panel.compilations - compiles_before
        # The bare engine round trip, no GUI in the way (the client's own blocking call).
        rtts = []
        for i in range(steps):
            t0 = time.perf_counter()
            bridge.client.call(p.SampleCurves(name="selu", order=2, points=1000,
                                              params={"alpha": 1.0 + i / steps}), 30)
            rtts.append(time.perf_counter() - t0)
        panel.close()
        return totals, replies, paints, recompiles, rtts
    finally:
        bridge.close()


def in_process(steps: int) -> float:
    from workbench.engine.curves import sample_curves
    from workbench.engine.source import load_source

    loaded = load_source(SOURCE, "bench.py")
    sample_curves(loaded, "selu", order=2, points=1000)
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        sample_curves(loaded, "selu", order=2, points=1000, params={"alpha": 1.0 + i / steps})
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    totals, replies, paints, recompiles, rtts = gui_steps(args.steps)
    local = in_process(args.steps)

    def p90(xs: list[float]) -> float:
        return statistics.quantiles(xs, n=10)[-1]

    med = statistics.median(totals)
    print(f"slider drag -> repaint, selu f/f'/f'' at 1000 points, {len(totals)} steps (offscreen)")
    print("| measure | median | p90 | median vs target 33 ms |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| slider step -> curves drawn -> repaint | {med * 1e3:.2f} ms | "
          f"{p90(totals) * 1e3:.2f} ms | {med / TARGET_S:.2f} |")
    print(f"| of which: request -> engine -> setData | {statistics.median(replies) * 1e3:.2f} ms | "
          f"{p90(replies) * 1e3:.2f} ms | |")
    print(f"| of which: repaint of the plot | {statistics.median(paints) * 1e3:.2f} ms | "
          f"{p90(paints) * 1e3:.2f} ms | |")
    print(f"| engine round trip alone (client.call) | {statistics.median(rtts) * 1e3:.2f} ms | "
          f"{p90(rtts) * 1e3:.2f} ms | |")
    print(f"| in-process sample_curves (no GUI, no kernel) | {local * 1e3:.2f} ms | | "
          f"ratio GUI/in-process {med / local:.1f}x |")
    print(f"recompilations during the slider steps: {recompiles}")
    print(f"target median < 33 ms: {'met' if med < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
