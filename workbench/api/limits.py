"""Sizes past which the workbench refuses input instead of slowing to a crawl.

One place for the editor, the CLI and the engine, so each says the same thing.
"""

from __future__ import annotations

MAX_SOURCE_BYTES = 5 * 1024 * 1024
"""Editor source (a file opened, a buffer loaded): 5 MB loads in seconds, 10 MB in ~45 s."""


def source_too_big(size: int, what: str = "the source") -> str:
    """The one message for source past ``MAX_SOURCE_BYTES``."""
    return (f"{what} is {size / 1e6:.1f} MB; the workbench loads Python source up to "
            f"{MAX_SOURCE_BYTES / 1e6:.1f} MB")


MAX_OUTPUT_CHARS = 100_000
"""User output kept per request (the console's, the jaxpr panel's, the CLI's): past it, counted."""
