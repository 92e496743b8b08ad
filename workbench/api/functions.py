"""The functions a loaded editor source defines, as the function chooser lists them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of a user function; ``default`` is its repr, if it has one."""

    name: str
    kind: str
    default: str | None = None
    numeric_default: float | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not None


@dataclass(frozen=True)
class FunctionInfo:
    """A top-level function of the editor, as the function chooser lists it."""

    name: str
    line: int
    signature: str
    params: tuple[ParamInfo, ...]
    doc: str = ""

    @property
    def positional(self) -> tuple[ParamInfo, ...]:
        """Parameters without a default: the ones the argument spec fills."""
        return tuple(
            p
            for p in self.params
            if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL")
            and not p.has_default
        )


@dataclass(frozen=True)
class CalledWith:
    """The last call a lesson step makes of a function the lesson defined: what the step's
    trace shows, at the arguments the notebook passed (``args``, a spec: ``f32[1000,150]``)."""

    name: str
    args: str
    line: int
    """The call's line in the step's code."""
    function: FunctionInfo
    """The function called (defined in this step or an earlier one), for the chooser."""


@dataclass(frozen=True)
class SyntaxProblem:
    """A syntax error as data: where it is and what Python said."""

    line: int
    column: int
    message: str
    text: str = ""
