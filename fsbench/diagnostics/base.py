"""The contract of a diagnostic, and how one of its tasks runs.

A *diagnostic* is an analysis that is not "select features, then classify" — e.g. the TAKES
reconstruction cost (Xu 2011 Table 2), the KIFE 2-D projection picture (Liu 2011 Fig. 2), the USPS pixel
bound (Ramona 2012 Table II), each in its paper's folder. Its config is an experiment config (name, seed,
dataset entries, kernel, protocol, optionally selectors) plus ``diagnostic: module:Class``, ``plugins``
and ``settings:``; ``fsbench diagnose`` runs it through
the same runner as ``fsbench run``: one task per (dataset entry, kernel, n_train, repeat) — or per
selector too, for a diagnostic that says so — with the same split seeds (so a diagnostic sees the very
splits of the experiment with the same seed and dataset), the same checksummed task store, lock,
config hash and commit rule, and a ``results.csv`` whose columns the diagnostic declares. After the
run, :meth:`Diagnostic.render` writes its derived outputs (tables, figures) from ``results.csv``.

The runner sees a diagnostic through the task-kind interface of :mod:`fsbench.run.kinds` (selectors of
the task grid, check, execute, columns, no rankings), as it sees the protocol's select-then-classify task.

To add one: subclass :class:`Diagnostic` in a module of one's own — a paper's diagnostic lives in the
paper's folder (``configs/<paper>/<module>.py``) — and name it in the config as
``diagnostic: module:Class`` with the module's folder in ``plugins`` (:mod:`fsbench.diagnostics.registry`).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fsbench.config.experiment import ConfigError, Experiment
from fsbench.evaluation.protocol import Task, TaskData, TaskResult, load_task_data
from fsbench.results.loading import read_results
from fsbench.results.schema import SCHEMA_VERSION

#: Columns every diagnostic row starts and ends with.
HEAD_COLUMNS = [
    "schema_version",
    "experiment",
    "diagnostic",
    "dataset",
    "kernel",
    "selector",
    "n_train",
    "n_test",
    "repeat",
    "split_seed",
]
TAIL_COLUMNS = ["status", "message", "git_commit", "task_id"]


class Diagnostic:
    """Base class: override :attr:`columns`, :meth:`run` and, where there is something to draw,
    :meth:`render`; :attr:`defaults` are the ``settings`` it accepts, with their default values."""

    name: str = ""
    #: the diagnostic's own result columns (between the head and tail columns)
    columns: list[str] = []
    #: ``settings`` keys and default values
    defaults: dict[str, Any] = {}
    #: one task per selector of the config (True) or one per split (False)
    per_selector: bool = False

    def all_columns(self) -> list[str]:
        return HEAD_COLUMNS + self.columns + TAIL_COLUMNS

    def settings(self, exp: Experiment) -> dict[str, Any]:
        """The settings with defaults filled in; unknown keys are refused (ConfigError)."""
        for key in exp.settings:
            if key not in self.defaults:
                raise ConfigError(
                    exp.source,
                    f"settings.{key}",
                    f"unknown setting of diagnostic {self.name!r}; expected one of "
                    f"{', '.join(sorted(self.defaults)) or '(none)'}",
                )
        return {**self.defaults, **exp.settings}

    def check(self, exp: Experiment) -> None:
        """Refuse settings that cannot work (ConfigError), before any work starts."""
        self.settings(exp)
        if self.per_selector and not exp.selectors:
            raise ConfigError(exp.source, "selectors", f"diagnostic {self.name!r} needs selectors")

    def run(self, task: Task, data: TaskData, rng: np.random.Generator) -> list[dict[str, Any]]:
        """The rows of one task (its own columns only) from the task's split."""
        raise NotImplementedError

    def render(self, out: Path, exp: Experiment) -> list[Path]:
        """Derived outputs (tables, figures) from ``out/results.csv``; returns the files written."""
        return []

    @staticmethod
    def ok_rows(out: Path) -> pd.DataFrame:
        """The rows of ``out/results.csv`` whose task succeeded (what :meth:`render` draws from)."""
        df = read_results(out)
        return df[df["status"] == "ok"]

    # ------------------------------------------------------------------ one task
    def execute(self, task: Task) -> TaskResult:
        """Run one task; a failure is recorded (status ``failed`` + message), as for experiment tasks."""
        base = {
            "schema_version": SCHEMA_VERSION,
            "experiment": task.experiment,
            "diagnostic": self.name,
            "dataset": task.dataset,
            "kernel": task.kernel.name,
            "selector": task.selector.label if self.per_selector else "",
            "n_train": task.n_train,
            "repeat": task.repeat,
            "split_seed": task.split_seed,
            "git_commit": task.git_commit,
            "task_id": task.task_id,
        }
        try:
            rng = np.random.default_rng(task.split_seed)
            data = load_task_data(task, rng)
            base.update(n_train=int(data.y_tr.size), n_test=int(data.y_te.size))
            rows = [{**base, **r, "status": "ok", "message": ""} for r in self.run(task, data, rng)]
            return TaskResult(task.task_id, rows, {"task_id": task.task_id}, "ok")
        except Exception as exc:  # recorded for this task; the run goes on
            msg = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:500]
            tb = traceback.format_exc()
            row = {**base, "status": "failed", "message": msg, "traceback": tb}
            return TaskResult(task.task_id, [row], {"task_id": task.task_id}, "failed")
