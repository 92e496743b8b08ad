"""Who the editor's text belongs to: the open file, or the open lesson's step.

Both the document and the lesson answer the same questions (save, save as,
modified, may it be discarded); while a lesson is open the editor holds one of
its steps, so Save writes the lesson and a step's code never goes into some other
file by accident. Opening a file, an example or a new buffer closes the lesson first.
"""

from __future__ import annotations

import os
from typing import Protocol

from workbench.examples import Example, bundled_examples
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.lesson.lesson_controller import LessonController
from workbench.ui.storage.document import DocumentController


class EditorOwner(Protocol):
    """What the document and the lesson both answer."""

    def save(self) -> bool: ...
    def save_as(self) -> bool: ...
    def save_to(self, path: str | os.PathLike[str]) -> bool: ...
    def is_modified(self) -> bool: ...
    def confirm_discard(self) -> bool: ...


class Files:
    """The window's File menu verbs, given to whoever owns the editor's text now."""

    def __init__(self, document: DocumentController, lessons: LessonController,
                 controls: CallControls):
        self.document = document
        self.lessons = lessons
        self.controls = controls

    def owner(self) -> EditorOwner:
        return self.lessons if self.lessons.is_open else self.document

    def open_initial(self, path: str | os.PathLike[str] | None) -> None:
        """At start: unsaved work first, else ``path``, else the last file, else an example."""
        if self.document.recover():
            return
        if path is not None:
            self.document.open_path(path)
        elif not self.document.open_last() and (examples := bundled_examples()):
            self.open_example(examples[0])

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a file (closing the lesson first, if one is open)."""
        return self.lessons.close() and self.document.open_path(path)

    def open_dialog(self) -> None:
        if self.lessons.close():
            self.document.open_dialog()

    def open_example(self, example: Example) -> None:
        if self.lessons.close() and self.document.open_path(example.path):
            self.controls.select(example.function, example.args, example.transforms)

    def new_file(self) -> None:
        if self.lessons.close():
            self.document.new_file()

    def save(self) -> bool:
        return self.owner().save()

    def save_as(self) -> bool:
        return self.owner().save_as()

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        return self.owner().save_to(path)

    def is_modified(self) -> bool:
        return self.owner().is_modified()

    def confirm_discard(self) -> bool:
        return self.owner().confirm_discard()
