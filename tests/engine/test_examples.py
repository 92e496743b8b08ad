"""Every bundled example loads and traces as its table entry says."""

from __future__ import annotations

import pytest

from workbench.engine.source import load_source
from workbench.engine.trace import trace_function
from workbench.examples import bundled_examples

EXAMPLES = bundled_examples()


def test_every_example_file_is_listed(examples_dir):
    listed = {e.path.name for e in EXAMPLES}
    assert listed == {p.name for p in examples_dir.glob("*.py")}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_example_traces(example):
    loaded = load_source(example.path.read_text(), example.path.name)
    result = trace_function(loaded, example.function, example.args, example.transforms)
    assert result.stats.eqns > 0
    assert "{ lambda" in result.text
    lines = [line for line in all_lines(result.jaxpr) if line is not None]
    assert lines, "no equation is linked to an editor line"
    assert min(lines) >= 1 and max(lines) <= len(example.path.read_text().splitlines())


def all_lines(node):
    for eqn in node.eqns:
        yield eqn.line
        for sub in eqn.subjaxprs:
            yield from all_lines(sub.jaxpr)
