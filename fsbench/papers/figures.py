"""Figures a paper's report draws from a summary table: a metric against k, one panel per dataset."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.tables import figure_metadata


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
