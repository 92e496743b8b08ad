"""How much text the editor takes in and the engine is sent: a source's limit, in words.

Opening a file past ``api.limits.MAX_SOURCE_BYTES`` was already refused; a paste was not,
and a 10 MB one froze the window 12.5 s and kept the engine busy 149 s. A paste or a drop
that would take the text past the limit is refused whole, and nothing sends a source past
it to the engine. Sizes are UTF-8 bytes, as the file on disk would be.
"""

from __future__ import annotations

from workbench.api.limits import MAX_SOURCE_BYTES

_MB = 1e6
_UTF8_MAX_PER_UNIT = 3  # UTF-8 bytes per UTF-16 unit, at most (a surrogate pair: 4 for 2)


def utf8_size(text: str) -> int:
    """The bytes ``text`` takes as UTF-8 (lone surrogates counted, never an error)."""
    return len(text.encode("utf-8", "surrogatepass"))


def fits_surely(units: int, added: int) -> bool:
    """A text of ``units`` UTF-16 units plus ``added`` bytes fits, whatever its characters:
    the exact size need not be computed."""
    return units * _UTF8_MAX_PER_UNIT + added <= MAX_SOURCE_BYTES


def insert_refusal(what: str, added: int, total: int) -> str | None:
    """What to say instead of inserting ``added`` bytes (a ``"paste"`` or a ``"drop"``) that
    would make the text ``total`` bytes; None when it fits."""
    if total <= MAX_SOURCE_BYTES:
        return None
    done = {"paste": "pasted", "drop": "dropped"}.get(what, "inserted")
    return (f"the {what} ({added / _MB:.1f} MB) would make the text {total / _MB:.1f} MB, "
            f"over the {MAX_SOURCE_BYTES / _MB:.1f} MB limit for a source; nothing was {done}")


def run_refusal(source: str) -> str | None:
    """What to say instead of sending ``source`` to the engine; None when it fits."""
    if len(source) * 4 <= MAX_SOURCE_BYTES:  # at most 4 bytes a code point: no need to count
        return None
    size = utf8_size(source)
    if size <= MAX_SOURCE_BYTES:
        return None
    return (f"the text is {size / _MB:.1f} MB, over the {MAX_SOURCE_BYTES / _MB:.1f} MB "
            "limit for a source; it was not run")
