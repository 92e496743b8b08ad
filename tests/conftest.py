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


@pytest.fixture(scope="module")
def engine(request):
    """A client on a real engine kernel, one per test module (a ``tests.kernel_util.Recorder``).

    The module's ``KERNEL_SOURCE`` (a ``LoadSource`` request), when it has one, is loaded
    first and must succeed.
    """
    from tests.kernel_util import Recorder
    from workbench.api import messages as p

    rec = Recorder()
    load = getattr(request.module, "KERNEL_SOURCE", None)
    if load is not None:
        assert isinstance(rec.call(load), p.Result)
    yield rec
    rec.close()
