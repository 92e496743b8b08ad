"""What JAX can run on here: platforms, devices, memory, versions."""

from __future__ import annotations

import sys
import time
from typing import Any

from workbench.api.devices import DeviceInfo, DeviceReport, DevicesQuiet

_PROBE: Any = None


def _memory(device: object) -> dict[str, int]:
    try:
        stats = device.memory_stats()  # type: ignore[attr-defined]
    except Exception:  # the CPU client raises or returns None depending on the version
        return {}
    if not stats:
        return {}
    return {k: int(v) for k, v in stats.items() if isinstance(v, (int, float))}


def list_devices() -> DeviceReport:
    """Every device of every backend JAX can open, the default backend first."""
    import jax
    import jaxlib

    default = jax.default_backend()
    devices: list[DeviceInfo] = []
    seen: set[tuple[str, int]] = set()
    backends = [default] + [b for b in ("cpu", "gpu", "tpu") if b != default]
    for backend in backends:
        try:
            found = jax.devices(backend)
        except RuntimeError:
            continue
        for d in found:
            if (d.platform, d.id) in seen:
                continue
            seen.add((d.platform, d.id))
            devices.append(
                DeviceInfo(d.platform, d.id, d.device_kind, f"{d.platform}:{d.id}", _memory(d))
            )
    return DeviceReport(default, jax.__version__, jaxlib.__version__, tuple(devices))


def format_devices(report: DeviceReport) -> str:
    lines = [
        f"jax {report.jax_version}, jaxlib {report.jaxlib_version}; "
        f"default backend: {report.default_backend}"
    ]
    for d in report.devices:
        mem = ""
        if "bytes_limit" in d.memory:
            used = d.memory.get("bytes_in_use", 0)
            mem = f"  memory {used / 2**30:.2f} / {d.memory['bytes_limit'] / 2**30:.2f} GiB"
        lines.append(f"  {d.name:<8} {d.kind}{mem}")
    return "\n".join(lines)


def wait_devices(timeout: float) -> DevicesQuiet:
    """Whether every device finishes a trivial computation queued behind its pending work.

    Devices run what was dispatched in order, so the probe completes only once
    the work queued before it has. Polls ``is_ready`` so the wait is bounded;
    a probe still queued at the end is harmless. Without jax loaded nothing
    can be queued, and jax is not imported just to say so.
    """
    start = time.monotonic()
    if "jax" not in sys.modules:
        return DevicesQuiet(True, 0.0)
    import jax
    import numpy as np

    global _PROBE
    if _PROBE is None:
        _PROBE = jax.jit(lambda v: v + 1)
    devices = list(dict.fromkeys([*jax.devices(), *jax.devices("cpu")]))
    probes = [_PROBE(jax.device_put(np.int32(0), d)) for d in devices]
    deadline = start + max(0.0, timeout)
    while True:
        waiting = [str(d) for d, r in zip(devices, probes, strict=True) if not r.is_ready()]
        now = time.monotonic()
        if not waiting or now >= deadline:
            return DevicesQuiet(not waiting, now - start, tuple(waiting))
        time.sleep(0.002)
