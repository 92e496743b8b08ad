"""`workbench devices`: the platforms and devices JAX sees, with versions."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list the devices JAX can run on")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.devices import format_devices, list_devices

    report = list_devices()
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_devices(report))
    return 0
