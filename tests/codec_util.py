"""A value through the wire as the kernel sends it: codec, JSON as Jupyter packs it, codec."""

from __future__ import annotations

import json

from workbench.api import codec


def roundtrip(value):
    data, buffers = codec.encode(value)
    wire = json.loads(json.dumps(data, allow_nan=False))  # what Jupyter's packer accepts
    return codec.decode(wire, [bytes(b) for b in buffers])
