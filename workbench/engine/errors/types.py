"""Errors that cross the engine boundary, and the plain-data explanation of a user's mistake.

Two families: ``UsageError`` is bad input to the tool itself (a malformed argument
spec, an unknown function, an empty range); ``UserCodeError`` is an exception
raised by the code the user typed, carried with its ``Explanation``.
"""

from __future__ import annotations

from workbench.api.cells import CellOutput
from workbench.api.errors import Explanation


class WorkbenchError(Exception):
    """Base of every error the engine raises on purpose; ``exit_code`` is the CLI status."""

    exit_code = 1

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else type(self).__name__


class UsageError(WorkbenchError):
    """Bad input to the workbench (not to JAX): one line, exit status 2.

    ``field`` names the request's input at fault (``"args"`` for an argument spec), so
    the window can say it next to the box the user typed it in.
    """

    exit_code = 2
    field = ""


class DeviceUnavailable(UsageError):
    """``--devices`` names a platform or device this machine does not have: a fact about the
    machine, not a typo, so exit status 1 (and in the window a message by the devices box)."""

    exit_code = 1
    field = "devices"


class UserCodeError(WorkbenchError):
    """An exception raised by the user's code, explained by the error catalog."""

    exit_code = 1

    def __init__(self, explanation: Explanation, outputs: tuple[CellOutput, ...] = ()):
        super().__init__(explanation.one_line())
        self.explanation = explanation
        self.outputs = outputs
        """What a notebook cell showed before it raised (``CellOutput``s)."""
