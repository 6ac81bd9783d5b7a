r"""Fit time of the kernel-space learners against the training-set size N (Xu et al. 2011 Table 1, §3.1.3).

The paper states complexities only: KOBL and TAKES :math:`O(N^2 d)` (d = number of basis vectors),
KGS :math:`O(N^3)`, KPCA :math:`O(N^3 + N^2 d)`, FSKGS :math:`O(N^3)`, FSKPCA :math:`O(N^3 + N^2d)`,
KDA :math:`O(N^3)`. The times come from the ``fsbench run`` experiment
``configs/takes2011/timing_vs_n.yaml`` (``fit_cpu_s``, one task at a time, one BLAS thread); this module
turns its ``results.csv`` into the median CPU time per N and learner, the log-log slope over N ≥
``n_min`` (the empirical exponent) and a log-log plot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fsbench.results.tables import md_table, save_figure

LEARNERS = ("kobl", "takes", "kgs", "kpca", "kda", "fskgs", "fskpca")
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


def load_timing(result_dir: str | Path) -> pd.DataFrame:
    """One row per fitted learner of a timing run: learner (registry name), n_train, fit_cpu_s,
    fit_wall_s and the output dimension (``basis_dim``: the largest S the task evaluated)."""
    df = pd.read_csv(Path(result_dir) / "results.csv")
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
        if len(d) >= 2:
            b = float(np.polyfit(np.log(d["n_train"]), np.log(d["fit_cpu_s"]), 1)[0])
        else:
            b = float("nan")
        out.append({"learner": learner, "slope": b, "n_points": len(d)})
    return pd.DataFrame(out)


def table(df: pd.DataFrame, n_min: int) -> tuple[pd.DataFrame, str]:
    """Median CPU seconds (and median dimension) per N and learner, plus the slopes, as CSV and Markdown."""
    g = df.groupby(["learner", "n_train"], sort=False)
    med = g.agg(cpu_s=("fit_cpu_s", "median"), wall_s=("fit_wall_s", "median"), dim=("basis_dim", "median"))
    med = med.reset_index()
    sl = slopes(df, n_min).set_index("learner")["slope"]
    Ns = sorted(df["n_train"].unique())
    rows = []
    for learner in dict.fromkeys(df["learner"]):
        d = med[med["learner"] == learner].set_index("n_train")
        cells = [f"{d.loc[n, 'cpu_s']:.3g} ({int(d.loc[n, 'dim'])})" if n in d.index else "–" for n in Ns]
        rows.append([LABELS[learner], COMPLEXITY[learner], *cells, f"{sl.get(learner, float('nan')):.2f}"])
    header = ["learner", "paper", *[f"N = {n}" for n in Ns], f"slope (N ≥ {n_min})"]
    return med, md_table(header, rows)


def plot(df: pd.DataFrame, path: Path) -> list[Path]:
    """Log-log median CPU time vs N per learner, with N² and N³ guides through KGS's first point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    med = df.groupby(["learner", "n_train"], sort=False)["fit_cpu_s"].median().reset_index()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for learner in dict.fromkeys(df["learner"]):
        d = med[med["learner"] == learner].sort_values("n_train")
        ls = "-" if learner in ("kobl", "takes") else "--"
        ax.loglog(d["n_train"], d["fit_cpu_s"].clip(lower=1e-4), ls, marker="o", ms=3, label=LABELS[learner])
    Ns = np.array(sorted(med["n_train"].unique()), dtype=float)
    top = med[med["n_train"] == Ns[-1]]["fit_cpu_s"].max()
    for p, style in ((2, ":"), (3, "-.")):
        ax.loglog(Ns, top * (Ns / Ns[-1]) ** p, style, color="gray", lw=1, label=f"∝ N^{p}")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks([int(n) for n in Ns])
    ds = df["dataset"].iloc[0]
    ax.set_xlabel("training-set size N")
    ax.set_ylabel("fit CPU time (s), median over repeats")
    ax.set_title(f"kernel-space learners on {ds} (one BLAS thread)", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2)
    return save_figure(fig, path, dpi=110)
