"""A lesson step's Markdown as HTML for Qt's rich-text subset, read as Jupyter reads it.

Qt's own Markdown (``QTextBrowser.setMarkdown``) has no maths, underlines ``__bold__``
and shows MyST roles literally, so the lesson panel shows HTML made here instead:
CommonMark with tables and strikethrough (markdown-it-py), ``$..$`` / ``$$..$$`` and
``\\begin{equation}`` maths typeset by matplotlib's mathtext into PNG images (Jupyter's
MathJax has no Qt counterpart), MyST roles as their text in a code span, and remote
images as their alt text (never a broken image). A formula mathtext cannot read is
shown as written, as code: never typeset with a changed meaning.

No Qt here: ``render_markdown`` returns the HTML and the images it names
(``wbmath:N``, ``wbimg:N``), which the panel adds to its document as resources.

markdown-it-py's inline parser takes a few microseconds a character, and more than
linear time on crafted text (a paragraph of unclosed ``[`` brackets: 12 s for 400 KB).
So a paragraph longer than ``INLINE_CHARS`` is shown as its plain text, a cell
longer than ``RENDER_CHARS`` as preformatted text, and titles inline-parse only the
first ``TITLE_SCAN_CHARS`` of their heading or paragraph (the blocks of a cell are
found in linear time).
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import io
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from workbench.api.limits import FileRefused, read_regular_file
from workbench.api.process_env import MATPLOTLIB_IMPORT
from workbench.lessons.links import heading_anchor

MATH_SCHEME = "wbmath"
IMAGE_SCHEME = "wbimg"
DATA_SCHEME = "wbdata"
# A data URI's bytes are one run of base64 characters (and the line breaks some writers
# put in): one character class, linear whatever the text.
_DATA_URI = re.compile(r"data:image/[\w.+-]{1,40};base64,(?P<data>[A-Za-z0-9+/=\n\r]+)")
MATH_FONTSET = "cm"  # Computer Modern, as MathJax draws a notebook's maths
MAX_LATEX = 2000  # characters; longer formulas stay as written
INLINE_CHARS = 20_000  # a paragraph longer than this is shown as its text, unparsed
RENDER_CHARS = 100_000  # a cell longer than this is shown as preformatted text
TITLE_SCAN_CHARS = 2_000  # of a heading or paragraph, for its title
MAX_IMAGE_BYTES = 16 * 1024 * 1024
MATH_CACHE = 512  # typeset formulas kept (each a few kilobytes)
FAINT = 48  # of 255: antialiasing, not ink, below a formula's baseline
CM_X_HEIGHT = 0.431  # of an em: Computer Modern's x, smaller than a sans-serif text's
# As MathJax does, maths are scaled so that their x is as tall as the text's (within reason).
MATCH_SCALE = (1.0, 1.4)
# Qt's sizes for <h1>..<h6> (its font size adjustments +3..-2), for the maths inside them.
HEADING_SCALE = {"h1": 2.0, "h2": 1.5, "h3": 1.2, "h4": 1.0, "h5": 0.8, "h6": 0.7}
LOCAL_IMAGE_FORMATS = frozenset({"PNG", "JPEG", "GIF", "BMP"})  # what Qt reads built in
ADMONITIONS = frozenset({"note", "tip", "hint", "important", "warning", "caution", "attention",
                         "danger", "error", "seealso", "admonition"})
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:+-]+)\}\s*(?P<args>.*)$")
_OPTION = re.compile(r"^:[\w-]+:")
_EQUATION = re.compile(r"^\\begin\{equation(\*?)\}(?P<body>.*)\\end\{equation\1\}$", re.DOTALL)
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_FRACTION_OR_BRACE = re.compile(r"\\frac(?![A-Za-z])|\\.|[{}]")
_LABEL = re.compile(r"\\(?:label|nonumber|notag)(?:\{[^{}]*\})?")
# LaTeX commands mathtext lacks, each written with one it has that reads the same
# (the sizes of \big and \displaystyle aside): the picture never says something else.
_SAME_MEANING = {
    "le": r"\leq", "ge": r"\geq", "lvert": "|", "rvert": "|", "lVert": r"\Vert",
    "rVert": r"\Vert", "gets": r"\leftarrow", "implies": r"\Longrightarrow",
    "iff": r"\Longleftrightarrow", "tfrac": r"\frac", "bm": r"\boldsymbol", "textrm": r"\text",
    "displaystyle": "", "textstyle": "", "limits": "", "nolimits": "",
    **{f"{size}{side}": "" for size in ("big", "Big", "bigg", "Bigg")
       for side in ("", "l", "r", "m")},
}
_KEEP_TAGS = frozenset({"b", "i", "em", "strong", "code", "kbd", "tt", "sub", "sup", "s", "del",
                        "u", "small", "big", "br", "p", "pre", "blockquote", "ul", "ol", "li",
                        "hr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody",
                        "tr", "th", "td", "a", "center"})
_DROP_CONTENT = frozenset({"script", "style", "head", "title"})
_VOID_TAGS = frozenset({"br", "hr", "img"})


@dataclass(frozen=True)
class TextStyle:
    """How the panel shows text: the maths follow its size and colour.

    ``dpi`` turns points into the panel's logical pixels; ``device_pixel_ratio`` makes the
    maths' PNGs that much denser, crisp on a HiDPI screen. ``x_height`` (logical pixels) is
    the text font's, so inline maths sit on the text's baseline.
    """

    point_size: float = 10.0
    colour: str = "#000000"
    dpi: float = 96.0
    device_pixel_ratio: float = 1.0
    x_height: float | None = None
    max_image_width: int | None = None
    """A local image wider than this (logical pixels) is shown scaled down to it."""


@dataclass(frozen=True)
class Image:
    """An image the HTML names: its bytes (PNG for maths) and its size as shown."""

    data: bytes
    width: int
    height: int
    """Logical pixels; a maths PNG has ``device_pixel_ratio`` times as many."""
    middle: bool = False
    """Inline maths with a part below the baseline, padded for ``vertical-align: middle``;
    other images sit with their bottom on the text's baseline."""


