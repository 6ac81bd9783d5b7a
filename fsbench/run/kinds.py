"""The kinds of task the runner runs, behind one interface: select then classify, or a diagnostic.

A kind says, for one experiment, which selectors span its task grid (:meth:`TaskKind.selectors`), what
it refuses before any work starts (:meth:`TaskKind.check`), how one task runs (:meth:`TaskKind.execute`),
the columns of its ``results.csv`` (:meth:`TaskKind.columns`) and whether its tasks rank features
(:attr:`TaskKind.rankings`: a ``rankings.csv`` beside the results). The planner, the workers, the store
and the engine ask :func:`kind_of` and never test which kind it is.

* :class:`SelectThenClassify`: the protocol's task (:func:`fsbench.evaluation.protocol.run_task`): fit a
  selector on the training split, classify the test split with the top S features; one task per selector.
* :class:`DiagnosticTasks`: an analysis that is not "select, then classify"
  (:class:`fsbench.diagnostics.base.Diagnostic`, named ``module:Class`` in the config): its own columns,
  no ranking; one task per split, or per selector too where the diagnostic says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fsbench.config.experiment import ConfigError, Experiment, SelectorConfig
from fsbench.diagnostics.base import Diagnostic
from fsbench.diagnostics.registry import UnknownDiagnosticError, get_diagnostic
from fsbench.evaluation.protocol import Task, TaskResult, run_task
from fsbench.results.schema import RESULT_COLUMNS


class TaskKind:
    """What the runner asks of a kind of task (the base: every method is overridden)."""

    #: whether a task ranks features (its ranking goes to ``rankings.csv``)
    rankings: bool = True

    def selectors(self, exp: Experiment) -> tuple[SelectorConfig, ...]:
        """The selector axis of the task grid."""
        raise NotImplementedError

    def check(self, exp: Experiment) -> None:
        """Refuse what cannot work, before any work starts (:class:`~fsbench.config.ConfigError`)."""
        raise NotImplementedError

    def execute(self, task: Task) -> TaskResult:
        """Run one task; a failure is recorded in the result, not raised."""
        raise NotImplementedError

    def columns(self) -> list[str]:
        """The columns of ``results.csv``, in order."""
        raise NotImplementedError


class SelectThenClassify(TaskKind):
    """The protocol's task: select on the training split, classify the test split at each S."""

    rankings = True

    def selectors(self, exp: Experiment) -> tuple[SelectorConfig, ...]:
        return tuple(exp.selectors)

    def check(self, exp: Experiment) -> None:
        """Nothing beyond the selectors' checks, which the planner makes for every kind."""

    def execute(self, task: Task) -> TaskResult:
        return run_task(task)

    def columns(self) -> list[str]:
        return list(RESULT_COLUMNS)


class DiagnosticTasks(TaskKind):
    """A diagnostic's tasks: its own columns, no ranking."""

    rankings = False

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic

    def selectors(self, exp: Experiment) -> tuple[SelectorConfig, ...]:
        if self.diagnostic.per_selector:
            return tuple(exp.selectors)
        # labelled by the diagnostic's own name (its task ids), however the config names its class
        return (SelectorConfig(label=f"<{self.diagnostic.name}>", name=self.diagnostic.name),)

    def check(self, exp: Experiment) -> None:
        self.diagnostic.check(exp)

    def execute(self, task: Task) -> TaskResult:
        return self.diagnostic.execute(task)

    def columns(self) -> list[str]:
        return self.diagnostic.all_columns()


def kind_of(diagnostic: str | None, plugins: Iterable[str] = (), source: str | Path = "") -> TaskKind:
    """The kind of an experiment's (or a task's) tasks, from its ``diagnostic`` and ``plugins``.

    Raises
    ------
    ConfigError
        If ``diagnostic`` names no diagnostic that can be imported (``source``: the config file, for the
        message).
    """
    if diagnostic is None:
        return SelectThenClassify()
    try:
        return DiagnosticTasks(get_diagnostic(diagnostic, plugins))
    except UnknownDiagnosticError as exc:
        raise ConfigError(source, "diagnostic", str(exc)) from None
