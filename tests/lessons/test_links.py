"""What a click on a lesson's link may do: web pages and the lesson's own headings only."""

from __future__ import annotations

import pytest

from workbench.lessons.links import anchor_matches, heading_anchor, link_action
from workbench.lessons.markdown import headings, render_markdown


@pytest.mark.parametrize("href", [
    "/dev/zero", "/etc/hostname", "../notes.txt", "notes.txt", "file:///etc/passwd",
    "javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://example.org/x", "mailto:a@b.c",
    "https://", "http:///etc/passwd", "\\\\server\\share", "",
])
def test_anything_but_a_web_page_or_an_anchor_is_refused(href):
    action = link_action(href)
    assert action.kind == "refused"
    assert "web links and its own headings only" in action.message


@pytest.mark.parametrize(("href", "host"), [
    ("https://docs.jax.dev/en/latest/quickstart.html", "docs.jax.dev"),
    ("http://127.0.0.1:8888/tree", "127.0.0.1"),
    ("HTTPS://Example.org/#frag", "example.org"),
])
def test_a_web_link_says_where_it_goes(href, host):
    action = link_action(href)
    assert action.kind == "web" and action.target == href
    assert action.message.startswith(f"opens {host} in your browser")


def test_an_anchor_names_a_heading_as_jupyter_writes_it_or_as_a_slug():
    action = link_action("#Pure%20functions")
    assert action.kind == "anchor" and action.target == "Pure functions"
    assert heading_anchor("Pure  functions, *really*") == "Pure-functions,-*really*"
    assert anchor_matches("Pure-functions", "Pure functions")
    assert anchor_matches("pure-functions", "Pure functions!")
    assert not anchor_matches("Impure-functions", "Pure functions")


def test_a_long_or_odd_address_is_shown_short_and_printable():
    action = link_action("/tmp/" + "a" * 500 + "\n\x1b[31m")
    assert len(action.message) < 250 and "\x1b" not in action.message


def test_headings_carry_jupyters_anchors():
    text = "# Pure functions\n\n```\n# not a heading\n```\n\n## Side *effects*\n"
    assert headings(text) == ["Pure functions", "Side effects"]
    html = render_markdown(text).html
    assert '<a name="Pure-functions"></a>' in html and '<a name="Side-effects"></a>' in html
