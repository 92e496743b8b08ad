"""Lesson steps in the real engine kernel run through ipykernel's own shell: magics, the display
hook, the inline backend it sets up, and ``__main__`` as the console's namespace."""

from __future__ import annotations

import pytest

from workbench.api import messages as p

pytestmark = pytest.mark.kernel


def _cell(engine, source: str, step: int) -> p.Reply:
    return engine.call(p.LoadSource(source=source, filename=f"k.ipynb, step {step}", cell=True,
                                    keep_names=True), timeout=120)


def test_a_step_runs_as_a_cell_in_the_kernel(engine):
    reply = _cell(engine, "import jax.numpy as jnp\n%time v = jnp.arange(4) * 2\n"
                  "print('shown')\nv", 1)
    value = p.result_value(reply, p.Functions)
    assert value is not None, p.reply_text(reply)
    kinds = [o.kind for o in value.outputs]
    assert kinds == ["stream", "result"]
    assert "Wall time" in value.outputs[0].text and "shown" in value.outputs[0].text
    assert value.outputs[1].text == "Array([0, 2, 4, 6], dtype=int32)"
    reply = _cell(engine, "import matplotlib.pyplot as plt\nplt.plot([0, 1])\n"
                  "from dataclasses import dataclass\n@dataclass\nclass P:\n    a: int\nP(1);", 2)
    value = p.result_value(reply, p.Functions)
    assert value is not None, p.reply_text(reply)
    assert [o.kind for o in value.outputs] == ["display"]
    assert value.outputs[0].png.startswith(b"\x89PNG")
    # The names are the console's: the next step, and a later editor load, see them.
    reply = _cell(engine, "import sys\nsys.modules['__main__'].P(2), v.sum()", 3)
    value = p.result_value(reply, p.Functions)
    assert value is not None, p.reply_text(reply)
    assert value.outputs[-1].text == "(P(a=2), Array(12, dtype=int32))"
