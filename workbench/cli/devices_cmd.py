"""`workbench devices`: the platforms and devices JAX sees, with versions."""

from __future__ import annotations

import argparse
import json

from workbench.api import messages as m
from workbench.api.devices import DeviceReport
from workbench.cli.runner import add_engine_options, open_engine


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list the devices JAX can run on")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_engine_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.devices import format_devices

    with open_engine(args) as engine:
        report = engine.call(m.Devices(), DeviceReport)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_devices(report))
    return 0
