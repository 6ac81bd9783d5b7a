r"""Transformers that choose their own output dimension: a point at it, a curve along the S grid.

The producer ``own_dimension_curves`` (:func:`own_dimension_curves`). In a run of kernel-space
transformers (each evaluated by the protocol at the S of the config's grid up to its output dimension, and
at its own output dimension), the **own choice** of a method is the row with the largest S of its task;
its **curve** is the mean accuracy at each grid S over the repeats whose output reaches S, drawn where at
least half of them do. Per run (one run per setting, e.g. per kernel width, named by a glob), written to
``<run>/figures``: one figure per declared panel set (PNG and PDF), ``summary.csv`` / ``summary.md``
(own-choice accuracy and dimension, best accuracy along the curve, paired t-test of a reference method
against every method over the shared splits); on the report, the own-choice accuracies of every setting
side by side, the figures and links to the summaries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fsbench.results.loading import read_table
from fsbench.results.pairing import paired_cells
from fsbench.results.producers.registry import ProducerContext, register
from fsbench.results.stats import paired_t
from fsbench.results.table_files import has_table
from fsbench.results.tables import md_table, save_figure


def load(df: pd.DataFrame, run: Mapping[str, Any]) -> tuple[pd.DataFrame, list[int]]:
    """The ok rows of ``results.csv`` with ``accuracy`` added, and the config's S grid (from ``run.json``)."""
    df = df[df["status"] == "ok"].copy()
    df["accuracy"] = 1.0 - df["error"]
    nf = run.get("effective_config", {}).get("protocol", {}).get("n_features")
    grid = [int(s) for s in nf] if isinstance(nf, list) else []
    return df, grid


def own_choice(df: pd.DataFrame) -> pd.DataFrame:
    """One row per task: the method's own output dimension and its accuracy there."""
    idx = df.groupby("task_id")["n_features"].idxmax()
    return df.loc[idx, ["dataset", "selector", "repeat", "n_features", "accuracy"]].reset_index(drop=True)


def curves(df: pd.DataFrame, grid: list[int]) -> pd.DataFrame:
    """Mean/std accuracy per (dataset, selector, S) over the repeats that reach S (grid S only)."""
    d = df[df["n_features"].isin(grid)] if grid else df
    g = d.groupby(["dataset", "selector", "n_features"], sort=False)["accuracy"]
    c = g.agg(mean="mean", std="std", n="count").reset_index()
    reps = df.groupby(["dataset", "selector"])["repeat"].nunique().rename("repeats").reset_index()
    return c.merge(reps, on=["dataset", "selector"])


def _ref_columns(reference: str) -> tuple[str, str]:
    key = reference.lower()
    return f"{key}_minus_method", f"p_paired_vs_{key}"


def summary(df: pd.DataFrame, grid: list[int], reference: str, baseline: str) -> pd.DataFrame:
    """Per (dataset, method): own-choice accuracy and dimension, best curve accuracy, paired t vs
    ``reference``.

    The own-choice accuracies compared (their means and the paired t-test against the reference) are over
    the splits every method of the dataset finished (:func:`fsbench.results.pairing.paired_cells`); the
    ``baseline`` (all inputs) has no curve."""
    own, _ = paired_cells(own_choice(df), "accuracy", cell=("dataset",))
    cur = curves(df, grid)
    diff_col, p_col = _ref_columns(reference)
    rows = []
    for ds in dict.fromkeys(df["dataset"]):
        for sel in dict.fromkeys(df["selector"]):
            o = own[(own["dataset"] == ds) & (own["selector"] == sel)]
            if o.empty:
                continue
            c = cur[(cur["dataset"] == ds) & (cur["selector"] == sel) & (cur["n"] >= 0.5 * cur["repeats"])]
            best = c.loc[c["mean"].idxmax()] if not c.empty and sel != baseline else None
            t = own[(own["dataset"] == ds) & (own["selector"] == reference)].set_index("repeat")["accuracy"]
            m = o.set_index("repeat")["accuracy"]
            common = t.index.intersection(m.index)
            rows.append(
                {
                    "dataset": ds,
                    "method": sel,
                    "repeats": int(o["repeat"].nunique()),
                    "dim_mean": float(o["n_features"].mean()),
                    "dim_min": int(o["n_features"].min()),
                    "dim_max": int(o["n_features"].max()),
                    "acc_own_mean": float(o["accuracy"].mean()),
                    "acc_own_std": float(o["accuracy"].std(ddof=1)) if len(o) > 1 else float("nan"),
                    "best_S": int(best["n_features"]) if best is not None else None,
                    "acc_best_mean": float(best["mean"]) if best is not None else float("nan"),
                    diff_col: float((t[common] - m[common]).mean()) if len(common) else float("nan"),
                    p_col: paired_t(t[common], m[common])[1] if sel != reference else float("nan"),
                }
            )
    return pd.DataFrame(rows)


