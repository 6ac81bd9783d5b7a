r"""Report hooks of Ring & Eskofier 2015 (branch-and-bound in RKHS).

Loaded by file path by ``fsbench report RESULTS --paper configs/ring2015`` (see
:mod:`fsbench.papers.folder`). The experiments are ``fig1_toy.yaml`` (which pair of the Fig. 1 toy B&B
chooses, d = 2, per criterion) and ``uci.yaml`` (B&B with the RKHS criteria and the exhaustive wrapper on
two-class UCI sets, d = 2..5). The subset searches are fitted once per d = S by the protocol, which records
the chosen ``subset``, ``n_evaluations`` and ``criterion_value`` as result columns. :func:`sections` reads
the two ``results.csv`` files, writes ``fig1_summary.csv``, ``uci_summary.csv``, ``plots/fig1_data.png``,
``plots/uci_accuracy.png`` and ``plots/uci_runtime.png`` into the results directory and returns the
"Generated tables" section.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.data import open_dataset
from fsbench.papers.folder import ReportContext
from fsbench.results.loading import Results
from fsbench.results.table_files import has_table
from fsbench.results.tables import figure_metadata, md_table


def _ok(results: Results, path: Path) -> pd.DataFrame:
    # subset stays text ("0 1"); numeric columns keep NaN for the empty cells (e.g. the baseline's)
    df = results.results(path)
    df["subset"] = df["subset"].fillna("")
    return df[df["status"] == "ok"].copy()


def fig1_summary(fig1: pd.DataFrame) -> pd.DataFrame:
    """Per criterion: draws, how often {x1, x2} (features 0 1) was chosen, mean J of the chosen pair, test
    accuracy of an RBF SVM on it, criterion evaluations."""
    fig1 = fig1.assign(picks_x1x2=fig1["subset"] == "0 1", picks_x3x4=fig1["subset"] == "2 3")
    fig1["accuracy"] = 1.0 - fig1["error"]
    return (
        fig1.groupby("selector", sort=False)
        .agg(
            draws=("repeat", "size"),
            picks_x1x2=("picks_x1x2", "sum"),
            picks_x3x4=("picks_x3x4", "sum"),
            J_chosen=("criterion_value", "mean"),
            acc_chosen=("accuracy", "mean"),
            evals=("n_evaluations", "mean"),
        )
        .reset_index()
    )


def uci_summary(uci: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, d and method: splits, test accuracy (mean, sd), wall time, evaluations, C(D, d)."""
    uci = uci.assign(accuracy=1.0 - uci["error"], d=uci["n_features"])
    sel = uci[uci["selector"] != "all"]
    D = {ds: _n_features(g) for ds, g in uci.groupby("dataset")}
    out = (
        sel.groupby(["dataset", "d", "selector"], sort=False)
        .agg(
            splits=("repeat", "size"),
            accuracy=("accuracy", "mean"),
            accuracy_sd=("accuracy", "std"),
            wall_s=("fit_wall_s", "mean"),
            n_evaluations=("n_evaluations", "mean"),
        )
        .reset_index()
    )
    out.insert(1, "D", out["dataset"].map(D))
    out["n_subsets"] = [comb(int(a), int(b)) for a, b in zip(out["D"], out["d"])]
    ref = uci[uci["selector"] == "all"].groupby("dataset")["accuracy"].agg(["mean", "std", "size"])
    rows = [
        {
            "dataset": ds,
            "D": D[ds],
            "d": D[ds],
            "selector": "all features",
            "splits": int(r["size"]),
            "accuracy": r["mean"],
            "accuracy_sd": r["std"],
            "wall_s": 0.0,
            "n_evaluations": 0.0,
            "n_subsets": 1,
        }
        for ds, r in ref.iterrows()
    ]
    return pd.concat([out, pd.DataFrame(rows)], ignore_index=True)


def _n_features(g: pd.DataFrame) -> int:
    return int(g.loc[g["selector"] == "all", "n_features"].max()) if (g["selector"] == "all").any() else 0


def speedups(uci: pd.DataFrame) -> dict[str, float]:
    """Geometric mean over (dataset, d, split) of the wrapper's wall time over each B&B's."""
    sel = uci[uci["selector"] != "all"]  # the baseline is not a search (and sits at S = D)
    w = sel.pivot_table(index=["dataset", "n_features", "repeat"], columns="selector", values="fit_wall_s")
    if "wrapper" not in w:
        return {}
    return {
        c: float(np.exp(np.mean(np.log(w["wrapper"] / w[c]))))
        for c in w.columns
        if c.startswith("B&B") and (w[c] > 0).all()
    }


