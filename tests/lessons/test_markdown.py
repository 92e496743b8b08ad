"""A step's Markdown as HTML for Qt, read as Jupyter reads it: maths typeset by mathtext,
MyST roles, remote images, tables, emphasis; and the titles the step list shows."""

from __future__ import annotations

import io
import re

import nbformat
import nbformat.v4 as nbf
import numpy as np
import pytest
from PIL import Image as PILImage

from workbench.lessons import read_lesson
from workbench.lessons.markdown import (
    INLINE_CHARS,
    MATH_CACHE,
    RENDER_CHARS,
    TextStyle,
    first_heading,
    first_prose_line,
    render_markdown,
    typeset,
)
from workbench.lessons.model import first_title

PNG = b"\x89PNG\r\n\x1a\n"


def images_in(html: str) -> list[tuple[str, str]]:
    """(src, alt) of each <img> in ``html``."""
    return re.findall(r'<img src="([^"]+)"[^>]*?alt="([^"]*)"', html)


def pixels(data: bytes) -> np.ndarray:
    with PILImage.open(io.BytesIO(data)) as picture:
        return np.asarray(picture.convert("RGBA"))


def test_a_fraction_is_one_image_that_keeps_its_grouping_and_its_source():
    out = render_markdown(r"The logistic $\frac{e^x}{1+e^x}$ squashes.")
    assert images_in(out.html) == [("wbmath:1", r"$\frac{e^x}{1+e^x}$")]
    assert r'title="$\frac{e^x}{1+e^x}$"' in out.html
    assert "e^x/1" not in out.html and "squashes." in out.html
    image = out.images["wbmath:1"]
    assert image.data.startswith(PNG)
    assert pixels(image.data).shape[:2] == (image.height, image.width)
    assert 'style="vertical-align: middle"' in out.html  # on the text's baseline


@pytest.mark.parametrize("latex", [r"\mathbb{R}^{m\times n}", r"x_{i+1}", r"\text{if } x > 0",
                                   r"\lVert x \rVert_2 \le 1", r"\sigma(x)"])
def test_formulas_jupyter_notebooks_use_are_typeset(latex):
    out = render_markdown(f"where ${latex}$ holds")
    assert images_in(out.html) == [("wbmath:1", f"${latex}$".replace(">", "&gt;"))]
    assert "<code>" not in out.html


def test_display_maths_is_a_centred_image():
    out = render_markdown("$$\n\\nabla f = \\sum_i \\frac{\\partial f}{\\partial x_i} e_i\n$$\n")
    assert out.html.startswith('<p align="center"><img src="wbmath:1"')
    assert "vertical-align" not in out.html
    assert "$$" not in out.html.replace('alt="$$', "").replace('title="$$', "").replace(
        '$$" ', "")


def test_maths_mathtext_cannot_read_stays_as_written_code():
    aligned = "$$\n\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}\n$$\n"
    out = render_markdown(aligned + "\nand $\\frac{a}{$ inline, $\\unknownmacro x$ too")
    assert out.images == {}
    assert "<pre>$$\n\\begin{aligned} a &amp;= b \\\\ c &amp;= d \\end{aligned}\n$$</pre>" in (
        out.html)
    assert "<code>$\\frac{a}{$</code>" in out.html
    assert "<code>$\\unknownmacro x$</code>" in out.html
    dummy = render_markdown("$\\text{中文} = x$")  # mathtext would draw a dummy symbol
    assert dummy.images == {} and "<code>$\\text{中文} = x$</code>" in dummy.html


def test_an_amsmath_equation_is_typeset_and_an_align_is_written_out():
    out = render_markdown("\\begin{equation}\nE = m c^2 \\label{eq:e}\n\\end{equation}\n\n"
                          "\\begin{align}\na &= b \\\\\nc &= d\n\\end{align}\n")
    assert len(images_in(out.html)) == 1
    assert "<pre>\\begin{align}\na &amp;= b" in out.html


def test_maths_across_a_line_break_is_one_formula():
    out = render_markdown("the sum $a +\nb$ of both")
    assert [alt for _, alt in images_in(out.html)] == ["$a +\nb$"]
    assert "$a" not in re.sub(r"<img[^>]*>", "", out.html)


def test_money_code_spans_and_fenced_code_are_no_maths():
    out = render_markdown("costs $5 and $6\n\nkeep `$x$` as is\n\n```python\nprice = '$x$'\n```\n")
    assert out.images == {}
    assert "costs $5 and $6" in out.html
    assert "<code>$x$</code>" in out.html
    assert "price = '$x$'" in out.html


