"""The package declares what it imports, and the JAX it allows is the JAX the suite runs.

``ml_dtypes`` was imported (``api/codec.py``) but reached the environment only through
jax's own requirements; ``jax>=0.6`` was allowed while ``engine/jax_internals.py`` uses
private API that moved in 0.11 and the suite had only run on 0.10. A third-party import
with no declaration, or a floor below the version tested, fails here; an internal that
moves fails ``tests/engine/test_jax_internals.py``, named.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, Requirement]:
    return {_normal(r.name): r for r in map(Requirement, _project()["dependencies"])}


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "workbench").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"workbench", "__future__"}


def test_every_third_party_import_is_declared():
    owners = importlib.metadata.packages_distributions()
    declared = _declared()
    undeclared = {}
    for module in sorted(_imported_modules()):
        dists = {_normal(d) for d in owners.get(module, [module])}
        if not dists & declared.keys():
            undeclared[module] = sorted(dists)
    assert undeclared == {}, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_jax_floor_is_the_jax_the_suite_runs():
    jax = _declared()["jax"]
    floors = [Version(s.version) for s in jax.specifier if s.operator == ">="]
    installed = Version(importlib.metadata.version("jax"))
    assert floors and installed in jax.specifier, (str(jax.specifier), str(installed))
    # Tested on the lowest minor version allowed: a floor below it would promise versions
    # whose private API (engine/jax_internals.py) nothing has checked.
    assert floors[0].release[:2] == installed.release[:2], (
        f"jax{jax.specifier} is allowed, the suite runs {installed}: raise the floor, or "
        "run the suite on the floor")
    extra = next(Requirement(r) for r in _project()["optional-dependencies"]["cuda12"]
                 if Requirement(r).name == "jax")
    assert extra.specifier == jax.specifier  # jax[cuda12] allows the same versions
