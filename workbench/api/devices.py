"""What JAX can run on in the engine: platforms, devices, memory, versions."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class DeviceInfo:
    platform: str
    id: int
    kind: str
    name: str  # "cpu:0", as the timing tables label it
    memory: dict[str, int] = field(default_factory=dict)  # empty where the device gives none


@dataclass(frozen=True)
class DeviceReport:
    default_backend: str
    jax_version: str
    jaxlib_version: str
    devices: tuple[DeviceInfo, ...]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class DevicesQuiet:
    """Whether the device work dispatched so far had ended within the wait (``WaitDevices``).

    JAX dispatches asynchronously: a Python loop that was interrupted may leave
    queued computations running on a device for a long time.
    """

    quiet: bool
    waited_s: float
    devices: tuple[str, ...] = ()
