"""Our results beside a paper's printed table cells: result frames, unit conversion, cell verdicts.

A layer of the paper comparison of ``fsbench report --paper`` (render → claims → cells → sources →
values): :func:`compare_table` compares one printed table of ``paper_values.yaml`` with our result rows
(experiments' ``results.csv`` and diagnostics' tables; which rows and which column:
:mod:`fsbench.papers.sources`) and returns one :class:`CellResult` per printed number; its docstring is
the one description of the agreement rule, :func:`agreement_rule` its wording for the reports.

Units (fsbench's ``results.csv`` has ``error`` in [0, 1]):

* ``error`` tables: error % = 100 · error; ``accuracy`` tables: accuracy % = 100 − error %; the std
  is scaled by 100 (:func:`to_paper_unit`); ``value`` tables: the table's ``column`` as it is (e.g. a
  diagnostic's reconstruction cost), and ``also_compare`` names further numbers printed in the same
  cell (e.g. TAKES Table 2's Dim) with their columns;
* ``cpu_time`` tables (one run per cell, no std): Ramona normalises to the fastest entry of the
  whole table ("All durations are normalized with respect to the minimum duration", §VI-C); both sides
  of every CPU-time table are normalised that way (a paper printing seconds of an unstated machine,
  KIFE Table II, included: only ratios compare across machines): ours = mean ``fit_cpu_s`` over
  repeats (one value per fit) / the fastest such mean of the whole table (:func:`normalise_row`);
* ``rank_share`` (Table VII): :func:`fsbench.results.stats.rank_shares` in % over the experiments the table
  lists for each section that are present in the results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from fsbench.data.cards import cards_dir as default_cards_dir  # the field cards_dir overrides it
from fsbench.papers.sources import (
    d_of,
    experiment_for,
    experiments_of,
    method_frame,
    metric,
    one_per_fit,
    same_value,
    select_rows,
)
from fsbench.papers.values import DEFAULT_REPEATS, ConfigInfo, dataset_entries, entry_name
from fsbench.results.paper_values import pm
from fsbench.results.stats import rank_shares, welch_from_summary

#: Significance level of every test (the paper's Student tests are at 5 %).
ALPHA = 0.05
#: Tolerance factor of CPU-time cells in the agreement rule (:func:`compare_table`).
CPU_FACTOR = 2.0
#: The agreement rule where the paper prints no std, per table metric, in the words the report's table
#: legends quote (:func:`compare_table` applies it).
NO_STD_RULES = {
    "error": "|diff| ≤ our std",
    "accuracy": "|diff| ≤ our std",
    "value": "|diff| ≤ our std",
    "cpu_time": f"table-normalised times within a factor {CPU_FACTOR:g} of each other",
    "rank_share": "|diff| ≤ 100·sqrt(p(1 − p)/k), p = the paper's share, k = our number of cells",
}
#: The SECONDARY tolerance, reported beside the main counts and never replacing them (issue #24; fixed
#: in advance, before its counts were computed, for every paper at once). "|diff| ≤ our std" is strict
#: where our values hardly vary between splits (TAKES's reconstruction costs: std 0.003–0.01), so a
#: near miss such as 0.137 vs 0.145 differs; the paper's own spread is unknown. For a per-repeat number
#: printed without a std (error, accuracy, value and ``also_compare`` quantities; not CPU times or rank
#: shares) the secondary rule accepts |ours − paper| ≤ max(our std, RELATIVE_TOL × the paper's number,
#: half a unit of its last printed digit), the paper's number being its error (100 − accuracy) for an
#: accuracy, so that 10 % means the same on both scales.
RELATIVE_TOL = 0.10


def to_paper_unit(mean: float, std: float, metric: str) -> tuple[float, float]:
    """Our mean and std of ``error`` (in [0, 1]) in a table's unit.

    Parameters
    ----------
    mean, std : float
        Mean and std of the test error over repeats, in [0, 1].
    metric : {"error", "accuracy"}
        ``error`` → error %, ``accuracy`` → 100 − error %.

    Returns
    -------
    (float, float)
    """
    if metric == "accuracy":
        return 100.0 - 100.0 * mean, 100.0 * std
    if metric == "error":
        return 100.0 * mean, 100.0 * std
    raise ValueError(f"no error conversion for metric {metric!r}")


def normalise_row(means: dict[str, float]) -> dict[str, float]:
    """Divide every value by the smallest positive one (CPU times of a table: the paper's normalisation)."""
    pos = [v for v in means.values() if v == v and v > 0]
    if not pos:
        return {k: float("nan") for k in means}
    lo = min(pos)
    return {k: v / lo for k, v in means.items()}


# =========================================================================== cells
@dataclass
class CellResult:
    """One printed cell compared with ours.

    Values are in the table's unit (CPU time: normalised to the table's fastest entry, see the module
    docstring).
    ``status`` is one of ``agree``, ``differ`` (set by the agreement rule of :func:`compare_table`),
    ``reference`` (the normalisation base of a CPU row on both sides), ``not run``, ``not available``,
    ``failed``, ``external``, ``untestable``.
    ``cell_index`` is the index of the printed cell in the table's ``cells`` and ``quantity`` the label
    of the number it judges (``""``: the cell's ``value``; else an ``also_compare`` entry's label).
    ``marks`` are the markers of the dataset substitutions the cell's data uses (`` †1 †2``; set by
    :meth:`fsbench.papers.readings.SubstitutionMarks.mark_cells`), shown after ``setting``.
    ``tolerance`` is the no-std rule's bound where it is a number (rank shares); CPU cells also
    carry ``paper_norm`` (the paper's value ÷ its table minimum), ``ours_seconds`` (our mean CPU
    time) and ``ratio`` (ours ÷ paper, both normalised).
    """

    table: str
    setting: str
    method: str
    paper: float
    paper_std: float | None
    ours: float = float("nan")
    ours_std: float = float("nan")
    n_ours: int = 0
    n_paper: int | None = None
    diff: float = float("nan")
    p: float = float("nan")
    within_std: bool | None = None
    status: str = "not run"
    verdict: str = ""
    doubtful: bool = False
    note: str = ""
    tolerance: float = float("nan")
    paper_norm: float = float("nan")
    ours_seconds: float = float("nan")
    ratio: float = float("nan")
    quantity: str = ""
    cell_index: int = -1
    agree_relative: bool | None = None
    marks: str = ""

    @property
    def agrees_secondary(self) -> bool:
        """Agreement under the secondary tolerance (:data:`RELATIVE_TOL`): the main verdict where the
        paper prints a std or the rule does not apply, else the relative bound."""
        return self.agree_relative if self.agree_relative is not None else self.status == "agree"

    @property
    def counted(self) -> bool:
        """Whether the cell enters the summary counts."""
        return self.status in ("agree", "differ") and not self.doubtful


def judge_with_std(
    paper: float, paper_std: float, n_paper: int, ours: float, ours_std: float, n_ours: int
) -> tuple[float, bool, float, str]:
    """Apply the agreement rule of :func:`compare_table` to a cell where the paper prints a std.

    Returns
    -------
    diff : float
        ours − paper.
    within : bool
        |diff| ≤ the paper's std.
    p : float
        Two-sided Welch p-value (NaN when not computable, e.g. n < 2 or both stds 0).
    status : {"agree", "differ"}
        The verdict.
    """
    diff = ours - paper
    within = bool(abs(diff) <= paper_std + 1e-9)
    p = welch_from_summary(paper, paper_std, n_paper, ours, ours_std, n_ours)
    agree = within or (p == p and p >= ALPHA)
    return diff, within, p, "agree" if agree else "differ"


def ours_text(c: CellResult, nd: int = 1) -> str:
    """Our side of a cell: ``mean ± std (n = …)``; its verdict (or status) where there is no number, "—" for
    an external cell."""
    if c.status == "external":
        return "—"
    if c.ours != c.ours:
        return c.verdict or c.status
    return pm(c.ours, c.ours_std, nd) + (f" (n = {c.n_ours})" if c.n_ours else "")


def format_p(p: float) -> str:
    """A p-value as the comparison tables print it: "n/a" for NaN, "< 0.001", else 3 or 2 decimals.

    Parameters
    ----------
    p : float
        The p-value, or NaN where no test was possible.

    Returns
    -------
    str
        The p-value's text.
    """
    if p != p:
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def _verdict_std(c: CellResult) -> str:
    sig = c.p == c.p and c.p < ALPHA
    if c.status == "agree":
        if c.within_std and not sig:
            return "✓ within ± std"
        if c.within_std:
            return "✓ within ± std (Welch significant)"
        return "✓ not significant"
    return "✗ differs (outside ± std, Welch significant)" if sig else "✗ outside ± std"


@dataclass
class _Ctx:
    """Everything the comparison looks up: results (experiments' and diagnostics' rows), configs, cards."""

    values: dict[str, Any]
    configs: dict[str, ConfigInfo]
    df: pd.DataFrame
    cards_dir: Path | None = None
    _available: dict[tuple[str, str | None], bool] = field(default_factory=dict)

    @property
    def experiments(self) -> set[str]:
        return set(self.df["experiment"].astype(str)) if len(self.df) else set()

    def exp_df(self, exp: str) -> pd.DataFrame:
        return self.df[self.df["experiment"] == exp]

    def ran(self, table: dict[str, Any]) -> bool:
        """Whether any experiment of a table is in the results."""
        return any(e in self.experiments for e in experiments_of(table.get("experiment")))

    def dataset_available(self, name: str, exp: str | None = None) -> bool:
        key = (str(name), exp)
        if key not in self._available:
            self._available[key] = self._dataset_available(str(name), exp)
        return self._available[key]

    def _dataset_available(self, name: str, exp: str | None) -> bool:
        cfg = self.configs.get(exp) if exp else None
        if cfg is not None:
            for e in dataset_entries(cfg.data.get("dataset")):
                if isinstance(e, dict) and "generator" in e and entry_name(e) == name:
                    return True
        card = Path(self.cards_dir if self.cards_dir is not None else default_cards_dir()) / f"{name}.yaml"
        if not card.is_file():
            return False
        # a card may exist only to explain why no copy can be had (`unavailable: <reason>`)
        raw = yaml.safe_load(card.read_text()) or {}
        return not (isinstance(raw, dict) and raw.get("unavailable"))

    def missing_reason(self, exp: str | None) -> str:
        """Why an experiment has no results: "not run" or "dataset not available (...)"."""
        if exp is None:
            return "no fsbench experiment reproduces it"
        cfg = self.configs.get(exp)
        if cfg is None:
            return f"not run (no results for `{exp}`; no config of that name)"
        missing = [d for d in cfg.datasets if not self.dataset_available(d, exp)]
        if missing:
            why = cfg.unavailable or "no dataset card"
            return f"dataset not available ({', '.join(missing)}: {why})"
        return f"not run (no results for `{exp}` in these results)"


def _setting(cell: dict[str, Any]) -> str:
    parts = []
    for k in ("dataset", "kernel"):
        if k in cell:
            parts.append(str(cell[k]))
    for k in ("S", "N", "D"):
        if k in cell:
            parts.append(f"{k} = {cell[k]}")
    if "dim" in cell:
        parts.append(f"dim {cell['dim']}")
    return ", ".join(parts)


#: Keys of a printed cell that select our rows, and the result column each one matches.
_CELL_KEYS = (("dataset", "dataset"), ("kernel", "kernel"), ("S", "n_features"))


def _cell_rows(ctx: _Ctx, table: dict[str, Any], cell: dict[str, Any], exp: str, ok: bool) -> pd.DataFrame:
    """Our rows of one printed cell: the table's source (:func:`select_rows`), then the cell's keys."""
    rows = select_rows(ctx.df, table, [exp], ok_only=ok)
    for key, col in _CELL_KEYS:
        if key in cell and len(rows):
            rows = rows[same_value(rows[col], cell[key])] if col in rows.columns else rows.iloc[0:0]
    if rows.empty:
        return rows
    m = str(cell["method"])  # a selector name, a paper id of `methods`, or a config label (a reading's)
    hit = rows["selector"] == m
    return rows[hit | (rows["label"] == m)] if "label" in rows.columns else rows[hit]


def _missing_cell(ctx: _Ctx, exp: str, cell: dict[str, Any], rows: pd.DataFrame, c: CellResult) -> None:
    if len(rows):
        c.status, c.verdict = "failed", f"failed ({len(rows)} row(s))"
    elif "dataset" in cell and not ctx.dataset_available(str(cell["dataset"]), exp):
        c.status, c.verdict = "not available", "dataset not available"
    else:
        c.status, c.verdict = "not run", "not run"


def _quantities(table: dict[str, Any]) -> list[tuple[str, str, Any, list[str] | None]]:
    """(cell key, label, metric, methods or None) of every printed number of a cell: ``value`` in the
    table's metric, then each ``also_compare`` entry (a further number printed in the same cell)."""
    out: list[tuple[str, str, Any, list[str] | None]] = [
        ("value", "", metric(table["metric"], table.get("column")), None)
    ]
    for key, spec in (table.get("also_compare") or {}).items():
        methods = [str(m) for m in spec["methods"]] if spec.get("methods") else None
        out.append((str(key), str(spec.get("label", key)), metric("value", spec["column"]), methods))
    return out


def _compare_value_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare a table of per-repeat values (error, accuracy or any result column) cell by cell."""
    out = []
    for i, cell in enumerate(table.get("cells", [])):
        for key, label, met, methods in _quantities(table):
            if key not in cell or (methods is not None and str(cell["method"]) not in methods):
                continue
            c = CellResult(
                table=table["id"],
                setting=_setting(cell),
                method=str(cell["method"]),
                paper=float(cell[key]),
                paper_std=float(cell["std"]) if key == "value" and cell.get("std") is not None else None,
                doubtful=bool(cell.get("doubtful", False)),
                note=str(cell.get("note") or ""),
                quantity=label,
                cell_index=i,
            )
            out.append(c)
            _judge_value_cell(table, cell, met, ctx, c)
            digits = (table.get("also_compare") or {}).get(key, {}).get("digits") if key != "value" else None
            _judge_relative(c, met, table.get("digits") if key == "value" else digits)
    return out


def relative_tolerance(paper: float, ours_std: float, metric_name: str, digits: int | None) -> float:
    """The secondary tolerance (:data:`RELATIVE_TOL`) of a number printed without a std.

    Parameters
    ----------
    paper : float
        The printed number, in the table's unit.
    ours_std : float
        Our std over repeats, same unit (NaN counts as 0).
    metric_name : str
        ``accuracy`` judges 10 % of the paper's error (100 − accuracy); anything else 10 % of |paper|.
    digits : int, optional
        Decimals printed in the paper (half a unit of the last one is always tolerated).
    """
    base = 100.0 - paper if metric_name == "accuracy" else abs(paper)
    half_digit = 0.5 * 10.0 ** (-int(digits)) if digits is not None else 0.0
    std = ours_std if ours_std == ours_std else 0.0
    return max(std, RELATIVE_TOL * base, half_digit)


def _judge_relative(c: CellResult, met: Any, digits: int | None) -> None:
    """Set ``agree_relative`` of a compared cell printed without a std (else leave it None)."""
    if c.paper_std is not None or c.status not in ("agree", "differ") or c.ours != c.ours:
        return
    c.agree_relative = (
        abs(c.ours - c.paper) <= relative_tolerance(c.paper, c.ours_std, met.name, digits) + 1e-9
    )


def _judge_value_cell(
    table: dict[str, Any], cell: dict[str, Any], met: Any, ctx: _Ctx, c: CellResult
) -> None:
    if cell.get("external"):
        c.status, c.verdict = "external", "external (context)"
        return
    exp = experiment_for(table.get("experiment"), cell.get("dataset"))
    if exp is None or exp not in ctx.experiments:
        if exp is None and "dataset" in cell and not ctx.dataset_available(str(cell["dataset"])):
            c.status, c.verdict = "not available", "dataset not available"
            return
        c.status = "not available" if "dataset not available" in ctx.missing_reason(exp) else "not run"
        c.verdict = "dataset not available" if c.status == "not available" else "not run"
        return
    rows = _cell_rows(ctx, table, cell, exp, ok=True)
    if rows.empty:
        _missing_cell(ctx, exp, cell, _cell_rows(ctx, table, cell, exp, ok=False), c)
        return
    if met.per_task:
        rows = one_per_fit(rows)
    col = pd.to_numeric(rows[met.column], errors="coerce")
    g = col.groupby(rows["n_train"] if "n_train" in rows.columns else 0).agg(["mean", "std", "count"])
    g = g.rename(columns={"count": "n"}).reset_index(names="n_train")
    row = g.sort_values(["n", "n_train"]).iloc[-1]  # several n_train: the best-populated, largest
    c.ours, c.ours_std = met.convert(float(row["mean"]), float(row["std"]))
    c.n_ours = int(row["n"])
    cfg = ctx.configs.get(exp)
    c.n_paper = cfg.repeats(cell.get("dataset")) if cfg else DEFAULT_REPEATS
    if c.paper_std is not None:
        c.diff, c.within_std, c.p, c.status = judge_with_std(
            c.paper, c.paper_std, c.n_paper, c.ours, c.ours_std, c.n_ours
        )
        c.verdict = _verdict_std(c)
    else:
        c.diff = c.ours - c.paper
        ok = c.ours_std == c.ours_std and abs(c.diff) <= c.ours_std
        c.status = "agree" if ok else "differ"
        c.verdict = f"no std in paper: {'✓ within' if ok else '✗ outside'} tolerance"


def _cpu_row_rows(t: pd.DataFrame, key: str, value: Any) -> tuple[pd.DataFrame, str]:
    """Our tasks of one row of a CPU-time table: row key N (n_train), D (the nearest ``_D<D>`` dataset
    within 20 %) or any result column (e.g. ``dataset``)."""
    if key == "N":
        return t[t["n_train"] == value], ""
    if key == "D":
        ds = sorted(t["_D"].dropna().unique())
        near = [d for d in ds if abs(d - value) <= 0.2 * value]
        best = min(near, key=lambda d: abs(d - value)) if near else None
        sub = t[t["_D"] == best] if best is not None else t.iloc[0:0]
        return sub, (f"ours: D = {best:g}" if best is not None and best != value else "")
    return (t[same_value(t[key], value)] if key in t.columns else t.iloc[0:0]), ""


def _compare_cpu_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare a CPU-time table (Ramona VIII: rows N, IX: rows D; KIFE II: rows dataset), both sides
    normalised to the fastest entry of the *whole table* (Ramona's normalisation: "All durations are
    normalized with respect to the minimum duration", §VI-C; Table VIII's caption: "normalized with
    respect to the lowest time"; applied to every CPU-time table, so that times measured on different
    machines compare)."""
    key = table["rows"]["key"]
    exps = experiments_of(table.get("experiment"))
    ran = ctx.ran(table)
    out: list[CellResult] = []
    rows: dict[Any, list[dict[str, Any]]] = {}
    index = {id(cell): i for i, cell in enumerate(table.get("cells", []))}
    for cell in table.get("cells", []):
        rows.setdefault(cell[key], []).append(cell)
    t = pd.DataFrame()
    if ran:
        t = one_per_fit(select_rows(ctx.df, table, exps))
        t = t.assign(_D=t["dataset"].map(d_of))
    paper_all = {(v, str(c["method"])): float(c["value"]) for v, cs in rows.items() for c in cs}
    paper_table = normalise_row({f"{v}|{m}": x for (v, m), x in paper_all.items()})
    per_row: dict[Any, tuple] = {}
    for value, cells in rows.items():
        methods = [str(c["method"]) for c in cells]
        sub, note = _cpu_row_rows(t, key, value) if ran else (pd.DataFrame(), "")
        g = sub[sub["selector"].isin(methods)].groupby("selector")["fit_cpu_s"] if len(sub) else None
        means = g.mean().to_dict() if g is not None else {}
        stds = g.std().to_dict() if g is not None else {}
        counts = g.count().to_dict() if g is not None else {}
        per_row[value] = (means, stds, counts, note)
    # the table's fastest mean over every row and method that ran
    base = min((v for m, _, _, _ in per_row.values() for v in m.values() if v > 0), default=float("nan"))
    for value, cells in rows.items():
        means, stds, counts, note = per_row[value]
        paper_norm = {str(c["method"]): paper_table[f"{value}|{c['method']}"] for c in cells}
        ours_norm = {m: v / base for m, v in means.items()} if base == base else {}
        for cell in cells:
            m = str(cell["method"])
            c = CellResult(
                table=table["id"],
                setting=_setting(cell),
                method=m,
                paper=float(cell["value"]),
                paper_std=None,
                doubtful=bool(cell.get("doubtful", False)),
                note="; ".join(x for x in (note, str(cell.get("note") or "")) if x),
                paper_norm=paper_norm[m],
                cell_index=index[id(cell)],
            )
            out.append(c)
            if cell.get("external"):
                c.status, c.verdict = "external", "external (context)"
                continue
            if not ran or m not in means:
                gone = key == "dataset" and not ctx.dataset_available(str(value))
                c.status, c.verdict = ("not available", "dataset not available") if gone else ("not run",) * 2
                continue
            _judge_cpu_cell(c, paper_norm[m], ours_norm[m], float(means[m]), stds[m], int(counts[m]), base)
    return out


def _judge_cpu_cell(
    c: CellResult, paper_norm: float, ours_norm: float, seconds: float, std: float, n: int, base: float
) -> None:
    c.ours, c.n_ours, c.ours_seconds = ours_norm, n, seconds
    c.ours_std = std / base if base == base else float("nan")
    c.diff = c.ours - paper_norm
    c.ratio = ratio = c.ours / paper_norm if paper_norm > 0 else float("nan")
    if abs(paper_norm - 1) < 1e-12 and abs(c.ours - 1) < 1e-12:
        c.status, c.verdict = "reference", "table reference (= 1 on both sides)"
    elif ratio == ratio and 1 / CPU_FACTOR <= ratio <= CPU_FACTOR:
        c.status, c.verdict = "agree", "no std in paper: ✓ within tolerance"
    elif ratio == ratio:
        c.status, c.verdict = "differ", "no std in paper: ✗ outside tolerance"
    else:
        c.status, c.verdict = "untestable", "not testable (zero time)"


def _rank_frame(ctx: _Ctx, experiments: list[str]) -> pd.DataFrame:
    present = [e for e in experiments if e in ctx.experiments]
    if not present:
        return pd.DataFrame()
    return rank_shares(ctx.df[ctx.df["experiment"].isin(present)])


def _compare_rank_table(table: dict[str, Any], ctx: _Ctx) -> tuple[list[CellResult], dict[str, str]]:
    """Compare Table VII (rank shares per section); also return per-section coverage notes."""
    sections: dict[str, list[str]] = table.get("sections") or {}
    shares = {sec: _rank_frame(ctx, exps) for sec, exps in sections.items()}
    notes = {}
    for sec, exps in sections.items():
        present = [e for e in exps if e in ctx.experiments]
        missing = [e for e in exps if e not in ctx.experiments]
        notes[sec] = f"§{sec}: {len(present)} of {len(exps)} experiments present" + (
            f" (missing: {', '.join(missing)})" if missing else ""
        )
    out = []
    for i, cell in enumerate(table.get("cells", [])):
        sec, rank, m = cell["section"], cell["rank"], str(cell["method"])
        c = CellResult(
            table=table["id"],
            setting=f"§{sec}, {rank}",
            method=m,
            paper=float(cell["value"]),
            paper_std=None,
            doubtful=bool(cell.get("doubtful", False)),
            cell_index=i,
        )
        out.append(c)
        sh = shares.get(sec, pd.DataFrame())
        row = sh[sh["selector"] == m] if len(sh) else sh
        if len(row) == 0:
            c.status, c.verdict = "not run", "not run"
            continue
        r = row.iloc[0]
        k = int(r["cells"])
        c.ours, c.n_ours = 100.0 * float(r[rank]), k
        c.diff = c.ours - c.paper
        p = c.paper / 100.0
        c.tolerance = tol = 100.0 * math.sqrt(max(p * (1 - p), 0.0) / k)
        ok = abs(c.diff) <= tol + 1e-9
        c.status = "agree" if ok else "differ"
        c.verdict = f"no std in paper: {'✓ within' if ok else '✗ outside'} tolerance (± {tol:.1f})"
    return out, notes


def compare_table(
    table: dict[str, Any],
    df: pd.DataFrame,
    configs: dict[str, ConfigInfo] | None = None,
    cards_dir: Path | None = None,
) -> list[CellResult]:
    """Compare one printed table of a paper-values file with our results.

    Parameters
    ----------
    table : dict
        An entry of ``tables`` with ``cells`` (metric error, accuracy, value, cpu_time or rank_share).
    df : DataFrame
        Rows of results.csv (any experiments).
    configs : dict, optional
        Experiment configs by name (:func:`fsbench.papers.values.read_configs`): the paper's n for
        Welch's test is their ``repeats`` (:data:`DEFAULT_REPEATS` for an experiment without a config).
    cards_dir : Path, optional
        Dataset cards directory (for "dataset not available").

    Returns
    -------
    list of CellResult

    Notes
    -----
    The agreement rule (described here only; the report's table legends restate it briefly). Ours is
    first put in the table's unit (see the module docstring). External cells, copied by the paper from
    other publications, are shown as context only (status ``external``); ``doubtful`` cells are
    compared, flagged and left out of the counts (:attr:`CellResult.counted`). A compared cell
    **agrees** with the paper when

    * the paper gives a std (:func:`judge_with_std`): |ours − paper| ≤ the paper's std, or Welch's
      t-test from the summary statistics (:func:`fsbench.results.stats.welch_from_summary`) is not significant
      at :data:`ALPHA`, with the paper's n = the ``repeats`` of the experiment's config and ours = our
      repeats;
    * the paper gives no std (:data:`NO_STD_RULES`): error / accuracy / value: |ours − paper| ≤ our std; CPU
      time: the times normalised to the whole table's fastest entry within a factor
      :data:`CPU_FACTOR` of each other (the normalisation base, 1 on both sides, is a ``reference``
      and not judged); rank shares:
      |ours − paper| ≤ the binomial std 100·sqrt(p(1 − p)/k) of the paper's share p over our k cells;

    else it **differs**.
    """
    ctx = _Ctx({}, configs or {}, method_frame(df) if len(df) else df, cards_dir)
    return compare_in_context(table, ctx)


#: Table metrics compared cell by cell from per-repeat values (:func:`_compare_value_table`).
VALUE_METRICS = ("error", "accuracy", "value")


def compare_in_context(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """:func:`compare_table` with the lookups already made (one context for all tables of a paper)."""
    kind = table.get("metric")
    if kind == "cpu_time":
        return _compare_cpu_table(table, ctx)
    if kind == "rank_share":
        return _compare_rank_table(table, ctx)[0]
    if kind in VALUE_METRICS:
        return _compare_value_table(table, ctx)
    raise ValueError(f"table {table.get('id')}: no comparison for metric {kind!r}")


def agreement_rule() -> str:
    """The agreement rule of :func:`compare_table` in one paragraph, for the top of every report."""
    return (
        "**The agreement rule** (one rule for every printed table cell of every paper; "
        "`fsbench.papers.cells.compare_table`). Our value is put in the table's unit (mean over our "
        "repeats). Where the paper prints a std, a cell **agrees** when |ours − paper| ≤ the paper's std, "
        f"or when Welch's t-test (the paper's n = the config's `repeats`) is not significant at "
        f"{100 * ALPHA:g} %. "
        f"Where it prints none: errors, accuracies and other per-repeat values agree when "
        f"{NO_STD_RULES['error']}; CPU times when, both sides divided by the fastest entry of the whole "
        f"table, they are within a factor {CPU_FACTOR:g} of each other; rank shares when "
        f"{NO_STD_RULES['rank_share']}. "
        "Otherwise the cell **differs**. Cells the paper copies from other publications are context only; "
        "doubtful readings are flagged and left out of the counts; cells whose experiment did not run or "
        "whose dataset is not available are counted apart. "
        f"A **secondary tolerance**, fixed in advance and reported beside the main counts, never instead "
        f"of them: a per-repeat number printed without a std also agrees within max(our std, "
        f"{100 * RELATIVE_TOL:g} % of the paper's number (of its error, 100 − accuracy, for an accuracy), "
        "half a unit of its last printed digit)."
    )
