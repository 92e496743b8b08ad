"""What the current lesson step showed when it ran, under its text: as a notebook shows a cell's
outputs (printed text, ``Out[n]``, figures), cleared when the step runs again."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.api.cells import CellOutput

RUNNING = "running …"
FIGURE_MAX_WIDTH = 640  # pixels a figure is shown at most (matplotlib's default is 640x480)
FIGURE_MARGIN = 12  # pixels left beside a figure in the view


def outputs_html(outputs: Sequence[CellOutput], dropped: int = 0) -> tuple[str, list[bytes]]:
    """The outputs as rich text, and the PNGs its ``wbfig:N`` images refer to."""
    parts: list[str] = []
    figures: list[bytes] = []
    for output in outputs:
        if output.png:
            figures.append(output.png)
            parts.append(f'<p><img src="wbfig:{len(figures) - 1}" '
                         f'alt="{html.escape(output.text)}"></p>')
            continue
        text = html.escape(output.text.rstrip("\n"))
        if not text:
            continue
        if output.kind == "result":
            count = f"Out[{output.execution_count}]: " if output.execution_count else "Out: "
            parts.append(f'<pre><span style="color:#b22222">{count}</span>{text}</pre>')
        else:
            parts.append(f"<pre>{text}</pre>")
    if dropped:
        parts.append(f"<p><i>{dropped} more outputs not shown</i></p>")
    return "".join(parts), figures


class StepOutputs(QTextBrowser):
    """The step's outputs (``lessonOutputs``); hidden while a step has none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lessonOutputs")
        self.setOpenLinks(False)
        self.setToolTip("what this step showed when it ran: printed text, its last value, "
                        "figures")
        self.shown: tuple[CellOutput, ...] = ()
        self._dropped = 0
        self._figures: dict[str, QImage] = {}
        self._rendered_width = 0
        self.hide()

    def show_outputs(self, outputs: Sequence[CellOutput], dropped: int = 0) -> None:
        """Show these outputs (none: hide the view)."""
        self.shown = tuple(outputs)
        self._dropped = dropped
        self._render()

    def _render(self) -> None:
        text, figures = outputs_html(self.shown, self._dropped)
        # A figure fits the view's width (a narrow lesson dock shows all of it, smaller).
        width = max(min(FIGURE_MAX_WIDTH, self.viewport().width() - 2 * FIGURE_MARGIN), 80)
        self._figures = {}
        for index, png in enumerate(figures):
            image = QImage.fromData(png)
            if image.width() > width:
                image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
            self._figures[f"wbfig:{index}"] = image
        self._rendered_width = width
        self.setHtml(text)
        self.setVisible(bool(text))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        wanted = min(FIGURE_MAX_WIDTH, self.viewport().width() - 2 * FIGURE_MARGIN)
        if self._figures and abs(wanted - self._rendered_width) > 8:
            self._render()

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
        self.setHtml(f"<p><i>{html.escape(why) if why else RUNNING}</i></p>")
        self.show()

    def clear_outputs(self) -> None:
        self.shown = ()
        self._figures = {}
        self.clear()
        self.hide()
