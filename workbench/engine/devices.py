"""What JAX can run on here: platforms, devices, memory, versions."""

from __future__ import annotations

import sys
import time
from typing import Any

from workbench.api.choices import PLATFORMS
from workbench.api.devices import DeviceInfo, DeviceReport, DevicesQuiet
from workbench.engine.errors import DeviceUnavailable, UsageError

_PROBE: Any = None

SPEC_HELP = "all, a platform (cpu, gpu, tpu) or a device such as cpu:1, comma-separated"


def _memory(device: object) -> dict[str, int]:
    try:
        stats = device.memory_stats()  # type: ignore[attr-defined]
    except Exception:  # the CPU client raises or returns None depending on the version
        return {}
    if not stats:
        return {}
    return {k: int(v) for k, v in stats.items() if isinstance(v, (int, float))}


def device_name(device: Any) -> str:
    """``cpu:0``: how tables, ``--devices`` and the window name a device."""
    return f"{device.platform}:{device.id}"


def all_devices() -> list[Any]:
    """Every device of every backend JAX opened (``jax.devices(backend)`` for each), the
    default backend's first: an accelerator host lists its GPUs and its CPU."""
    import jax
    from jax.extend.backend import backends

    default = jax.default_backend()
    found: list[Any] = []
    seen: set[str] = set()
    for backend in [default, *(b for b in backends() if b != default)]:
        try:
            devices = jax.devices(backend)
        except RuntimeError:  # a backend that failed to start: JAX already said why
            continue
        for d in devices:
            if device_name(d) not in seen:
                seen.add(device_name(d))
                found.append(d)
    return found


def select_devices(spec: str = "all") -> list[Any]:
    """The devices ``spec`` names: ``all``, a platform, a device (``cpu:1``), or a
    comma-separated list of those, in the order of ``all_devices``.

    A word that names no platform or device is a ``UsageError``; a platform or device
    this machine does not have is a ``DeviceUnavailable`` (exit 1) naming what it has.
    """
    found = all_devices()
    names = {device_name(d): d for d in found}
    platforms = list(dict.fromkeys(d.platform for d in found))
    items = [item.strip().lower() for item in spec.split(",")]
    if not spec.strip() or not all(items):
        raise UsageError(f"--devices needs {SPEC_HELP}; got {spec!r}")
    if "all" in items:
        return found
    chosen: list[Any] = []
    for item in items:
        platform, colon, index = item.partition(":")
        known = platform in PLATFORMS or platform in platforms
        if not known or (colon and not index.isdigit()):
            raise UsageError(f"unknown device {item!r}: write {SPEC_HELP}")
        if colon:
            matched = [names[item]] if item in names else []
        else:
            matched = [d for d in found if d.platform == platform]
        if not matched:
            what = f"device {item}" if colon else f"{platform} device"
            raise DeviceUnavailable(
                f"no {what} here; JAX sees {', '.join(names)} "
                f"(platforms present: {', '.join(platforms)})")
        chosen += [d for d in matched if d not in chosen]
    return [d for d in found if d in chosen]


def mesh_devices(spec: str) -> list[Any]:
    """The devices to shard an array over: ``all`` is every device of the default backend
    (a mesh holds devices of one platform); other specs as ``select_devices``."""
    import jax

    devices = jax.devices() if spec.strip().lower() == "all" else select_devices(spec)
    platforms = sorted({d.platform for d in devices})
    if len(platforms) > 1:
        raise UsageError(f"--devices {spec} names {' and '.join(platforms)} devices; one "
                         "sharded computation runs on devices of one platform")
    return devices


def list_devices() -> DeviceReport:
    """Every device of every backend JAX can open, the default backend first."""
    import jax
    import jaxlib

    devices = tuple(DeviceInfo(d.platform, d.id, d.device_kind, device_name(d), _memory(d))
                    for d in all_devices())
    return DeviceReport(jax.default_backend(), jax.__version__, jaxlib.__version__, devices)


def format_devices(report: DeviceReport) -> str:
    lines = [
        f"jax {report.jax_version}, jaxlib {report.jaxlib_version}; "
        f"default backend: {report.default_backend}"
    ]
    counts = {p: sum(d.platform == p for d in report.devices)
              for p in dict.fromkeys(d.platform for d in report.devices)}
    platform = ""
    for d in report.devices:
        if d.platform != platform:
            platform = d.platform
            many = "s" if counts[platform] != 1 else ""
            lines.append(f"{platform}: {counts[platform]} device{many}")
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
