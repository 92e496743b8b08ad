"""Every variable's value: the traced jaxpr run equation by equation, with JAX itself.

``run`` walks the jaxpr and keeps the last run's arrays (its limits are there:
``run.KEEP_BYTES``), ``loops`` runs a loop equation once, instrumented,
``summaries`` summarises one array and ``arrays`` gives one variable's whole array.
"""

from workbench.engine.values.run import evaluate_values, variable_array
from workbench.engine.values.summaries import summarize

__all__ = ["evaluate_values", "summarize", "variable_array"]
