"""The animated k-means demo: data, initialisation, run, then play, step and scrub.

The engine answers one request with the data and every recorded frame; the
panel then plays them locally. Positions on the scrubber are half-steps:
``2i`` shows frame i assigned (labels to centroids i); ``2i+1`` the update
that follows (centroids i+1 over the same labels), so a class can watch the
two halves of Lloyd's iteration apart.

"all devices" shards the points over every device of the engine's default
backend (``jax.sharding``); the run is the one-device run, the status line
says how many devices made it and at what cost per iteration.

The panel arranges itself from its own size (a projector's dock is short and
the font large): the side bar of settings sits beside the plots when it fits
whole, else behind a "Settings" button (the side bar then scrolls beside the
plots when there is room across, else takes their place); the distortion
curve goes beside the scatter or under it, whichever shows the data larger;
and the scatter takes the data's shape, so that the view (one unit as long
across as up) shows the data edge to edge. The panel's minimum size is the
smallest arrangement's, so a dock never scrolls to reach the plot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.kmeans import KMeansDemo, KMeansRun
from workbench.api.messages import reply_text
from workbench.plots.export import KMeansFrame, export_kmeans_gif, export_png, run_frames
from workbench.plots.kmeans_scatter import MAX_CLUSTERS, DistortionPlot, KMeansScatter
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.kmeans_controls import (
    ERROR_STYLE,
    MAX_ITER,
    TUTORIAL_POINTS,
    KMeansSettings,
    NumberField,
    message_label,
)
from workbench.ui.panels.panel import Panel

__all__ = ["MAX_ITER", "TUTORIAL_POINTS", "KMeansPanel"]

TRAIL = 50
MAX_SPEED = 60.0  # half-steps per second; a GIF frame (two half-steps) stays >= 20 ms
# The engine's words for K > N (engine/kmeans/inits.py), which belong under the K box.
K_TOO_LARGE = "larger than the number of points"
HYSTERESIS = 24  # px past a threshold before the arrangement changes back
SCATTER_SHARE = 10  # stretch of the scatter against the curve's 1: it takes what it can use
STATUS_LINES = 2  # the status line's room in the minimum size (a run's summary wraps once)
WIDGET_MAX = 16777215  # Qt's QWIDGETSIZE_MAX: no maximum


class KMeansPanel(Panel):
    """Settings, the scatter (``kmeansPlot``), the distortion curve (``distortionPlot``),
    and the run and playback controls under them."""

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
        self._compact = False  # the side bar behind the Settings button
        self._beside = True  # the curve beside the scatter (else under it)

        self.scatter = KMeansScatter()
        self.distortion = DistortionPlot()
        self.scatter.sig_clicked.connect(self._on_clicked)
        self.scatter.vb.sigResized.connect(self._on_scatter_resized)

        self.settings = KMeansSettings()
        s = self.settings
        self.dataset, self.init, self.load_button = s.dataset, s.init, s.load_button
        self.n_points, self.blob_k, self.spread, self.seed = (s.n_points, s.blob_k, s.spread,
                                                               s.seed)
        self.k, self.tol, self.max_iter, self.fields = s.k, s.tol, s.max_iter, s.fields
        self.file_message, self.init_message = s.file_message, s.init_message
        self.voronoi, self.all_devices = s.voronoi, s.all_devices
        self.export_button, self.export_status = s.export_button, s.export_status
        self.load_button.clicked.connect(self._on_load_clicked)
        self.init.currentIndexChanged.connect(self._on_init_changed)
        self.voronoi.toggled.connect(self.scatter.set_voronoi_visible)
        self.export_button.clicked.connect(self._on_export_clicked)
        session.sig_devices_changed.connect(s.set_devices)
        s.set_devices(session.devices)

        self.settings_button = QPushButton("Settings")
        self.settings_button.setObjectName("kmeansSettingsToggle")
        self.settings_button.setCheckable(True)
        self.settings_button.setToolTip(
            "show the data, initialisation and stopping settings in place of the plots "
            "(the panel is too small for both); click again for the plots")
        self.settings_button.toggled.connect(self._on_settings_toggled)
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
        self.status = QLabel("")
        self.status.setObjectName("kmeansStatus")
        self.status.setWordWrap(True)
        self.message = message_label("kmeansMessage")  # a failed run, under the controls

        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_tick)
        self._on_speed_changed(self.speed.value() or 2.0)
        # A font change reaches the children after the panel: arrange once they know it.
        self._arrange_timer = QTimer(self, singleShot=True, interval=0)
        self._arrange_timer.timeout.connect(self._arrange)

        self.plots = QWidget()
        self.plots.setObjectName("kmeansPlots")
        self._plots_layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self.plots)
        self._plots_layout.setContentsMargins(0, 0, 0, 0)
        self._plots_layout.addWidget(self.scatter, SCATTER_SHARE)
        self._plots_layout.addWidget(self.distortion, 1)
        body = QHBoxLayout()
        body.addWidget(self.settings)
        body.addWidget(self.plots, 1)
        self._buttons = QHBoxLayout()
        for w in (self.settings_button, self.run_button, self.play_button, self.back_button,
                  self.assign_button, self.update_button, self.step_button):
            self._buttons.addWidget(w)
        self._buttons.addStretch(1)
        self._scrub = QHBoxLayout()
        self._scrub.addWidget(self.scrubber, 1)
        self._scrub.addWidget(self.speed)
        self._scrub.addWidget(QLabel("half-steps/s"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(body, 1)
        layout.addLayout(self._buttons)
        layout.addLayout(self._scrub)
        layout.addWidget(self.status)
        layout.addWidget(self.message)
        self._enable_transport(False)
        self._arrange()

    # ------------------------------------------------------------------ arrangement

    @property
    def compact(self) -> bool:
        """True while the side bar is behind the Settings button (the panel is small)."""
        return self._compact

    @property
    def curve_beside(self) -> bool:
        """True while the distortion curve is beside the scatter, False when under it."""
        return self._beside

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """The smallest arrangement's: settings behind their button, the curve beside the
        scatter. A larger one would make the dock scroll instead of the panel rearranging."""
        margin_w, margin_h, gap = self._margins()
        plots_h = max(self.scatter.minimumHeight(), self.distortion.minimumHeight())
        rows = self._rows_size()
        return QSize(max(self._plots_min_width(), rows.width()) + margin_w,
                     plots_h + gap + rows.height() + margin_h)

    # The status wraps, which makes the layout's height depend on the width; a scroll
    # area then gives the panel the layout's preferred height for its width, which is
    # the current arrangement's and may be taller than the dock. Only the minimum counts.
    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return False

    def heightForWidth(self, _width: int) -> int:  # noqa: N802 (Qt override)
        return self.minimumSizeHint().height()

    def _margins(self) -> tuple[int, int, int]:
        """The panel layout's margins across and up (both sides), and its spacing."""
        layout = self.layout()
        assert isinstance(layout, QLayout)
        m = layout.contentsMargins()
        return m.left() + m.right(), m.top() + m.bottom(), layout.spacing()

    def _rows_size(self) -> QSize:
        """The buttons, scrubber and status under the plots: widest minimum (the Settings
        button counted when hidden), total height (the status given ``STATUS_LINES``
        lines, so that a summary that wraps fits)."""
        gap = self._margins()[2]
        buttons = self._buttons.minimumSize()
        if self.settings_button.isHidden():
            buttons.setWidth(buttons.width() + self.settings_button.sizeHint().width() + gap)
        rows = (buttons, self._scrub.minimumSize())
        status = self.status.fontMetrics().lineSpacing() * STATUS_LINES
        width = max(r.width() for r in rows)
        return QSize(width, sum(r.height() for r in rows) + status + 2 * gap)

    def _body_size(self, size: QSize, side_bar: bool) -> QSize:
        """What the plots get of a panel of ``size``, with or without the side bar beside."""
        margin_w, margin_h, gap = self._margins()
        width = size.width() - margin_w
        if side_bar:
            width -= self.settings.natural_size()[0] + gap
        height = size.height() - margin_h - gap - self._rows_size().height()
        return QSize(max(width, 0), max(height, 0))

    def _choose_compact(self, size: QSize) -> bool:
        """Compact when the side bar would not show whole beside plots at their minimum."""
        side_w, side_h = self.settings.natural_size()
        margin_w, margin_h, gap = self._margins()
        rows = self._rows_size()
        need_w = max(side_w + gap + self._plots_min_width(), rows.width()) + margin_w
        need_h = side_h + gap + rows.height() + margin_h
        extra = HYSTERESIS if self._compact else 0
        return size.width() < need_w + extra or size.height() < need_h + extra

    def _scatter_shown(self, body: QSize, beside: bool) -> float:
        """How wide the data shows (view pixels across the data's box) when the plots get
        ``body`` and the curve is beside (or under) the scatter; 0 when it does not fit."""
        cw, ch = self.scatter.chrome()
        aspect = self.scatter.data_aspect()
        gap = self._plots_layout.spacing()
        if beside:
            if body.width() < self.scatter.minimumWidth() + gap + self.distortion.minimumWidth():
                return 0.0
            view_w = body.width() - gap - self.distortion.minimumWidth() - cw
            view_h = body.height() - ch
        else:
            if body.height() < (self.scatter.minimumHeight() + gap
                                + self.distortion.minimumHeight()):
                return 0.0
            view_w = body.width() - cw
            view_h = body.height() - gap - self.distortion.minimumHeight() - ch
        return max(min(view_w, view_h * aspect), 0.0)

    def _plots_min_width(self) -> int:
        """The plots' narrowest: the curve beside the scatter, both at their minimum."""
        return (self.scatter.minimumWidth() + self._plots_layout.spacing()
                + self.distortion.minimumWidth())

    def _arrange(self) -> None:
        """Choose the arrangement for the panel's size now (see the module's docstring)."""
        size = self.size()
        self._compact = self._choose_compact(size)
        opened = self._compact and self.settings_button.isChecked()
        side_bar = not self._compact or opened
        body = self._body_size(size, side_bar=side_bar)
        # Opened on a short panel, the settings scroll beside the plots when both fit across;
        # on a narrow one they take the plots' place.
        plots_shown = not opened or body.width() >= self._plots_min_width()
        beside, under = self._scatter_shown(body, True), self._scatter_shown(body, False)
        if under == 0.0 or beside == 0.0:
            self._beside = under == 0.0  # only one fits (beside is the minimum's when neither)
        elif self._beside:  # hysteresis: the other must show the data clearly larger
            self._beside = beside * 1.1 >= under
        else:
            self._beside = beside > under * 1.1

        self.settings_button.setVisible(self._compact)
        self.settings.setFixedWidth(self.settings.natural_size()[0])
        self.settings.setVisible(side_bar)
        self.plots.setVisible(plots_shown)
        direction = (QBoxLayout.Direction.LeftToRight if self._beside
                     else QBoxLayout.Direction.TopToBottom)
        if self._plots_layout.direction() != direction:
            self._plots_layout.setDirection(direction)
        self._fit_scatter(body)

    def _fit_scatter(self, body: QSize | None = None) -> None:
        """Give the scatter the data's shape, across from the size it has (or will have,
        ``body`` being what the plots get): the rest goes to the curve."""
        if self._beside:
            height = body.height() if body is not None else self.scatter.height()
            width, high = self.scatter.width_for_height(height), WIDGET_MAX
        else:
            width_now = body.width() if body is not None else self.scatter.width()
            width, high = WIDGET_MAX, self.scatter.height_for_width(width_now)
        if (abs(self.scatter.maximumWidth() - width) > 1
                or abs(self.scatter.maximumHeight() - high) > 1):
            self.scatter.setMaximumSize(width, high)

    def _on_scatter_resized(self, *_: object) -> None:
        if self.isVisible():
            self._fit_scatter()  # the axes took their room: the real chrome is known now

    def _on_settings_toggled(self, _on: bool) -> None:
        self._arrange()

    def show_settings(self, on: bool = True) -> None:
        """Show the side bar (compact: in the plots' place) or, ``on`` False, the plots."""
        if self._compact:
            self.settings_button.setChecked(on)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._arrange()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._arrange()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._arrange_timer.start()

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
        if self.plots.isHidden():
            self.show_settings(False)  # the settings hide the plots: the run is what to watch
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
        if self.settings.isAncestorOf(label):
            self.show_settings()  # the message is under its box: show the box
            self.settings.ensureWidgetVisible(label)
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
        self._arrange()  # the data's shape may call for the curve on the other side
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
        self.updateGeometry()  # the minimum size changed with the plots'
        self._arrange()

    def stale_anchor(self) -> QWidget:
        """The banner lies over the scatter and the distortion curve."""
        return self.plots

    def set_scheme(self, scheme: str) -> None:
        self.scatter.set_scheme(scheme)
        self.distortion.set_scheme(scheme)

    # ------------------------------------------------------------------ slots

    def _enable_transport(self, on: bool) -> None:
        for w in (self.play_button, self.back_button, self.assign_button, self.update_button,
                  self.step_button, self.scrubber, self.export_button):
            w.setEnabled(on)

    def _on_init_changed(self, *_: object) -> None:
        if self.init.currentData() == "given":
            if self.plots.isHidden():
                self.show_settings(False)  # the clicks go on the plot
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