def test_myst_roles_show_their_text_in_a_code_span():
    out = render_markdown("Use {func}`jax.grad`, {func}`~jax.numpy.sum`, "
                          "{ref}`the guide <autodiff>`, {doc}`notebooks/quickstart` and "
                          "{math}`x^2`.")
    html = out.html
    assert "<code>jax.grad</code>" in html and "<code>sum</code>" in html
    assert "<code>the guide</code>" in html and "<code>notebooks/quickstart</code>" in html
    assert "{func}" not in html and "{ref}" not in html and "~jax" not in html
    assert [alt for _, alt in images_in(html)] == ["$x^2$"]  # the math role is maths


def test_remote_images_are_their_alt_text_local_ones_resolve_in_the_folder(tmp_path):
    badge = ("[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
             "(https://colab.research.google.com/github/x.ipynb)")
    out = render_markdown(badge + "\n\n![](http://example.com/a.png)")
    assert "<img" not in out.html and out.images == {}
    assert '<a href="https://colab.research.google.com/github/x.ipynb">[image: Open in Colab]</a>' \
        in out.html
    assert "[image]" in out.html
    PILImage.new("RGB", (300, 100), "red").save(tmp_path / "fig.png")
    (tmp_path / "sub").mkdir()
    local = "![a plot](fig.png) ![up](../fig.png) ![gone](nope.png)"
    found = render_markdown(local, TextStyle(max_image_width=150), folder=tmp_path)
    assert images_in(found.html) == [("wbimg:1", "a plot")]
    image = found.images["wbimg:1"]
    assert (image.width, image.height) == (150, 50)  # scaled to the text's width
    assert image.data == (tmp_path / "fig.png").read_bytes()
    assert "[image: gone]" in found.html
    PILImage.new("RGB", (20, 10), "blue").save(tmp_path / "my fig.gif")
    spaced = render_markdown("![s](<my fig.gif>)", folder=tmp_path)
    assert (spaced.images["wbimg:1"].width, spaced.images["wbimg:1"].height) == (20, 10)
    outside = render_markdown("![up](../fig.png)", folder=tmp_path / "sub")
    assert outside.images == {} and "[image: up]" in outside.html
    assert render_markdown(local).images == {}  # no folder: alt text only


def test_tables_strikethrough_and_underscore_emphasis():
    out = render_markdown("| op | cost |\n|---|--:|\n| `dot` | 2 |\n\n__bold__ _it_ ~~old~~")
    assert '<table border="1"' in out.html
    assert '<th align="right">cost</th>' in out.html and '<td align="right">2</td>' in out.html
    assert "<strong>bold</strong> <em>it</em> <s>old</s>" in out.html
    assert "<u>" not in out.html


def test_raw_html_keeps_simple_tags_only():
    out = render_markdown('<img src="https://x.org/a.png" alt="logo"> <b onclick="x()">bold</b>'
                          '\n\n<div style="color:red"><script>alert(1)</script>kept</div>\n')
    assert "[image: logo]" in out.html and "<b>bold</b>" in out.html
    assert "onclick" not in out.html and "alert" not in out.html and "kept" in out.html


def test_a_myst_note_is_a_titled_quote_and_targets_vanish():
    out = render_markdown("(jit-label)=\n# JIT\n\n```{note}\n:class: tip\nA *note* on $x$.\n```\n")
    assert "jit-label" not in out.html and ":class:" not in out.html
    assert "<blockquote><p><b>Note</b></p>" in out.html
    assert "<em>note</em>" in out.html and len(out.images) == 1


def test_maths_follow_the_text_size_colour_and_pixel_ratio():
    small = render_markdown("$x^2$", TextStyle(point_size=10)).images["wbmath:1"]
    big = render_markdown("$x^2$", TextStyle(point_size=20)).images["wbmath:1"]
    assert big.width > 1.6 * small.width and big.height > 1.6 * small.height
    light = render_markdown("$x^2$", TextStyle(colour="#e0e0e0")).images["wbmath:1"]
    rgba = pixels(light.data)
    assert (rgba[rgba[..., 3] > 0][:, :3] == [0xE0, 0xE0, 0xE0]).all()
    crisp = render_markdown("$x^2$", TextStyle(device_pixel_ratio=2.0)).images["wbmath:1"]
    assert abs(crisp.width - small.width) <= 2 and abs(crisp.height - small.height) <= 2
    assert pixels(crisp.data).shape[:2] == (2 * crisp.height, 2 * crisp.width)  # denser
    heading = render_markdown("# Title $x^2$").images["wbmath:1"]
    assert heading.width > 1.6 * small.width  # an <h1>'s maths as large as its text


