"""Run a lesson step as Jupyter runs a notebook cell: through IPython's own machinery.

The cell is transformed by IPython (magics, ``!`` lines), compiled under the
step's own file name (so its functions, tracebacks and JAX's source lines name
the step), run in the shell's namespace, a real ``__main__`` module (dataclasses
and pickling work, ``if __name__ == "__main__":`` runs), and its outputs are
collected in order: printed text, what it displayed (matplotlib's inline backend
flushes figures after the cell, as in Jupyter) and its last expression's value
through IPython's display hook and formatters.

In the kernel the shell is the kernel's, and outputs also reach the console as
usual; in this process (``workbench lesson --check``, tests) it is one
``InteractiveShell`` for the process, switched to the namespace of the service
that runs the cell.
"""

from workbench.api.cells import bound_names
from workbench.engine.cells.names import explain_cell_error
from workbench.engine.cells.outputs import CellRun, strip_ansi
from workbench.engine.cells.run import run_cell
from workbench.engine.cells.shell import INLINE_BACKEND, shell_for

__all__ = ["INLINE_BACKEND", "CellRun", "bound_names", "explain_cell_error", "run_cell",
           "shell_for", "strip_ansi"]
