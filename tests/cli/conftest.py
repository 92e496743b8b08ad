"""The CLI tests' program file."""

from __future__ import annotations

import pytest


@pytest.fixture
def prog(tmp_path, request):
    """The test module's ``SOURCE`` written to ``prog.py`` in a fresh folder; its path."""
    path = tmp_path / "prog.py"
    path.write_text(request.module.SOURCE)
    return str(path)
