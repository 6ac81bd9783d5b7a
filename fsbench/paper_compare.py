"""Compatibility module: the paper comparison now lives in :mod:`fsbench.papers`, one module per concern.

* :mod:`fsbench.papers.values` — paper-values files, experiment configs and dataset cards;
* :mod:`fsbench.papers.cells` — result frames, unit conversion, cell comparison (the agreement rule is
  described in :func:`fsbench.papers.cells.compare_table`);
* :mod:`fsbench.papers.claims` — the claim DSL;
* :mod:`fsbench.papers.render` — the Markdown of ``fsbench report --paper``.

This module only re-exports their public names, so that code written against ``fsbench.paper_compare``
(other branches, users' scripts) keeps working; new code imports from the modules above.
"""

from __future__ import annotations

from fsbench.papers.cells import (
    ALPHA,
    CPU_FACTOR,
    NO_STD_RULES,
    CellResult,
    compare_table,
    judge_with_std,
    method_frame,
    normalise_row,
    to_paper_unit,
)
from fsbench.papers.claims import (
    FAILS,
    HOLDS,
    NOT_CHECKABLE,
    NOT_EVALUABLE,
    CheckResult,
    evaluate_check,
    evaluate_claim,
)
from fsbench.papers.render import paper_sections
from fsbench.papers.tables import split_defaults
from fsbench.papers.values import (
    DEFAULT_REPEATS,
    PAPER_VALUES,
    ConfigInfo,
    card_note,
    config_defaults,
    configs_dir,
    load_paper_values,
    paper_values_path,
    read_configs,
)

__all__ = [
    "ALPHA",
    "CPU_FACTOR",
    "DEFAULT_REPEATS",
    "FAILS",
    "HOLDS",
    "NOT_CHECKABLE",
    "NOT_EVALUABLE",
    "NO_STD_RULES",
    "PAPER_VALUES",
    "CellResult",
    "CheckResult",
    "ConfigInfo",
    "card_note",
    "compare_table",
    "config_defaults",
    "configs_dir",
    "evaluate_check",
    "evaluate_claim",
    "judge_with_std",
    "load_paper_values",
    "method_frame",
    "normalise_row",
    "paper_sections",
    "paper_values_path",
    "read_configs",
    "split_defaults",
    "to_paper_unit",
]
