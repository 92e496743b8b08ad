"""Errors that cross the engine boundary, and the plain-data explanation of a user's mistake.

Two families: ``UsageError`` is bad input to the tool itself (a malformed argument
spec, an unknown function, an empty range); ``UserCodeError`` is an exception
raised by the code the user typed, carried with its ``Explanation``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


class WorkbenchError(Exception):
    """Base of every error the engine raises on purpose; ``exit_code`` is the CLI status."""

    exit_code = 1

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else type(self).__name__


class UsageError(WorkbenchError):
    """Bad input to the workbench (not to JAX): one line, exit status 2."""

    exit_code = 2


@dataclass(frozen=True)
class Explanation:
    """What went wrong in user code, in words a student can act on.

    ``kind`` is a stable key of the error catalog (``tracer-bool``, ``syntax``,
    ...); ``line``/``column`` point into the editor source; ``traceback`` holds
    only editor frames.
    """

    kind: str
    title: str
    hint: str
    message: str
    doc_url: str | None = None
    file: str | None = None
    line: int | None = None
    column: int | None = None
    exception_type: str = ""
    traceback: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    def one_line(self) -> str:
        name = self.file.replace("\\", "/").rsplit("/", 1)[-1] if self.file else ""
        where = f"{name}:{self.line}: " if name and self.line else ""
        return f"{where}{self.title}"


class UserCodeError(WorkbenchError):
    """An exception raised by the user's code, explained by the error catalog."""

    exit_code = 1

    def __init__(self, explanation: Explanation):
        super().__init__(explanation.one_line())
        self.explanation = explanation
