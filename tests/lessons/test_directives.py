"""``# workbench:`` directives: every verb parses, every bad one says why, and the grammar is the
CLI's own (one set of argument definitions in ``workbench.api.commands``)."""

from __future__ import annotations

import argparse

import pytest

from workbench.cli import build_parser
from workbench.lessons import (
    CallDirective,
    DirectiveError,
    KMeansDirective,
    PlotDirective,
    TimeDirective,
    parse_directive,
)
from workbench.lessons.directives import split_cell


def test_trace_and_values():
    d = parse_directive("trace f --args 'f32[3], i32[]' --transform grad --transform vmap")
    assert d == CallDirective("trace", d.text, "f", "f32[3], i32[]", ("grad", "vmap"))
    v = parse_directive("values g --args f32[10]")
    assert isinstance(v, CallDirective)
    assert (v.verb, v.function, v.args, v.transforms) == ("values", "g", "f32[10]", ())


def test_plot():
    d = parse_directive("plot selu --overlay sigmoid --overlay relu --order 3 --range -2 2.5 "
                        "--points 200 --param alpha=1.5 --param lmbda=1 --wrt x")
    assert isinstance(d, PlotDirective)
    assert (d.function, d.overlays, d.order, d.lo, d.hi, d.points, d.params, d.wrt) == (
        "selu", ("sigmoid", "relu"), 3, -2.0, 2.5, 200, (("alpha", 1.5), ("lmbda", 1.0)), "x")
    plain = parse_directive("plot f")
    assert isinstance(plain, PlotDirective)
    assert (plain.order, plain.lo, plain.hi, plain.points, plain.params) == (2, -5.0, 5.0,
                                                                             1000, ())


def test_time():
    d = parse_directive("time f --args f32[N] --sweep N=10:1000:3 --devices cpu --modes jit "
                        "--baseline f_np --repeats 3 --min-batch 0.01 --budget 1")
    assert isinstance(d, TimeDirective)
    assert (d.function, d.args, d.sweep, d.devices, d.modes, d.baseline, d.repeats,
            d.min_batch, d.budget) == ("f", "f32[N]", "N=10:1000:3", "cpu", ("jit",), "f_np",
                                       3, 0.01, 1.0)


def test_kmeans():
    d = parse_directive("kmeans --blobs 500 --k 3 --spread 0.5 --init farthest --seed 2 "
                        "--max-iter 20 --tol 0")
    assert isinstance(d, KMeansDirective)
    assert (d.dataset, d.n, d.k, d.spread, d.init, d.seed, d.max_iter, d.tol) == (
        "blobs", 500, 3, 0.5, "farthest", 2, 20, 0.0)
    tutorial = parse_directive("kmeans --tutorial")
    assert isinstance(tutorial, KMeansDirective) and tutorial.dataset == "tutorial"
    assert parse_directive("kmeans").dataset == "tutorial"


