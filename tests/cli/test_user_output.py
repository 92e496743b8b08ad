"""What the user's code prints stays off the commands' stdout: stderr, or ``output`` in JSON.

The Overview tutorial's ``new_function`` prints once, while JAX traces it; before
issue 16 that line landed on stdout ahead of the JSON (invalid) or the jaxpr text.
"""

from __future__ import annotations

import json
import textwrap

import jax
import pytest

from tests.cli.cli_util import run_cli
from workbench.api.limits import MAX_OUTPUT_CHARS

COMPILING = "Function is compiling. X has shape: (4,)"

SOURCE = textwrap.dedent(
    """\
    import threading

    import jax

    print("loading the file")


    @jax.jit
    def new_function(x):
        print("Function is compiling. X has shape:", x.shape)
        return x * 2


    def chatty(x):
        for i in range(200_000):
            print("line", i, "of a long loop while tracing")
        return x + 1


    def debug_printed(x):
        jax.debug.print("debug {}", x)
        return x * x


    def threaded(x):
        t = threading.Thread(target=lambda: print("from a thread while tracing"))
        t.start()
        t.join()
        return -x


    def broken(x):
        print("about to fail")
        return x.no_such_attribute
    """
)


def _make_jaxpr_text() -> str:
    namespace: dict = {}
    exec(compile(SOURCE, "prog.py", "exec"), namespace)  # noqa: S102 - the test's own program
    return str(jax.make_jaxpr(namespace["new_function"])(
        jax.ShapeDtypeStruct((4,), jax.numpy.float32)))


def test_trace_json_stays_valid_and_carries_the_print(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "new_function", "--args", "f32[4]",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["output"] == f"loading the file\n{COMPILING}\n"
    assert doc["output_dropped"] == 0
    assert err == ""


def test_trace_text_is_exactly_make_jaxprs_and_the_print_is_on_stderr(capsys, prog):
    expected = _make_jaxpr_text()
    capsys.readouterr()  # the test's own trace printed too
    code, out, err = run_cli(capsys, "trace", prog, "new_function", "--args", "f32[4]")
    assert code == 0, err
    assert out == expected + "\n"
    assert err == f"loading the file\n{COMPILING}\n"


def test_trace_tree_keeps_the_print_off_stdout(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "new_function", "--args", "f32[4]",
                             "--format", "tree")
    assert code == 0, err
    assert out.startswith("new_function(f32[4])") and "compiling" not in out
    assert COMPILING in err


def test_megabytes_printed_while_tracing_are_capped_and_said(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "chatty", "--args", "f32[3]",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["output_dropped"] > 5_000_000
    assert doc["output"].startswith("loading the file\nline 0 of a long loop")
    assert doc["output"].endswith(
        f"[output truncated: {doc['output_dropped']:,} more characters not shown]\n")
    assert len(doc["output"]) < MAX_OUTPUT_CHARS + 100
    assert len(out) < 2 * MAX_OUTPUT_CHARS + 50_000  # the jaxpr, plus JSON's escaping


def test_megabytes_in_text_format_are_capped_on_stderr(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "chatty", "--args", "f32[3]")
    assert code == 0, err
    assert out.startswith("{ lambda")
    assert len(err) < MAX_OUTPUT_CHARS + 100
    assert err.rstrip().endswith("more characters not shown]")


def test_a_print_from_another_thread_is_captured_too(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "threaded", "--args", "f32[3]",
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["output"] == "loading the file\nfrom a thread while tracing\n"


def test_what_was_printed_before_an_error_goes_on_stderr(capsys, prog):
    code, out, err = run_cli(capsys, "trace", prog, "broken", "--args", "f32[3]",
                             "--format", "json")
    assert code == 1 and out == ""
    assert err.startswith("loading the file\nabout to fail\n")
    assert "workbench trace: error" in err


def test_plot_json_stays_valid_with_debug_prints(capsys, prog):
    code, out, err = run_cli(capsys, "plot", prog, "debug_printed", "--points", "3",
                             "--order", "1", "--range", "0", "2", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["x"] == [0.0, 1.0, 2.0]
    assert doc["output"].startswith("loading the file\n")
    assert "debug " in doc["output"]
    assert err == ""


@pytest.mark.parametrize("fmt", ["csv", "text"])
def test_plot_csv_and_text_stay_clean(capsys, prog, fmt):
    code, out, err = run_cli(capsys, "plot", prog, "debug_printed", "--points", "3",
                             "--order", "1", "--range", "0", "2", "--format", fmt)
    assert code == 0, err
    assert "debug " not in out and "loading" not in out
    assert "loading the file" in err and "debug " in err


def test_time_json_stays_valid_with_debug_prints(capsys, prog):
    code, out, err = run_cli(capsys, "time", prog, "debug_printed", "--args", "f32[3]",
                             "--modes", "eager", "--devices", "cpu", "--format", "json",
                             "--min-batch", "0.0002", "--repeats", "2", "--budget", "0.03",
                             "--quiet")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["function"] == "debug_printed"
    assert doc["output"].startswith("loading the file\ndebug ")
    assert err == ""


def test_time_text_puts_the_prints_on_stderr(capsys, prog):
    code, out, err = run_cli(capsys, "time", prog, "new_function", "--args", "f32[4]",
                             "--modes", "jit", "--devices", "cpu", "--min-batch", "0.0002",
                             "--repeats", "2", "--budget", "0.03", "--quiet")
    assert code == 0, err
    assert out.startswith("new_function(f32[4])") and "compiling" not in out
    assert err.startswith("loading the file\nFunction is compiling")
