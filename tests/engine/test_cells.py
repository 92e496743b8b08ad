"""A lesson step runs as Jupyter runs a notebook cell: IPython's magics, ``!`` lines, a real
``__main__``, the display hook, figures, and errors that name the step they come from."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workbench.api import messages as p
from workbench.api.cells import CellOutput
from workbench.engine.service import Service


@pytest.fixture
def notebook():
    """Run cells one after another in one namespace, as a notebook's kernel does."""
    service = Service({})
    service.handle(p.LoadSource(source="import jax\nimport jax.numpy as jnp",
                                filename="nb.ipynb, step 0", cell=True))

    def run(source: str, step: int = 1) -> p.Reply:
        return service.handle(p.LoadSource(source=source, filename=f"nb.ipynb, step {step}",
                                           cell=True))

    run.service = service  # type: ignore[attr-defined]
    return run


def outputs(reply: p.Reply) -> tuple[CellOutput, ...]:
    value = p.result_value(reply, p.Functions)
    assert value is not None, p.reply_text(reply)
    return value.outputs


def test_last_expression_value_is_shown_after_printed_text(notebook):
    shown = outputs(notebook("x = jnp.arange(3)\nprint('before')\nx.dtype"))
    assert [(o.kind, o.text) for o in shown] == [("stream", "before\n"),
                                                 ("result", "dtype('int32')")]
    assert shown[1].execution_count is not None


def test_a_trailing_semicolon_shows_no_value(notebook):
    assert outputs(notebook("1 + 1;")) == ()


def test_line_and_cell_magics_run(notebook):
    shown = outputs(notebook("%time y = 2 * 21\ny"))
    assert "Wall time" in shown[0].text
    assert shown[-1].text == "42"
    shown = outputs(notebook("%%timeit -n 1 -r 1\nsum(range(10))", 2))
    assert "per loop" in "".join(o.text for o in shown)


def test_shell_lines_print_into_the_cell(notebook):
    shown = outputs(notebook("!echo from-the-shell\n_exit_code"))
    assert shown[0].text == "from-the-shell\n"
    assert shown[1].text == "0"


def test_code_lives_in_a_real_main_module(notebook):
    """dataclasses look their module up in sys.modules; pickle finds functions by module."""
    source = ("from dataclasses import dataclass\n"
              "@dataclass\n"
              "class Point:\n"
              "    x: int\n"
              "def double(v):\n"
              "    return 2 * v\n"
              "import pickle\n"
              "ran_as_main = __name__ == '__main__'\n"
              "Point(3), pickle.loads(pickle.dumps(double))(4)")
    shown = outputs(notebook(source))
    assert shown[-1].text == "(Point(x=3), 8)"
    assert notebook.service.namespace["ran_as_main"] is True


def test_functions_of_the_step_are_listed_without_ipython_cache_names(notebook):
    reply = notebook("def f(x):\n    return jnp.sin(x)\nf")
    assert [f.name for f in p.result_value(reply, p.Functions).functions] == ["f"]


def test_a_figure_is_a_png_output(notebook):
    shown = outputs(notebook("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n"
                             "print('drawn')"))
    assert [o.kind for o in shown] == ["stream", "display"]
    assert shown[1].png.startswith(b"\x89PNG")
    assert "Figure" in shown[1].text
    # The inline backend closed it: the next cell shows no figure again.
    assert outputs(notebook("1", 2))[0].kind == "result"


def test_a_magic_that_does_not_exist_is_the_step_error_and_the_lesson_goes_on(notebook):
    reply = notebook("%notamagic", 1)
    assert isinstance(reply, p.UserCodeFailure)
    assert "notamagic" in reply.explanation.title
    assert outputs(notebook("3", 2))[0].text == "3"


