"""CPU-time figures and tables of ``fsbench plot``.

* ``cpu_vs_n`` / ``cpu_vs_D`` — median selection CPU time per selector vs n_train (a sweep over n) or vs
  the number of input features D (datasets that differ only in D at one n_train), log–log, with the
  fitted exponent (least-squares slope of log CPU on log n over the upper half of the range,
  :func:`fsbench.results.stats.loglog_slope`) in the legend.
* ``cpu_time`` — mean selection CPU time per selector, absolute and normalised to the fastest
  (Ramona 2012 Tables VIII/IX), as Markdown and CSV.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import NullLocator

from fsbench.plots.style import log_ticks, new_figure, outside_legend, selector_styles
from fsbench.results.schema import BASELINE
from fsbench.results.stats import loglog_slope
from fsbench.results.tables import to_markdown

#: Fewest distinct n_train (or D) values for a CPU-time figure: two points always lie on a line.
CPU_MIN_POINTS = 3


def _fit_from(values: list) -> float:
    """Smallest x of the exponent fit: the upper half of the x values (at least two), where the growth
    dominates the fixed costs that flatten small problems."""
    v = sorted(values)
    return v[len(v) - max(2, math.ceil(len(v) / 2))]


def figure_cpu_vs(
    tasks: pd.DataFrame, x: str, xlabel: str, title: str, styles: dict[str, dict] | None = None
) -> Figure:
    """Median selection CPU time per selector vs ``x`` (log–log), the fitted exponent in the legend.

    Parameters
    ----------
    tasks : DataFrame
        One row per fit: ``selector``, ``x`` and ``fit_cpu_s`` (the baseline left out).
    x : str
        The column on the x axis (``n_train``, or ``D``).
    xlabel, title : str
        Axis label and title.
    styles : dict or None
        Line style per label.

    Returns
    -------
    Figure
        Not saved, not closed. Each legend label ends with ``∝ x^b``, b the least-squares slope of log
        median CPU on log x over the upper half of the x values (:func:`loglog_slope`).
    """
    styles = styles or selector_styles(tasks)
    sym = "n" if x == "n_train" else x
    xs = sorted(tasks[x].unique())
    x0 = _fit_from(xs)
    fig, ax = new_figure()
    for sel, d in tasks.groupby("selector", sort=False):
        med = d.groupby(x)["fit_cpu_s"].median().sort_index()
        med = med[med > 0]  # process_time can read 0 s for the fastest fits: no place on a log axis
        b = loglog_slope(med.index[med.index >= x0], med[med.index >= x0])
        label = f"{sel}: ∝ {sym}^{b:.2f}" if np.isfinite(b) else f"{sel} (no fit)"
        st = {k: v for k, v in styles[sel].items() if k != "zorder"}
        ax.plot(med.index, med.to_numpy(), label=label, **st)
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax.xaxis)
    if len(xs) <= 10:  # a tick at every n (or D) of the sweep, labelled where the labels do not collide
        ax.set_xticks(xs, _spaced_labels(ax, xs))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("selection (fit) CPU time (s), median over repeats")
    ax.set_title(title, fontsize=9)
    ax.yaxis.set_minor_locator(NullLocator())  # decades only: the minor ticks cost most of the drawing
    ax.grid(alpha=0.3)
    note = f"exponent: least-squares slope of\nlog CPU on log {sym} over {sym} ≥ {x0:g}"
    outside_legend(ax, note)
    return fig


def _spaced_labels(ax, xs: list, gap_pt: float = 4.0) -> list[str]:
    """``f"{x:g}"`` for each tick x, or ``""`` where it would touch the label kept before it (on a log axis
    80, 90 and 100 sit close: "8090100"); left to right, the first always kept. Widths are estimated from
    the tick label font size (about 0.6 em per digit), positions from the axes' data transform."""
    size = FontProperties(size=mpl.rcParams["xtick.labelsize"]).get_size_in_points()
    pt = 72.0 / ax.figure.dpi
    y0 = ax.get_ylim()[0]
    labels, last_right = [], -np.inf
    for v in xs:
        text = f"{v:g}"
        centre = ax.transData.transform((v, y0))[0] * pt
        half = 0.3 * size * len(text)
        if centre - half >= last_right + gap_pt:
            labels.append(text)
            last_right = centre + half
        else:
            labels.append("")
    return labels


def dataset_dims(rankings: pd.DataFrame | None) -> dict[str, int]:
    """Number of input features D per dataset: the length of its longest ranking (a full ranking)."""
    if rankings is None or rankings.empty:
        return {}
    lens = rankings.groupby("dataset")["order_len"].max()
    return {str(k): int(v) for k, v in lens.items() if v > 0}


