r"""Report hooks of Xu et al. 2011 (TAKES): the descriptive sections beside the engine's verdicts.

Loaded by file path by ``fsbench report RESULTS --paper configs/takes2011`` (see
:mod:`fsbench.papers.folder`). The comparison (Table 2 cells, claims) is the engine's, from
``paper_values.yaml``; :func:`sections` adds, regenerated from each run's ``results.csv``, without verdicts:

* Table 2 at both RBF widths with E on held-out points (the ``takes_reconstruction`` diagnostic's
  summary, re-rendered if missing);
* Figs. 2–3 drawn from ``fig23_*`` runs: each kernel-space transformer is evaluated by the protocol at
  the S of the config's grid up to its output dimension and at its own output dimension. **Own choice**
  of a method = the row with the largest S of its task (TAKES: the KFFS-selected coordinates; FSKGS /
  FSKPCA: the positive-RELIEF-weight coordinates; KDA: KOBL's Dim; KNNC: the D inputs); **curve** = mean
  accuracy at each grid S over the repeats whose output reaches S (drawn where at least half of them
  do). Fig. 2: TAKES and its "weak update" variant (points), KGS+KFFS (curve), KNNC (a reference line);
  Fig. 3: TAKES (point), FSKGS, FSKPCA, KDA (curves), KNNC. Written to ``DIR/figures``: ``fig2``,
  ``fig3`` (PNG and PDF), ``summary.csv`` / ``summary.md`` (own-choice accuracy and dimension, best
  accuracy along the curve, paired t-test of TAKES against every method over the shared splits);
* fit time vs N (Table 1 / §3.1.3) from ``timing_vs_n`` (:mod:`fsbench.papers.timing`) beside the
  complexities the paper states.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from fsbench.diagnostics.registry import render_result_dir
from fsbench.papers.folder import ReportContext
from fsbench.papers.timing import load_timing, plot_timing, timing_table
from fsbench.results.loading import read_results, read_run
from fsbench.results.pairing import paired_cells
from fsbench.results.paper_values import paper_cells
from fsbench.results.table_files import has_table
from fsbench.results.tables import md_table, save_figure
from fsbench.stats import paired_t

#: The main RBF width rule (fsbench's default, fixed in advance); median/4 is a sensitivity setting.
GAMMA_MAIN = "median"
#: Display names of the kernel-space learners of the timing run, and the complexities the paper states
#: (d = number of basis vectors).
LABELS = {
    "kobl": "KOBL",
    "takes": "TAKES",
    "kgs": "KGS",
    "kpca": "KPCA",
    "kda": "KDA",
    "fskgs": "FSKGS",
    "fskpca": "FSKPCA",
}
COMPLEXITY = {
    "kobl": "O(N² d)",
    "takes": "O(N² d)",
    "kgs": "O(N³)",
    "kpca": "O(N³ + N² d)",
    "kda": "O(N³)",
    "fskgs": "O(N³)",
    "fskpca": "O(N³ + N² d)",
}

FIG2 = ("TAKES", "KGS+KFFS", "TAKES (weak update)", "KNNC")
FIG3 = ("TAKES", "FSKGS", "FSKPCA", "KDA", "KNNC")
POINT_METHODS = ("TAKES", "TAKES (weak update)")
BASELINE = "KNNC"


def load(result_dir: str | Path) -> tuple[pd.DataFrame, list[int]]:
    """The ok rows of ``results.csv`` with ``accuracy`` added, and the config's S grid."""
    d = Path(result_dir)
    df = read_results(d)
    df = df[df["status"] == "ok"].copy()
    df["accuracy"] = 1.0 - df["error"]
    nf = read_run(d).get("effective_config", {}).get("protocol", {}).get("n_features")
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


def summary(df: pd.DataFrame, grid: list[int]) -> pd.DataFrame:
    """Per (dataset, method): own-choice accuracy and dimension, best curve accuracy, paired t vs TAKES.

    The own-choice accuracies compared (their means and the paired t-test against TAKES) are over the
    splits every method of the dataset finished (:func:`fsbench.results.pairing.paired_cells`)."""
    own, _ = paired_cells(own_choice(df), "accuracy", cell=("dataset",))
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
    import matplotlib  # noqa: I001  (the backend is chosen before pyplot is imported)

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


def draw_figures(result_dir: str | Path, out: str | Path | None = None) -> pd.DataFrame:
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


def _takes_table2_compact(summary: pd.DataFrame, paper: pd.DataFrame, rule: str) -> str:
    s = summary[summary["gamma_rule"] == rule]
    rows = []
    for ds in dict.fromkeys(s["dataset"]):
        row = [ds]
        for learner in ("kobl", "kgs", "kpca", "kda"):
            c = s[(s["dataset"] == ds) & (s["learner"] == learner)]
            p = paper[(paper["dataset"] == ds) & (paper["method"] == learner)]
            pv = f"{float(p['value'].iloc[0]):.3f}/{int(p['dim'].iloc[0])}" if not p.empty else "–"
            if c.empty:
                row.append(f"{pv} · –")
                continue
            r = c.iloc[0]
            row.append(f"{pv} · {r.E_train_mean:.3f} / {r.E_test_mean:.3f} / {r.dim_mean:.0f}")
        rows.append(row)
    head = [
        "dataset",
        *[f"{m}: paper E/Dim · ours E train / E test / Dim" for m in ("KOBL", "KGS", "KPCA", "KDA")],
    ]
    return md_table(head, rows)