def summary_markdown(s: pd.DataFrame, reference: str) -> str:
    """Accuracy table (%, own choice and best along the curve) with the paired comparison to the reference."""
    diff_col, p_col = _ref_columns(reference)
    rows = []
    for r in s.to_dict("records"):
        own = f"{100 * r['acc_own_mean']:.1f} ± {100 * r['acc_own_std']:.1f}"
        lo, hi = r["dim_min"], r["dim_max"]
        dim = f"{r['dim_mean']:.1f} [{lo}–{hi}]" if lo != hi else f"{lo}"
        best = f"{100 * r['acc_best_mean']:.1f} (S = {int(r['best_S'])})" if pd.notna(r["best_S"]) else "–"
        if r["method"] == reference:
            cmp = "—"
        else:
            sig = "" if not np.isfinite(r[p_col]) else f", p = {r[p_col]:.2g}"
            cmp = f"{100 * r[diff_col]:+.1f}{sig}"
        rows.append([r["dataset"], r["method"], dim, own, best, cmp])
    header = [
        "dataset",
        "method",
        "own dim (mean [min–max])",
        "acc. at own dim (%)",
        "best along grid (%)",
        f"{reference} − method (pp, paired t)",
    ]
    return md_table(header, rows)


def _panel(ax, df, grid, ds, methods, colors, points, baseline) -> None:
    from matplotlib.ticker import NullFormatter, ScalarFormatter  # noqa: I001  (matplotlib: drawn only here)

    own = own_choice(df[df["dataset"] == ds])
    cur = curves(df[df["dataset"] == ds], grid)
    for sel in methods:
        col = colors.get(sel)
        o = own[own["selector"] == sel]
        if sel == baseline:
            if o.empty:
                continue
            m, sd = o["accuracy"].mean(), o["accuracy"].std(ddof=1)
            ax.axhline(m, color="black", lw=1.5, label=f"{sel} (all inputs)")
            ax.axhspan(m - sd, m + sd, color="black", alpha=0.06)
        elif sel in points:
            if o.empty:
                continue
            x = o["n_features"].mean()
            ax.errorbar(
                x,
                o["accuracy"].mean(),
                xerr=[[x - o["n_features"].min()], [o["n_features"].max() - x]],
                yerr=o["accuracy"].std(ddof=1),
                fmt="*",
                ms=12,
                color=col,
                capsize=3,
                label=f"{sel} (own dim)",
                zorder=5,
            )
        else:
            c = cur[(cur["selector"] == sel) & (cur["n"] >= 0.5 * cur["repeats"])].sort_values("n_features")
            if c.empty:
                continue
            line = ax.plot(c["n_features"], c["mean"], "-o", ms=2.5, color=col, label=sel)[0]
            ax.fill_between(
                c["n_features"], c["mean"] - c["std"], c["mean"] + c["std"], color=line.get_color(), alpha=0.1
            )
            ax.plot(
                o["n_features"].mean(), o["accuracy"].mean(), "D", ms=5, mfc="white", color=line.get_color()
            )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title(ds, fontsize=9)
    ax.grid(alpha=0.3, which="both")


