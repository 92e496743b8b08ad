"""What a click on a link in a lesson's text does: a lesson is someone else's text, so a
link opens a web page in the browser (after the window says where it goes) or moves
within the lesson, and nothing else. A link to a local file (``/etc/hostname``,
``../notes.txt``), a device (``/dev/zero``: reading it never ends) or any other scheme
opens nothing and says so.

Anchors are Jupyter's: a heading ``## Pure functions`` is reached by ``#Pure-functions``
(its text, spaces as dashes), and also by the lower-case slug other renderers write
(``#pure-functions``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

WEB_SCHEMES = ("http", "https")
MAX_SHOWN = 120  # characters of an address in a message

LinkKind = Literal["web", "anchor", "refused"]


@dataclass(frozen=True)
class LinkAction:
    """What to do with a clicked link: ``target`` is the address (web), the anchor name
    (anchor) or the link as written (refused); ``message`` is the one line to show."""

    kind: LinkKind
    target: str
    message: str


def _shown(text: str) -> str:
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def link_action(href: str) -> LinkAction:
    """What a click on ``href`` (as the lesson's HTML has it) does."""
    href = href.strip()
    if href.startswith("#"):
        name = unquote(href[1:])
        return LinkAction("anchor", name, f"the lesson's heading {_shown(name)!r}")
    try:
        parts = urlsplit(href)
    except ValueError:
        return LinkAction("refused", href, f"not a link a lesson opens: {_shown(href)}")
    if parts.scheme.lower() in WEB_SCHEMES and parts.hostname:
        return LinkAction("web", href, f"opens {parts.hostname} in your browser: "
                                       f"{_shown(href)}")
    where = "a local file" if parts.scheme.lower() in ("", "file") else \
        f"a {parts.scheme}: link"
    return LinkAction("refused", href, f"a lesson opens web links and its own headings "
                                       f"only; this one is {where}: {_shown(href)}")


def heading_anchor(text: str) -> str:
    """Jupyter's anchor for a heading's plain text: the text, spaces as dashes."""
    return re.sub(r"\s+", "-", text.strip())


def anchor_matches(anchor: str, heading_text: str) -> bool:
    """Whether ``#anchor`` names this heading, as Jupyter writes it or as a lower-case
    slug (GitHub, Jupyter Book)."""
    jupyter = heading_anchor(heading_text)
    if anchor == jupyter:
        return True
    slug = re.sub(r"[^\w\- ]", "", heading_text.strip().lower()).replace(" ", "-")
    return anchor.lower() == slug
