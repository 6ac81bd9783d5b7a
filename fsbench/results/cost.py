"""Accuracy against selection time: which selectors no other one beats on both (the Pareto front).

Each selector is one point: its *selection time*, the median ``fit_cpu_s`` over its tasks (one fit per
task: a task's rows at several S share it; every dataset and split counts once), against an accuracy
summary over the datasets — the mean of its average ranks (or of its mean error) over the comparisons
given, e.g. one per fraction of D (:func:`fsbench.results.fractions.rank_table`). A selector is on the
*Pareto front* when no other selector is at least as fast and at least as accurate, and strictly better
in one of the two. The median keeps one slow dataset from dominating; the time is CPU time of the fit
(selection) only, not of the SVM trained afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.loading import ResultSet
from fsbench.results.tables import save_figure

#: The time column of results.csv used (CPU seconds of the selector's fit).
TIME = "fit_cpu_s"


def selection_time(sets: Sequence[ResultSet], selectors: Sequence[str] | None = None) -> pd.DataFrame:
    """Median, mean and maximum fit CPU time per selector over its ``ok`` tasks (each task once).

    Returns
    -------
    DataFrame
        ``selector``, ``tasks``, ``median_fit_cpu_s``, ``mean_fit_cpu_s``, ``max_fit_cpu_s``,
        ``total_fit_cpu_h``.
    """
    frames = [rs.results for rs in sets if rs.results is not None and TIME in rs.results.columns]
    cols = ["selector", "tasks", f"median_{TIME}", f"mean_{TIME}", f"max_{TIME}", "total_fit_cpu_h"]
    if not frames:
        return pd.DataFrame(columns=cols)
    df = pd.concat(frames, ignore_index=True)
    df = df[df["status"] == "ok"].drop_duplicates(["source", "task_id"])
    if selectors is not None:
        df = df[df["selector"].isin(selectors)]
    g = df.groupby("selector")[TIME]
    out = pd.DataFrame(
        {
            "tasks": g.size(),
            f"median_{TIME}": g.median(),
            f"mean_{TIME}": g.mean(),
            f"max_{TIME}": g.max(),
            "total_fit_cpu_h": g.sum() / 3600.0,
        }
    )
    return out.reset_index()[cols]


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Whether each point is Pareto-optimal when both ``x`` and ``y`` are to be minimised.

    A point is dominated when another is <= in both coordinates and < in one; NaN points are never
    optimal and dominate nothing.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = ~(np.isnan(x) | np.isnan(y))
    flags = np.zeros(len(x), dtype=bool)
    for i in np.flatnonzero(ok):
        others = ok & ((x <= x[i]) & (y <= y[i]) & ((x < x[i]) | (y < y[i])))
        flags[i] = not others.any()
    return flags


def accuracy_vs_time(
    ranks: pd.DataFrame, times: pd.DataFrame, accuracy: str = "average_rank"
) -> pd.DataFrame:
    """One row per selector: accuracy summary, median selection time and Pareto optimality.

    Parameters
    ----------
    ranks : DataFrame
        Tidy ranks with ``selector`` and the ``accuracy`` column (lower is better), e.g. one row per
        fraction and selector (:func:`fsbench.results.fractions.rank_table`): averaged per selector.
    times : DataFrame
        :func:`selection_time`.
    accuracy : str
        Column of ``ranks`` to average (``average_rank`` or ``mean_error``).

    Returns
    -------
    DataFrame
        ``selector``, ``<accuracy>`` (mean over the rows of ``ranks``), ``comparisons`` (rows averaged),
        ``median_fit_cpu_s``, ``pareto``; sorted by the accuracy, best first.
    """
    acc = ranks.groupby("selector")[accuracy].agg(["mean", "size"])
    acc.columns = [accuracy, "comparisons"]
    t = times.set_index("selector")[f"median_{TIME}"]
    out = acc.join(t, how="inner").reset_index()
    out["pareto"] = pareto_front(out[f"median_{TIME}"].to_numpy(), out[accuracy].to_numpy())
    return out.sort_values([accuracy, "selector"], kind="stable").reset_index(drop=True)


def plot_accuracy_vs_time(
    table: pd.DataFrame, path: Path, accuracy: str = "average_rank", title: str = ""
) -> list[Path]:
    """Scatter of accuracy (y, lower is better) against median selection time (x, log scale), the Pareto
    front as a step line through its points, every selector labelled; writes ``path`` (.png and .pdf)."""
    # function-level: matplotlib loads only when a figure is drawn (not for tables or the console report)
    import matplotlib.pyplot as plt

    x = table[f"median_{TIME}"].to_numpy(dtype=float)
    y = table[accuracy].to_numpy(dtype=float)
    front = table["pareto"].to_numpy(dtype=bool)
    # a log axis cannot show 0 s: those sit at the smallest positive time's tenth
    positive = x[x > 0]
    floor = positive.min() / 10 if positive.size else 1e-6
    xs = np.where(x > 0, x, floor)
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    try:
        ax.scatter(xs[~front], y[~front], s=30, facecolors="white", edgecolors="0.3", zorder=3)
        ax.scatter(xs[front], y[front], s=36, color="C3", zorder=4, label="Pareto front")
        order = np.argsort(xs[front], kind="stable")
        fx, fy = xs[front][order], y[front][order]
        if len(fx) > 1:
            ax.step(fx, fy, where="post", color="C3", lw=1, alpha=0.7)
        for xi, yi, name in zip(xs, y, table["selector"]):
            ax.annotate(str(name), (xi, yi), xytext=(4, 3), textcoords="offset points", fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel(f"median selection time per fit (CPU s, {TIME}; log scale)")
        ax.set_ylabel(accuracy.replace("_", " ") + " (lower is better)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="upper right")
        if title:
            ax.set_title(title, fontsize=9)
        return save_figure(fig, path)
    except BaseException:
        plt.close(fig)
        raise
