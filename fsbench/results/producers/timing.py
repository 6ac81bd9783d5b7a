r"""Fit time against the training-set size N: median CPU seconds per N, log-log slopes, a log-log plot.

For a timing run (an ``fsbench run`` whose grid varies ``n_train``, one task at a time with one BLAS
thread): one row per fitted method (:func:`load_timing`), the least-squares slope of log(median CPU
time) against log(N) — the empirical exponent, to set beside a complexity a paper states
(:func:`slopes`) — the medians as a Markdown table (:func:`timing_table`) and a log-log figure with
N² and N³ guides (:func:`plot_timing`). The producer ``timing_vs_n`` (:func:`timing_vs_n`) puts them on a
report, with the labels and stated complexities a paper folder declares.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.loading import read_results
from fsbench.results.producers.registry import ProducerContext, register, run_dir
from fsbench.results.stats import loglog_slope
from fsbench.results.table_files import has_table
from fsbench.results.tables import md_table, save_figure


def load_timing(result_dir: str | Path | pd.DataFrame) -> pd.DataFrame:
    """One row per fitted method of a timing run: learner (registry name), n_train, fit_cpu_s,
    fit_wall_s and the output dimension (``basis_dim``: the largest S the task evaluated).

    ``result_dir``: the run's directory, or its ``results.csv`` as read."""
    df = result_dir if isinstance(result_dir, pd.DataFrame) else read_results(result_dir)
    df = df[df["status"] == "ok"]
    idx = df.groupby("task_id")["n_features"].idxmax()
    out = df.loc[idx].rename(columns={"selector_name": "learner", "n_features": "basis_dim"})
    return out[["dataset", "learner", "n_train", "repeat", "fit_cpu_s", "fit_wall_s", "basis_dim"]]


def slopes(df: pd.DataFrame, n_min: int) -> pd.DataFrame:
    """Least-squares slope of log(median CPU time) vs log(N) per learner over N ≥ ``n_min``."""
    med = df.groupby(["learner", "n_train"], sort=False)["fit_cpu_s"].median().reset_index()
    out = []
    for learner, d in med.groupby("learner", sort=False):
        d = d[(d["n_train"] >= n_min) & (d["fit_cpu_s"] > 0)]
        slope = loglog_slope(d["n_train"], d["fit_cpu_s"])
        out.append({"learner": learner, "slope": slope, "n_points": len(d)})
    return pd.DataFrame(out)


def timing_table(
    df: pd.DataFrame,
    n_min: int,
    labels: Mapping[str, str] | None = None,
    stated: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, str]:
    """Median CPU seconds (and median dimension) per N and learner, plus the slopes, as CSV and Markdown.

    Parameters
    ----------
    df : DataFrame
        :func:`load_timing`.
    n_min : int
        Smallest N of the slope fit.
    labels : mapping, optional
        Display name per learner (default: the registry name).
    stated : mapping, optional
        A complexity stated by the paper per learner (a column ``paper`` when given).

    Returns
    -------
    medians : DataFrame
        learner, n_train, cpu_s, wall_s, dim (medians over the repeats).
    markdown : str
    """
    labels = labels or {}
    g = df.groupby(["learner", "n_train"], sort=False)
    med = g.agg(cpu_s=("fit_cpu_s", "median"), wall_s=("fit_wall_s", "median"), dim=("basis_dim", "median"))
    med = med.reset_index()
    sl = slopes(df, n_min).set_index("learner")["slope"]
    Ns = sorted(df["n_train"].unique())
    rows = []
    for learner in dict.fromkeys(df["learner"]):
        d = med[med["learner"] == learner].set_index("n_train")
        cells = [f"{d.loc[n, 'cpu_s']:.3g} ({int(d.loc[n, 'dim'])})" if n in d.index else "–" for n in Ns]
        paper = [stated.get(learner, "–")] if stated is not None else []
        rows.append([labels.get(learner, learner), *paper, *cells, f"{sl.get(learner, float('nan')):.2f}"])
    header = ["learner", *(["paper"] if stated is not None else []), *[f"N = {n}" for n in Ns]]
    return med, md_table([*header, f"slope (N ≥ {n_min})"], rows)


def plot_timing(
    df: pd.DataFrame,
    path: Path,
    labels: Mapping[str, str] | None = None,
    solid: tuple[str, ...] = (),
    title: str = "fit CPU time on {dataset} (one BLAS thread)",
) -> list[Path]:
    """Log-log median CPU time vs N per learner, with N² and N³ guides through the slowest last point.

    ``solid``: learners drawn with solid lines (the others dashed); ``title`` may name ``{dataset}``.
    Writes ``path`` + ``.png`` / ``.pdf`` and returns both.
    """
    import matplotlib  # noqa: I001  (kept out of start-up: the report imports this module)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    labels = labels or {}
    med = df.groupby(["learner", "n_train"], sort=False)["fit_cpu_s"].median().reset_index()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for learner in dict.fromkeys(df["learner"]):
        d = med[med["learner"] == learner].sort_values("n_train")
        ls = "-" if learner in solid else "--"
        ax.loglog(
            d["n_train"],
            d["fit_cpu_s"].clip(lower=1e-4),
            ls,
            marker="o",
            ms=3,
            label=labels.get(learner, learner),
        )
    Ns = np.array(sorted(med["n_train"].unique()), dtype=float)
    top = med[med["n_train"] == Ns[-1]]["fit_cpu_s"].max()
    for p, style in ((2, ":"), (3, "-.")):
        ax.loglog(Ns, top * (Ns / Ns[-1]) ** p, style, color="gray", lw=1, label=f"∝ N^{p}")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks([int(n) for n in Ns])
    ax.set_xlabel("training-set size N")
    ax.set_ylabel("fit CPU time (s), median over repeats")
    ax.set_title(title.format(dataset=df["dataset"].iloc[0]), fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2)
    return save_figure(fig, path, dpi=110)


@register("timing_vs_n")
def timing_vs_n(
    ctx: ProducerContext,
    *,
    run: str,
    heading: str,
    text: str = "",
    n_min: int = 1000,
    labels: Mapping[str, str] | None = None,
    stated: Mapping[str, str] | None = None,
    solid: list[str] | tuple[str, ...] = (),
    title: str = "fit CPU time on {dataset} (one BLAS thread)",
) -> list[str]:
    """A timing run's medians per N with their slopes (``timing.csv`` and the Markdown table) and the
    log-log figure (``timing.png``), written into the run's directory; nothing where it has no table.

    Parameters
    ----------
    run : str
        The timing run's directory under the results directory.
    heading, text : str
        The section's heading line and the paragraph under it.
    n_min : int
        Smallest N of the slope fit.
    labels, stated : mapping, optional
        Display names and the complexities a paper states, per learner (:func:`timing_table`).
    solid, title
        As :func:`plot_timing`.
    """
    tdir = run_dir(ctx, run)
    if not has_table(tdir):
        return []
    df = load_timing(ctx.results.results(tdir))
    med, md = timing_table(df, int(n_min), labels, stated)
    med.to_csv(tdir / "timing.csv", index=False, float_format="%.6g")
    plot_timing(df, tdir / "timing", labels, solid=tuple(solid), title=title)
    para = [text.strip(), ""] if text.strip() else []
    return [heading, "", *para, md.strip(), "", f"![timing]({ctx.rel(tdir / 'timing.png')})", ""]
