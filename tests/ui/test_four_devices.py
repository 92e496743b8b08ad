"""The window on a kernel with four virtual CPU devices: the timing panel offers and measures
each, k-means runs sharded over all of them with the one-device result."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.four_devices import NAMES, four_device_env
from workbench.api import messages as p
from workbench.api.devices import DeviceReport
from workbench.ui.control.session import Call
from workbench.ui.panels.kmeans_panel import KMeansPanel
from workbench.ui.panels.timing_panel import TimingPanel

SOURCE = """\
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""
KERNEL_SOURCE = p.LoadSource(source=SOURCE, filename="timing.py")
KERNEL_ENV = four_device_env()  # conftest's bridge starts its kernel with it
TINY = {"min_batch_s": 0.001, "repeats": 2, "max_measure_s": 0.05, "dispatch_samples": 5}
WAIT_MS = 60_000


@pytest.fixture
def devices(bridge, session):
    """The session told the kernel's devices, as the trace controller does."""
    report = p.result_value(bridge.client.call(p.Devices(), timeout=60), DeviceReport)
    assert report is not None
    session.set_devices(report)
    return report


def test_the_timing_panel_offers_and_measures_every_device(qtbot, session, requests, devices):
    session.set_call(Call("selu", "f32[1000]"))
    panel = TimingPanel(session, requests)
    panel.set_config(TINY)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.device_choices() == ["all", "cpu", *NAMES]
    assert all(name in panel.devices_choice.toolTip() for name in NAMES)
    panel.devices_choice.setCurrentText("all")
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS) as blocker:
        panel.measure_button.click()
    report = blocker.args[0]
    assert [d.device for d in report.devices] == NAMES
    rows = panel.rows()
    assert [(r["device"], r["mode"]) for r in rows] == [
        (name, mode) for name in NAMES for mode in ("eager", "jit")]
    transfer = {d.device: d.transfer_s for d in report.devices}
    for row in rows:  # each device's rows show that device's own transfer
        assert math.isfinite(row["transfer_s"]) and row["transfer_s"] == transfer[row["device"]]
    assert set(panel.chart.bar_values()) == {(n, m) for n in NAMES for m in ("eager", "jit")}

    panel.devices_choice.setCurrentText("cpu:2")  # one of them
    with qtbot.waitSignal(panel.sig_report_shown, timeout=WAIT_MS) as blocker:
        panel.measure_button.click()
    assert {r.device for r in blocker.args[0].results} == {"cpu:2"}


def run_and_wait(qtbot, panel):
    with qtbot.waitSignal(panel.sig_run_shown, timeout=WAIT_MS) as blocker:
        panel.run()
    return blocker.args[0]


def test_kmeans_all_devices_is_the_one_device_run(qtbot, session, requests, devices):
    panel = KMeansPanel(session, requests)
    qtbot.addWidget(panel)
    panel.show()
    assert panel.all_devices.text() == "all devices (4)"
    panel.dataset.setCurrentIndex(panel.dataset.findData("blobs"))
    panel.n_points.setText("20003")
    panel.k.setText("5")
    panel.blob_k.setText("5")
    one = run_and_wait(qtbot, panel)
    assert one.run.devices == ("cpu:0",) and "sharded" not in panel.status.text()
    panel.all_devices.setChecked(True)
    sharded = run_and_wait(qtbot, panel)
    assert sharded.run.devices == tuple(NAMES)
    assert "on 4 devices (sharded)" in panel.status.text()
    assert sharded.run.iterations == one.run.iterations
    np.testing.assert_allclose(sharded.run.centroids, one.run.centroids, atol=1e-5)
    np.testing.assert_array_equal(sharded.run.labels, one.run.labels)


def test_the_window_lists_the_four_devices_in_its_panels(qtbot, make_window):
    from workbench.ui.control.engine_bridge import EngineBridge

    window = make_window(engine=EngineBridge(env=four_device_env()))
    qtbot.waitUntil(lambda: window.timing_panel is not None and window.session.devices
                    is not None, timeout=WAIT_MS)
    assert window.devices_label.text() == ", ".join(NAMES)
    assert window.timing_panel.device_choices() == ["all", "cpu", *NAMES]
    assert window.kmeans_panel.all_devices.text() == "all devices (4)"
