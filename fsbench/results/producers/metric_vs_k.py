r"""A metric against the number of selected features k, per dataset and selector (producer ``metric_vs_k``).

From one run's ``results.csv`` and ``rankings.csv`` (:func:`metric_vs_k`): the mean ± sd over the
resamples of a metric per dataset, selector and k (``summary.csv``), the Kuncheva (2007) consistency
index of the top-k sets averaged over all pairs of resamples for k < D (``stability.csv``;
:func:`fsbench.results.stability.stability_table`, the all-features baseline skipped), one figure of each
(:func:`plot_vs_k`, one panel per dataset) and a Markdown table per dataset with the mean fit times.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.loading import Results, ResultSet
from fsbench.results.producers.registry import ProducerContext, register, run_dir
from fsbench.results.stability import stability_table
from fsbench.results.tables import figure_metadata, md_table

#: How a metric is derived from a result column: its name -> a function of the column.
TRANSFORMS = {"identity": lambda c: c, "one_minus": lambda c: 1.0 - c}


def plot_vs_k(df: pd.DataFrame, ylabel: str, path: Path, ref: pd.DataFrame | None = None) -> Path:
    """One panel per dataset, ``mean`` against ``k`` per selector (log axis, ticks at the k of the grid).

    Parameters
    ----------
    df : DataFrame
        Columns ``dataset``, ``selector``, ``k``, ``mean`` and optionally ``std`` (a ±1 sd band); rows of
        the all-features baseline (``selector == "all"``) are not drawn as a curve.
    ylabel : str
        The y axis label of the first panel.
    path : Path
        The PNG to write (its directory is created).
    ref : DataFrame, optional
        The same columns: where it has an ``all`` row for a dataset, its ``mean`` is drawn as a dashed
        horizontal line ("all features").

    Returns
    -------
    Path
        ``path``. The legend is below the panels.
    """
    import matplotlib  # noqa: I001  (kept out of start-up: the report imports this module)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    names = list(dict.fromkeys(df["dataset"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, ds in zip(axes[0], names, strict=True):
        g = df[df["dataset"] == ds]
        for sel, h in g.groupby("selector", sort=False):
            if sel == "all":
                continue
            h = h.sort_values("k")
            (line,) = ax.plot(h["k"], h["mean"], marker="o", ms=3, label=sel)
            if "std" in h and h["std"].notna().any():
                ax.fill_between(
                    h["k"], h["mean"] - h["std"], h["mean"] + h["std"], color=line.get_color(), alpha=0.08
                )
        if ref is not None:
            r = ref[(ref["dataset"] == ds) & (ref["selector"] == "all")]
            if len(r):
                ax.axhline(float(r["mean"].iloc[0]), color="k", ls="--", lw=1, label="all features")
        ax.set_xscale("log")
        ks = sorted(g.loc[g["selector"] != "all", "k"].unique())
        ax.set_xticks(ks, [str(int(k)) for k in ks])  # k is an integer
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("k (top features)")
        ax.set_title(ds)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, metadata=figure_metadata(path))
    plt.close(fig)
    return path


def _run_set(results: Results, path: Path) -> list[ResultSet]:
    """The run's directory as a result set (empty if it is not among the results)."""
    return [s for s in results.sets if s.path == path.resolve()]


