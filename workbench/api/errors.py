"""What went wrong in the user's code, as the catalog explains it to a student."""

from __future__ import annotations

from dataclasses import asdict, dataclass


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
