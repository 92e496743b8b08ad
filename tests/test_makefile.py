"""`make run` / `make test` install JAX's CUDA build exactly where nvidia-smi lists a GPU.

``make -n`` prints the recipes without running them, against a venv path that does
not exist (so every install step shows); ``nvidia-smi`` is a script first on PATH
that answers as the real one does with and without a GPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")

WITH_GPU = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5fd2a9c1-0000-0000-0000-000000000000)"
# What nvidia-smi prints, with exit status 6, where the driver sees no GPU.
WITHOUT_GPU = "No devices were found"


def _dry_run(tmp_path: Path, nvidia_smi_says: str, status: int, target: str) -> list[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "nvidia-smi"
    fake.write_text(f"#!/bin/sh\necho '{nvidia_smi_says}'\nexit {status}\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    run = subprocess.run([MAKE, "-n", "-B", f"VENV={tmp_path / 'venv'}", target], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def _installed(lines: list[str]) -> list[str]:
    """What each ``pip install -e`` line installs: ``.``, ``.[test]``, ..."""
    return [line.split(" -e ")[1].strip("'") for line in lines
            if "pip install" in line and " -e " in line]


@pytest.mark.parametrize(("target", "extras"), [("run", "[cuda12]"), ("test", "[test,cuda12]")])
def test_a_listed_gpu_installs_the_cuda12_extra_and_says_so(tmp_path, target, extras):
    lines = _dry_run(tmp_path, WITH_GPU, 0, target)
    assert _installed(lines) == [f".{extras}"]
    notes = [line for line in lines if "GPU" in line]
    assert len(notes) == 1 and "cuda12" in notes[0]


@pytest.mark.parametrize(("target", "extras"), [("run", ""), ("test", "[test]")])
def test_without_a_gpu_nothing_changes(tmp_path, target, extras):
    lines = _dry_run(tmp_path, WITHOUT_GPU, 6, target)
    assert _installed(lines) == [f".{extras}"]
    assert not [line for line in lines if "GPU" in line or "cuda" in line]
