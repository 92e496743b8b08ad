"""The lesson panel's line about the live class: where the class is, the way back to the
teacher's step, and "Ask for help" (a follower's); hidden outside a class."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget


class LiveBar(QFrame):
    """One line and two buttons; it only shows what it is told and says what was clicked."""

    sig_back = Signal()
    sig_help = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("liveBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.status = QLabel("")
        self.status.setObjectName("liveStatus")
        self.status.setWordWrap(True)
        self.back_button = QPushButton("")
        self.back_button.setObjectName("backToTeacher")
        self.back_button.setToolTip("Go to the teacher's step and follow the teacher again "
                                    "(your edits of other steps stay)")
        self.back_button.clicked.connect(self.sig_back)
        self.back_button.hide()
        self.help_button = QPushButton("Ask for help")
        self.help_button.setObjectName("askForHelp")
        self.help_button.setToolTip("Send this step's code and error to the teacher (and "
                                    "nothing else)")
        self.help_button.clicked.connect(self.sig_help)
        # One above the other, under the line: side by side, at a projector's font size,
        # they widened the lesson panel and with it the window past a 1024x768 screen.
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.status)
        for button in (self.back_button, self.help_button):
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        self.hide()

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_back(self, label: str) -> None:
        """The way back to the teacher's step ("" hides it)."""
        self.back_button.setText(label)
        self.back_button.setVisible(bool(label))

    def set_role(self, role: str | None) -> None:
        """Shown in a class (the help button only for a student); hidden outside one."""
        self.setVisible(role is not None)
        self.help_button.setVisible(role == "student")
        if role is None:
            self.set_back("")