@dataclass(frozen=True)
class RenderedMarkdown:
    html: str
    images: dict[str, Image] = field(default_factory=dict)
    """Resource name (``wbmath:1``) -> the image to add to the document under that name."""


@dataclass
class _Render:
    """One render's settings and the images it has named so far."""

    style: TextStyle
    folder: Path | None
    embedded: dict[str, str] = field(default_factory=dict)
    """``attachment:NAME`` and the ``data:`` URIs lifted out of the text -> base64 bytes."""
    images: dict[str, Image] = field(default_factory=dict)
    names: dict[tuple[str, ...], str] = field(default_factory=dict)
    scale: float = 1.0
    """The text's size where the renderer is now (a heading's is larger)."""

    def name(self, scheme: str, key: tuple[str, ...], image: Image) -> str:
        """One resource name for each distinct image of this render."""
        if key not in self.names:
            self.names[key] = f"{scheme}:{len(self.names) + 1}"
            self.images[self.names[key]] = image
        return self.names[key]


def render_markdown(text: str, style: TextStyle | None = None, folder: Path | None = None,
                    attachments: Sequence[tuple[str, str, str]] = ()) -> RenderedMarkdown:
    """``text`` as HTML for ``QTextDocument.setHtml`` and the images it names; ``folder``
    is the lesson's, where its relative image paths are found (none: their alt text);
    ``attachments`` the cell's ``(name, mime, base64)`` images, named ``attachment:NAME``.

    Images embedded as ``data:`` URIs (pasted screenshots, often most of a cell) are
    lifted out before the text is measured or parsed: they never trip the text's limits.
    """
    render = _Render(style or TextStyle(), folder)
    for name, _mime, data in attachments:
        render.embedded[f"attachment:{name}"] = data
    text = _lift_data_uris(text, render.embedded)
    if len(text) > RENDER_CHARS:
        body = (f"<p><i>{len(text):,} characters of Markdown, shown as written (the lesson "
                f"panel renders up to {RENDER_CHARS:,})</i></p><pre>{html.escape(text)}</pre>")
        return RenderedMarkdown(body, render.images)
    body = _parser().render(text, {"wb": render})
    return RenderedMarkdown(body, render.images)


