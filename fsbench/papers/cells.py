"""Our results beside a paper's printed table cells: result frames, unit conversion, cell verdicts.

The second layer of the paper comparison of ``fsbench report --paper`` (render → claims → cells →
values): :func:`compare_table` compares one printed table of ``paper_values.yaml`` with the rows of
``results.csv`` and returns one :class:`CellResult` per printed cell; its docstring is the one
description of the agreement rule. The helpers that shape result frames (:func:`method_frame`, the
x-value and metric selection) are shared with :mod:`fsbench.papers.claims`.

Units (fsbench's ``results.csv`` has ``error`` in [0, 1]):

* ``error`` tables: error % = 100 · error; ``accuracy`` tables: accuracy % = 100 − error %; the std
  is scaled by 100 (:func:`to_paper_unit`);
* ``cpu_time`` tables (one run per cell, no std): the paper normalises to the fastest entry of the
  whole table ("All durations are normalized with respect to the minimum duration", §VI-C); both sides
  are normalised that way: ours = mean ``fit_cpu_s`` over repeats (one value per task) / the fastest
  such mean of the whole table (:func:`normalise_row` over all cells);
* ``rank_share`` (Table VII): :func:`fsbench.stats.rank_shares` in % over the experiments the table
  lists for each section that are present in the results.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from fsbench.papers.values import DEFAULT_REPEATS, ConfigInfo, _cards_dir, _entries, _entry_name
from fsbench.stats import rank_shares, welch_from_summary

#: Significance level of every test (the paper's Student tests are at 5 %).
ALPHA = 0.05
#: Tolerance factor of CPU-time cells in the agreement rule (:func:`compare_table`).
CPU_FACTOR = 2.0
#: The agreement rule where the paper prints no std, per table metric, in the words the report's table
#: legends quote (:func:`compare_table` applies it).
NO_STD_RULES = {
    "error": "|diff| ≤ our std",
    "accuracy": "|diff| ≤ our std",
    "cpu_time": f"table-normalised times within a factor {CPU_FACTOR:g} of each other",
    "rank_share": "|diff| ≤ 100·sqrt(p(1 − p)/k), p = the paper's share, k = our number of cells",
}


def method_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Results with ``selector`` set to the fsbench selector name where that is unambiguous.

    The paper values name methods by ``selector_name``; results group by ``selector`` (the label).
    Within each experiment whose labels map one-to-one to names, the label is replaced by the name
    (e.g. ``AROM`` → ``arom``); otherwise the labels are kept.

    Parameters
    ----------
    df : DataFrame
        Rows of results.csv.

    Returns
    -------
    DataFrame
        A copy.
    """
    df = df.copy()
    if df.empty or "selector_name" not in df.columns:
        return df
    pairs = df[["experiment", "selector", "selector_name"]].drop_duplicates()
    n = pairs.groupby("experiment").agg(
        pairs=("selector", "size"), labels=("selector", "nunique"), names=("selector_name", "nunique")
    )
    exps = n.index[(n["pairs"] == n["labels"]) & (n["pairs"] == n["names"])]
    mask = df["experiment"].isin(exps)
    df.loc[mask, "selector"] = df.loc[mask, "selector_name"].astype(str)
    return df


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def _d_of(dataset: Any) -> float:
    m = re.search(r"_D(\d+)$", str(dataset))
    return float(m.group(1)) if m else float("nan")


def _with_x(df: pd.DataFrame, x: str) -> pd.DataFrame:
    df = df.copy()
    if x == "D":
        df["_x"] = df["dataset"].map(_d_of)
    elif x in df.columns:
        df["_x"] = df[x].astype(float)
    else:
        df["_x"] = np.nan
    return df[df["_x"].notna()]


def _metric_rows(df: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, str]:
    """OK rows and the column to average: error in %, or fit CPU time (one value per task)."""
    d = _ok(df)
    if metric == "fit_cpu_s":
        return d.drop_duplicates("task_id"), "fit_cpu_s"
    d = d.assign(_v=100.0 * d["error"])
    return d, "_v"


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