def collect(
    results: Results, path: Path, column: str, transform: str, name: str
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(metric rows, fits: one row per task, splits: one row per dataset × resample).

    The metric ``name`` is ``TRANSFORMS[transform]`` of the result column ``column``; ``k`` is S."""
    res = results.results(path)
    res = res[res["status"] == "ok"].copy()
    res[name] = TRANSFORMS[transform](res[column])
    res["k"] = res["n_features"]
    sets = _run_set(results, path)
    D = sets[0].n_features if sets else {}  # from the length of the rankings' order
    fits = res.drop_duplicates("task_id")[["task_id", "dataset", "repeat", "selector", "fit_wall_s"]]
    fits["n_features"] = fits["dataset"].map(D)
    splits = res.drop_duplicates(["dataset", "repeat"])[["dataset", "repeat", "n_train", "n_test"]].copy()
    splits["n_features"] = splits["dataset"].map(D)
    return res, fits, splits


def kuncheva_vs_k(results: Results, path: Path) -> pd.DataFrame:
    """Kuncheva index per dataset × selector × k < D over the resamples, from ``rankings.csv``
    (:func:`fsbench.results.stability.stability_table`; the all-features baseline is skipped)."""
    t = stability_table(_run_set(results, path))
    t = t[t["n_features"] < t["d"]].rename(columns={"n_features": "k", "repeats": "n_resamples"})
    return t[["dataset", "selector", "k", "kuncheva", "n_resamples"]].reset_index(drop=True)


def _fmt(m: float, sd: float | None = None) -> str:
    if m != m:  # NaN
        return "–"
    return f"{m:.3f}" if sd is None or sd != sd else f"{m:.3f} ± {sd:.3f}"


def tables_markdown(
    heading: str, notes: str, caption: str, summ: pd.DataFrame, fits: pd.DataFrame, splits: pd.DataFrame
) -> list[str]:
    """Markdown lines: the metric per k and the fit times, per dataset (the run's notes above them)."""
    lines = [heading, ""]
    if notes:
        lines += [notes.strip(), ""]
    for ds, g in summ.groupby("dataset", sort=False):
        sp = splits[splits["dataset"] == ds]
        lines += [
            f"## {ds}: D = {int(sp['n_features'].iloc[0])}, {len(sp)} resamples, n_train = "
            f"{int(sp['n_train'].iloc[0])}, n_test = {int(sp['n_test'].iloc[0])}",
            "",
        ]
        ks = sorted(g["k"].unique())
        rows = []
        for sel in dict.fromkeys(g["selector"]):
            h = g[g["selector"] == sel].set_index("k")
            rows.append([sel, *(_fmt(h.loc[k, "mean"], h.loc[k, "std"]) if k in h.index else "" for k in ks)])
        lines += [caption, ""]
        lines += md_table(["selector", *(f"k={k}" for k in ks)], rows).splitlines()
        ft = fits[(fits["dataset"] == ds) & (fits["selector"] != "all")]
        ft = ft.groupby("selector", sort=False)["fit_wall_s"].mean()
        lines += [
            "",
            "Mean fit wall time (s, loaded machine): " + ", ".join(f"{k} {v:.2f}" for k, v in ft.items()),
            "",
        ]
    return lines


@register("metric_vs_k")
def metric_vs_k(
    ctx: ProducerContext,
    *,
    run: str,
    column: str = "error",
    transform: str = "identity",
    name: str = "metric",
    label: str = "",
    heading: str = "## Generated tables",
    caption: str = "",
    figure: str = "plots/metric_vs_k.png",
    stability_figure: str = "plots/kuncheva_vs_k.png",
) -> list[str]:
    """Write ``summary.csv``, ``stability.csv`` and the two figures into the results directory; return the
    tables per dataset.

    Parameters
    ----------
    run : str
        The run's directory under the results directory.
    column, transform, name : str
        The metric ``name`` = ``transform`` (:data:`TRANSFORMS`) of the result column ``column``.
    label : str
        The metric's axis label (default: ``name``).
    heading, caption : str
        The section's heading, and the line above each dataset's table (default: "<name> (mean ± sd over
        resamples)"). The run config's ``notes`` stand under the heading.
    figure, stability_figure : str
        The figures' paths under the results directory.

    Raises
    ------
    FileNotFoundError
        If the run has no finished task.
    """
    if transform not in TRANSFORMS:
        raise ValueError(f"metric_vs_k: unknown transform {transform!r}; known: {', '.join(TRANSFORMS)}")
    path, out = run_dir(ctx, run), Path(ctx.results_dir)
    res, fits, splits = collect(ctx.results, path, column, transform, name)
    if res.empty:
        raise FileNotFoundError(f"no finished tasks in {path / 'results.csv'}")
    summ = (
        res.groupby(["dataset", "selector", "k"], sort=False)[name]
        .agg(["mean", "std", "count"])
        .reset_index()
    )
    summ.to_csv(out / "summary.csv", index=False)
    stab = kuncheva_vs_k(ctx.results, path)
    stab.to_csv(out / "stability.csv", index=False)
    plot_vs_k(summ, label or name, out / figure, ref=summ)
    plot_vs_k(stab.rename(columns={"kuncheva": "mean"}), "Kuncheva index", out / stability_figure)
    notes = str(ctx.results.run(path).get("effective_config", {}).get("notes", "") or "")
    caption = caption or f"{name} (mean ± sd over resamples)"
    return tables_markdown(heading, notes, caption, summ, fits, splits)