def plot(
    df: pd.DataFrame,
    grid: list[int],
    out: Path,
    exp: str,
    figures: Sequence[Mapping[str, Any]],
    points: Sequence[str],
    baseline: str,
    ylabel: str,
    xlabel: str,
) -> list[Path]:
    """One grid of panels (one per dataset) per declared figure (``id``, ``methods``, ``caption``)."""
    import matplotlib  # noqa: I001  (the backend is chosen before pyplot is imported)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(df["dataset"]))
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sels = [s for s in dict.fromkeys(df["selector"]) if s != baseline]
    colors = {s: palette[i % len(palette)] for i, s in enumerate(sels)}
    written = []
    for spec in figures:
        ncol = min(3, len(datasets))
        nrow = int(np.ceil(len(datasets) / ncol))
        fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.6 * nrow), squeeze=False)
        for k, ds in enumerate(datasets):
            ax = axes[k // ncol, k % ncol]
            _panel(ax, df, grid, ds, tuple(spec["methods"]), colors, tuple(points), baseline)
            if k % ncol == 0:
                ax.set_ylabel(ylabel)
            if k // ncol == nrow - 1:
                ax.set_xlabel(xlabel)
        for k in range(len(datasets), nrow * ncol):
            axes[k // ncol, k % ncol].axis("off")
        handles, labels = [], []
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8)
        n_rep = df["repeat"].nunique()
        fig.suptitle(
            f"{exp}: {spec['caption']}\nmean over {n_rep} splits (bands and vertical bars ±1 std, horizontal "
            "bars min–max of the own dimension; ◇ = a curve method's own dimension)",
            fontsize=9,
        )
        fig.tight_layout(rect=(0, 0.06, 1, 0.96))
        written += save_figure(fig, out / str(spec["id"]), dpi=110, tight=False)
    return written


def draw_figures(
    df: pd.DataFrame,
    run: Mapping[str, Any],
    out: Path,
    *,
    reference: str,
    baseline: str,
    points: Sequence[str],
    figures: Sequence[Mapping[str, Any]],
    metric: str,
    own_text: str,
    ylabel: str,
    xlabel: str,
    exp: str = "",
) -> pd.DataFrame:
    """Draw the figures and write the summary of one run (``df``: its ``results.csv``, ``run``: its
    ``run.json``) into ``out``; return the summary table."""
    df, grid = load(df, run)
    exp = str(df["experiment"].iloc[0]) if len(df) else exp
    s = summary(df, grid, reference, baseline)
    out.mkdir(parents=True, exist_ok=True)
    s.to_csv(out / "summary.csv", index=False, float_format="%.6g")
    (out / "summary.md").write_text(
        f"# {exp}: {metric} at each method's own dimension\n\n"
        f"Mean ± std over splits (%). {own_text.strip()} 'best along grid' = the highest mean accuracy over "
        "the grid S reached by at least half of the splits (an optimistic, test-set-selected figure). Last "
        f"column: mean paired difference of {reference} minus the method over the same splits, with the "
        "paired t-test p-value.\n\n" + summary_markdown(s, reference)
    )
    plot(df, grid, out, exp, figures, points, baseline, ylabel, xlabel)
    return s


def _compact(summaries: dict[str, pd.DataFrame], methods: Sequence[str], label: str) -> str:
    rows = []
    first = next(iter(summaries.values()))
    for ds in dict.fromkeys(first["dataset"]):
        for setting, s in summaries.items():
            row = [ds, setting]
            for m in methods:
                c = s[(s["dataset"] == ds) & (s["method"] == m)]
                if c.empty:
                    row.append("–")
                    continue
                r = c.iloc[0]
                dim = f"{r.dim_mean:.0f}" if r.dim_min != r.dim_max else f"{r.dim_min}"
                row.append(f"{100 * r.acc_own_mean:.1f} ({dim})")
            rows.append(row)
    return md_table(["dataset", label, *[f"{m} acc. (dim)" for m in methods]], rows)


@register("own_dimension_curves")
def own_dimension_curves(
    ctx: ProducerContext,
    *,
    runs: str,
    reference: str,
    baseline: str,
    figures: list[dict[str, Any]],
    table_methods: list[str],
    heading: str,
    text: str = "",
    points: list[str] | tuple[str, ...] = (),
    settings: Mapping[str, str] | None = None,
    main: str = "",
    setting_label: str = "setting",
    metric: str = "accuracy",
    own_text: str = "",
    ylabel: str = "test accuracy",
    xlabel: str = "number of selected features (log)",
) -> list[str]:
    """Per run matching ``runs`` (a glob under the results directory; the part the ``*`` matches names its
    setting, shown as ``settings[name]``): figures and summaries into ``<run>/figures``; on the report,
    the own-choice accuracies of every setting (the ``main`` one first), the figures and the summaries' links.

    Parameters
    ----------
    runs : str
        Glob of the runs' directories, one ``*`` (e.g. ``fig23_gamma_*``).
    reference, baseline : str
        The method compared with every other (paired t-test), and the all-inputs method (a line).
    figures : list of mapping
        Per figure: ``id`` (file stem), ``methods`` (drawn, in order) and ``caption``.
    table_methods : list of str
        The methods of the report's table.
    heading, text : str
        The section's heading and its paragraph.
    points : list of str
        Methods drawn as a point at their own dimension only (no curve).
    settings : mapping, optional
        Display name of each setting (default: as matched).
    main : str
        The main setting's display name (listed first).
    setting_label, metric, own_text, ylabel, xlabel : str
        The table's setting column; the metric's name in the summary's title; what "own dim" means, per
        method, in the summary's text; the figures' axis labels.
    """
    root = Path(ctx.results_dir)
    prefix = runs.split("*")[0]
    label = dict(settings or {})
    found = [d for d in sorted(root.glob(runs)) if has_table(d)]
    for d in found:
        draw_figures(
            ctx.results.results(d),
            ctx.results.run(d),
            d / "figures",
            reference=reference,
            baseline=baseline,
            points=points,
            figures=figures,
            metric=metric,
            own_text=own_text,
            ylabel=ylabel,
            xlabel=xlabel,
            exp=d.name,
        )
    dirs = {d.name.removeprefix(prefix): d for d in found if (d / "figures" / "summary.csv").exists()}
    if not dirs:
        return []
    summaries = {label.get(k, k): read_table(d / "figures" / "summary.csv") for k, d in dirs.items()}
    summaries = dict(sorted(summaries.items(), key=lambda kv: kv[0] != main))
    para = [text.strip(), ""] if text.strip() else []
    parts = [heading, "", *para, _compact(summaries, table_methods, setting_label), ""]
    for k, d in sorted(dirs.items(), key=lambda kv: label.get(kv[0], kv[0]) != main):
        for spec in figures:
            fig = str(spec["id"])
            alt = f"{fig} {setting_label} = {label.get(k, k)}"
            parts += [f"![{alt}]({ctx.rel(d / 'figures' / f'{fig}.png')})", ""]
        link = ctx.rel(d / "figures" / "summary.md")
        parts += [
            "Per-method table with std, the best point along each curve and paired t-tests: "
            f"[`{link}`]({link}).",
            "",
        ]
    return parts
