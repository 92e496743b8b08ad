"""What JAX can run on here: platforms, devices, memory, versions."""

from __future__ import annotations

from workbench.api.devices import DeviceInfo, DeviceReport


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
