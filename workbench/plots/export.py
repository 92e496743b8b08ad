"""Plots to PNG and SVG (pyqtgraph exporters); a k-means run to a GIF or numbered PNGs.

Works headless under the offscreen Qt platform (``workbench kmeans ... -o run.gif``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter, SVGExporter
from PySide6 import QtCore, QtGui, QtWidgets

from workbench.api.kmeans import KMeansRun
from workbench.api.writer import atomic_write_bytes
from workbench.plots.kmeans_scatter import KMeansScatter

MIN_GIF_FRAME_MS = 20  # browsers show shorter GIF frames for 100 ms instead


@dataclass(frozen=True)
class KMeansFrame:
    """One drawn iteration: labels per point, centroids K x 2, empty clusters."""

    labels: np.ndarray
    centroids: np.ndarray
    empty: np.ndarray | None = None
    caption: str = ""


def run_frames(run: KMeansRun) -> list[KMeansFrame]:
    """One frame per iteration of a recorded k-means run (any object with the
    ``KMeansRun`` fields: labels, centroids, empty, inertia_mean, iterations)."""
    last = run.labels.shape[0] - 1
    return [
        KMeansFrame(run.labels[min(i, last)], run.centroids[i][:, :2], run.empty[i],
                    f"iteration {i}, mean squared distance {run.inertia_mean[i]:.4g}")
        for i in range(run.iterations + 1)
    ]


def _target(widget: QtWidgets.QWidget) -> QtWidgets.QGraphicsScene:
    if not isinstance(widget, pg.GraphicsView):
        raise TypeError(f"not a pyqtgraph plot widget: {type(widget).__name__}")
    return widget.scene()


def _render(widget: QtWidgets.QWidget, painter: QtGui.QPainter) -> None:
    """``widget.render(painter)``, spelled out per class for the type checker: a
    QGraphicsView (every pyqtgraph plot) has its own ``render`` that draws its scene
    scaled into the painter's device; any other widget draws itself at the origin."""
    if isinstance(widget, QtWidgets.QGraphicsView):
        widget.render(painter)
    else:
        widget.render(painter, QtCore.QPoint(0, 0))


def settle(widget: QtWidgets.QWidget) -> None:
    """Paint once off screen and let the layout react, so axes have grown to fit their
    tick text before an export (pyqtgraph widens an axis only after painting it)."""
    size = widget.size() if widget.width() > 1 else QtCore.QSize(800, 600)
    image = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    for _ in range(2):
        painter = QtGui.QPainter(image)
        _render(widget, painter)
        painter.end()
        QtWidgets.QApplication.processEvents()


def export_png(widget: QtWidgets.QWidget, path: str | Path, width: int | None = None) -> Path:
    """The whole plot widget as a PNG (``width`` in pixels; height keeps the aspect)."""
    path = Path(path)
    scene = _target(widget)
    settle(widget)
    exporter = ImageExporter(scene)
    if width is not None:
        exporter.parameters()["width"] = int(width)
    image = exporter.export(toBytes=True)
    try:
        atomic_write_bytes(path, _qimage_png(image))
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write a PNG to {path}: {exc.strerror}") from None
    return path


def _qimage_png(image: QtGui.QImage) -> bytes:
    """A QImage's PNG bytes (written then through the app's one writer)."""
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # a str, as PySide6 takes it
        raise OSError("the image could not be encoded as PNG")
    buffer.close()
    return bytes(data.data())


def export_svg(widget: QtWidgets.QWidget, path: str | Path) -> Path:
    """The whole plot widget as SVG (vector lines; images such as the k-means raster embed)."""
    path = Path(path)
    scene = _target(widget)
    settle(widget)
    try:
        svg = SVGExporter(scene).export(toBytes=True)
    except ValueError:
        # pyqtgraph 0.14 cannot re-parse the closed paths ("... Z") that Qt 6.10+ writes
        # (pyqtgraph issue #3495); Qt's own SVG generator draws the same scene.
        svg = _qt_svg(widget)
    atomic_write_bytes(path, bytes(svg))
    return path


def _qt_svg(widget: QtWidgets.QWidget) -> bytes:
    from PySide6.QtSvg import QSvgGenerator

    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(widget.size())
    generator.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), widget.size()))
    generator.setTitle(widget.objectName() or "plot")
    painter = QtGui.QPainter(generator)
    _render(widget, painter)
    painter.end()
    buffer.close()
    return bytes(data.data())


def render_image(widget: QtWidgets.QWidget, size: tuple[int, int] | None = None) -> QtGui.QImage:
    """Render ``widget`` (resized to ``size`` first when given) into an ARGB image off screen."""
    if size is not None:
        widget.resize(*size)
    image = QtGui.QImage(widget.size(), QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QtGui.QPainter(image)
    _render(widget, painter)
    painter.end()
    return image


def qimage_to_array(image: QtGui.QImage) -> np.ndarray:
    """H x W x 4 uint8 RGBA copy of a QImage."""
    rgba = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    h, w = rgba.height(), rgba.width()
    buf = np.frombuffer(rgba.constBits(), dtype=np.uint8, count=rgba.sizeInBytes())
    return buf.reshape(h, rgba.bytesPerLine())[:, : w * 4].reshape(h, w, 4).copy()


def _render_frames(scatter: KMeansScatter, frames: Iterable[KMeansFrame],
                   trail_length: int) -> Iterable[np.ndarray]:
    history: list[np.ndarray] = []
    settle(scatter)
    for i, frame in enumerate(frames):
        scatter.set_frame(frame.labels, frame.centroids, history[-trail_length:] if
                          trail_length else [], frame.empty)
        scatter.set_caption(frame.caption or f"iteration {i}")
        history.append(np.asarray(frame.centroids, dtype=float))
        yield qimage_to_array(render_image(scatter))


def export_kmeans_gif(scatter: KMeansScatter, frames: Sequence[KMeansFrame], path: str | Path,
                      frame_ms: float = 400, trail_length: int = 50) -> Path:
    """An animated GIF of the run, one frame per iteration, drawn by ``scatter`` off screen.

    ``frame_ms`` is how long each frame shows (the panel passes its playing speed's);
    GIF stores it in hundredths of a second, so it is rounded to the nearest 10 ms. Each frame
    carries its iteration caption, so Pillow never merges two frames into one.
    """
    from PIL import Image

    if not frame_ms >= MIN_GIF_FRAME_MS:
        raise ValueError(f"a GIF frame needs at least {MIN_GIF_FRAME_MS} ms, got {frame_ms}")
    path = Path(path)
    images = [Image.fromarray(a[:, :, :3]).quantize(colors=255, method=Image.Quantize.MEDIANCUT)
              for a in _render_frames(scatter, frames, trail_length)]
    if not images:
        raise ValueError("no frames to write")
    # format: the file is a GIF whatever its name ends with (Pillow guesses from the suffix).
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:],
                   duration=10 * round(frame_ms / 10), loop=0, optimize=False, disposal=1)
    atomic_write_bytes(path, out.getvalue())
    return path


def export_kmeans_pngs(scatter: KMeansScatter, frames: Sequence[KMeansFrame],
                       folder: str | Path, stem: str = "frame",
                       trail_length: int = 50) -> list[Path]:
    """Numbered PNGs ``stem_000.png``, ... in ``folder`` (created if missing)."""
    from PIL import Image

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, a in enumerate(_render_frames(scatter, frames, trail_length)):
        p = folder / f"{stem}_{i:03d}.png"
        out = io.BytesIO()
        Image.fromarray(a).save(out, format="PNG")
        atomic_write_bytes(p, out.getvalue())
        paths.append(p)
    return paths
