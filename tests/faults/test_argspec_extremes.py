"""Extreme argument specs give one usage message, never a traceback or a dead engine.

5,000 digits used to raise Python's int-conversion ValueError, 10,000 brackets a
RecursionError (a raw traceback in the CLI, ``EngineFailure: internal error`` from
the engine), and example arrays larger than memory aborted the process inside XLA.
"""

from __future__ import annotations

import re

import pytest

from tests.cli.cli_util import run_cli, run_cli_process
from workbench.api import messages as p
from workbench.engine.argspec import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_NUMBER_DIGITS,
    MAX_RANK,
    MAX_SPEC_CHARS,
    ArgSpecError,
    ArraySpec,
    example_values,
    parse_args,
)
from workbench.engine.service import Service

SOURCE = "def f(x):\n    return x\n"

DEEP = "(" * 5000 + ")" * 5000  # under the length cap: the depth bound answers
EXTREMES = [
    ("f32[" + "9" * 5000 + "]", "dimension 99999999999999999... is too large"),
    ("9" * 5000, f"integer 99999999999999999... is too large (more than {MAX_NUMBER_DIGITS}"),
    (DEEP, f"brackets nested more than {MAX_DEPTH} deep"),
    ("[" * 10_000 + "]" * 10_000, f"specs may be at most {MAX_SPEC_CHARS:,}"),
    ("f32[" + ",".join(["1"] * (MAX_RANK + 1)) + "]", f"more than {MAX_RANK} dimensions"),
    ("f32[3037000500, 3037000500]", f"more than 2**48 = {MAX_ELEMENTS} elements"),
    ("f32[4611686018427387904]", "dimension 4611686018427387904 is too large"),
    ("1e999", "number 1e999 is too large for a float"),
]


@pytest.mark.parametrize(("text", "message"), EXTREMES)
def test_parser_answers_with_a_usage_error(text, message):
    with pytest.raises(ArgSpecError) as err:
        parse_args(text)
    said = str(err.value)
    assert message in said
    assert "\n" not in said and len(said) < 300


def test_bounds_are_not_hit_by_ordinary_specs():
    nested = "(" * MAX_DEPTH + "f32[2]," + ")" * MAX_DEPTH
    assert parse_args(nested)
    assert parse_args("f32[" + ",".join(["1"] * MAX_RANK) + "]")
    assert parse_args("f32[1000000000000]") == (ArraySpec("f32", (10**12,)),)
    assert parse_args("0" * 5000 + "7")[0].value == 7  # leading zeros are not digits
    assert parse_args("-" + "9" * MAX_NUMBER_DIGITS)[0].value == -int("9" * MAX_NUMBER_DIGITS)


def test_example_arrays_larger_than_memory_are_refused_before_allocating():
    # The parser keeps f32[10**12] (tracing it allocates nothing); making its values would.
    with pytest.raises(ArgSpecError, match=r"need 4\.0 TB, more than the .* of memory"):
        example_values(parse_args("f32[1000000000000]"))


@pytest.mark.parametrize(("text", "message"), EXTREMES[:4])
def test_cli_gives_exit_status_2_and_one_line(tmp_path, capsys, text, message):
    prog = tmp_path / "prog.py"
    prog.write_text(SOURCE)
    code, out, err = run_cli(capsys, "trace", str(prog), "f", "--args", text)
    assert code == 2 and out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_time_refuses_arrays_larger_than_memory_instead_of_aborting(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(SOURCE)
    proc = run_cli_process("time", str(prog), "f", "--args", "f32[1000000000000]", "--quiet",
                           memory=16 << 30)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert re.fullmatch(r"workbench time: error: example arguments f32\[1000000000000\] need "
                        r"4\.0 TB, more than the [0-9.]+ GB of memory this process can use",
                        lines[0])


@pytest.mark.parametrize(("text", "message"), EXTREMES[:4])
def test_engine_replies_with_a_usage_failure_on_the_args_field(text, message):
    service = Service()
    assert isinstance(service.handle(p.LoadSource(source=SOURCE)), p.Result)
    reply = service.handle(p.Trace(name="f", args=text))
    assert isinstance(reply, p.UsageFailure), reply
    assert reply.field == "args" and message in reply.message
