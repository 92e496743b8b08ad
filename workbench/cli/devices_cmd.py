"""`workbench devices` (being written)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="(not built yet)")
    p.set_defaults(func=lambda a: 2)
