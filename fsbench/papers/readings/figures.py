"""Figure readings: the paper prints no numbers for a figure, so a reading of one is shown as its curve
beside the default's, with a paired t-test per point, and how much of the default's grid it covers;
computed here into :class:`~fsbench.papers.comparison.FigureReading` objects, rendered by
:mod:`fsbench.papers.readings.markdown`. The claims re-evaluated under a reading are
:mod:`fsbench.papers.readings.claims`'s (:meth:`~fsbench.papers.readings.report.ReadingsReport.figures`
adds the comparable ones to each figure reading)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from fsbench.papers.comparison import FigurePoint, FigureReading
from fsbench.papers.readings.declared import Reading, default_experiment, where_name
from fsbench.results.stats import paired_t


def _paired(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """Two-sided paired t-test p of two sets of rows (columns split_seed, error) matched on the split."""
    m = a.merge(b, on="split_seed", suffixes=("_a", "_b"))
    if len(m) < 2:
        return float("nan")
    return paired_t(m["error_a"], m["error_b"])[1]


def figure_readings(
    values: Mapping[str, Any], readings: list[Reading], df: pd.DataFrame, raw: pd.DataFrame
) -> list[FigureReading]:
    """Every reading of a figure: its curve beside the default's and its coverage of the default's grid
    (rendered by :func:`fsbench.papers.readings.markdown.figure_readings_lines`).

    Parameters
    ----------
    values : mapping
        The paper's values (``figures``, ``claims``).
    readings : list of Reading
        Every reading of the paper; those of tables are ignored.
    df : DataFrame
        The report's result rows with ``selector`` mapped to method names
        (:func:`fsbench.papers.sources.method_frame`).
    raw : DataFrame
        The same rows as read (``selector`` = the config's label), row for row.

    Returns
    -------
    list of FigureReading
    """
    return [_figure_reading(values, r, df, raw) for r in readings if r.figure]


def _reading_rows(
    r: Reading, default: str, df: pd.DataFrame, raw: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(default rows, reading rows relabelled as the default) for the reading's methods."""
    d = df[df["experiment"] == default]
    src = r.source(default)
    raw = raw[raw["experiment"] == src]
    rd = df[df["experiment"] == src].copy()
    if len(rd):
        rd["_label"] = raw["selector"].astype(str).to_numpy()
    methods = dict(r.methods) or {m: m for m in d["selector"].astype(str).unique()}
    inv_sel = {}
    for m, lab in methods.items():
        inv_sel[lab] = m
    keep = rd["_label"].isin(inv_sel) if len(rd) else pd.Series(dtype=bool)
    keep = keep | (rd["selector"].isin(inv_sel) if len(rd) else keep)
    rd = rd[keep].copy()
    if len(rd):
        rd["selector"] = [inv_sel.get(a, inv_sel.get(b)) for a, b in zip(rd["_label"], rd["selector"])]
        if r.datasets:  # only the reading's datasets, named as the default's
            inv_ds = {v: k for k, v in r.datasets.items()}
            rd = rd[rd["dataset"].isin(set(inv_ds))].copy()
            rd["dataset"] = rd["dataset"].map(inv_ds)
        rd["experiment"] = default
        rd = rd.drop(columns="_label")
    d = d[d["selector"].isin(set(methods))]
    return d, rd


def _figure_reading(
    values: Mapping[str, Any], r: Reading, df: pd.DataFrame, raw: pd.DataFrame
) -> FigureReading:
    default = r.default or default_experiment(values, r)
    out = FigureReading(r.id, where_name(values, r), r.label, default, r.source(default), r.changes)
    if default is None:
        return out
    d, rd = _reading_rows(r, default, df, raw)
    if rd.empty or d.empty:
        return out
    ok_d, ok_r = d[d["status"] == "ok"], rd[rd["status"] == "ok"]
    xs = "n_train" if ok_d["n_train"].nunique() > 1 else "n_features"
    out.x_name = "n" if xs == "n_train" else "S"
    out.points = []
    keys = ["dataset", "selector", xs]
    for key, a in ok_d.groupby(keys, sort=True):
        b = ok_r
        for k, v in zip(keys, key):
            b = b[b[k] == v]
        if b.empty:
            continue
        out.points.append(
            FigurePoint(
                dataset=str(key[0]),
                method=str(key[1]),
                x=float(key[2]),
                default_mean=100 * a["error"].mean(),
                default_std=100 * a["error"].std(),
                default_n=len(a),
                reading_mean=100 * b["error"].mean(),
                reading_std=100 * b["error"].std(),
                reading_n=len(b),
                p=_paired(a[["split_seed", "error"]], b[["split_seed", "error"]]),
            )
        )
    _grid(d, rd, out)
    return out


def _grid(d: pd.DataFrame, rd: pd.DataFrame, out: FigureReading) -> None:
    """How many of the default's (dataset, method, n, S) points the reading has (``out.grid_covered`` of
    ``out.grid_points``)."""
    grid = ["dataset", "selector", "n_train", "n_features"]
    have = set(map(tuple, rd[grid].drop_duplicates().astype(str).to_numpy()))
    need = set(map(tuple, d[grid].drop_duplicates().astype(str).to_numpy()))
    out.grid_covered, out.grid_points = len(have & need), len(need)
