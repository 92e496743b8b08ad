"""What the current lesson step showed when it ran, under its text: as a notebook shows a cell's
outputs (printed text, ``Out[n]``, figures), cleared when the step runs again.

The outputs are the stage: a figure is shown at its own size (larger in presentation mode,
when the room is there), never shrunk to a stamp; the pane asks for the width its widest
figure needs (``wanted_width``) and scrolls only past that; long lines wrap; a click on a
figure shows it enlarged (``sig_figure_clicked``)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QImage, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.api.cells import CellOutput

RUNNING = "running …"
FIGURE_MARGIN = 12  # pixels left beside a figure in the view
MAX_UPSCALE = 1.5  # presenting: a figure grows to the pane's width, up to this factor


def outputs_html(outputs: Sequence[CellOutput], dropped: int = 0) -> tuple[str, list[bytes]]:
    """The outputs as rich text, and the PNGs its ``wbfig:N`` images refer to."""
    parts: list[str] = []
    figures: list[bytes] = []
    for output in outputs:
        if output.png:
            figures.append(output.png)
            name = f"wbfig:{len(figures) - 1}"
            parts.append(f'<p><a href="{name}"><img src="{name}" '
                         f'alt="{html.escape(output.text)}"></a></p>')
            continue
        text = html.escape(output.text.rstrip("\n"))
        if not text:
            continue
        if output.kind == "result":
            count = f"Out[{output.execution_count}]: " if output.execution_count else "Out: "
            parts.append(f'<pre style="white-space: pre-wrap"><span style="color:#b22222">'
                         f'{count}</span>{text}</pre>')
        else:
            parts.append(f'<pre style="white-space: pre-wrap">{text}</pre>')
    if dropped:
        parts.append(f"<p><i>{dropped} more outputs not shown</i></p>")
    return "".join(parts), figures


class StepOutputs(QTextBrowser):
    """The step's outputs (``lessonOutputs``); hidden while a step has none."""

    sig_figure_clicked = Signal(QImage)
    """A figure was clicked: show it enlarged (the image at its own size)."""
    sig_wanted_width = Signal(int)
    """The width (pixels) the pane needs to show its widest figure whole; 0: no figure."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lessonOutputs")
        self.setOpenLinks(False)
        self.setToolTip("what this step showed when it ran: printed text, its last value, "
                        "figures (click one to enlarge it)")
        self.anchorClicked.connect(self._on_anchor)
        self.shown: tuple[CellOutput, ...] = ()
        self.dropped = 0
        self._originals: dict[str, QImage] = {}
        self._figures: dict[str, QImage] = {}
        self._rendered_width = 0
        self.upscale = 1.0
        """Presenting: how much larger than its own size a figure may be shown."""
        self.hide()

    def show_outputs(self, outputs: Sequence[CellOutput], dropped: int = 0) -> None:
        """Show these outputs (none: hide the view)."""
        self.shown = tuple(outputs)
        self.dropped = dropped
        self._render()

    def wanted_width(self) -> int:
        """The pane's width that shows its widest figure whole at its own size."""
        widest = max((image.width() for image in self._originals.values()), default=0)
        if not widest:
            return 0
        chrome = self.width() - self.viewport().width() + 2 * self.document().documentMargin()
        return int(widest + 2 * FIGURE_MARGIN + chrome
                   + self.verticalScrollBar().sizeHint().width())

    def figure_sizes(self) -> list[tuple[int, int]]:
        """The figures as shown now (width, height in pixels)."""
        return [(image.width(), image.height()) for image in self._figures.values()]

    def _render(self) -> None:
        text, figures = outputs_html(self.shown, self.dropped)
        self._originals = {f"wbfig:{i}": QImage.fromData(png) for i, png in enumerate(figures)}
        self._scale_figures()
        self.setHtml(text)
        self.setVisible(bool(text))
        self.sig_wanted_width.emit(self.wanted_width())

    def _scale_figures(self) -> None:
        """Each figure at its own size, larger while presenting where the pane has room.
        The pane asks for the width its widest figure needs (``sig_wanted_width``); only
        where the window cannot give it is a figure shrunk, to be seen whole."""
        room = max(self.viewport().width() - 2 * FIGURE_MARGIN, 80)
        self._figures = {}
        for name, image in self._originals.items():
            factor = 1.0
            if image.width() > 0:
                factor = min(self.upscale, room / image.width())
                factor = max(1.0, factor) if self.upscale > 1.0 and factor >= 1.0 else \
                    min(1.0, factor)
            self._figures[name] = image if factor == 1.0 else image.scaledToWidth(
                round(image.width() * factor), Qt.TransformationMode.SmoothTransformation)
        self._rendered_width = room

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        room = max(self.viewport().width() - 2 * FIGURE_MARGIN, 80)
        if self._originals and abs(room - self._rendered_width) > 8:
            self._scale_figures()
            self.setHtml(outputs_html(self.shown, self.dropped)[0])

    def _on_anchor(self, url: QUrl) -> None:
        image = self._originals.get(url.toString())
        if image is not None:
            self.sig_figure_clicked.emit(image)

    def loadResource(self, kind: int, url: QUrl | str) -> object:  # noqa: N802 (Qt override)
        image = self._figures.get(url.toString() if isinstance(url, QUrl) else url)
        if image is not None and kind == QTextDocument.ResourceType.ImageResource.value:
            return image
        return super().loadResource(kind, url)

    def show_running(self, why: str = "") -> None:
        """The step runs again: its old outputs are gone (as a notebook clears a cell's);
        ``why``: what it waits for, when it does not run yet."""
        self.shown = ()
        self._figures = {}
        self._originals = {}
        self.setHtml(f"<p><i>{html.escape(why) if why else RUNNING}</i></p>")
        self.show()
        self.sig_wanted_width.emit(0)

    def clear_outputs(self) -> None:
        self.shown = ()
        self._figures = {}
        self._originals = {}
        self.clear()
        self.hide()
        self.sig_wanted_width.emit(0)
