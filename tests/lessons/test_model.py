"""The lesson model: cells grouped into steps, titles, directives and expected errors."""

from __future__ import annotations

import textwrap

import nbformat
import nbformat.v4 as nbf

from workbench.lessons import CallDirective, PlotDirective, read_lesson


def write_notebook(path, cells, **metadata):
    nb = nbf.new_notebook(cells=cells, metadata=metadata)
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def test_markdown_gathers_into_the_step_its_next_code_cell_closes(tmp_path):
    path = write_notebook(tmp_path / "l.ipynb", [
        nbf.new_markdown_cell("# The lesson\n\nWelcome."),
        nbf.new_markdown_cell("## Squares\nA square."),
        nbf.new_code_cell("def sq(x):\n    return x * x"),
        nbf.new_code_cell("def cube(x):\n    return x ** 3"),
        nbf.new_markdown_cell("That is all.\n\nBye."),
    ])
    lesson = read_lesson(path)
    assert lesson.title == "The lesson"
    assert lesson.format == "ipynb"
    assert [s.number for s in lesson.steps] == [1, 2, 3]
    first, second, last = lesson.steps
    assert first.text == "# The lesson\n\nWelcome.\n\n## Squares\nA square."
    assert first.title == "The lesson"
    assert first.code == "def sq(x):\n    return x * x\n"
    assert first.cell == 2 and first.has_code
    # a code step without text is titled by its first line of code
    assert second.text == "" and second.title == "def cube(x):"
    # markdown after the last code cell is a text-only step
    assert last.cell is None and not last.has_code
    assert last.code == "" and last.title == "That is all."
    assert lesson.step(3) is last
    assert lesson.step_filename(2) == "l.ipynb, step 2"


def test_empty_code_cells_are_skipped(tmp_path):
    path = write_notebook(tmp_path / "l.ipynb", [
        nbf.new_code_cell(""),
        nbf.new_code_cell("   \n\n"),
        nbf.new_markdown_cell("Only step"),
        nbf.new_code_cell("x = 1"),
        nbf.new_code_cell("\n"),
    ])
    lesson = read_lesson(path)
    assert len(lesson.steps) == 1
    assert lesson.steps[0].cell == 3 and lesson.steps[0].title == "Only step"


def test_title_falls_back_to_the_file_name_and_long_titles_are_cut(tmp_path):
    long = "word " * 30
    path = write_notebook(tmp_path / "my_first_lesson.ipynb", [
        nbf.new_markdown_cell(long), nbf.new_code_cell("x = 1")])
    lesson = read_lesson(path)
    assert lesson.title == "my first lesson"
    title = lesson.steps[0].title
    assert title.endswith("…") and len(title) <= 60
    assert long.startswith(title[:-1])


def test_directive_lines_are_stripped_from_the_code_and_kept(tmp_path):
    path = write_notebook(tmp_path / "l.ipynb", [nbf.new_code_cell(
        "# workbench: trace f --args f32[3] --transform grad\n"
        "def f(x):\n    return jnp.sum(x ** 2)\n")])
    step = read_lesson(path).steps[0]
    assert step.code == "def f(x):\n    return jnp.sum(x ** 2)\n"
    assert step.directive_lines == ("# workbench: trace f --args f32[3] --transform grad",)
    assert isinstance(step.directive, CallDirective)
    assert (step.directive.verb, step.directive.function, step.directive.args,
            step.directive.transforms) == ("trace", "f", "f32[3]", ("grad",))
    assert step.problem is None and step.expect_error is None


def test_expect_error_from_notebook_tags_both_forms(tmp_path):
    any_kind = nbf.new_code_cell("1 / 0", metadata={"tags": ["expect-error"]})
    one_kind = nbf.new_code_cell("x = undefined", metadata={"tags": ["other",
                                                                     "expect-error:name"]})
    plain = nbf.new_code_cell("y = 1", metadata={"tags": ["slide"]})
    lesson = read_lesson(write_notebook(tmp_path / "l.ipynb", [any_kind, one_kind, plain]))
    assert [s.expect_error for s in lesson.steps] == ["", "name", None]


