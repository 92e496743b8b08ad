"""The built wheel: it carries the examples, and an installed copy works from another folder.

The wheel is built from this checkout (without build isolation where hatchling is
installed, as the test extra does, so no network is needed). The fresh venv gets
the wheel alone; its dependencies come from this interpreter's site-packages
through a ``.pth`` file, which does not run that folder's own ``.pth`` files, so a
development (editable) install there cannot leak in.
"""

from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kwargs)
    assert run.returncode == 0, f"{cmd} failed:\n{run.stdout}\n{run.stderr}"
    return run


def _clean_env() -> dict[str, str]:
    """This environment without anything that would put the checkout on sys.path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    if importlib.util.find_spec("hatchling") is not None:
        cmd.append("--no-build-isolation")
    _run([*cmd, str(ROOT)], env=_clean_env())
    (built,) = out.glob("workbench-*.whl")
    return built


def _shipped_assets() -> list[str]:
    """Every file the wheel must carry from assets/: all but the README's screenshots."""
    return sorted(
        str(path.relative_to(ASSETS))
        for path in ASSETS.rglob("*")
        if path.is_file() and "screenshots" not in path.parts and "__pycache__" not in path.parts
    )


def test_the_wheel_carries_the_examples_and_every_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = _shipped_assets()
    assert "examples/examples.toml" in shipped and "examples/selu.py" in shipped
    assert "lessons/01_quick_peek.ipynb" in shipped and "lessons/05_sharp_bits.py" in shipped
    missing = [f for f in shipped if f"workbench/assets/{f}" not in names]
    assert missing == []
    modules = [str(p.relative_to(ROOT)) for p in (ROOT / "workbench").rglob("*.py")
               if "__pycache__" not in p.parts]
    assert [m for m in modules if m not in names] == []
    assert "workbench/py.typed" in names
    assert not [n for n in names if "screenshots" in n or n.endswith(".pyc")]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "workbench = workbench.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_installed_wheel_traces_a_bundled_example_from_another_folder(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    env = _clean_env()
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--no-deps", "--no-index", str(wheel)], env=env)
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   env=env).stdout.strip()
    # The dependencies (jax, PySide6, ...) from this interpreter, after the venv's own.
    Path(purelib, "zz_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import workbench, workbench.examples as e; print(workbench.__file__); "
             "print(e.EXAMPLES_DIR); print(' '.join(x.name for x in e.bundled_examples()))")
    package, examples, names = _run([str(python), "-c", probe], cwd=elsewhere,
                                    env=env).stdout.splitlines()
    assert Path(package).is_relative_to(venv), package  # not the checkout, not an editable
    assert Path(examples) == Path(purelib) / "workbench" / "assets" / "examples"
    assert "selu" in names.split() and "sigmoid" in names.split()

    run = _run([str(venv / "bin" / "workbench"), "trace", str(Path(examples) / "selu.py"),
                "selu", "--args", "f32[3]"], cwd=elsewhere, env=env)
    assert run.stdout.startswith("{ lambda ; a:f32[3]. let")
    assert "b:f32[3] = exp a" in run.stdout
    assert "select_n" in run.stdout

    # The bundled lessons are found inside the installed package, and read (nbformat) there.
    lessons = _run([str(python), "-c", "import workbench.lessons as L; "
                    "print('\\n'.join(str(p) for p in L.bundled_lessons()))"],
                   cwd=elsewhere, env=env).stdout.split()
    assert len(lessons) == 5 and all(Path(x).is_relative_to(venv) for x in lessons), lessons
    listed = _run([str(venv / "bin" / "workbench"), "lesson", lessons[0]], cwd=elsewhere, env=env)
    assert "step 1/" in listed.stdout
