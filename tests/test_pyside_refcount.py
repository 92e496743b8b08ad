"""Regression test for the PySide6 6.12.0 / CPython 3.11 None-refcount bug (docs/architecture.md).

That build drops a reference to None on every void Qt call; after enough calls
CPython aborts with ``Fatal Python error: none_dealloc``. pyproject.toml excludes
it; this test fails if a broken build is installed again.
"""

from __future__ import annotations

import sys

import pytest

QtCore = pytest.importorskip("PySide6.QtCore")


def test_void_qt_calls_do_not_drift_none_refcount():
    obj = QtCore.QObject()
    for _ in range(200):  # warm up caches that legitimately hold None
        obj.setObjectName("warm")
    before = sys.getrefcount(None)
    calls = 5000
    for i in range(calls):
        obj.setObjectName("n")  # void
        obj.setProperty("p", i)  # bool, for contrast
        obj.blockSignals(False)
    drift = sys.getrefcount(None) - before
    assert abs(drift) < calls // 10, (
        f"None refcount drifted by {drift} over {calls} void Qt calls: "
        f"PySide6 {QtCore.__version__} on Python {sys.version.split()[0]} is the broken build"
    )
