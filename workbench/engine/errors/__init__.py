"""Errors that cross the engine boundary, and the catalog that explains a user's mistake.

``types`` holds the exceptions (``UsageError`` for bad input to the tool,
``UserCodeError`` for the user's code, carried with its ``Explanation``). The
catalog turns any exception raised by user code into that ``Explanation``:
``clues`` (what the failing spot shows), ``extractors`` (the specifics of one
kind of error), ``entries`` (the table of kinds and their teaching text),
``hints`` (a hint rewritten where the code makes it mislead) and ``explain``.
"""

from workbench.api.errors import Explanation
from workbench.engine.errors.entries import (
    ENTRIES,
    FALLBACK,
    TRACER_BOOL_HINT,
    TRACER_BOOL_TITLE,
    CatalogEntry,
    Entry,
    catalog_entries,
    match,
)
from workbench.engine.errors.explain import editor_frames, explain
from workbench.engine.errors.extractors import syntax_specifics
from workbench.engine.errors.types import (
    DeviceUnavailable,
    UsageError,
    UserCodeError,
    WorkbenchError,
)

__all__ = [
    "ENTRIES",
    "FALLBACK",
    "TRACER_BOOL_HINT",
    "TRACER_BOOL_TITLE",
    "CatalogEntry",
    "DeviceUnavailable",
    "Entry",
    "Explanation",
    "UsageError",
    "UserCodeError",
    "WorkbenchError",
    "catalog_entries",
    "editor_frames",
    "explain",
    "match",
    "syntax_specifics",
]
