from __future__ import annotations

import json

import jax

from workbench.cli import main


def test_devices_json_lists_every_jax_device(capsys):
    assert main(["devices", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["default_backend"] == jax.default_backend()
    assert doc["jax_version"] == jax.__version__
    names = {d["name"] for d in doc["devices"]}
    assert {f"{d.platform}:{d.id}" for d in jax.devices()} <= names
    for d in doc["devices"]:
        assert set(d) >= {"platform", "id", "kind", "memory"}


def test_devices_text(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"jax {jax.__version__}")
    assert "cpu:0" in out
