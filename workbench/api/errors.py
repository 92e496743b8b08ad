"""What went wrong in the user's code, as the catalog explains it to a student."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Explanation:
    """What went wrong in user code, in words a student can act on.

    ``kind`` is a stable key of the error catalog (``tracer-bool``, ``syntax``,
    ...); ``title`` and ``hint`` are the catalog's teaching text, the same for
    every error of a kind; ``specifics`` is what this error adds to them (one or
    two short plain-text lines such as ``name: scaledQ`` or ``shapes: f32[3,4] @
    f32[1000]``, empty when nothing specific is known); ``message`` is the
    original text of the exception, as JAX or Python wrote it; ``line``/``column``
    point into the editor source; ``traceback`` holds only editor frames.
    """

    kind: str
    title: str
    hint: str
    message: str
    specifics: str = ""
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
