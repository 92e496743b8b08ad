"""Helpers the sub-commands share: reading the user's file the way the editor would, and
keeping what the user's code prints out of the command's machine-readable stdout."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workbench.api.limits import MAX_SOURCE_BYTES, source_too_big
from workbench.api.printed import Printed
from workbench.engine.errors import UsageError
from workbench.engine.printed import PrintedCapture
from workbench.engine.userfiles import read_regular_file


def read_user_file(path: str) -> tuple[str, str]:
    """The text of FILE and the name it is compiled under (its resolved path).

    Only a regular file up to ``MAX_SOURCE_BYTES``: a FIFO would hang the command and
    ``/dev/zero`` would fill its memory.
    """
    p = Path(path)
    if not p.exists():
        raise UsageError(f"no such file: {path}")
    if p.is_dir():
        raise UsageError(f"{path} is a folder, not a Python file")
    data = read_regular_file(p, MAX_SOURCE_BYTES, lambda size: source_too_big(size, path))
    try:
        # Universal newlines, as the editor and Path.read_text give.
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    return text, str(p.resolve())


class UserOutput:
    """What the user's code prints during one command, kept off the command's stdout.

    Wrap each stretch of user code (load, trace, sample, time) in ``running()``;
    the text then goes on stderr (``to_stderr``, text formats) or into the JSON
    (``json_fields``), capped like the console's output. If the code fails, what
    it printed so far goes on stderr before the error, where it helps find why.
    """

    def __init__(self) -> None:
        self._capture = PrintedCapture()
        self._dropped_elsewhere = 0  # cut by an attached kernel before it reached us
        self._reported = False

    @contextmanager
    def running(self) -> Iterator[None]:
        """Capture what the code inside prints; if it raises, put that text on stderr first."""
        try:
            with self._capture.capturing():
                yield
        except BaseException:
            self.to_stderr()
            raise

    def write(self, text: str) -> None:
        """Text an attached kernel reports the code printed (in-process, ``running`` catches it)."""
        self._capture.write(text)

    def add_dropped(self, count: int) -> None:
        """Characters an attached kernel already cut from what the code printed."""
        self._dropped_elsewhere += count

    def result(self) -> Printed:
        printed = self._capture.result()
        if not self._dropped_elsewhere:
            return printed
        return Printed(printed.text, printed.dropped + self._dropped_elsewhere)

    def to_stderr(self) -> None:
        """Write the text (with a note if it was capped) on stderr, once."""
        if not self._reported:
            self._reported = True
            sys.stderr.write(self.result().shown())
            sys.stderr.flush()

    def json_fields(self) -> dict[str, Any]:
        """``output`` (the text, ending with the truncation note if capped) and ``output_dropped``.
        """
        printed = self.result()
        return {"output": printed.shown(), "output_dropped": printed.dropped}
