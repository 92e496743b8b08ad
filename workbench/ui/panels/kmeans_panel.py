"""The animated k-means demo: data, initialisation, run, then play, step and scrub.

The engine answers one request with the data and every recorded frame; the
panel then plays them locally. Positions on the scrubber are half-steps:
``2i`` shows frame i assigned (labels to centroids i); ``2i+1`` the update
that follows (centroids i+1 over the same labels), so a class can watch the
two halves of Lloyd's iteration apart.

"all devices" shards the points over every device of the engine's default
backend (``jax.sharding``); the run is the one-device run, the status line
says how many devices made it and at what cost per iteration.

Every number box takes whatever is typed: what the panel cannot use (text, K
larger than N, a NaN tolerance) is said under that box and nothing is sent;
nothing is clamped to a range behind the user's back.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.choices import DEMO_INITS, DemoInit
from workbench.api.devices import DeviceReport
from workbench.api.kmeans import KMeansDemo, KMeansRun
from workbench.api.messages import reply_text
from workbench.plots.export import KMeansFrame, export_kmeans_gif, export_png, run_frames
from workbench.plots.kmeans_scatter import MAX_CLUSTERS, DistortionPlot, KMeansScatter
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.panel import Panel

INIT_LABELS: dict[DemoInit, str] = {"kmeans++": "k-means++", "random": "random points",
                                    "farthest": "farthest first", "given": "click to place"}
INITS = tuple((INIT_LABELS[init], init) for init in DEMO_INITS)
TRAIL = 50
TUTORIAL_POINTS = 800  # the engine's tutorial data (a test checks it)
MAX_POINTS = 5_000_000  # every frame's labels come back: N x iterations bytes at least
MAX_ITER = 10_000
MAX_SPEED = 60.0  # half-steps per second; a GIF frame (two half-steps) stays >= 20 ms
ERROR_STYLE = "color: #c0392b"
# The engine's words for K > N (engine/kmeans/inits.py), which belong under the K box.
K_TOO_LARGE = "larger than the number of points"

Number = int | float


def _shown(value: Number) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _message_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


class NumberField(QWidget):
    """A line edit for one number with its message under it; any text can be typed.

    ``value()`` is the number, or None while the text is not one the panel can use
    (``problem()`` says why); nothing is clamped. Typing clears the message, or with
    ``live`` (a box that acts as it is typed in) shows the new text's problem at once.
    """

    sig_value_changed = Signal(object)
    """The text now holds this valid number (an edit that is not one emits nothing)."""

    def __init__(self, name: str, what: str, value: Number, *, integer: bool,
                 low: Number | None = None, high: Number | None = None,
                 tip: str = "", live: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.what, self.integer, self.low, self.high = what, integer, low, high
        self.live = live
        self.edit = QLineEdit()
        self.edit.setObjectName(name)
        self.edit.setToolTip(tip)
        self.message = _message_label(f"{name}Message")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.edit)
        layout.addWidget(self.message)
        self.setValue(value)
        self.edit.textEdited.connect(self._on_edited)

    def text(self) -> str:
        return self.edit.text()

    def setText(self, text: str) -> None:  # noqa: N802 (QLineEdit's spelling)
        """Replace the text as if typed (its message clears)."""
        self.edit.setText(text)
        self._on_edited(text)

    def setValue(self, value: Number) -> None:  # noqa: N802 (QSpinBox's spelling)
        self.setText(str(value) if self.integer else f"{value:.10g}")

    def value(self) -> Number | None:
        number, problem = self._parse()
        return None if problem else number

    def problem(self) -> str:
        """Why the text is not a usable number ("" when it is)."""
        return self._parse()[1]

    def check(self) -> Number | None:
        """The number, or None with the reason shown under the box."""
        number, problem = self._parse()
        if problem:
            self.show_message(problem)
            return None
        return number

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _parse(self) -> tuple[Number, str]:
        typed = self.edit.text().strip()
        text = typed.replace("_", "").replace(",", "")  # 1,000 and 1_000 read as 1000
        kind = "a whole number" if self.integer else "a number"
        try:
            number: Number = float(text)
        except ValueError:
            return 0, f"{self.what} must be {kind}, got {repr(typed) if typed else 'nothing'}"
        if not math.isfinite(number):
            return 0, f"{self.what} must be a finite number, got {typed}"
        if self.integer:
            if not float(number).is_integer():
                return 0, f"{self.what} must be {kind}, got {typed}"
            # int() of the digits themselves: a float would round a long seed
            number = int(text) if text.lstrip("+-").isdigit() else int(number)
        if self.low is not None and number < self.low:
            return number, f"{self.what} must be at least {_shown(self.low)}, got {typed}"
        if self.high is not None and number > self.high:
            return number, f"{self.what} must be at most {_shown(self.high)}, got {typed}"
        return number, ""

    def _on_edited(self, _text: str) -> None:
        number, problem = self._parse()
        self.show_message(problem if self.live else "")
        if not problem:
            self.sig_value_changed.emit(number)


class KMeansPanel(Panel):
    """Controls, the scatter (``kmeansPlot``) and the distortion curve (``distortionPlot``)."""

    sig_run_shown = Signal(object)
    """A new run arrived and its first frame is drawn (the ``KMeansDemo``)."""
    sig_position_changed = Signal(int)
    """The half-step shown changed (0 .. 2 * iterations)."""
    sig_error_shown = Signal(str)
    """A message about bad input or a failed run is shown next to its control."""
    sig_exported = Signal(str)
    """An export (GIF of the run, PNG of the frame) was written to this path."""

    def __init__(self, session: Session, requests: EngineRequests,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("kmeansPanel")
        self.session = session
        self.requests = requests
        self.demo: KMeansDemo | None = None
        self.placed: list[tuple[float, float]] = []
        self._position = 0
        self._path: str | None = None
        self._known_n: dict[tuple[str, str | None], int] = {("tutorial", None): TUTORIAL_POINTS}

        self.scatter = KMeansScatter()
        self.distortion = DistortionPlot()
        self.scatter.sig_clicked.connect(self._on_clicked)

        self.dataset = QComboBox()
        self.dataset.setObjectName("kmeansData")
        self.dataset.setToolTip(
            "the points to cluster: the tutorial's 800 points, Gaussian blobs, or a file")
        self.dataset.addItem(f"tutorial ({TUTORIAL_POINTS} points)", "tutorial")
        self.dataset.addItem("Gaussian blobs", "blobs")
        self.dataset.addItem("file ...", "file")
        self.dataset.currentIndexChanged.connect(self._on_dataset_changed)
        self.n_points = NumberField("kmeansN", "N", 10000, integer=True, low=1,
                                    high=MAX_POINTS, tip="number of points to draw")
        self.blob_k = NumberField("kmeansBlobK", "blobs", 5, integer=True, low=1,
                                  high=MAX_POINTS, tip="Gaussian blobs the points are drawn from")
        self.spread = NumberField("kmeansSpread", "spread", 1.0, integer=False, low=0,
                                  tip="standard deviation of each blob")
        self.seed = NumberField("kmeansSeed", "seed", 0, integer=True, low=0, high=2**63 - 1,
                                tip="random seed of the data and the initialisation")
        self.load_button = QPushButton("Load file ...")
        self.load_button.setObjectName("kmeansLoad")
        self.load_button.setToolTip(
            "load points from a .npy, .csv or .txt file (N rows of 2 or more numbers)")
        self.load_button.clicked.connect(self._on_load_clicked)
        self.file_message = _message_label("kmeansFileMessage")
        self.init = QComboBox()
        self.init.setObjectName("kmeansInit")
        self.init.setToolTip(
            "how to choose the starting centroids; 'click to place' uses your clicks")
        for text, key in INITS:
            self.init.addItem(text, key)
        self.init.currentIndexChanged.connect(self._on_init_changed)
        self.init_message = _message_label("kmeansInitMessage")
        self.k = NumberField("kmeansK", "K", 4, integer=True, low=1,
                             tip=f"clusters, 1 to N (at most {MAX_CLUSTERS} can be drawn)")
        self.tol = NumberField("kmeansTol", "tolerance", 1e-5, integer=False,
                               tip="stop when the mean squared distance drops by no more than "
                                   "this; 0: when no point changes cluster; "
                                   "< 0: run max iterations")
        self.max_iter = NumberField("kmeansMaxIter", "max iterations", 100, integer=True, low=0,
                                    high=MAX_ITER,
                                    tip="stop after this many iterations even if not converged")
        self.voronoi = QCheckBox("Voronoi background")
        self.voronoi.setObjectName("kmeansVoronoi")
        self.voronoi.setToolTip("shade the plane by nearest centroid (the assignment regions)")
        self.voronoi.toggled.connect(self.scatter.set_voronoi_visible)
        self.fields = (self.n_points, self.blob_k, self.spread, self.seed, self.k, self.tol,
                       self.max_iter)
        self.all_devices = QCheckBox("all devices")
        self.all_devices.setObjectName("kmeansAllDevices")
        session.sig_devices_changed.connect(self._on_devices)
        self._on_devices(session.devices)

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("kmeansRun")
        self.run_button.setToolTip("run k-means in the engine and record every iteration")
        self.run_button.clicked.connect(self.run)
        self.play_button = QPushButton("Play")
        self.play_button.setObjectName("kmeansPlay")
        self.play_button.setToolTip(
            "play the recorded iterations (assign, then update) at the chosen speed")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.back_button = QPushButton("◀")
        self.back_button.setObjectName("kmeansBack")
        self.back_button.setToolTip("back one half-step")
        self.back_button.clicked.connect(lambda: self.set_position(self._position - 1))
        self.assign_button = QPushButton("Assign")
        self.assign_button.setObjectName("kmeansAssign")
        self.assign_button.setToolTip("half-step: give each point its nearest centroid")
        self.assign_button.clicked.connect(self.assign_step)
        self.update_button = QPushButton("Update")
        self.update_button.setObjectName("kmeansUpdate")
        self.update_button.setToolTip("half-step: move each centroid to the mean of its points")
        self.update_button.clicked.connect(self.update_step)
        self.step_button = QPushButton("Step")
        self.step_button.setObjectName("kmeansStep")
        self.step_button.setToolTip("one whole iteration: update, then assign")
        self.step_button.clicked.connect(self.step)
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        self.scrubber.setObjectName("kmeansScrubber")
        self.scrubber.setToolTip(
            "the half-step shown: even positions assign, odd ones move the centroids")
        self.scrubber.valueChanged.connect(self.set_position)
        self.speed = NumberField("kmeansSpeed", "speed", 2.0, integer=False, low=0.1,
                                 high=MAX_SPEED, live=True,
                                 tip="half-steps per second when playing; an exported GIF "
                                     "shows each iteration for two half-steps' time")
        self.speed.edit.setMaximumWidth(70)
        self.speed.sig_value_changed.connect(self._on_speed_changed)
        self.export_button = QPushButton("Export ...")
        self.export_button.setObjectName("kmeansExport")
        self.export_button.setToolTip("the run as an animated GIF, or the frame shown as a PNG")
        self.export_button.clicked.connect(self._on_export_clicked)
        self.export_status = QLabel("")
        self.export_status.setObjectName("kmeansExportStatus")
        self.export_status.setWordWrap(True)
        self.export_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_status.hide()
        self.status = QLabel("")
        self.status.setObjectName("kmeansStatus")
        self.status.setWordWrap(True)
        self.message = _message_label("kmeansMessage")  # a failed run, under the Run button

        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_tick)
        self._on_speed_changed(self.speed.value() or 2.0)

        form = QFormLayout()
        form.addRow("data", self.dataset)
        form.addRow("points N", self.n_points)
        form.addRow("blobs", self.blob_k)
        form.addRow("spread", self.spread)
        form.addRow("seed", self.seed)
        form.addRow(self.load_button)
        form.addRow(self.file_message)
        form.addRow("init", self.init)
        form.addRow(self.init_message)
        form.addRow("K", self.k)
        form.addRow("tolerance", self.tol)
        form.addRow("max iterations", self.max_iter)
        form.addRow(self.all_devices)
        form.addRow(self.voronoi)
        controls = QWidget()
        controls.setMaximumWidth(320)  # long messages wrap instead of widening the column
        cl = QVBoxLayout(controls)
        cl.addLayout(form)
        cl.addWidget(self.run_button)
        cl.addWidget(self.message)
        cl.addWidget(self.export_button)
        cl.addWidget(self.export_status)
        cl.addStretch(1)
        cl.addWidget(self.status)
        transport = QHBoxLayout()
        for w in (self.play_button, self.back_button, self.assign_button, self.update_button,
                  self.step_button):
            transport.addWidget(w)
        transport.addWidget(self.scrubber, 1)
        transport.addWidget(self.speed)
        transport.addWidget(QLabel("half-steps/s"))
        # The plots keep their minimum sizes (the panel's minimumSizeHint asks for them).
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.setChildrenCollapsible(False)
        plots.addWidget(self.scatter)
        plots.addWidget(self.distortion)
        plots.setStretchFactor(0, 4)
        plots.setStretchFactor(1, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(plots, 1)
        rl.addLayout(transport)
        layout = QHBoxLayout(self)
        layout.addWidget(controls)
        layout.addWidget(right, 1)
        self._on_dataset_changed()
        self._enable_transport(False)

    # ------------------------------------------------------------------ running

    def run_requested(self, request: p.KMeans) -> None:
        """Run the demo a lesson's directive asks for (its controls set to match)."""
        self.dataset.setCurrentIndex(max(self.dataset.findData(request.dataset), 0))
        if request.dataset == "blobs":
            self.n_points.setValue(request.n)
            self.blob_k.setValue(request.blob_k or request.k)
            self.spread.setValue(request.spread)
        self.k.setValue(request.k)
        self.seed.setValue(request.seed)
        self.init.setCurrentIndex(max(self.init.findData(request.init), 0))
        self.max_iter.setValue(request.max_iter)
        self.tol.setValue(request.tol)
        self.all_devices.setChecked(request.devices is not None)
        self.run()

    def run(self) -> None:
        """Check the boxes, then ask the engine for a whole recorded run (the panel stays
        usable meanwhile); a box the panel cannot use gets its message and nothing is sent."""
        request = self._request()
        if request is None:
            return
        self.play_button.setChecked(False)
        self.status.setText("running ...")
        self.requests.kmeans(request, self._on_reply)

    def _request(self) -> p.KMeans | None:
        self._clear_messages()
        dataset = self.dataset.currentData()
        init = self.init.currentData()
        given = init == "given"
        used = [f for f in self.fields if f.isEnabled() and not (f is self.k and given)]
        bad = [f for f in used if f.check() is None]  # each shows its own message
        if bad:
            self._announce(bad[0].problem())
            return None
        n = (self._int(self.n_points) if dataset == "blobs" else
             self._known_n.get((dataset, self._path if dataset == "file" else None)))
        k = len(self.placed) if given else self._int(self.k)
        if given and not self.placed:
            self._refuse(self.init_message,
                         "click on the plot to place the starting centroids first")
        elif n is not None and k > n:
            self._refuse(self.k.message, f"K = {k:,} is {K_TOO_LARGE} N = {n:,}")
        elif k > MAX_CLUSTERS:
            self._refuse(self.k.message,
                         f"K = {k:,}: the animation colours at most {MAX_CLUSTERS} clusters")
        else:
            return p.KMeans(
                dataset=dataset, n=self._int(self.n_points, 1), k=k,
                blob_k=self._int(self.blob_k, 1), spread=float(self.spread.value() or 0.0),
                seed=self._int(self.seed), path=self._path, init=init,
                centroids=np.asarray(self.placed, dtype=np.float32) if given else None,
                max_iter=self._int(self.max_iter), tol=float(self.tol.value() or 0.0),
                devices="all" if self.all_devices.isChecked() else None,
            )
        return None

    @staticmethod
    def _int(field: NumberField, unused: int = 0) -> int:
        """The field's whole number; ``unused`` for a box the request does not use (a
        disabled one may hold any text)."""
        value = field.value()
        return int(value) if value is not None else unused

    def _refuse(self, label: QLabel, text: str) -> None:
        label.setText(text)
        label.show()
        self._announce(text)

    def _announce(self, text: str) -> None:
        self.status.setText("")
        self.sig_error_shown.emit(text)

    def _clear_messages(self) -> None:
        for f in self.fields:
            f.show_message("")
        for label in (self.message, self.file_message, self.init_message):
            label.setText("")
            label.hide()

    def _on_reply(self, reply: p.Reply) -> None:
        demo = p.result_value(reply, KMeansDemo)
        if demo is not None:
            self.show_demo(demo)
        else:
            self.show_error(reply_text(reply))

    def show_error(self, text: str) -> None:
        """A failed run's message, under the control it is about (K, the file, or Run)."""
        if K_TOO_LARGE in text:
            label = self.k.message
        elif self.dataset.currentData() == "file":
            label = self.file_message
        else:
            label = self.message
        self._refuse(label, text)

    def error_label(self) -> QLabel | None:
        """The message label showing now (None when the panel shows no message)."""
        labels = [f.message for f in (*self.fields, self.speed)]
        labels += [self.message, self.file_message, self.init_message]
        return next((lb for lb in labels if not lb.isHidden() and lb.text()), None)

    def show_demo(self, demo: KMeansDemo) -> None:
        self._clear_messages()
        self.demo = demo
        self.placed = []
        run = demo.run
        dataset = self.dataset.currentData()
        self._known_n[(dataset, self._path if dataset == "file" else None)] = run.n
        self.scatter.set_points(demo.points)
        self.distortion.set_history(run.inertia_mean)
        self.scrubber.blockSignals(True)
        self.scrubber.setRange(0, 2 * run.iterations)
        self.scrubber.setValue(0)
        self.scrubber.blockSignals(False)
        self._enable_transport(True)
        self._position = -1
        self.set_position(0)
        state = "converged" if run.converged else "stopped at max iterations"
        per_iter = run.per_iter_s * 1e3
        where = f" on {len(run.devices)} devices (sharded)" if len(run.devices) > 1 else ""
        self.status.setText(
            f"{demo.source}: N={run.n}, K={run.k}; {run.iterations} iterations, {state}; "
            f"{per_iter:.3g} ms per iteration{where} (compile {run.compile_s:.2f} s)"
        )
        self.sig_run_shown.emit(demo)

    # ------------------------------------------------------------------ frames

    @property
    def position(self) -> int:
        return self._position

    def frame_at(self, position: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """(labels, centroids, empty, caption) drawn at a half-step position."""
        run = self._shown_run()
        i, half = divmod(position, 2)
        labels = run.labels[i] if run.labels.shape[0] > i else run.labels[-1]
        if half == 0:
            return labels, run.centroids[i], run.empty[i], (
                f"iteration {i}: assigned, mean squared distance {run.inertia_mean[i]:.4g} "
                f"(mean distance {run.mean_distance[i]:.4g}), "
                f"{run.changed[i]} points changed")
        return labels, run.centroids[i + 1], run.empty[i], (
            f"iteration {i}: centroids moved to the means of their points")

    def _shown_run(self) -> KMeansRun:
        if self.demo is None:
            raise RuntimeError("no k-means run to show yet")
        return self.demo.run

    def set_position(self, position: int) -> None:
        if self.demo is None:
            return
        run = self.demo.run
        position = max(0, min(int(position), 2 * run.iterations))
        if position == self._position:
            return
        self._position = position
        labels, centroids, empty, caption = self.frame_at(position)
        i = position // 2
        first = max(0, i + (position % 2) + 1 - TRAIL)
        trails = list(run.centroids[first: i + (position % 2)])
        self.scatter.set_frame(labels, centroids[:, :2], [t[:, :2] for t in trails], empty)
        self.scatter.set_caption(caption)
        self.distortion.set_current(i)
        if self.scrubber.value() != position:
            self.scrubber.blockSignals(True)
            self.scrubber.setValue(position)
            self.scrubber.blockSignals(False)
        self.sig_position_changed.emit(position)

    def step(self) -> None:
        """One whole iteration forward: to the next assigned frame."""
        self.set_position(self._position + (2 if self._position % 2 == 0 else 1))

    def assign_step(self) -> None:
        if self._position % 2 == 1:
            self.set_position(self._position + 1)

    def update_step(self) -> None:
        if self._position % 2 == 0:
            self.set_position(self._position + 1)

    def frames(self) -> list[KMeansFrame]:
        return run_frames(self._shown_run())

    def gif_frame_ms(self) -> float:
        """How long the player shows one iteration (two half-steps) at the speed set: the
        GIF's frame duration, so the file plays as the panel does."""
        speed = self.speed.value()
        if speed is None:
            raise ValueError(self.speed.problem())
        return 2000.0 / speed

    def export_gif(self, path: str | Path) -> Path:
        """The run as an animated GIF at the panel's speed; the frame shown stays shown."""
        frame_ms = self.gif_frame_ms()
        frames = self.frames()
        try:
            written = export_kmeans_gif(self.scatter, frames, path, frame_ms)
        finally:
            self._position = -1
            self.set_position(self.scrubber.value())
        seconds = round(frame_ms / 10) / 100  # what GIF stores: hundredths of a second
        return self._exported(written, f"GIF saved to {written} "
                                       f"({len(frames)} frames, {seconds:g} s each)")

    def export_png(self, path: str | Path) -> Path:
        """The frame shown, as a PNG."""
        written = export_png(self.scatter, path)
        return self._exported(written, f"PNG saved to {written}")

    def export_to(self, path: str | Path) -> Path | None:
        """A PNG of the frame for a ``.png`` path, else a GIF of the run (``.gif`` added
        when the name has no suffix); a failure is said next to the Export button."""
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(".gif")
        try:
            if path.suffix.lower() == ".png":
                return self.export_png(path)
            return self.export_gif(path)
        except (OSError, ValueError, RuntimeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self._set_export_status(f"could not save {path}: {reason}", error=True)
            self.sig_error_shown.emit(self.export_status.text())
            return None

    def _exported(self, path: Path, text: str) -> Path:
        self._set_export_status(text, error=False)
        self.sig_exported.emit(str(path))
        return path

    def _set_export_status(self, text: str, *, error: bool) -> None:
        self.export_status.setStyleSheet(ERROR_STYLE if error else "")
        self.export_status.setText(text)
        self.export_status.setVisible(bool(text))

    def set_presentation_scale(self, factor: float) -> None:
        self.scatter.set_presentation_scale(factor)
        self.distortion.set_presentation_scale(factor)

    def set_scheme(self, scheme: str) -> None:
        self.scatter.set_scheme(scheme)
        self.distortion.set_scheme(scheme)

    # ------------------------------------------------------------------ slots

    def _on_devices(self, report: DeviceReport | None) -> None:
        """Say which devices "all devices" shards over: the default backend's."""
        tip = ("shard the points over every device of the engine's default backend "
               "(jax.sharding); the result is the one-device result")
        if report is not None:
            mine = [d.name for d in report.devices if d.platform == report.default_backend]
            self.all_devices.setText(f"all devices ({len(mine)})")
            tip += f": {', '.join(mine)}"
        self.all_devices.setToolTip(tip)

    def _enable_transport(self, on: bool) -> None:
        for w in (self.play_button, self.back_button, self.assign_button, self.update_button,
                  self.step_button, self.scrubber, self.export_button):
            w.setEnabled(on)

    def _on_dataset_changed(self, *_: object) -> None:
        blobs = self.dataset.currentData() == "blobs"
        for w in (self.n_points, self.blob_k, self.spread):
            w.setEnabled(blobs)
        self.load_button.setEnabled(self.dataset.currentData() == "file")

    def _on_init_changed(self, *_: object) -> None:
        if self.init.currentData() == "given":
            self.status.setText("click on the plot to place the starting centroids, then Run")

    def _on_clicked(self, x: float, y: float) -> None:
        if self.init.currentData() != "given":
            return
        if len(self.placed) >= MAX_CLUSTERS:
            self._refuse(self.k.message, f"the animation colours at most {MAX_CLUSTERS} "
                                         "clusters: this click placed nothing")
            return
        self.placed.append((x, y))
        self.k.setValue(len(self.placed))
        self.scatter.set_centroids(np.asarray(self.placed, dtype=np.float32))
        self.status.setText(f"{len(self.placed)} centroid(s) placed; Run when ready")

    def _on_load_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Points", "", "Points (*.npy *.csv)")
        if path:
            self.set_data_file(path)

    def set_data_file(self, path: str) -> None:
        self._path = path
        self.file_message.hide()
        self.dataset.setCurrentIndex(self.dataset.findData("file"))
        self.status.setText(f"data: {path}")

    def _on_play_toggled(self, on: bool) -> None:
        self.play_button.setText("Pause" if on else "Play")
        if on:
            if self.demo is not None and self._position >= 2 * self.demo.run.iterations:
                self.set_position(0)
            self._timer.start()
        else:
            self._timer.stop()

    def _on_tick(self) -> None:
        if self.demo is None or self._position >= 2 * self.demo.run.iterations:
            self.play_button.setChecked(False)
            return
        self.set_position(self._position + 1)

    def _on_speed_changed(self, half_steps_per_s: float) -> None:
        self._timer.setInterval(round(1000 / half_steps_per_s))

    def _on_export_clicked(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export", "kmeans.gif", "GIF of the run (*.gif);;PNG of this frame (*.png)")
        if path:
            if not Path(path).suffix and chosen.startswith("PNG"):
                path += ".png"
            self.export_to(path)
