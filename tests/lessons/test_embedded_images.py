"""Images a notebook's Markdown carries itself: a cell's attachments (what Jupyter stores
for a pasted screenshot) and ``data:`` URIs. They used to show as "[image: x.png]" or,
past 100,000 characters, as the raw base64 text ("shown as written")."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image as PILImage

from workbench.lessons import read_lesson
from workbench.lessons.markdown import RENDER_CHARS, render_markdown


def png(width: int, height: int, noise: bool = False) -> str:
    picture = PILImage.effect_noise((width, height), 60).convert("RGB") if noise \
        else PILImage.new("RGB", (width, height), "teal")
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def test_an_attachment_and_a_large_data_uri_are_images_not_text(tmp_path):
    big = png(500, 400, noise=True)
    assert len(big) > RENDER_CHARS  # it alone is past the text limit
    notebook = {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {},
             "source": ["# Pasted\n", "![going_deeper.jpg](attachment:going_deeper.jpg)\n\n",
                        f"![shot](data:image/png;base64,{big})"],
             "attachments": {"going_deeper.jpg": {"image/png": png(320, 200)}}},
            {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None,
             "outputs": [], "source": "x = 1"},
        ],
    }
    path = tmp_path / "pasted.ipynb"
    path.write_text(json.dumps(notebook))
    step = read_lesson(path).step(1)
    assert [a[0] for a in step.attachments] == ["going_deeper.jpg"]
    out = render_markdown(step.text, folder=tmp_path, attachments=step.attachments)
    assert "[image" not in out.html and "shown as written" not in out.html
    assert sorted((i.width, i.height) for i in out.images.values()) == [(320, 200), (500, 400)]


@pytest.mark.parametrize("src", [
    "attachment:missing.png", "data:image/png;base64,!!!!", "data:image/png;base64,AAAA",
])
def test_a_broken_embedded_image_is_its_alt_text(src):
    out = render_markdown(f"![the alt]({src})")
    assert out.images == {} and "[image: the alt]" in out.html


def test_a_data_uri_of_html_is_never_an_image_nor_a_link():
    out = render_markdown("![the alt](data:text/html;base64,PGI+eDwvYj4=)")
    assert out.images == {} and "<img" not in out.html and "<a " not in out.html


def test_an_html_img_with_a_data_uri_is_an_image():
    out = render_markdown(f'<img src="data:image/png;base64,{png(30, 20)}" alt="x">')
    assert [(i.width, i.height) for i in out.images.values()] == [(30, 20)]
