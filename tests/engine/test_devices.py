"""Which devices `--devices` names: every backend's, a platform, a device; what is absent."""

from __future__ import annotations

import jax
import pytest

from workbench.api import messages as p
from workbench.engine.devices import (
    all_devices,
    device_name,
    list_devices,
    mesh_devices,
    select_devices,
)
from workbench.engine.errors import DeviceUnavailable, UsageError
from workbench.engine.service import Service

HAS_GPU = any(d.platform == "gpu" for d in all_devices())


def names(devices):
    return [device_name(d) for d in devices]


def test_all_is_every_device_of_every_backend_default_first():
    found = names(all_devices())
    assert found[: len(jax.devices())] == names(jax.devices())
    assert set(names(jax.devices("cpu"))) <= set(found)
    assert len(found) == len(set(found))
    assert names(select_devices("all")) == found
    assert [d.name for d in list_devices().devices] == found


def test_a_platform_a_device_and_a_list():
    assert names(select_devices("cpu")) == names(jax.devices("cpu"))
    assert names(select_devices("cpu:0")) == ["cpu:0"]
    assert names(select_devices(" CPU:0 , cpu ")) == names(jax.devices("cpu"))  # no repeats


@pytest.mark.parametrize("spec", ["abacus", "cpu:x", "cpu:", "cpu,", "", ":0"])
def test_a_word_that_names_no_platform_is_a_usage_error(spec):
    with pytest.raises(UsageError) as info:
        select_devices(spec)
    assert not isinstance(info.value, DeviceUnavailable) and info.value.exit_code == 2


@pytest.mark.skipif(HAS_GPU, reason="has a GPU")
def test_an_absent_platform_exits_1_naming_the_platforms_present():
    with pytest.raises(DeviceUnavailable) as info:
        select_devices("gpu")
    present = ", ".join(dict.fromkeys(d.platform for d in all_devices()))
    assert info.value.message == (f"no gpu device here; JAX sees {', '.join(names(all_devices()))}"
                                  f" (platforms present: {present})")
    assert info.value.exit_code == 1 and info.value.field == "devices"


def test_an_absent_device_exits_1():
    with pytest.raises(DeviceUnavailable, match="no device cpu:99 here; JAX sees cpu:0"):
        select_devices("cpu:99")


def test_a_mesh_is_the_default_backends_devices():
    assert mesh_devices("all") == jax.devices()
    assert mesh_devices("cpu:0") == [jax.devices("cpu")[0]]


@pytest.mark.skipif(HAS_GPU, reason="has a GPU")
def test_the_absent_platform_crosses_the_service_with_its_field_and_exit_status():
    service = Service()
    service.handle(p.LoadSource(id="l", source="def f(x):\n    return x\n"))
    reply = service.handle(p.Time(id="t", name="f", args="f32[3]", devices="gpu"))
    assert isinstance(reply, p.UsageFailure)
    assert reply.field == "devices" and reply.exit_code == 1
    assert reply.message.startswith("no gpu device here")
    bad = service.handle(p.Time(id="u", name="f", args="f32[3]", devices="abacus"))
    assert isinstance(bad, p.UsageFailure) and bad.exit_code == 2
