"""The readings part of one paper's comparison: the readings listed, the differing cells classified per
table under its one explaining reading, the substitutions named, the figure readings (rules in
:mod:`fsbench.papers.readings`); computed here for :func:`fsbench.papers.compare.compare_paper`, rendered
by :mod:`fsbench.papers.readings.markdown`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.cells import CellResult, compare_table
from fsbench.papers.checks import CheckResult
from fsbench.papers.comparison import ClaimUnderReading, FigureClaim, FigureReading, ReadingRun
from fsbench.papers.readings.claims import claim_under_reading, ran, touches
from fsbench.papers.readings.classify import (
    CLASSES,
    ByReading,
    Classified,
    Compare,
    WholeTable,
    class_counts,
    classify_table,
)
from fsbench.papers.readings.declared import Reading, default_label, read_readings, where_name
from fsbench.papers.readings.figures import figure_readings
from fsbench.papers.readings.substitutions import SubstitutionMarks, substitutions
from fsbench.papers.sources import method_frame
from fsbench.papers.values import ConfigInfo, dataset_entries


class ReadingsReport:
    """The readings part of one paper's comparison (rules: :mod:`fsbench.papers.readings`).

    Parameters
    ----------
    values : mapping
        The paper's values (``readings``, ``tables``, ``figures``, ``claims``).
    df : DataFrame
        Every result row of the report, as read (labels not yet mapped to methods).
    configs : mapping
        Experiment configs by name.
    compare : callable, optional
        The engine's comparison of a paper-values table (default :func:`compare_table` on ``df``,
        with the reading's experiment judged with the default's ``repeats`` as the paper's n).
    cards_dir : Path, optional
        Dataset cards directory.
    """

    def __init__(
        self,
        values: Mapping[str, Any],
        df: pd.DataFrame,
        configs: Mapping[str, ConfigInfo],
        compare: Compare | None = None,
        cards_dir: Path | None = None,
    ):
        self.values = values
        self.readings = read_readings(values)
        self.raw = df
        self.df = method_frame(df) if len(df) else df
        self.configs = dict(configs)
        self.cards_dir = cards_dir
        experiments = set(df["experiment"].astype(str)) if len(df) else set()
        self.marks = SubstitutionMarks(substitutions(self.configs, experiments, cards_dir))
        self._compare = compare
        self.tables: list[tuple[Mapping[str, Any], list[Classified], ByReading]] = []
        #: (claim id, default status, its verdicts under the readings), in the order the claims came
        self.claims: list[tuple[str, str, list[ClaimUnderReading]]] = []

    # ---- comparison under the engine's rule
    def compare(self, table: dict[str, Any]) -> list[CellResult]:
        if self._compare is not None:
            return self._compare(table)
        # the paper's n of Welch's test is the default's `repeats`, whichever experiment is read
        configs = dict(self.configs)
        exp, default = table.get("experiment"), table.get("default_experiment")
        if isinstance(default, str) and default in configs and exp != default:
            configs[exp] = configs[default]
        return compare_table(table, self.df, configs, self.cards_dir)

    def add_table(
        self, table: Mapping[str, Any], cells: list[CellResult], mark: bool = True
    ) -> tuple[list[Classified], list[int], list[WholeTable]]:
        """Classify the differing cells of a compared table under its one explaining reading and mark its
        substituted cells.

        Call it after the default's counts are taken; returns the differing cells classified, the
        markers of the substitutions its cells use (the footnotes under it; empty if none or ``mark``
        false) and the table's readings compared as whole tables (the explaining one marked).
        """
        classified, by_reading, whole = classify_table(table, cells, self.readings, self.compare)
        self.tables.append((table, classified, by_reading))
        return classified, (self.marks.mark_cells(table, cells) if mark else []), whole

    def totals(self) -> dict[str, int]:
        """Number of differing cells per class over every table added."""
        tot = dict.fromkeys(CLASSES, 0)
        for _, cl, _ in self.tables:
            for k, v in class_counts(cl).items():
                tot[k] += v
        return tot

    def runs(self) -> list[ReadingRun]:
        """Every reading declared, what it changes and where it ran."""
        present = set(self.df["experiment"].astype(str)) if len(self.df) else set()
        out = []
        for r in self.readings:
            default = default_label(self.values, r)
            src = r.source(default)
            ran = src in present or (r.experiment is None and all(x in present for x in default.split(" / ")))
            out.append(
                ReadingRun(
                    id=r.id,
                    label=r.label,
                    where=where_name(self.values, r),
                    default=default,
                    source=src,
                    same_runs=self._what_differs(r),
                    ran=ran,
                    explains=r.explains,
                    why=r.why,
                    changes=r.changes,
                )
            )
        return out

    def claim_readings(
        self,
        claim: Mapping[str, Any],
        entry: Mapping[str, Any],
        status: str,
        default: list[CheckResult],
        missing_reason: Callable[[str | None], str] | None = None,
    ) -> list[ClaimUnderReading]:
        """A claim re-evaluated under every reading whose results are present and that changes rows it
        reads (rules: :mod:`fsbench.papers.readings.claims`); none for a claim without checks.

        Parameters
        ----------
        claim : mapping
            The ``claims:`` entry.
        entry : mapping
            The claim's table or figure entry (its first, for a claim about several).
        status : str
            The claim's default verdict (kept for :meth:`figures`).
        default : list of CheckResult
            Its checks evaluated on the default.
        missing_reason : callable, optional
            Experiment name → why it has no results.

        Returns
        -------
        list of ClaimUnderReading
            In the readings' declaration order.
        """
        present = set(self.df["experiment"].astype(str)) if len(self.df) else set()
        out = [
            claim_under_reading(self.values, r, claim, entry, self.df, default, missing_reason)
            for r in self.readings
            if claim.get("checks") and ran(self.values, r, present) and touches(self.values, r, claim)
        ]
        self.claims.append((str(claim["id"]), status, out))
        return out

    def figures(self) -> list[FigureReading]:
        """Every figure reading: its curve beside the default's, and the claims (added through
        :meth:`claim_readings`) whose verdict under it is comparable with the default's."""
        out = figure_readings(self.values, self.readings, self.df, self.raw)
        for f in out:
            f.claims = [
                FigureClaim(cid, status, u.status)
                for cid, status, under in self.claims
                for u in under
                if u.reading == f.reading and u.comparable
            ]
        return out

    def claim_marker(self, where: Any) -> str:
        """Substitution markers for a claim's figure or table (its experiment's datasets), or ""."""
        out = ""
        for w in dataset_entries(where):
            items = [*self.values.get("figures", []), *self.values.get("tables", [])]
            item = next((x for x in items if x.get("id") == w), {})
            exp = item.get("experiment")
            cfg = self.configs.get(exp) if isinstance(exp, str) else None
            if cfg is None:
                continue
            name = (
                f"Fig. {w.removeprefix('fig')}"
                if str(w).startswith("fig")
                else f"Table {item.get('number', w)}"
            )
            for m in self.marks.mark_experiment(name, exp, cfg.datasets).split():
                if m not in out:
                    out += f" {m}"
        return out

    @staticmethod
    def _what_differs(r: Reading) -> str:
        parts = [f"{k} → {v}" for k, v in r.methods.items() if k != v]
        parts += [f"{k} = {v}" for k, v in r.set.items()]
        parts += [f"{k}: {v}" for k, v in r.table_set.items()]
        return "; ".join(parts) or "another selection of rows"
