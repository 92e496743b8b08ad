"""The window's status bar: the engine's state and devices, busy, live mode, autosave.

Every permanent widget of the bar lives here, with the slots that keep it in
step with the session and the trace controller; the window only places it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLabel, QProgressBar, QStatusBar, QWidget

from workbench.api.devices import DeviceReport

BUSY_STATES = ("busy", "interrupting", "restarting", "starting")


class EngineStatus(QLabel):
    """The engine's state in words, and the host of an attached kernel; the dynamic property
    ``engineState`` holds the state's key."""

    def __init__(self, parent: QWidget | None = None, host: str | None = None):
        super().__init__(parent)
        self.setObjectName("engineStatus")
        self.host = host
        if host is not None:
            self.setToolTip(f"attached to a kernel on {host}: Stop interrupts it; it is "
                            "restarted only when you choose to")
        self.set_state("starting")

    def set_state(self, state: str) -> None:
        self.setProperty("engineState", state)
        where = f"{self.host} (attached), " if self.host is not None else ""
        self.setText(f"engine: {where}{state}")
        self.style().unpolish(self)
        self.style().polish(self)


class StatusWidgets:
    """The permanent widgets of the status bar, added to ``bar`` right to left."""

    def __init__(self, bar: QStatusBar, *, host: str | None, live: bool, live_delay_ms: int):
        self.status = EngineStatus(host=host)
        self.devices_label = QLabel("")
        self.devices_label.setObjectName("engineDevices")
        self.busy = QProgressBar()
        self.busy.setObjectName("engineBusy")
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(120)
        self.busy.hide()
        self.live_box = QCheckBox("live")
        self.live_box.setObjectName("liveMode")
        self.live_box.setToolTip(f"re-trace {live_delay_ms} ms after the last keystroke")
        self.live_box.setChecked(live)
        self.live_paused = QLabel("")
        self.live_paused.setObjectName("livePaused")
        self.live_paused.hide()
        self.autosave_off = QLabel("autosave off")
        self.autosave_off.setObjectName("autosaveOff")
        self.autosave_off.hide()
        for widget in (self.autosave_off, self.live_paused, self.live_box, self.busy,
                       self.devices_label, self.status):
            bar.addPermanentWidget(widget)

    def on_engine_state(self, state: str) -> None:
        self.status.set_state(state)
        self.busy.setVisible(state in BUSY_STATES)

    def on_devices(self, report: DeviceReport) -> None:
        self.devices_label.setText(", ".join(d.name for d in report.devices))
        self.devices_label.setToolTip(
            f"jax {report.jax_version}, default backend {report.default_backend}")

    def on_live_paused(self, reason: str) -> None:
        self.live_paused.setText(reason)
        self.live_paused.setVisible(bool(reason))

    def show_autosave_off(self, reason: str) -> None:
        self.autosave_off.setToolTip(reason)
        self.autosave_off.show()
