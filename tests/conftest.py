"""Shared fixtures. Qt runs offscreen; JAX runs on whatever devices this machine has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "assets" / "examples"


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture
def load():
    """Load editor source text under a file name, as the editor would."""
    from workbench.engine.source import load_source

    def _load(source: str, filename: str = "editor.py"):
        return load_source(source, filename)

    return _load