def _fmt_p(p: float) -> str:
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
    """Everything the comparison looks up: results, configs, cards."""

    values: dict[str, Any]
    configs: dict[str, ConfigInfo]
    df: pd.DataFrame
    cards_dir: Path | None = None
    _summaries: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def experiments(self) -> set[str]:
        return set(self.df["experiment"].astype(str)) if len(self.df) else set()

    def exp_df(self, exp: str) -> pd.DataFrame:
        return self.df[self.df["experiment"] == exp]

    def summary(self, exp: str) -> pd.DataFrame:
        if exp not in self._summaries:
            d = _ok(self.exp_df(exp))
            g = d.groupby(["dataset", "kernel", "n_train", "n_features", "selector"], sort=False)["error"]
            self._summaries[exp] = g.agg(mean="mean", std="std", n="count").reset_index()
        return self._summaries[exp]

    def dataset_available(self, name: str, exp: str | None = None) -> bool:
        cfg = self.configs.get(exp) if exp else None
        if cfg is not None:
            for e in _entries(cfg.data.get("dataset")):
                if isinstance(e, dict) and "generator" in e and _entry_name(e) == name:
                    return True
        card = Path(self.cards_dir if self.cards_dir is not None else _cards_dir()) / f"{name}.yaml"
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


def _missing_cell(ctx: _Ctx, exp: str, cell: dict[str, Any], rows: pd.DataFrame, c: CellResult) -> None:
    if len(rows):
        c.status, c.verdict = "failed", f"failed ({len(rows)} row(s))"
    elif "dataset" in cell and not ctx.dataset_available(str(cell["dataset"]), exp):
        c.status, c.verdict = "not available", "dataset not available"
    else:
        c.status, c.verdict = "not run", "not run"


