"""The choices engine, CLI and window agree on, each defined once.

Each is a ``Literal`` type for the type checker and a tuple of its values for
menus, ``--help`` texts and validation.
"""

from __future__ import annotations

from typing import Literal, get_args

Transform = Literal["jit", "grad", "value_and_grad", "vmap", "jacfwd", "jacrev", "hessian"]
TRANSFORMS: tuple[Transform, ...] = get_args(Transform)
TRANSFORM_NAMED: dict[str, Transform] = {t: t for t in TRANSFORMS}
"""A transform by its name, typed: for names already checked against ``TRANSFORMS``."""

HloKind = Literal["stablehlo", "compiled"]
HLO_KINDS: tuple[HloKind, ...] = get_args(HloKind)

Dataset = Literal["tutorial", "blobs", "file"]
DATASETS: tuple[Dataset, ...] = get_args(Dataset)

Init = Literal["kmeans++", "random", "farthest"]
"""Ways to choose the starting centroids; the demo also takes ``"given"`` (clicked points)."""
INITS: tuple[Init, ...] = get_args(Init)

DemoInit = Literal["kmeans++", "random", "farthest", "given"]
DEMO_INITS: tuple[DemoInit, ...] = get_args(DemoInit)

Mode = Literal["eager", "jit"]
"""How a function is timed; ``"numpy"`` labels the baseline's own row in a report."""
MODES: tuple[Mode, ...] = get_args(Mode)

DeviceChoice = Literal["all", "cpu", "gpu", "tpu"]
"""The named choices of ``--devices``; it also takes a device (``cpu:1``) or a comma-separated
list, so requests carry it as ``str``."""
DEVICE_CHOICES: tuple[DeviceChoice, ...] = get_args(DeviceChoice)

Platform = Literal["cpu", "gpu", "tpu"]
PLATFORMS: tuple[Platform, ...] = get_args(Platform)
