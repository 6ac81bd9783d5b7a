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
    return save_figure(figure_accuracy_vs_time(table, accuracy, title), path)


#: Where a point's label may go, in order of preference: (dx, dy) in points from the point, and its
#: alignment; the first that touches no other label, point or the legend is taken.
_LABEL_SPOTS = [
    (dx * r, dy * r, ha, va)
    for r in (1, 2, 3)
    for dx, dy, ha, va in (
        (5, 2, "left", "bottom"),
        (5, -2, "left", "top"),
        (-5, 2, "right", "bottom"),
        (-5, -2, "right", "top"),
        (0, 6, "center", "bottom"),
        (0, -6, "center", "top"),
    )
]


def _place_labels(ax, xs: np.ndarray, ys: np.ndarray, names, fontsize: float = 7) -> list:
    """Label every point where its text overlaps no label placed before it, no point and not the legend
    (greedy, :data:`_LABEL_SPOTS` in order; the least overlapping spot when none is free)."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([xs, ys]))
    r = 4 * fig.dpi / 72  # a marker's half-width in pixels
    obstacles = [(px - r, py - r, px + r, py + r) for px, py in pts]
    legend = ax.get_legend()
    if legend is not None:
        e = legend.get_window_extent(renderer)
        obstacles.append((e.x0, e.y0, e.x1, e.y1))
    box = ax.get_window_extent(renderer)

    def overlap(a, b) -> float:
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return w * h if w > 0 and h > 0 else 0.0

    texts = []
    for i, (xi, yi, name) in enumerate(zip(xs, ys, names)):
        best = None
        for dx, dy, ha, va in _LABEL_SPOTS:
            t = ax.annotate(
                str(name),
                (xi, yi),
                xytext=(dx, dy),
                textcoords="offset points",
                fontsize=fontsize,
                ha=ha,
                va=va,
            )
            e = t.get_window_extent(renderer)
            ext = (e.x0, e.y0, e.x1, e.y1)
            outside = (ext[0] < box.x0) + (ext[2] > box.x1) + (ext[1] < box.y0) + (ext[3] > box.y1)
            cost = sum(overlap(ext, o) for j, o in enumerate(obstacles) if j != i) + 1e6 * outside
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, t, ext)
            else:
                t.remove()
            if cost == 0:
                break
        texts.append(best[1])
        obstacles.append(best[2])
    return texts


def figure_accuracy_vs_time(table: pd.DataFrame, accuracy: str = "average_rank", title: str = ""):
    """The figure of :func:`plot_accuracy_vs_time` (not saved, not closed); the selectors' names are placed
    so that they overlap neither one another nor the points (:func:`_place_labels`)."""
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
        ax.set_xscale("log")
        ax.set_xlabel(f"median selection time per fit (CPU s, {TIME}; log scale)")
        ax.set_ylabel(accuracy.replace("_", " ") + " (lower is better)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="upper right")
        if title:
            ax.set_title(title, fontsize=9)
        ax.margins(x=0.12, y=0.08)  # room for the names of the outermost points
        ax.set_xlim(ax.get_xlim())  # fixed before the labels are placed in display coordinates
        ax.set_ylim(ax.get_ylim())
        _place_labels(ax, xs, y, table["selector"])
        return fig
    except BaseException:
        plt.close(fig)
        raise