@pytest.mark.parametrize(("text", "message"), [
    ("frobnicate f", "unknown directive 'frobnicate': one of trace, values, plot, time, kmeans"),
    ("", "an empty directive"),
    ("trace f", "the following arguments are required: --args"),
    ("values", "the following arguments are required: FUNC, --args"),
    ("trace f --args f32[3] --transform jitt", "unknown transform 'jitt' (known: jit, grad"),
    ("plot f --order two", "argument --order: invalid int value: 'two'"),
    ("plot f --param alpha", "bad --param 'alpha': write NAME=NUMBER"),
    ("plot f --param alpha=big", "bad --param 'alpha=big': write NAME=NUMBER"),
    ("plot f --range 1", "argument --range: expected 2 arguments"),
    ("plot f --colour red", "unrecognized arguments: --colour red"),
    ("trace f --args 'f32[3]", "cannot split \"trace f --args 'f32[3]\": No closing quotation"),
    ("time f --args f32[3] --modes fast", "bad --modes 'fast': comma-separated eager, jit"),
    ("kmeans --data points.npy --k 3", "runs on --tutorial or --blobs N, not --data"),
    ("kmeans --init start.npy", "bad --init 'start.npy': one of kmeans++, random, farthest"),
    ("kmeans --blobs 100", "--blobs needs --k"),
    ("kmeans --tutorial --blobs 100 --k 2", "not allowed with argument --tutorial"),
])
def test_bad_directives_say_why(text, message):
    with pytest.raises(DirectiveError) as info:
        parse_directive(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_split_cell_never_raises_and_keeps_the_lines():
    source = "#workbench:   trace f --args f32[2]  \r\ndef f(x):\n    return x\n"
    split = split_cell(source)
    assert split.code == "def f(x):\n    return x\n"
    assert split.lines == ("#workbench:   trace f --args f32[2]  ",)
    assert isinstance(split.directive, CallDirective) and split.problem is None
    bad = split_cell("# workbench: trace f --args 'oops\nx = 1\n")
    assert bad.directive is None and "No closing quotation" in bad.problem
    assert bad.code == "x = 1\n"


# What the CLI sub-commands take that a directive does not: FILE is the cell, and the
# options that say how to print or where to write, or which engine, belong to the command.
# Where the engine runs is the command line's, never a lesson's.
NOT_DIRECTIVE = {"-h", "--help", "--format", "--existing", "--ssh", "--server", "--token",
                 "--kernel-name", "--kernel-id"}
OUTPUT_OPTIONS = {
    "trace": {"--hlo", "--cost", "--values"},  # values is its own verb in a lesson
    "plot": {"--check", "-o", "--output", "--size"},
    "time": {"--quiet"},
    "kmeans": {"--labels-out", "-o", "--output",
               "--data"},  # a lesson carries no data file: refused with a message (above)
}
# A value each option accepts, where the generic one does not do.
SAMPLES = {"--range": "-1 1", "--param": "a=1", "--devices": "cpu", "--modes": "jit",
           "--sweep": "N=1:10", "--init": "random", "--blobs": "10 --k 2",
           "--transform": "grad"}
REQUIRED = {"trace": "f --args f32[3]", "plot": "f", "time": "f --args f32[3]", "kmeans": ""}


def _cli_options(verb: str) -> list[argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in sub.choices[verb]._actions if a.option_strings]


def _sample(action: argparse.Action) -> str:
    option = action.option_strings[-1]
    if option in SAMPLES:
        return SAMPLES[option]
    if action.nargs == 0:
        return ""
    if action.type is int:
        return "3"
    if action.type is float:
        return "0.5"
    return "name"


@pytest.mark.parametrize("verb", ["trace", "plot", "time", "kmeans"])
def test_every_cli_option_is_a_directive_option(verb):
    """An option added to ``api/commands.py`` reaches the directives too; one added to a
    ``cli/*_cmd.py`` only must be listed above as the command's own."""
    checked = []
    for action in _cli_options(verb):
        for option in action.option_strings:
            if option in NOT_DIRECTIVE or option in OUTPUT_OPTIONS[verb]:
                continue
            text = f"{verb} {REQUIRED[verb]} {option} {_sample(action)}"
            try:
                parse_directive(text)
            except DirectiveError as exc:
                pytest.fail(f"{text!r}: the CLI takes {option}, a directive does not: {exc}")
            checked.append(option)
    assert checked  # the test looked at something
    if verb in ("trace", "time"):
        assert "--args" in checked


def test_values_takes_what_trace_describes_a_call_with():
    for action in _cli_options("trace"):
        for option in action.option_strings:
            if option in NOT_DIRECTIVE or option in OUTPUT_OPTIONS["trace"]:
                continue
            parse_directive(f"values {REQUIRED['trace']} {option} {_sample(action)}")


def test_directive_text_is_kept_as_written():
    text = "plot f  --order 1"
    assert parse_directive(text).text == text


def test_plot_at_and_graph_select():
    d = parse_directive("plot relu --order 1 --at 0")
    assert isinstance(d, PlotDirective) and d.at == 0.0
    assert parse_directive("plot relu").at is None
    v = parse_directive("values loss --args f32[3] --select dw --select 'a,b'")
    assert isinstance(v, CallDirective) and v.select == ("dw", "a", "b")
    assert parse_directive("trace f --args f32[3]").select == ()
    with pytest.raises(DirectiveError, match="--at"):
        parse_directive("plot relu --at zero")


def test_a_directive_past_its_limit_is_refused_unparsed():
    """A crafted lesson of 200,000-character directives took 45 s to list at 10 MB; a longer
    directive than a teacher writes is now a problem of its step, said with its size."""
    long = "trace f --args '" + "f32[3], " * 1_000 + "'"
    with pytest.raises(DirectiveError, match=r"a directive of 8,017 characters: directives are "
                                             r"read up to 2,000"):
        parse_directive(long)
    cell = split_cell(f"# workbench: {long}\nx = 1\n")
    assert cell.code == "x = 1\n" and cell.problem is not None and "2,000" in cell.problem