# ---------------------------------------------------------------------- titles


def first_heading(text: str) -> str | None:
    """The plain text of the first Markdown heading (none inside code), if any."""
    tokens = _block_parser().parse(text)
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            return _plain(_inline(tokens[index + 1].content), first_line=False) or None
    return None


def headings(text: str) -> list[str]:
    """The plain text of every Markdown heading (none inside code), in order: what the
    lesson's anchors (``#Heading-text``) name."""
    tokens = _block_parser().parse(text)
    return [_plain(_inline(tokens[index + 1].content), first_line=False)
            for index, token in enumerate(tokens) if token.type == "heading_open"]


def first_prose_line(text: str) -> str:
    """The plain text of the first line of the first paragraph (code and tables skipped)."""
    tokens = _block_parser().parse(text)
    in_table = 0
    for index, token in enumerate(tokens):
        in_table += {"table_open": 1, "table_close": -1}.get(token.type, 0)
        if (token.type == "inline" and not in_table
                and tokens[index - 1].type == "paragraph_open"):
            line = _plain(_inline(token.content), first_line=True)
            if line:
                return line
    return ""


def _inline(content: str) -> list[Token]:
    """The inline tokens of the start of a heading or paragraph: enough for a title."""
    tokens = _parser().parseInline(content[:TITLE_SCAN_CHARS])
    return list(tokens[0].children or []) if tokens else []


def _plain(children: Sequence[Token], *, first_line: bool) -> str:
    """Inline Markdown as the text it shows: no stars or backticks, links as their text,
    maths as written (``$x^2$``), images as their alt text."""
    parts: list[str] = []
    for child in children:
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            if first_line:
                break
            parts.append(" ")
        elif kind in ("text", "text_special", "code_inline"):
            parts.append(child.content)
        elif kind == "math_inline":
            parts.append(f"${child.content}$")
        elif kind == "math_inline_double":
            parts.append(f"$${child.content}$$")
        elif kind == "myst_role":
            math = child.meta.get("name") == "math"
            parts.append(f"${child.content}$" if math else _role_text(child.content))
        elif kind == "image" and child.children is not None:
            parts.append(_plain(child.children, first_line=False))
    return re.sub(r"\s+", " ", "".join(parts)).strip()


# ---------------------------------------------------------------------- the parser


@functools.cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # $5 and $6 is money, as in Jupyter; $$..$$ inside a paragraph is maths too
    md.use(dollarmath_plugin, allow_digits=False, double_inline=True)
    md.use(amsmath_plugin).use(myst_role_plugin).use(myst_block_plugin)
    md.disable("myst_line_comment")  # a line starting with % is text in Jupyter
    rules = {
        "math_inline": _render_math_inline, "math_inline_double": _render_math_inline,
        "math_block": _render_math_block, "math_block_label": _render_math_block,
        "amsmath": _render_amsmath, "myst_role": _render_role, "image": _render_image,
        "myst_target": _render_nothing, "myst_block_break": _render_nothing,
        "html_inline": _render_html, "html_block": _render_html, "fence": _render_fence,
        "table_open": _render_table_open, "th_open": _render_cell_open,
        "td_open": _render_cell_open, "heading_open": _render_heading,
        "heading_close": _render_heading,
    }
    for name, rule in rules.items():
        md.add_render_rule(name, rule)
    md.core.ruler.at("inline", _bounded_inline)
    return md


