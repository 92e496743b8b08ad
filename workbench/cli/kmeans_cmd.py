"""`workbench kmeans` (placeholder until its issue lands)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kmeans", help="(not built yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("workbench kmeans: not built yet")
    return 2