def _compare_error_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare an error or accuracy table (Tables II–VI) cell by cell."""
    exp = table.get("experiment")
    metric = table["metric"]
    cfg = ctx.configs.get(exp) if exp else None
    ran = exp in ctx.experiments
    s = ctx.summary(exp) if ran else pd.DataFrame()
    raw = ctx.exp_df(exp) if ran else pd.DataFrame()
    out = []
    for cell in table.get("cells", []):
        c = CellResult(
            table=table["id"],
            setting=_setting(cell),
            method=str(cell["method"]),
            paper=float(cell["value"]),
            paper_std=float(cell["std"]) if cell.get("std") is not None else None,
            doubtful=bool(cell.get("doubtful", False)),
            note=str(cell.get("note") or ""),
        )
        out.append(c)
        if cell.get("external"):
            c.status, c.verdict = "external", "external (context)"
            continue
        if not ran:
            c.status = "not available" if "dataset not available" in ctx.missing_reason(exp) else "not run"
            c.verdict = "dataset not available" if c.status == "not available" else "not run"
            continue
        sel = (
            (s["dataset"] == cell.get("dataset"))
            & (s["kernel"] == cell.get("kernel"))
            & (s["n_features"] == cell.get("S"))
            & (s["selector"] == c.method)
        )
        hit = s[sel]
        if hit.empty:
            bad = raw[
                (raw["dataset"] == cell.get("dataset"))
                & (raw["kernel"] == cell.get("kernel"))
                & (raw["n_features"] == cell.get("S"))
                & (raw["selector"] == c.method)
            ]
            _missing_cell(ctx, exp, cell, bad, c)
            continue
        row = hit.sort_values(["n", "n_train"]).iloc[-1]  # several n_train: the best-populated, largest
        c.ours, c.ours_std = to_paper_unit(float(row["mean"]), float(row["std"]), metric)
        c.n_ours = int(row["n"])
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
    return out


def _compare_cpu_table(table: dict[str, Any], ctx: _Ctx) -> list[CellResult]:
    """Compare a CPU-time table (VIII: rows N, IX: rows D), both sides normalised to the fastest entry of
    the *whole table*, as the paper does ("All durations are normalized with respect to the minimum
    duration", §VI-C; Table VIII's caption: "normalized with respect to the lowest time")."""
    exp = table.get("experiment")
    key = table["rows"]["key"]
    ran = exp in ctx.experiments
    out: list[CellResult] = []
    rows: dict[Any, list[dict[str, Any]]] = {}
    for cell in table.get("cells", []):
        rows.setdefault(cell[key], []).append(cell)
    t = pd.DataFrame()
    if ran:
        t = _ok(ctx.exp_df(exp)).drop_duplicates("task_id")
        t = t.assign(_D=t["dataset"].map(_d_of))
    paper_all = {(v, str(c["method"])): float(c["value"]) for v, cs in rows.items() for c in cs}
    paper_table = normalise_row({f"{v}|{m}": x for (v, m), x in paper_all.items()})
    per_row: dict[Any, tuple] = {}
    for value, cells in rows.items():
        methods = [str(c["method"]) for c in cells]
        sub, note = pd.DataFrame(), ""
        if ran:
            if key == "N":
                sub = t[t["n_train"] == value]
            else:
                ds = sorted(t["_D"].dropna().unique())
                near = [d for d in ds if abs(d - value) <= 0.2 * value]
                best = min(near, key=lambda d: abs(d - value)) if near else None
                sub = t[t["_D"] == best] if best is not None else t.iloc[0:0]
                if best is not None and best != value:
                    note = f"ours: D = {best:g}"
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
            )
            out.append(c)
            if cell.get("external"):
                c.status, c.verdict = "external", "external (context)"
                continue
            if not ran or m not in means:
                c.status, c.verdict = "not run", "not run"
                continue
            c.ours, c.n_ours, c.ours_seconds = ours_norm[m], int(counts[m]), float(means[m])
            c.ours_std = stds[m] / base if base == base else float("nan")
            c.diff = c.ours - paper_norm[m]
            c.ratio = ratio = c.ours / paper_norm[m] if paper_norm[m] > 0 else float("nan")
            if abs(paper_norm[m] - 1) < 1e-12 and abs(c.ours - 1) < 1e-12:
                c.status, c.verdict = "reference", "table reference (= 1 on both sides)"
            elif ratio == ratio and 1 / CPU_FACTOR <= ratio <= CPU_FACTOR:
                c.status, c.verdict = "agree", "no std in paper: ✓ within tolerance"
            elif ratio == ratio:
                c.status, c.verdict = "differ", "no std in paper: ✗ outside tolerance"
            else:
                c.status, c.verdict = "untestable", "not testable (zero time)"
    return out


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
    for cell in table.get("cells", []):
        sec, rank, m = cell["section"], cell["rank"], str(cell["method"])
        c = CellResult(
            table=table["id"],
            setting=f"§{sec}, {rank}",
            method=m,
            paper=float(cell["value"]),
            paper_std=None,
            doubtful=bool(cell.get("doubtful", False)),
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
        An entry of ``tables`` with ``cells`` (metric error, accuracy, cpu_time or rank_share).
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
      t-test from the summary statistics (:func:`fsbench.stats.welch_from_summary`) is not significant
      at :data:`ALPHA`, with the paper's n = the ``repeats`` of the experiment's config and ours = our
      repeats;
    * the paper gives no std (:data:`NO_STD_RULES`): error / accuracy: |ours − paper| ≤ our std; CPU
      time: the times normalised to the whole table's fastest entry within a factor
      :data:`CPU_FACTOR` of each other (the normalisation base, 1 on both sides, is a ``reference``
      and not judged); rank shares:
      |ours − paper| ≤ the binomial std 100·sqrt(p(1 − p)/k) of the paper's share p over our k cells;

    else it **differs**.
    """
    ctx = _Ctx({}, configs or {}, method_frame(df) if len(df) else df, cards_dir)
    metric = table.get("metric")
    if metric == "cpu_time":
        return _compare_cpu_table(table, ctx)
    if metric == "rank_share":
        return _compare_rank_table(table, ctx)[0]
    if metric in ("error", "accuracy"):
        return _compare_error_table(table, ctx)
    raise ValueError(f"table {table.get('id')}: no comparison for metric {metric!r}")