def cpu_figures(
    ok: pd.DataFrame, styles: dict[str, dict] | None = None, dims: dict[str, int] | None = None
) -> Iterator[tuple[str, Figure]]:
    """``cpu_vs_n`` per (dataset, kernel) swept over n_train and ``cpu_vs_D`` per (kernel, n_train) shared
    by datasets of different D, each where there are :data:`CPU_MIN_POINTS` or more x values."""
    t = ok[(ok["status"] == "ok") & (ok["selector_name"] != BASELINE)].drop_duplicates("task_id")
    if t.empty:
        return
    styles = styles or selector_styles(t)
    exp = str(t["experiment"].iloc[0])
    for (ds, kern), d in t.groupby(["dataset", "kernel"], sort=False):
        if d["n_train"].nunique() >= CPU_MIN_POINTS:
            title = f"{exp}: {ds}, {kern} kernel — selection CPU time vs n"
            yield (
                f"cpu_vs_n_{ds}_{kern}",
                figure_cpu_vs(d, "n_train", "number of training samples n", title, styles),
            )
    if not dims:
        return
    t = t.assign(D=t["dataset"].map(dims))
    for (kern, n), d in t[t["D"].notna()].groupby(["kernel", "n_train"], sort=False):
        if d.groupby("D")["dataset"].nunique().max() == 1 and d["D"].nunique() >= CPU_MIN_POINTS:
            title = f"{exp}: {kern} kernel, n_train={n} — selection CPU time vs D"
            yield (
                f"cpu_vs_D_{kern}_n{n}",
                figure_cpu_vs(d.astype({"D": int}), "D", "number of input features D", title, styles),
            )


def cpu_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean selection CPU time per (dataset, kernel, n_train, selector), normalised to the fastest.

    One value per task (rows of the same task share the fit time), so tasks are deduplicated first.
    """
    t = df[df["status"] == "ok"].drop_duplicates("task_id")
    t = t[t["selector_name"] != BASELINE]
    if t.empty:
        return pd.DataFrame()
    g = t.groupby(["dataset", "kernel", "n_train", "selector"], sort=False)["fit_cpu_s"]
    s = g.agg(mean_cpu_s="mean", median_cpu_s="median", tasks="count").reset_index()
    fastest = s.groupby(["dataset", "kernel", "n_train"])["mean_cpu_s"].transform("min")
    s["normalised"] = s["mean_cpu_s"] / fastest.where(fastest > 0, np.nan)
    return s


def cpu_table_wide(df: pd.DataFrame, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Ramona 2012 Tables VIII/IX layout: one row per selector, one column per (dataset, n_train), mean
    selection CPU time normalised to the single fastest entry of the whole table (``table``: the
    :func:`cpu_table` of ``df`` where already computed)."""
    s = cpu_table(df) if table is None else table
    if s.empty:
        return s
    col = s["dataset"].astype(str) + " n=" + s["n_train"].astype(str)
    if s["dataset"].nunique() == 1:
        col = "n=" + s["n_train"].astype(str)
    elif s["n_train"].nunique() == 1:
        col = s["dataset"].astype(str)
    s = s.assign(column=col)
    wide = s.pivot_table(index="selector", columns="column", values="mean_cpu_s", sort=False)
    wide = wide[list(dict.fromkeys(col))]
    fastest = np.nanmin(wide.to_numpy())
    return (wide / fastest).reset_index() if fastest > 0 else wide.reset_index()


def write_cpu_tables(df: pd.DataFrame, target: Path) -> list[Path]:
    """Write ``cpu_time.csv`` / ``.md`` and ``cpu_time_table.md`` of one results table.

    Parameters
    ----------
    df : DataFrame
        The rows of one experiment's results table.
    target : Path
        Directory of the files; created if missing.

    Returns
    -------
    list of Path
        The files written; none when the table has no selection times.
    """
    table = cpu_table(df)
    if table.empty:
        return []
    exp = str(df["experiment"].iloc[0])
    target.mkdir(parents=True, exist_ok=True)
    csv_path = target / "cpu_time.csv"
    table.to_csv(csv_path, index=False)
    md_path = target / "cpu_time.md"
    md_path.write_text(
        f"# Selection CPU time — {exp}\n\nMean `time.process_time` of the selector's fit "
        "per task; `normalised` = mean / fastest selector of the same dataset, kernel "
        "and n_train (as in Ramona 2012 Tables VIII–IX).\n\n" + to_markdown(table)
    )
    wide = cpu_table_wide(df, table)
    wide_path = target / "cpu_time_table.md"
    wide_path.write_text(
        f"# Selection CPU time, normalised to the fastest entry — {exp}\n\nMean selection CPU time "
        "per selector (rows) and setting (columns), divided by the single lowest entry of the table, "
        "as in Ramona 2012 Tables VIII–IX.\n\n" + to_markdown(wide)
    )
    return [csv_path, md_path, wide_path]
