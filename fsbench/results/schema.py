"""The results schema: the columns of ``results.csv`` and ``rankings.csv``, their version, and the name of
the all-features baseline (docs/results.md).

A leaf module (no fsbench import): the run store writes these columns, :mod:`fsbench.results.loading`
reads them, and the analyses, reports and diagnostics name them from here.
"""

from __future__ import annotations

#: 2: columns ``fold``, ``n_evaluations``, ``criterion_value``, ``subset`` added (rows restored from
#: version-1 tables get them empty).
SCHEMA_VERSION = 2

#: Column order of results.csv (documented in docs/results.md).
RESULT_COLUMNS = [
    "schema_version",
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "selector_name",
    "params",
    "n_select",
    "n_train",
    "n_test",
    "repeat",
    "fold",
    "split_seed",
    "classifier",
    "C",
    "n_features",
    "error",
    "balanced_error",
    "fit_cpu_s",
    "fit_wall_s",
    "n_iter",
    "converged",
    "n_evaluations",
    "criterion_value",
    "subset",
    "redraws",
    "status",
    "message",
    "git_commit",
    "task_id",
]
#: Columns that measure time; everything else is deterministic for a given config and seed.
TIMING_COLUMNS = ["fit_cpu_s", "fit_wall_s"]
#: Column order of rankings.csv.
RANKING_COLUMNS = [
    "task_id",
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "n_train",
    "repeat",
    "fold",
    "order",
    "scores",
]

#: The all-features selector's registry name: evaluated only at S = D (its "ranking" is an arbitrary
#: order); the analyses leave it out of rankings and draw it as the reference line.
BASELINE = "all"
