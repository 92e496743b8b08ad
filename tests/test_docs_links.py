"""The documentation's links: every relative link resolves, and the README stays short.

README.md is the front page (what the workbench is, the two commands, a tour, links);
the details live in docs/ and CONTRIBUTING.md, so a moved or renamed file or heading
must not leave a dead link behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _doc_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text without fenced code blocks and code spans, whose brackets are not links."""
    text = _FENCE.sub("", text)
    return _CODE_SPAN.sub(lambda m: "code", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower case, punctuation dropped, - for spaces."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    anchors: set[str] = set(_HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(text):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _relative_links(path: Path) -> list[str]:
    links = _LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [link for link in links if not _SCHEME.match(link)]


@pytest.mark.parametrize("doc", _doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    assert doc.is_file(), f"{doc.relative_to(ROOT)} is missing"
    broken = []
    for link in _relative_links(doc):
        target, _, anchor = link.partition("#")
        resolved = (doc.parent / target).resolve() if target else doc
        if not resolved.is_relative_to(ROOT):
            broken.append(f"{link} (outside the repository)")
        elif not resolved.exists():
            broken.append(f"{link} (no such file)")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{link} (no heading #{anchor} in {resolved.relative_to(ROOT)})")
    assert broken == [], f"dead links in {doc.relative_to(ROOT)}: {broken}"


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines, more than {README_MAX_LINES}: move details to docs/")


def test_the_link_checker_sees_links() -> None:
    """The checker finds links, images and anchors, and none inside code."""
    text = ("[a](docs/x.md#the-window) ![img](../assets/y.png) `[no](code.md)`\n"
            "```\n[no](fenced.md)\n```\n[web](https://example.org)")
    assert _LINK.findall(_prose(text)) == ["docs/x.md#the-window", "../assets/y.png",
                                           "https://example.org"]
    assert _slug("A kernel on a GPU/TPU host") == "a-kernel-on-a-gputpu-host"
    assert _slug("Derivative plot (`functionPlot`)") == "derivative-plot-functionplot"
    assert _slug("Output of `plot` and `time`") == "output-of-plot-and-time"