def _fig_compact(summaries: dict[str, pd.DataFrame]) -> str:
    methods = ("TAKES", "KGS+KFFS", "FSKGS", "FSKPCA", "KDA", "KNNC")
    rows = []
    first = next(iter(summaries.values()))
    for ds in dict.fromkeys(first["dataset"]):
        for rule, s in summaries.items():
            row = [ds, rule]
            for m in methods:
                c = s[(s["dataset"] == ds) & (s["method"] == m)]
                if c.empty:
                    row.append("–")
                    continue
                r = c.iloc[0]
                dim = f"{r.dim_mean:.0f}" if r.dim_min != r.dim_max else f"{r.dim_min}"
                row.append(f"{100 * r.acc_own_mean:.1f} ({dim})")
            rows.append(row)
    return md_table(["dataset", "γ", *[f"{m} acc. (dim)" for m in methods]], rows)


def sections(ctx: ReportContext) -> list[str]:
    """The descriptive sections: Table 2 at both widths, Figs. 2–3, fit time vs N."""
    results = ctx.results_dir
    paper = paper_cells(ctx.values, "table2")
    parts: list[str] = []
    t2 = results / "table2_reconstruction"
    if has_table(t2) and not (t2 / "summary.csv").exists():
        render_result_dir(t2, ctx.paper_dir)
    if (t2 / "summary.csv").exists():
        summ = pd.read_csv(t2 / "summary.csv")
        rules = list(dict.fromkeys(summ["gamma_rule"]))
        parts += [
            "## Table 2 in detail — reconstruction cost E(M) and Dim at both RBF widths",
            "",
            "The cells counted above are E on the training split (eq. 19 defines E(M) over the N training "
            f"points) and KOBL's Dim, at the main width (γ = {GAMMA_MAIN}). Here, without verdicts, "
            "both widths and E on held-out points as well.",
            "",
        ]
        for rule in rules:
            parts += [
                f"**γ = {rule}**. Cells: paper E/Dim · ours mean E on the training split / on held-out "
                "points / mean Dim over the splits.",
                "",
                _takes_table2_compact(summ, paper, rule),
                "",
            ]
        parts += [
            f"![Table 2]({ctx.rel(t2 / 'table2_E.png')})",
            "",
            f"Full table with standard deviations (and KDA without completion): "
            f"[`{ctx.rel(t2 / 'table2.md')}`]({ctx.rel(t2 / 'table2.md')}).",
            "",
        ]

    for d in sorted(results.glob("fig23_gamma_*")):
        if has_table(d):
            draw_figures(d)  # figures/ and summaries from results.csv
    figdirs = {
        d.name.replace("fig23_gamma_", ""): d
        for d in sorted(results.glob("fig23_gamma_*"))
        if (d / "figures" / "summary.csv").exists()
    }
    if figdirs:
        label = {"quarter": "median/4", "half": "median/2", "median": "median"}
        summaries = {label.get(k, k): pd.read_csv(d / "figures" / "summary.csv") for k, d in figdirs.items()}
        summaries = dict(sorted(summaries.items(), key=lambda kv: kv[0] != GAMMA_MAIN))
        parts += [
            "## Figs. 2–3 — 1-NN accuracy vs number of selected kernel-space features",
            "",
            "The paper prints no numbers for these figures (images only), so only its claims can be checked "
            "(above, at the main width). Cells: mean 1-NN test accuracy (%) at the method's own output "
            "dimension (mean dimension in brackets) over the splits.",
            "",
            _fig_compact(summaries),
            "",
        ]
        for k, d in sorted(figdirs.items(), key=lambda kv: label.get(kv[0], kv[0]) != GAMMA_MAIN):
            for fig in ("fig2", "fig3"):
                parts += [f"![{fig} γ = {label.get(k, k)}]({ctx.rel(d / 'figures' / f'{fig}.png')})", ""]
            link = ctx.rel(d / "figures" / "summary.md")
            parts += [
                "Per-method table with std, the best point along each curve and paired t-tests: "
                f"[`{link}`]({link}).",
                "",
            ]

    tdir = results / "timing_vs_n"
    if has_table(tdir):
        df = load_timing(tdir)
        med, md = timing_table(df, 1000, LABELS, COMPLEXITY)
        med.to_csv(tdir / "timing.csv", index=False, float_format="%.6g")
        plot_timing(
            df,
            tdir / "timing",
            LABELS,
            solid=("kobl", "takes"),
            title="kernel-space learners on {dataset} (one BLAS thread)",
        )
        parts += [
            "## Table 1 / §3.1.3 — fit time vs N",
            "",
            "Median fit CPU seconds over the repeats (output dimension in brackets), one task at a time with "
            "one BLAS thread, and the log-log slope of the medians over N ≥ 1000 (the claims above fit the "
            "means).",
            "",
            md.strip(),
            "",
            f"![timing]({ctx.rel(tdir / 'timing.png')})",
            "",
        ]
    return parts