@functools.cache
def _block_parser() -> MarkdownIt:
    """The blocks of a text (headings, paragraphs, code, tables), their inline text unparsed."""
    md = MarkdownIt("commonmark").enable(["table"])
    md.use(dollarmath_plugin, allow_digits=False, double_inline=True)
    md.use(amsmath_plugin).use(myst_block_plugin)
    md.disable(["myst_line_comment", "inline"])
    return md


def _bounded_inline(state: StateCore) -> None:
    """markdown-it's core ``inline`` rule, but a paragraph past ``INLINE_CHARS`` is its text."""
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        if len(token.content) > INLINE_CHARS:
            text = Token("text", "", 0)
            text.content = token.content
            token.children.append(text)
        else:
            state.md.inline.parse(token.content, state.md, state.env, token.children)


def _state(env: EnvType) -> _Render:
    render = env.get("wb")
    return render if isinstance(render, _Render) else _Render(TextStyle(), None)


def _render_nothing(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
    return ""


def _render_heading(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
    token = tokens[idx]
    _state(env).scale = HEADING_SCALE.get(token.tag, 1.0) if token.nesting == 1 else 1.0
    opened = str(self.renderToken(tokens, idx, options, env))
    if token.nesting != 1 or idx + 1 >= len(tokens):
        return opened
    # Jupyter's anchor, so a link ``#Heading-text`` in the lesson reaches it.
    title = _plain(_inline(tokens[idx + 1].content), first_line=False)
    return f'{opened}<a name="{html.escape(heading_anchor(title), quote=True)}"></a>'


def _render_math_inline(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                        env: EnvType) -> str:
    token = tokens[idx]
    fence = "$$" if token.type == "math_inline_double" else "$"
    return _math_html(token.content, env, display=False, fence=fence)


def _render_math_block(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                       env: EnvType) -> str:
    return _math_html(tokens[idx].content, env, display=True, fence="$$")


def _render_amsmath(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
    source = tokens[idx].content.strip()
    match = _EQUATION.match(source)
    if match:  # one equation: mathtext may read its body; other environments it cannot
        image = _math_image(match.group("body"), env, display=True)
        if image is not None:
            return image
    return f"<pre>{html.escape(source)}</pre>\n"


def _math_html(latex: str, env: EnvType, *, display: bool, fence: str) -> str:
    source = latex.strip()
    image = _math_image(source, env, display=display)
    if image is not None:
        return image
    written = f"{fence}{source}{fence}"
    if display:
        return f"<pre>{html.escape(fence)}\n{html.escape(source)}\n{html.escape(fence)}</pre>\n"
    return f"<code>{html.escape(written)}</code>"


def _math_image(latex: str, env: EnvType, *, display: bool) -> str | None:
    """An ``<img>`` of the typeset formula; None where mathtext cannot read it."""
    render = _state(env)
    style = render.style
    size = style.point_size * render.scale
    em = size * style.dpi / 72
    x_height = style.x_height * render.scale if style.x_height else 0.53 * em
    low, high = MATCH_SCALE
    match = min(max(x_height / (CM_X_HEIGHT * em), low), high)
    image = typeset(latex.strip(), display=display, point_size=round(size * match, 2),
                    colour=style.colour, dpi=style.dpi, ratio=style.device_pixel_ratio,
                    x_height=round(x_height, 2))
    if image is None:
        return None
    name = render.name(MATH_SCHEME, (latex.strip(), str(display), str(size)), image)
    fence = "$$" if display else "$"
    written = html.escape(f"{fence}{latex.strip()}{fence}", quote=True)
    tag = (f'<img src="{name}" width="{image.width}" height="{image.height}" '
           f'alt="{written}" title="{written}"')
    if display:
        return f'<p align="center">{tag} /></p>\n'
    return f'{tag} style="vertical-align: middle" />' if image.middle else f"{tag} />"


def _render_role(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                 env: EnvType) -> str:
    token = tokens[idx]
    if token.meta.get("name") == "math":
        return _math_html(token.content, env, display=False, fence="$")
    return f"<code>{html.escape(_role_text(token.content))}</code>"


def _role_text(content: str) -> str:
    """What MyST shows of a role: ``title <target>`` its title, ``~a.b.c`` just ``c``."""
    title = _role_title(content.strip())
    if title:
        return title
    text = content.strip().lstrip("!")
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return text


def _role_title(text: str) -> str:
    r"""``title`` of ``title <target>`` (the target has no ``<`` or ``>``), else "".

    By hand: the pattern ``(.+?)\s*<([^<>]+)>$`` was quadratic in a run of spaces (40 KB of
    them: 5 s).
    """
    if not text.endswith(">"):
        return ""
    opening = text.rfind("<", 0, len(text) - 1)
    if opening <= 0 or ">" in text[opening + 1:-1] or opening + 1 == len(text) - 1:
        return ""
    return text[:opening].rstrip()


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: EnvType) -> str:
    token = tokens[idx]
    alt = _plain(token.children or [], first_line=False)
    return _image_html(str(token.attrGet("src") or ""), alt, env)


def _lift_data_uris(text: str, embedded: dict[str, str]) -> str:
    """``text`` with each ``data:image/...;base64,...`` URI replaced by a short name
    (``wbdata:N``) that ``embedded`` maps to its base64 bytes."""
    if "data:" not in text:
        return text

    def lift(match: re.Match[str]) -> str:
        name = f"{DATA_SCHEME}:{len(embedded) + 1}"
        embedded[name] = match.group("data")
        return name

    return _DATA_URI.sub(lift, text)


def _image_html(src: str, alt: str, env: EnvType) -> str:
    """An image the cell embeds (an attachment, a ``data:`` URI) or the lesson's folder
    holds, as an image resource; anything else (remote, missing, unreadable) as its alt
    text."""
    render = _state(env)
    src = src.strip()
    if src in render.embedded:
        found = _embedded_image(render.embedded[src], render.style.max_image_width)
    else:
        found = _local_image(src, render.folder, render.style.max_image_width)
    if found is None:
        return html.escape(f"[image: {alt}]" if alt else "[image]")
    name = render.name(IMAGE_SCHEME, (src,), found)
    written = html.escape(alt, quote=True)
    return (f'<img src="{name}" width="{found.width}" height="{found.height}" '
            f'alt="{written}" />')


def _embedded_image(b64: str, max_width: int | None) -> Image | None:
    if len(b64) > MAX_IMAGE_BYTES * 4 // 3 + 4:
        return None
    try:
        data = base64.b64decode("".join(b64.split()), validate=True)
    except (ValueError, binascii.Error):
        return None
    return _image_of(data, max_width)


def _local_image(src: str, folder: Path | None, max_width: int | None) -> Image | None:
    if folder is None or not src or re.match(r"^[A-Za-z][\w+.-]*:", src) or src.startswith(
            ("/", "\\")):
        return None
    try:
        root = folder.resolve()
        path = (root / unquote(src.split("#")[0].split("?")[0])).resolve()
        if not path.is_relative_to(root):
            return None
        data = read_regular_file(path, MAX_IMAGE_BYTES, lambda size: "too big")
    except (OSError, ValueError, FileRefused):
        return None
    return _image_of(data, max_width)


def _image_of(data: bytes, max_width: int | None) -> Image | None:
    """The image in ``data`` at its size (scaled down to ``max_width``), if Qt reads it."""
    try:
        from PIL import Image as PILImage

        with PILImage.open(io.BytesIO(data)) as picture:
            if picture.format not in LOCAL_IMAGE_FORMATS:
                return None
            width, height = picture.size
    except (OSError, ValueError):
        return None
    if max_width and width > max_width:
        width, height = max_width, max(1, round(height * max_width / width))
    return Image(data, width, height)


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: EnvType) -> str:
    """A MyST admonition (```` ```{note} ````) as a quote with its title; ``{math}`` as
    maths; any other fence as code."""
    token = tokens[idx]
    match = _DIRECTIVE.match(token.info.strip())
    if match:
        name = match.group("name")
        body = "\n".join(row for row in token.content.splitlines() if not _OPTION.match(row))
        if name in ADMONITIONS:
            title = match.group("args").strip() or name.capitalize()
            inner = _parser().render(body, env)
            return f"<blockquote><p><b>{html.escape(title)}</b></p>\n{inner}</blockquote>\n"
        if name == "math":
            return _math_html(body, env, display=True, fence="$$")
    return f"<pre><code>{html.escape(token.content, quote=False)}</code></pre>\n"


def _render_table_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                       env: EnvType) -> str:
    return '<table border="1" cellspacing="0" cellpadding="4">\n'


