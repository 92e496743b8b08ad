"""The k-means panel's side bar: data, initialisation, stopping rule, view and export.

The side bar scrolls on its own, so its height never becomes the panel's: on a
short dock (a projector's) the panel puts it behind a "Settings" button instead
of making the dock scroll past the plot.

Every number box takes whatever is typed: what the panel cannot use (text, K
larger than N, a NaN tolerance) is said under that box and nothing is sent;
nothing is clamped to a range behind the user's back.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from workbench.api.choices import DEMO_INITS, DemoInit
from workbench.api.devices import DeviceReport
from workbench.plots.kmeans_scatter import MAX_CLUSTERS

INIT_LABELS: dict[DemoInit, str] = {"kmeans++": "k-means++", "random": "random points",
                                    "farthest": "farthest first", "given": "click to place"}
INITS = tuple((INIT_LABELS[init], init) for init in DEMO_INITS)
TUTORIAL_POINTS = 800  # the engine's tutorial data (a test checks it)
MAX_POINTS = 5_000_000  # every frame's labels come back: N x iterations bytes at least
MAX_ITER = 10_000
ERROR_STYLE = "color: #c0392b"

Number = int | float


def _shown(value: Number) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def message_label(name: str) -> QLabel:
    """A hidden, wrapping, red label for a message about one control."""
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
        self.message = message_label(f"{name}Message")
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


class KMeansSettings(QScrollArea):
    """The side bar (``kmeansSettings``): what to cluster and how, the Voronoi tint, and
    Export with what it saved. The panel owns what these controls do."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kmeansSettings")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

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
        self.file_message = message_label("kmeansFileMessage")
        self.init = QComboBox()
        self.init.setObjectName("kmeansInit")
        self.init.setToolTip(
            "how to choose the starting centroids; 'click to place' uses your clicks")
        for text, key in INITS:
            self.init.addItem(text, key)
        self.init_message = message_label("kmeansInitMessage")
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
        self.all_devices = QCheckBox("all devices")
        self.all_devices.setObjectName("kmeansAllDevices")
        self.set_devices(None)
        self.fields = (self.n_points, self.blob_k, self.spread, self.seed, self.k, self.tol,
                       self.max_iter)
        self.export_button = QPushButton("Export ...")
        self.export_button.setObjectName("kmeansExport")
        self.export_button.setToolTip("the run as an animated GIF, or the frame shown as a PNG")
        self.export_status = QLabel("")
        self.export_status.setObjectName("kmeansExportStatus")
        self.export_status.setWordWrap(True)
        self.export_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_status.hide()

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
        inner = QWidget()
        inner.setObjectName("kmeansSettingsForm")
        column = QVBoxLayout(inner)
        column.addLayout(form)
        column.addWidget(self.export_button)
        column.addWidget(self.export_status)
        column.addStretch(1)
        self.setWidget(inner)
        self._form = inner
        self._on_dataset_changed()

    def natural_size(self) -> tuple[int, int]:
        """(width, height) that shows every control without scrolling (room for the
        scroll bar included, messages hidden): what the panel gives the side bar."""
        hint = self._form.sizeHint()
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        return hint.width() + bar, hint.height()

    def set_devices(self, report: DeviceReport | None) -> None:
        """Say which devices "all devices" shards over: the default backend's."""
        tip = ("shard the points over every device of the engine's default backend "
               "(jax.sharding); the result is the one-device result")
        if report is not None:
            mine = [d.name for d in report.devices if d.platform == report.default_backend]
            self.all_devices.setText(f"all devices ({len(mine)})")
            tip += f": {', '.join(mine)}"
        self.all_devices.setToolTip(tip)

    def _on_dataset_changed(self, *_: object) -> None:
        blobs = self.dataset.currentData() == "blobs"
        for w in (self.n_points, self.blob_k, self.spread):
            w.setEnabled(blobs)
        self.load_button.setEnabled(self.dataset.currentData() == "file")
