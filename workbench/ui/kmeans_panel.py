"""The animated k-means demo: data, initialisation, run, then play, step and scrub.

The engine answers one request with the data and every recorded frame; the
panel then plays them locally. Positions on the scrubber are half-steps:
``2i`` shows frame i assigned (labels to centroids i); ``2i+1`` the update
that follows (centroids i+1 over the same labels), so a class can watch the
two halves of Lloyd's iteration apart.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.choices import DEMO_INITS, DemoInit
from workbench.api.kmeans import KMeansDemo, KMeansRun
from workbench.api.messages import reply_text
from workbench.plots.export import KMeansFrame, export_kmeans_gif, run_frames
from workbench.plots.kmeans_scatter import DistortionPlot, KMeansScatter
from workbench.ui.panel import Panel
from workbench.ui.session import Session

INIT_LABELS: dict[DemoInit, str] = {"kmeans++": "k-means++", "random": "random points",
                                    "farthest": "farthest first", "given": "click to place"}
INITS = tuple((INIT_LABELS[init], init) for init in DEMO_INITS)
TRAIL = 50


class KMeansPanel(Panel):
    """Controls, the scatter (``kmeansPlot``) and the distortion curve (``distortionPlot``)."""

    sig_run_shown = Signal(object)
    """A new run arrived and its first frame is drawn (the ``KMeansDemo``)."""
    sig_position_changed = Signal(int)
    """The half-step shown changed (0 .. 2 * iterations)."""
    sig_error_shown = Signal(str)
    """A message about bad input or a failed run is shown inline."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("kmeansPanel")
        self.session = session
        self.engine = session.engine
        self.demo: KMeansDemo | None = None
        self.placed: list[tuple[float, float]] = []
        self._position = 0
        self._path: str | None = None

        self.scatter = KMeansScatter()
        self.distortion = DistortionPlot()
        self.scatter.sig_clicked.connect(self._on_clicked)

        self.dataset = QComboBox()
        self.dataset.setObjectName("kmeansData")
        self.dataset.addItem("tutorial (800 points)", "tutorial")
        self.dataset.addItem("Gaussian blobs", "blobs")
        self.dataset.addItem("file ...", "file")
        self.dataset.currentIndexChanged.connect(self._on_dataset_changed)
        self.n_points = QSpinBox(minimum=1, maximum=5_000_000, value=10000)
        self.n_points.setObjectName("kmeansN")
        self.n_points.setSingleStep(1000)
        self.blob_k = QSpinBox(minimum=1, maximum=64, value=5)
        self.blob_k.setObjectName("kmeansBlobK")
        self.spread = QDoubleSpinBox(minimum=0.01, maximum=100.0, value=1.0, singleStep=0.1)
        self.spread.setObjectName("kmeansSpread")
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=0)
        self.seed.setObjectName("kmeansSeed")
        self.load_button = QPushButton("Load file ...")
        self.load_button.setObjectName("kmeansLoad")
        self.load_button.clicked.connect(self._on_load_clicked)
        self.init = QComboBox()
        self.init.setObjectName("kmeansInit")
        for text, key in INITS:
            self.init.addItem(text, key)
        self.init.currentIndexChanged.connect(self._on_init_changed)
        self.k = QSpinBox(minimum=1, maximum=254, value=4)
        self.k.setObjectName("kmeansK")
        self.tol = QDoubleSpinBox(decimals=8, minimum=-1.0, maximum=1e3, value=1e-5,
                                  singleStep=1e-5)
        self.tol.setObjectName("kmeansTol")
        self.max_iter = QSpinBox(minimum=0, maximum=10000, value=100)
        self.max_iter.setObjectName("kmeansMaxIter")
        self.voronoi = QCheckBox("Voronoi background")
        self.voronoi.setObjectName("kmeansVoronoi")
        self.voronoi.toggled.connect(self.scatter.set_voronoi_visible)

        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("kmeansRun")
        self.run_button.clicked.connect(self.run)
        self.play_button = QPushButton("Play")
        self.play_button.setObjectName("kmeansPlay")
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
        self.scrubber.valueChanged.connect(self.set_position)
        self.speed = QDoubleSpinBox(minimum=0.2, maximum=60.0, value=2.0, suffix=" steps/s")
        self.speed.setObjectName("kmeansSpeed")
        self.speed.valueChanged.connect(self._on_speed_changed)
        self.export_button = QPushButton("Export GIF ...")
        self.export_button.setObjectName("kmeansExport")
        self.export_button.clicked.connect(self._on_export_clicked)
        self.status = QLabel("")
        self.status.setObjectName("kmeansStatus")
        self.status.setWordWrap(True)
        self.message = QLabel("")
        self.message.setObjectName("kmeansMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c0392b")
        self.message.hide()

        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_tick)
        self._on_speed_changed(self.speed.value())

        form = QFormLayout()
        form.addRow("data", self.dataset)
        form.addRow("points N", self.n_points)
        form.addRow("blobs", self.blob_k)
        form.addRow("spread", self.spread)
        form.addRow("seed", self.seed)
        form.addRow(self.load_button)
        form.addRow("init", self.init)
        form.addRow("K", self.k)
        form.addRow("tolerance", self.tol)
        form.addRow("max iterations", self.max_iter)
        form.addRow(self.voronoi)
        controls = QWidget()
        cl = QVBoxLayout(controls)
        cl.addLayout(form)
        cl.addWidget(self.run_button)
        cl.addWidget(self.export_button)
        cl.addStretch(1)
        cl.addWidget(self.status)
        transport = QHBoxLayout()
        for w in (self.play_button, self.back_button, self.assign_button, self.update_button,
                  self.step_button):
            transport.addWidget(w)
        transport.addWidget(self.scrubber, 1)
        transport.addWidget(self.speed)
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.addWidget(self.scatter)
        plots.addWidget(self.distortion)
        plots.setStretchFactor(0, 4)
        plots.setStretchFactor(1, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.message)
        rl.addWidget(plots, 1)
        rl.addLayout(transport)
        layout = QHBoxLayout(self)
        layout.addWidget(controls)
        layout.addWidget(right, 1)
        self._on_dataset_changed()
        self._enable_transport(False)

    # ------------------------------------------------------------------ running

    def run(self) -> None:
        """Ask the engine for a whole recorded run; the panel stays usable meanwhile."""
        init = self.init.currentData()
        centroids = np.asarray(self.placed, dtype=np.float32) if init == "given" else None
        request = p.KMeans(
            dataset=self.dataset.currentData(), n=self.n_points.value(), k=self.k.value(),
            blob_k=self.blob_k.value(), spread=self.spread.value(), seed=self.seed.value(),
            path=self._path, init=init, centroids=centroids,
            max_iter=self.max_iter.value(), tol=self.tol.value(),
        )
        self.play_button.setChecked(False)
        self.status.setText("running ...")
        self.engine.request(request, self._on_reply, key="kmeans")

    def _on_reply(self, reply: p.Reply) -> None:
        demo = p.result_value(reply, KMeansDemo)
        if demo is not None:
            self.show_demo(demo)
        else:
            self.show_error(reply_text(reply))

    def show_error(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        self.status.setText("")
        self.sig_error_shown.emit(text)

    def show_demo(self, demo: KMeansDemo) -> None:
        self.message.hide()
        self.demo = demo
        self.placed = []
        run = demo.run
        self.scatter.set_points(demo.points)
        self.distortion.set_history(run.distortion)
        self.scrubber.blockSignals(True)
        self.scrubber.setRange(0, 2 * run.iterations)
        self.scrubber.setValue(0)
        self.scrubber.blockSignals(False)
        self._enable_transport(True)
        self._position = -1
        self.set_position(0)
        state = "converged" if run.converged else "stopped at max iterations"
        per_iter = run.per_iter_s * 1e3
        self.status.setText(
            f"{demo.source}: N={run.n}, K={run.k}; {run.iterations} iterations, {state}; "
            f"{per_iter:.3g} ms per iteration (compile {run.compile_s:.2f} s)"
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
                f"iteration {i}: assigned, distortion {run.distortion[i]:.4g}, "
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

    def export_gif(self, path: str) -> None:
        export_kmeans_gif(self.scatter, self.frames(), path)
        self._position = -1
        self.set_position(self.scrubber.value())

    def set_presentation_scale(self, factor: float) -> None:
        self.scatter.set_presentation_scale(factor)
        self.distortion.set_presentation_scale(factor)

    def set_scheme(self, scheme: str) -> None:
        self.scatter.set_scheme(scheme)
        self.distortion.set_scheme(scheme)

    # ------------------------------------------------------------------ slots

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

    def _on_speed_changed(self, steps_per_s: float) -> None:
        self._timer.setInterval(max(15, int(1000 / steps_per_s)))

    def _on_export_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export", "kmeans.gif", "GIF (*.gif)")
        if path:
            self.export_gif(path)