def _render_cell_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                      env: EnvType) -> str:
    token = tokens[idx]
    style = str(token.attrGet("style") or "")
    align = style.partition("text-align:")[2].strip()
    tag = token.tag
    return f'<{tag} align="{align}">' if align in ("left", "center", "right") else f"<{tag}>"


def _render_html(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                 env: EnvType) -> str:
    """A notebook's own HTML, kept to what Qt shows well: simple tags without their
    attributes (a link keeps its address), images as ``![alt](src)`` would be."""
    cleaner = _HtmlCleaner(env)
    cleaner.feed(tokens[idx].content)
    cleaner.close()
    return "".join(cleaner.out)


class _HtmlCleaner(HTMLParser):
    def __init__(self, env: EnvType):
        super().__init__(convert_charrefs=True)
        self.env = env
        self.out: list[str] = []
        self.dropping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        if tag in _DROP_CONTENT:
            self.dropping += 1
        elif self.dropping:
            return
        elif tag == "img":
            self.out.append(_image_html(values.get("src", ""), values.get("alt", ""), self.env))
        elif tag == "a":
            href = values.get("href", "")
            safe = re.match(r"^(https?:|mailto:|#)", href)
            self.out.append(f'<a href="{html.escape(href, quote=True)}">' if safe else "<a>")
        elif tag == "center":
            self.out.append('<p align="center">')
        elif tag in _KEEP_TAGS:
            self.out.append(f"<{tag} />" if tag in _VOID_TAGS else f"<{tag}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _DROP_CONTENT:
            self.dropping -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP_CONTENT:
            self.dropping = max(0, self.dropping - 1)
        elif not self.dropping and tag in _KEEP_TAGS and tag not in _VOID_TAGS:
            self.out.append("</p>" if tag == "center" else f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(html.escape(data, quote=False))


# ---------------------------------------------------------------------- maths


def mathtext_source(latex: str, *, display: bool = False) -> str:
    """``latex`` as mathtext reads it: one line, the commands it lacks written with ones
    it has that mean the same, equation labels dropped; displayed, its outermost fractions
    are display-style (``\\dfrac``), as LaTeX sets them."""
    text = _LABEL.sub("", latex.replace("\r", " ").replace("\n", " "))
    text = _COMMAND.sub(lambda m: _SAME_MEANING.get(m.group(1), m.group(0)), text).strip()
    if not display:
        return text
    out: list[str] = []
    depth = last = 0
    for match in _FRACTION_OR_BRACE.finditer(text):
        token = match.group(0)
        depth += {"{": 1, "}": -1}.get(token, 0)
        if token == r"\frac" and depth == 0:
            out.append(text[last:match.start()] + r"\dfrac")
            last = match.end()
    return "".join(out) + text[last:]


@functools.lru_cache(maxsize=MATH_CACHE)
def typeset(latex: str, *, display: bool = False, point_size: float = 10.0,
            colour: str = "#000000", dpi: float = 96.0, ratio: float = 1.0,
            x_height: float | None = None) -> Image | None:
    """``latex`` typeset by mathtext as a PNG in ``colour``; None where mathtext cannot
    read it (the caller shows it as written). Inline maths are padded so that, drawn with
    Qt's ``vertical-align: middle`` beside text of ``x_height``, their baseline is the text's.
    Cached: the same formula at the same size and colour is typeset once."""
    source = mathtext_source(latex, display=display)
    if not source or len(source) > MAX_LATEX:
        return None
    import numpy as np
    from PIL import Image as PILImage

    parsed = _parse(source, point_size, dpi * ratio)
    with _MATHTEXT:  # matplotlib's first import, from two threads at once, fails half-way
        from matplotlib.colors import to_rgb
    try:
        rgb = to_rgb(colour)
    except ValueError:
        return None
    if parsed is None:
        return None
    coverage = np.asarray(parsed.image, dtype=np.uint8)
    if not coverage.size or not coverage.any():
        return None
    top = bottom = 0
    middle = False
    if not display:
        # mathtext's own placement of a formula's baseline (its Agg backend's), to a pixel
        baseline = min(max(round(coverage.shape[0] - float(parsed.depth) - 1), 1),
                       coverage.shape[0])
        if coverage[baseline:].size == 0 or coverage[baseline:].max() < FAINT:
            coverage = coverage[:baseline]  # nothing below the baseline: bottom on it
        else:
            middle = True
            descent = coverage.shape[0] - baseline
            half_x = (x_height if x_height else 0.53 * point_size * dpi / 72) * ratio / 2
            lean = baseline - descent - half_x  # how far above Qt's middle the baseline is
            bottom, top = (round(lean), 0) if lean > 0 else (0, round(-lean))
    height, width = coverage.shape
    logical_w = math.ceil(width / ratio)
    logical_h = math.ceil((height + top + bottom) / ratio)
    canvas = np.zeros((round(logical_h * ratio), round(logical_w * ratio), 4), np.uint8)
    extra = canvas.shape[0] - (height + top + bottom)
    top += extra // 2 if middle else extra  # a bottom-aligned one keeps its bottom row
    canvas[top:top + height, :width, 3] = coverage
    canvas[..., :3] = [round(channel * 255) for channel in rgb]
    buffer = io.BytesIO()
    PILImage.fromarray(canvas).save(buffer, format="PNG")
    return Image(buffer.getvalue(), logical_w, logical_h, middle)


class _Substitutions(logging.Filter):
    """Notes (and silences) mathtext's warnings that it drew a symbol it does not know
    as a dummy one: a picture of a different formula."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = False

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "glyph" in message or "mapping" in message:
            self.seen = True
            return False
        return True


@functools.lru_cache(maxsize=MATH_CACHE)
def _parse(source: str, point_size: float, dpi: float) -> Any:
    """mathtext's raster of ``$source$``; None where it cannot read it or would draw a
    dummy symbol. Cached here, more than mathtext's own cache, so its warnings are seen
    on the first parse of every formula that is asked for again."""
    with _MATHTEXT:
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import MathTextParser

        logger = logging.getLogger("matplotlib.mathtext")
        substitutions = _Substitutions()
        logger.addFilter(substitutions)
        try:
            prop = FontProperties(size=point_size, math_fontfamily=MATH_FONTSET)
            parsed = MathTextParser("agg").parse(f"${source}$", dpi=dpi, prop=prop)
        except Exception:  # any formula mathtext trips on is shown as written instead
            return None
        finally:
            logger.removeFilter(substitutions)
        return None if substitutions.seen else parsed


# mathtext is not made for two threads at once (``warm_up``), nor is matplotlib's import
# (the graph panel's igraph imports it too).
_MATHTEXT = MATPLOTLIB_IMPORT


def warm_up() -> None:
    """Load matplotlib's mathtext and its fonts (about half a second, once): on a thread
    when a lesson with maths opens, so its first formula does not stall the window."""
    _parse("x", 10.0, 96.0)


def has_maths(text: str) -> bool:
    """Whether ``text`` may hold maths worth loading mathtext for."""
    return "$" in text or "\\begin{" in text
