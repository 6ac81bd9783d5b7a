"""The readings part of one paper's report: the readings listed, the differing cells classified per table,
the substitutions named, the figure readings (rules in :mod:`fsbench.papers.readings`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fsbench.papers.cells import CellResult, compare_table
from fsbench.papers.readings.classify import (
    CLASSES,
    EXPLAINED,
    INCONSISTENT,
    ByReading,
    Classified,
    Compare,
    class_counts,
    classify_table,
    counts_line,
    fmt_ours,
    fmt_paper,
)
from fsbench.papers.readings.declared import Reading, default_label, read_readings, where_name
from fsbench.papers.readings.figures import figure_readings_section
from fsbench.papers.readings.substitutions import SubstitutionMarks, substitutions
from fsbench.papers.sources import method_frame
from fsbench.papers.values import ConfigInfo, _entries
from fsbench.results.tables import md_table


class ReadingsReport:
    """The readings part of one paper's report (rules: :mod:`fsbench.papers.readings`).

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

    def add_table(self, table: Mapping[str, Any], cells: list[CellResult], mark: bool = True) -> list[str]:
        """Classify the differing cells of a compared table and mark its substituted cells.

        Call it after the default's counts are taken and before the table is rendered; returns the
        substitution footnotes to print under the table (empty if none).
        """
        classified, by_reading = classify_table(table, cells, self.readings, self.compare)
        self.tables.append((table, classified, by_reading))
        return self.marks.mark_cells(table, cells) if mark else []

    # ---- output
    def totals(self) -> dict[str, int]:
        tot = dict.fromkeys(CLASSES, 0)
        for _, cl, _ in self.tables:
            for k, v in class_counts(cl).items():
                tot[k] += v
        return tot

    def summary_lines(self) -> list[str]:
        """Lines for the report's summary: the counts line and a row per table."""
        rows = []
        # two tables printed under one number (KIFE's Table II: accuracy and time) are told apart by id,
        # as in the cell-count table
        numbers = [t.get("number", t.get("id")) for t, cl, _ in self.tables if cl]
        for t, cl, _ in self.tables:
            k = class_counts(cl)
            if not cl:
                continue
            number = t.get("number", t.get("id"))
            name = str(number) + (f" ({t['part']})" if t.get("part") else "")
            if numbers.count(number) > 1 and not t.get("part"):
                name += f" (`{t['id']}`)"
            rows.append([name, str(len(cl)), *(str(k[c]) for c in CLASSES)])
        lines = [f"- **{counts_line(self.totals())}** (section “Alternative readings” below)"]
        if rows:
            lines += ["", *md_table(["table", "differing", *CLASSES], rows).splitlines()]
        return lines

    def section(self) -> list[str]:
        """The section “Alternative readings and the differing cells”, in every paper's report; for a paper
        with no comparable table cell it says why (``no_table_cells`` in paper_values.yaml) and counts 0."""
        lines = [
            "## Alternative readings and the differing cells",
            "",
            counts_line(self.totals()),
            "",
            "Each differing cell of the default (counted cells only) is **explained** when a reading "
            "listed below, run with the full protocol, agrees with the paper on the same (dataset, method, "
            "S) under the same agreement rule as the default; **paper inconsistent** when "
            "`paper_values.yaml` quotes evidence from the paper's own numbers or text against the cell; "
            "otherwise **unexplained**. Readings never replace the default: the cell counts above are the "
            "default's.",
            "",
            *self._no_cells_lines(),
        ]
        lines += self._readings_list()
        lines += self.marks.section()
        for t, cl, by_reading in self.tables:
            if cl:
                lines += self._table_block(t, cl, by_reading)
        lines += figure_readings_section(self.values, self.readings, self.df, self.raw)
        return lines

    def _no_cells_lines(self) -> list[str]:
        """Why no cell is classified, for a paper with no comparable printed table cell."""
        no_cells = self.values.get("no_table_cells")
        if not no_cells or any(cl for _, cl, _ in self.tables):
            return []
        why = " ".join(str(no_cells).split())
        return [f"No printed table cell can be compared, so no cell is classified: {why}", ""]

    def _readings_list(self) -> list[str]:
        if not self.readings:
            return ["No readings are declared for this paper (`readings:` in paper_values.yaml).", ""]
        present = set(self.df["experiment"].astype(str)) if len(self.df) else set()
        rows = []
        for r in self.readings:
            default = default_label(self.values, r)
            src = r.source(default)
            ran = src in present or (r.experiment is None and all(x in present for x in default.split(" / ")))
            use = "yes" if r.explains else f"no: {r.why}"
            missing = "" if ran or not r.explains else " (not in these results)"
            arrow = (
                f"`{default}` (same runs, {self._what_differs(r)})"
                if src == default
                else f"`{default}` → `{src}`"
            )
            rows.append(
                [
                    f"`{r.id}` {r.label}",
                    where_name(self.values, r),
                    f"{arrow}{missing}",
                    r.changes,
                    use,
                ]
            )
        return [
            "### Readings",
            "",
            *md_table(
                ["reading", "for", "default → reading", "what it changes", "classifies cells"], rows, True
            )
            .rstrip()
            .splitlines(),
            "",
        ]

    def claim_marker(self, where: Any) -> str:
        """Substitution markers for a claim's figure or table (its experiment's datasets), or ""."""
        out = ""
        for w in _entries(where):
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

    def _table_block(self, t: Mapping[str, Any], cl: list[Classified], by_reading: ByReading) -> list[str]:
        k = class_counts(cl)
        head = f"### Table {t.get('number', t.get('id'))} — differing cells" + (
            f" ({t['part']})" if t.get("part") else ""
        )
        nd = t.get("decimals")
        rows = []
        for c in cl:
            if c.cls == EXPLAINED:
                ev = f"{c.reading.label} (`{c.reading.id}`): {fmt_ours(c.reading_cell, nd)} ✓"
            elif c.cls == INCONSISTENT:
                ev = c.evidence
            else:
                ev = (
                    "; ".join(
                        f"{r.label}: {fmt_ours(rc, nd)} "
                        + ("✓ (does not classify)" if rc.status == "agree" else "✗")
                        for r, rc in c.tried
                    )
                    or "no reading of this cell"
                )
                if c.tried:
                    ev = "tried — " + ev
            method = c.cell.method + (f" ({c.cell.quantity})" if c.cell.quantity else "")
            rows.append([c.cell.setting, method, fmt_paper(c.cell, nd), fmt_ours(c.cell, nd), c.cls, ev])
        return [
            head,
            "",
            counts_line(k) + " Evidence: the reading that closes the cell and its number (✓ = agrees by "
            "the same rule), the paper's own contradiction, or the readings tried.",
            "",
            *md_table(["setting", "method", "paper", "ours (default)", "class", "evidence"], rows, True)
            .rstrip()
            .splitlines(),
            "",
        ]