def test_typesetting_is_cached_and_bounded():
    first = typeset(r"\alpha + \beta", point_size=11.0, colour="#123456")
    assert first is not None
    assert typeset(r"\alpha + \beta", point_size=11.0, colour="#123456") is first
    assert typeset(r"\alpha + \beta", point_size=11.0, colour="#654321") != first
    assert typeset.cache_info().maxsize == MATH_CACHE
    assert typeset(r"\frac{a}{") is None


def test_titles_are_plain_text_of_a_heading_or_the_first_prose_line():
    assert first_title("```python\n# not a title\nx = 1\n```\nThe **real** title") \
        == "The real title"
    assert first_title("**Note**: `jax.jit` [compiles](https://x.org) $f(x)$\nmore") \
        == "Note: jax.jit compiles $f(x)$"
    assert first_title("Intro line\n\n## The *heading*") == "The heading"
    assert first_title("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter the table") == "After the table"
    assert first_title("```\n# only code\n```") == ""
    assert first_heading("```\n# comment\n```") is None
    assert first_prose_line("- **Note** one\n- two") == "Note one"
    assert first_title("Call {func}`~jax.grad` on {math}`x^2`") == "Call grad on $x^2$"


def test_a_step_after_a_fenced_comment_is_titled_by_its_prose(tmp_path):
    nb = nbf.new_notebook(cells=[
        nbf.new_markdown_cell("```python\n# Setup the imports\nimport jax\n```\n\n"
                              "Then **run** it."),
        nbf.new_code_cell("x = 1"),
        nbf.new_markdown_cell("```\n# only a comment\n```"),
        nbf.new_code_cell("# a comment\ny = 2"),
    ])
    path = tmp_path / "fenced.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    lesson = read_lesson(path)
    assert lesson.title == "fenced"  # no heading outside code: the file's name
    assert [step.title for step in lesson.steps] == ["Then run it.", "y = 2"]


def test_a_paragraph_past_the_inline_limit_is_its_text_and_a_huge_cell_is_preformatted():
    """markdown-it-py took 12 s on 400 KB of unclosed brackets (more than linear time): a
    paragraph past ``INLINE_CHARS`` is shown as written, a cell past ``RENDER_CHARS`` too."""
    short = "*one* [two\n\n"
    long = "*a* [b " * (INLINE_CHARS // 7 + 1)
    html = render_markdown(short + long).html
    assert "<em>one</em>" in html  # the short paragraph is Markdown as before
    assert "<em>a</em>" not in html and "*a* [b" in html  # the long one is its text
    huge = "## Title\n\n" + "*x* " * (RENDER_CHARS // 4 + 1)
    html = render_markdown(huge).html
    assert "<pre>" in html and "<em>" not in html and "characters of Markdown" in html


def test_titles_read_only_the_start_of_a_long_heading_or_paragraph():
    text = "Intro: *the* [start " + "[x " * 300_000 + "\n\nmore"
    assert first_prose_line(text).startswith("Intro: the [start [x [x")
    assert first_heading("# A **long** title " + "[y " * 300_000).startswith("A long title [y")


WATCH_MATPLOTLIB_IMPORTS = """
import sys
from workbench.api.process_env import MATPLOTLIB_IMPORT

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "matplotlib" and not MATPLOTLIB_IMPORT.locked():
            raise AssertionError(f"{name} imported outside the matplotlib lock")
        return None

assert "matplotlib" not in sys.modules
sys.meta_path.insert(0, Watch())
%s
assert "matplotlib.pyplot" in sys.modules or "matplotlib.mathtext" in sys.modules
print("ok")
"""


@pytest.mark.parametrize("first", [
    "from workbench.lessons import markdown\n"
    "assert markdown.typeset('x^2', colour='#336699') is not None",
    "from workbench.graph import layout  # igraph, whose drawing code imports pyplot",
], ids=["mathtext", "igraph"])
def test_matplotlib_is_imported_only_under_the_lock_the_warm_up_thread_holds(first):
    # The lesson panel warms mathtext up on a thread; a formula typeset on the GUI thread
    # meanwhile imported matplotlib.colors beside it, and matplotlib's first import from
    # two threads at once failed half-way ("partially initialized module"). The window's
    # import of the graph panel loads igraph, and igraph loads matplotlib.pyplot.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WATCH_MATPLOTLIB_IMPORTS % first],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
