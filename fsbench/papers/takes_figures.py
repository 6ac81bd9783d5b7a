"""Xu et al. 2011, Figs. 2-3 drawn from an ``fsbench run`` result: 1-NN accuracy vs selected features.

Input: the result directory of ``configs/takes2011/fig23_*.yaml`` (``results.csv`` + ``run.json``). Each
kernel-space transformer is evaluated by the protocol at the S values of the config's grid that do not
exceed its output dimension, and at its own output dimension (``protocol.transform_grid``). Here:

* **own choice** of a method = the row with the largest S of its task (its output dimension: TAKES's
  data-dependent number of KFFS-selected coordinates, the positive-RELIEF-weight coordinates of
  FSKGS/FSKPCA, KOBL's Dim for KDA, D input features for KNNC);
* **curve** = mean accuracy at each grid S over the repeats whose output reaches S (drawn where at least
  half of the repeats do).

Fig. 2: TAKES and its "weak update" variant (points), KGS+KFFS (curve), KNNC (line, not in the paper's
Fig. 2; a reference). Fig. 3: TAKES (point), FSKGS, FSKPCA, KDA (curves) and KNNC
(horizontal line). Outputs in ``DIR/figures``: ``fig2.png``, ``fig3.png`` (one panel per dataset, PNG and
PDF), ``summary.csv`` / ``summary.md`` (own-choice accuracy and dimension, best accuracy along the curve,
paired t-test of TAKES against every method over the shared splits).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from fsbench.results.tables import md_table, save_figure
from fsbench.stats import paired_t

FIG2 = ("TAKES", "KGS+KFFS", "TAKES (weak update)", "KNNC")
FIG3 = ("TAKES", "FSKGS", "FSKPCA", "KDA", "KNNC")
POINT_METHODS = ("TAKES", "TAKES (weak update)")
BASELINE = "KNNC"


def load(result_dir: str | Path) -> tuple[pd.DataFrame, list[int]]:
    """The ok rows of ``results.csv`` with ``accuracy`` added, and the config's S grid."""
    d = Path(result_dir)
    df = pd.read_csv(d / "results.csv")
    df = df[df["status"] == "ok"].copy()
    df["accuracy"] = 1.0 - df["error"]
    grid: list[int] = []
    run = d / "run.json"
    if run.exists():
        nf = json.loads(run.read_text()).get("effective_config", {}).get("protocol", {}).get("n_features")
        if isinstance(nf, list):
            grid = [int(s) for s in nf]
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


def summary(df: pd.DataFrame, grid: list[int]) -> pd.DataFrame:
    """Per (dataset, method): own-choice accuracy and dimension, best curve accuracy, paired t vs TAKES."""
    own = own_choice(df)
    cur = curves(df, grid)
    rows = []
    for ds in dict.fromkeys(df["dataset"]):
        for sel in dict.fromkeys(df["selector"]):
            o = own[(own["dataset"] == ds) & (own["selector"] == sel)]
            if o.empty:
                continue
            rows.append(_summary_row(ds, sel, o, own, cur))
    return pd.DataFrame(rows)


def _summary_row(ds: str, sel: str, o: pd.DataFrame, own: pd.DataFrame, cur: pd.DataFrame) -> dict:
    """One summary row: own-choice accuracy/dimension, best curve point, paired comparison to TAKES."""
    c = cur[(cur["dataset"] == ds) & (cur["selector"] == sel) & (cur["n"] >= 0.5 * cur["repeats"])]
    best = c.loc[c["mean"].idxmax()] if not c.empty and sel != BASELINE else None
    t = own[(own["dataset"] == ds) & (own["selector"] == "TAKES")].set_index("repeat")["accuracy"]
    m = o.set_index("repeat")["accuracy"]
    common = t.index.intersection(m.index)
    return {
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
        "takes_minus_method": float((t[common] - m[common]).mean()) if len(common) else float("nan"),
        "p_paired_vs_takes": paired_t(t[common], m[common])[1] if sel != "TAKES" else float("nan"),
    }


