"""Where Qt's xcb plugin cannot load, the end-to-end tests skip at once, naming the library.

The end-to-end module runs in a child pytest with the plugin really failing to load:
its dependency ``libxcb-cursor.so.0`` is a broken file first on ``LD_LIBRARY_PATH``,
or (as root, where mount namespaces work) hidden from a private view of the system's
library folder together with ``libxcb-icccm.so.4``. Before, the window test waited
30 s for a window that never mapped and failed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
E2E = ROOT / "tests" / "test_end_to_end.py"
pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")


def _run_e2e(prefix: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    run = subprocess.run([*prefix, sys.executable, "-m", "pytest", "-q", "-rs",
                          "-p", "no:cacheprovider", str(E2E)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    return run, time.monotonic() - start


def test_a_broken_xcb_dependency_skips_naming_it(tmp_path):
    (tmp_path / "libxcb-cursor.so.0").write_bytes(b"")  # the loader: "file too short"
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    run, seconds = _run_e2e([], env)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "2 skipped" in out
    assert f"cannot load {tmp_path}/libxcb-cursor.so.0 (" in out
    assert "file too short" in out
    assert seconds < 30


def _hide(tmp_path: Path, names: list[str]) -> list[str]:
    """A command prefix that runs in a mount namespace where ``names`` are not installed."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ldconfig") is None:
        pytest.skip("hiding system libraries needs root, unshare and ldconfig")
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    found = re.search(rf"^\s*{re.escape(names[0])} .*=> (\S+)$", cache, re.MULTILINE)
    if found is None:
        pytest.skip(f"{names[0]} is not installed")
    system = Path(found.group(1)).resolve().parent
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir()
    work.mkdir()
    for name in names:
        os.mknod(upper / name, 0o600 | stat.S_IFCHR, os.makedev(0, 0))  # an overlay whiteout
    mount = (f"mount -t overlay overlay -o lowerdir={system},upperdir={upper},workdir={work} "
             f"{system}")
    prefix = ["unshare", "-m", "sh", "-c", f'{mount} && exec "$@"', "sh"]
    probe = subprocess.run([*prefix, "sh", "-c", f"! test -e {system}/{names[0]}"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"cannot hide libraries in a mount namespace here: {probe.stderr.strip()}")
    return prefix


def test_missing_xcb_libraries_skip_naming_them(tmp_path):
    prefix = _hide(tmp_path, ["libxcb-cursor.so.0", "libxcb-icccm.so.4"])
    run, seconds = _run_e2e(prefix, dict(os.environ))
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "2 skipped" in out
    assert "cannot load libxcb-cursor.so.0, libxcb-icccm.so.4 (" in out or \
        "cannot load libxcb-icccm.so.4, libxcb-cursor.so.0 (" in out
    assert "cannot open shared object file" in out
    assert seconds < 30