def _plots(uci_s: pd.DataFrame, out: Path, seed: int) -> list[Path]:
    import matplotlib  # noqa: I001  (kept out of start-up until a figure is drawn)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / "plots").mkdir(parents=True, exist_ok=True)
    written = []
    X, y = open_dataset("ring_fig1").sample(300, np.random.default_rng(seed))
    fig, ax = plt.subplots(1, 2, figsize=(8, 3.8))
    for a, (i, j) in zip(ax, [(0, 1), (2, 3)]):
        for c, m in [(-1, "o"), (1, "s")]:
            a.scatter(X[y == c, i], X[y == c, j], s=10, marker=m, alpha=0.6, label=f"class {c:+d}")
        a.set_xlabel(f"x{i + 1}")
        a.set_ylabel(f"x{j + 1}")
    ax[0].legend(fontsize=8)
    fig.suptitle("ring_fig1 (our Fig. 1 problem)")
    fig.tight_layout()
    fig.savefig(out / "plots" / "fig1_data.png", dpi=110, metadata=figure_metadata(Path("fig1_data.png")))
    plt.close(fig)
    written.append(out / "plots" / "fig1_data.png")
    if uci_s.empty:
        return written
    m = uci_s[uci_s["selector"] != "all features"]
    for value, fname, ylab in [
        ("accuracy", "uci_accuracy.png", "test accuracy (%)"),
        ("wall_s", "uci_runtime.png", "selection wall time (s)"),
    ]:
        names = list(dict.fromkeys(m["dataset"]))
        fig, axes = plt.subplots(1, len(names), figsize=(2.6 * len(names), 3.4), squeeze=False)
        for a, name in zip(axes[0], names):
            g = m[m["dataset"] == name]
            for meth, h in g.groupby("selector", sort=False):
                v = 100 * h[value] if value == "accuracy" else h[value]
                (line,) = a.plot(h["d"], v, marker="o", ms=4, label=meth)
                if value == "accuracy" and h["accuracy_sd"].notna().any():  # ±1 sd over the splits
                    sd = 100 * h["accuracy_sd"]
                    a.fill_between(h["d"], v - sd, v + sd, color=line.get_color(), alpha=0.1)
            a.set_title(name, fontsize=9)
            a.set_xlabel("d")
            a.set_xticks(sorted(g["d"].unique()))  # d is an integer
            if value == "wall_s":
                a.set_yscale("log")
        axes[0][0].set_ylabel(ylab)
        handles, labels = axes[0][-1].get_legend_handles_labels()
        fig.legend(
            handles, labels, fontsize=7, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, -0.02)
        )
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        fig.savefig(out / "plots" / fname, dpi=110, metadata=figure_metadata(Path(fname)))
        plt.close(fig)
        written.append(out / "plots" / fname)
    return written


def sections(ctx: ReportContext) -> list[str]:
    """Write the summaries and plots into the results directory; return the "Generated tables" section."""
    results = ctx.results_dir
    lines = ["## Generated tables", ""]
    seed = 2015
    fdir, udir = results / "fig1_toy", results / "uci"
    if has_table(fdir):
        info = ctx.results.run(fdir)
        seed = int(info["effective_config"].get("seed", seed))
        lines += [str(info["effective_config"].get("notes", "")).strip(), ""]
        fs = fig1_summary(_ok(ctx.results, fdir))
        fs.to_csv(results / "fig1_summary.csv", index=False, float_format="%.6g")
        rows = [
            [
                r.selector,
                r.draws,
                int(r.picks_x1x2),
                int(r.picks_x3x4),
                f"{r.J_chosen:.4g}",
                f"{100 * r.acc_chosen:.1f}",
                f"{r.evals:.1f}",
            ]
            for r in fs.itertuples()
        ]
        lines += [
            "## Fig. 1 problem (ring_fig1): which pair does B&B choose (d = 2)?",
            "",
            "From the `subset` column of `fig1_toy/results.csv` (features 0 1 = {x1, x2}, 2 3 = {x3, x4}); "
            "accuracy = RBF-SVM test accuracy on the chosen pair.",
            "",
            md_table(
                [
                    "criterion",
                    "draws",
                    "picks {x1,x2}",
                    "picks {x3,x4}",
                    "mean J(chosen)",
                    "acc. (%)",
                    "evaluations",
                ],
                rows,
            ),
        ]
    uci_s = pd.DataFrame()
    if has_table(udir):
        info = ctx.results.run(udir)
        lines += [str(info["effective_config"].get("notes", "")).strip(), ""]
        uci = _ok(ctx.results, udir)
        uci_s = uci_summary(uci)
        uci_s.to_csv(results / "uci_summary.csv", index=False, float_format="%.6g")
        rows = []
        for r in uci_s.itertuples():
            sd = "" if r.accuracy_sd != r.accuracy_sd else f" ± {100 * r.accuracy_sd:.1f}"
            rows.append(
                [
                    r.dataset,
                    r.D,
                    r.d,
                    r.selector,
                    r.splits,
                    f"{100 * r.accuracy:.1f}{sd}",
                    f"{r.wall_s:.2f}",
                    f"{r.n_evaluations:.0f}",
                    r.n_subsets,
                ]
            )
        lines += [
            "## UCI: test accuracy (%), selection time and criterion evaluations (mean over splits)",
            "",
            md_table(
                ["dataset", "D", "d", "method", "splits", "test acc. (%)", "wall s", "evaluations", "C(D,d)"],
                rows,
            ),
        ]
        sp = speedups(uci)
        if sp:
            lines += ["Speed-up of B&B over the exhaustive wrapper (geometric mean of wall-time ratios):", ""]
            lines += [f"- {k}: {v:.1f}×" for k, v in sp.items()]
            lines.append("")
    _plots(uci_s, results, seed)
    plots = results / "plots"
    lines += [f"![Fig. 1 data]({ctx.rel(plots / 'fig1_data.png')})", ""]
    if not uci_s.empty:
        lines += [f"![accuracy]({ctx.rel(plots / 'uci_accuracy.png')})", ""]
        lines += [f"![runtime]({ctx.rel(plots / 'uci_runtime.png')})", ""]
    return lines