def test_expect_error_from_percent_tags_and_directive_line(tmp_path):
    path = tmp_path / "l.py"
    path.write_text(textwrap.dedent("""\
        # %% tags=["expect-error"]
        1 / 0

        # %% tags=["expect-error:tracer-bool"]
        a = 1

        # %%
        # workbench: expect-error name
        b = undefined

        # %%
        # workbench: expect-error
        c = 1 / 0

        # %%
        # workbench: expect-error key-reuse
        # workbench: plot f
        def f(x):
            return x
        """), encoding="utf-8")
    lesson = read_lesson(path)
    assert [s.expect_error for s in lesson.steps] == ["", "tracer-bool", "name", "", "key-reuse"]
    assert isinstance(lesson.steps[4].directive, PlotDirective)
    assert "expect-error" not in lesson.steps[2].code


def test_a_bad_directive_is_a_problem_of_its_step_only(tmp_path):
    path = tmp_path / "l.py"
    path.write_text(textwrap.dedent("""\
        # %%
        # workbench: frobnicate f
        x = 1

        # %%
        # workbench: trace f
        y = 2

        # %%
        # workbench: trace f --args f32[3]
        # workbench: plot f
        def f(x):
            return x

        # %%
        # workbench: trace f --args f32[3]
        z = 3
        """), encoding="utf-8")
    lesson = read_lesson(path)
    bad_verb, no_args, two, fine = lesson.steps
    assert bad_verb.directive is None and "unknown directive 'frobnicate'" in bad_verb.problem
    assert bad_verb.code == "x = 1\n"  # the step still runs its code
    assert no_args.directive is None and "--args" in no_args.problem
    assert isinstance(two.directive, CallDirective) and "one directive per step" in two.problem
    assert fine.problem is None and isinstance(fine.directive, CallDirective)


def test_jupyters_raises_exception_tag_allows_an_error(tmp_path):
    """As in Jupyter and nbclient: the cell may raise; it need not (``may_raise``)."""
    tagged = nbf.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]})
    both = nbf.new_code_cell("x = undefined",
                             metadata={"tags": ["raises-exception", "expect-error:name"]})
    line_wins = nbf.new_code_cell("# workbench: expect-error tracer-bool\nz = 1",
                                  metadata={"tags": ["raises-exception"]})
    near_miss = nbf.new_code_cell("y = 1", metadata={"tags": ["raises-exceptions", "raises"]})
    lesson = read_lesson(write_notebook(tmp_path / "l.ipynb",
                                        [tagged, both, line_wins, near_miss]))
    assert [s.expect_error for s in lesson.steps] == [None, "name", "tracer-bool", None]
    assert [s.may_raise for s in lesson.steps] == [True, True, True, False]
    assert not any(s.skip for s in lesson.steps)


def test_skip_execution_tag_keeps_the_code_and_its_directive(tmp_path):
    skipped = nbf.new_code_cell("# workbench: trace f --args f32[3]\ndef f(x):\n    return x",
                                metadata={"tags": ["slide", "skip-execution"]})
    runs = nbf.new_code_cell("y = f(1.0)")
    lesson = read_lesson(write_notebook(tmp_path / "l.ipynb", [skipped, runs]))
    first, second = lesson.steps
    assert first.skip and not second.skip
    assert first.code == "def f(x):\n    return x\n"
    assert isinstance(first.directive, CallDirective) and first.problem is None
    assert first.directive_lines == ("# workbench: trace f --args f32[3]",)


def test_percent_tags_skip_and_raise(tmp_path):
    path = tmp_path / "l.py"
    path.write_text(textwrap.dedent("""\
        # %% tags=["skip-execution"]
        # workbench: plot f
        import big_dataset

        # %% tags=["raises-exception"]
        1 / 0

        # %% [markdown] tags=["skip-execution"]
        # Text is text.
        """), encoding="utf-8")
    lesson = read_lesson(path)
    assert [(s.skip, s.may_raise, s.has_code) for s in lesson.steps] == [
        (True, False, True), (False, True, True), (False, False, False)]
    assert isinstance(lesson.steps[0].directive, PlotDirective)
    assert lesson.steps[0].code == "import big_dataset\n"