def summary_markdown(s: pd.DataFrame) -> str:
    """Accuracy table (%, own choice and best along the curve) with the paired comparison to TAKES."""
    rows = []
    for _, r in s.iterrows():
        own = f"{100 * r.acc_own_mean:.1f} ± {100 * r.acc_own_std:.1f}"
        dim = f"{r.dim_mean:.1f} [{r.dim_min}–{r.dim_max}]" if r.dim_min != r.dim_max else f"{r.dim_min}"
        best = f"{100 * r.acc_best_mean:.1f} (S = {int(r.best_S)})" if pd.notna(r.best_S) else "–"
        if r.method == "TAKES":
            cmp = "—"
        else:
            sig = "" if not np.isfinite(r.p_paired_vs_takes) else f", p = {r.p_paired_vs_takes:.2g}"
            cmp = f"{100 * r.takes_minus_method:+.1f}{sig}"
        rows.append([r.dataset, r.method, dim, own, best, cmp])
    header = [
        "dataset",
        "method",
        "own dim (mean [min–max])",
        "acc. at own dim (%)",
        "best along grid (%)",
        "TAKES − method (pp, paired t)",
    ]
    return md_table(header, rows)


def _panel(ax, df: pd.DataFrame, grid: list[int], ds: str, methods: tuple[str, ...], colors: dict) -> None:
    own = own_choice(df[df["dataset"] == ds])
    cur = curves(df[df["dataset"] == ds], grid)
    for sel in methods:
        col = colors.get(sel)
        if sel == BASELINE:
            o = own[own["selector"] == sel]
            if o.empty:
                continue
            m, sd = o["accuracy"].mean(), o["accuracy"].std(ddof=1)
            ax.axhline(m, color="black", lw=1.5, label=f"{sel} (all inputs)")
            ax.axhspan(m - sd, m + sd, color="black", alpha=0.06)
        elif sel in POINT_METHODS:
            o = own[own["selector"] == sel]
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
            o = own[own["selector"] == sel]
            ax.plot(
                o["n_features"].mean(), o["accuracy"].mean(), "D", ms=5, mfc="white", color=line.get_color()
            )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title(ds, fontsize=9)
    ax.grid(alpha=0.3, which="both")


def plot(df: pd.DataFrame, grid: list[int], out: Path, exp: str) -> list[Path]:
    """Fig. 2 and Fig. 3 style grids, one panel per dataset."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(df["dataset"]))
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sels = [s for s in dict.fromkeys(df["selector"]) if s != BASELINE]
    colors = {s: palette[i % len(palette)] for i, s in enumerate(sels)}
    written = []
    for fig_id, methods, caption in (
        ("fig2", FIG2, "TAKES vs KGS+KFFS (Xu et al. Fig. 2; KNNC added for reference)"),
        ("fig3", FIG3, "TAKES, FSKGS, FSKPCA, KDA, KNNC (Xu et al. Fig. 3)"),
    ):
        ncol = min(3, len(datasets))
        nrow = int(np.ceil(len(datasets) / ncol))
        fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.6 * nrow), squeeze=False)
        for k, ds in enumerate(datasets):
            ax = axes[k // ncol, k % ncol]
            _panel(ax, df, grid, ds, methods, colors)
            if k % ncol == 0:
                ax.set_ylabel("1-NN test accuracy")
            if k // ncol == nrow - 1:
                ax.set_xlabel("number of selected kernel-space features (log)")
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
            f"{exp}: {caption}\nmean over {n_rep} splits (bands and vertical bars ±1 std, horizontal bars "
            "min–max of the own dimension; ◇ = a curve method's own dimension)",
            fontsize=9,
        )
        fig.tight_layout(rect=(0, 0.06, 1, 0.96))
        written += save_figure(fig, out / fig_id, dpi=110, tight=False)
    return written


def run(result_dir: str | Path, out: str | Path | None = None) -> pd.DataFrame:
    """Draw the figures and write the summary for one result directory; return the summary table."""
    result_dir = Path(result_dir)
    out = Path(out) if out is not None else result_dir / "figures"
    df, grid = load(result_dir)
    exp = str(df["experiment"].iloc[0]) if len(df) else result_dir.name
    s = summary(df, grid)
    out.mkdir(parents=True, exist_ok=True)
    s.to_csv(out / "summary.csv", index=False, float_format="%.6g")
    (out / "summary.md").write_text(
        f"# {exp}: 1-NN accuracy at each method's own dimension\n\n"
        "Mean ± std over splits (%). 'own dim' = the method's output dimension (TAKES: its KFFS selection; "
        "FSKGS/FSKPCA: positive RELIEF weights; KDA: KOBL's Dim; KNNC: the D inputs). 'best along grid' = "
        "the highest mean accuracy over the grid S reached by at least half of the splits (an optimistic, "
        "test-set-selected figure). Last column: mean paired difference of TAKES minus the method over the "
        "same splits, with the paired t-test p-value.\n\n" + summary_markdown(s)
    )
    plot(df, grid, out, exp)
    return s