def test_an_error_keeps_what_the_cell_showed_before_it(notebook):
    reply = notebook("print('halfway')\n1 / 0")
    assert isinstance(reply, p.UserCodeFailure)
    assert reply.explanation.exception_type == "ZeroDivisionError"
    assert reply.explanation.line == 2
    assert reply.explanation.file == "nb.ipynb, step 1"
    assert [o.text for o in reply.outputs] == ["halfway\n"]


def test_a_syntax_error_names_the_line_of_the_raw_cell(notebook):
    reply = notebook("%time x = 1\ny = (", 4)
    assert isinstance(reply, p.UserCodeFailure)
    assert reply.explanation.kind == "syntax"
    assert reply.explanation.line == 2


def test_a_knock_on_name_error_names_the_step_that_failed(notebook):
    assert isinstance(notebook("import not_a_module_here as plt\nz = 1", 12),
                      p.UserCodeFailure)
    reply = notebook("plt.plot([1])", 13)
    assert isinstance(reply, p.UserCodeFailure)
    assert reply.explanation.title == "'plt' is not defined: step 12, which imports it, failed"
    # Once a later step binds the name, the old failure is no longer blamed.
    notebook("plt = 'fine'", 14)
    assert notebook.service.unbound.get("plt") is None


def test_exit_raises_in_the_cell_and_does_not_end_the_engine(notebook):
    reply = notebook("exit()")
    assert isinstance(reply, p.UserCodeFailure)
    assert reply.explanation.exception_type == "SystemExit"
    assert outputs(notebook("2", 2))[0].text == "2"


def test_outputs_cross_the_wire(notebook):
    from workbench.api import codec

    reply = notebook("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n'text'")
    data, buffers = codec.encode(reply)
    assert codec.decode(data, buffers) == reply


def test_nothing_is_imported_for_a_notebook_as_in_jupyter():
    service = Service({})
    reply = service.handle(p.LoadSource(source="jnp.arange(3)", filename="nb.ipynb, step 1",
                                        cell=True))
    assert isinstance(reply, p.UserCodeFailure)
    assert reply.explanation.title == "'jnp' is not defined"
    assert "nothing is imported for you" in reply.explanation.hint


def test_a_step_is_not_blamed_for_its_own_name_error(notebook):
    notebook("import not_a_module_here\nkey = 1", 3)
    reply = notebook("key, subkey = jax.random.split(key)", 4)
    assert reply.explanation.title == "'key' is not defined: step 3, which defines it, failed"
    reply = notebook("key, subkey = jax.random.split(key)", 5)  # step 4 bound key: still 3's
    assert "step 3" in reply.explanation.title


def test_terminal_colours_are_not_shown_as_text(notebook):
    shown = outputs(notebook("print('\\x1b[34;1mblue\\x1b[0m')\njax.make_jaxpr(jnp.sin)(1.0)"))
    assert shown[0].text == "blue\n"
    assert "\x1b" not in shown[1].text and "lambda" in shown[1].text


def test_a_figure_shows_even_after_another_backend_was_chosen_in_this_process(notebook):
    import matplotlib
    import matplotlib.pyplot as plt

    plt.switch_backend("agg")  # as a script or a test before the lesson may have done
    matplotlib.interactive(False)
    shown = outputs(notebook("import matplotlib.pyplot as plt\nplt.plot([2, 1])\nprint('x')"))
    assert [o.kind for o in shown] == ["stream", "display"]


SHELLS_AT_ONCE = """
import threading
from workbench.engine.cells import shell_for

barrier, shells = threading.Barrier(4), []

def first_cell():
    barrier.wait()
    shells.append(shell_for({}))

threads = [threading.Thread(target=first_cell) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(len({id(s) for s in shells}), shell_for({}) is shells[0])
"""


def test_engines_that_start_at_once_in_one_process_share_one_shell():
    """Three windows' in-process engines ran their first cells at once: each made a shell,
    the last one made stayed the process's, and the first, set up for inline figures, was
    lost (the next lesson's figures showed as '<Figure size 640x480 ...>')."""
    run = subprocess.run([sys.executable, "-c", SHELLS_AT_ONCE], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "True"]
