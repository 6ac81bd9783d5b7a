r"""Xu et al. 2011, Table 2: reconstruction cost E(M) and dimension of each kernel-space basis learner.

For every split of the config (``fsbench run`` splits: same seed, dataset, ``n_train``, repeat) and every
RBF width in ``settings.gammas`` (resolved on the training split, e.g. ``median/4``), fit on the training
split

* ``kobl`` — :class:`~fsbench.algorithms.kernel_space.KOBL` (threshold ``settings.f``), adaptive Dim;
* ``kgs`` — :class:`~fsbench.algorithms.kernel_space.KGS`, all N training points;
* ``kpca`` — :class:`~fsbench.algorithms.kernel_space.KPCA`, every non-negligible component;
* ``kda`` — :class:`~fsbench.algorithms.discriminant.KDA` with KOBL's Dim, ``complete=True`` (C−1
  discriminant directions completed by kernel principal axes up to Dim, the paper's "same dimensionality
  as learned by KOBL");
* ``kda_discriminant`` — KDA without completion (its C−1 discriminant directions only);

and record the dimension and eq. (19),
:math:`\mathcal E(M) = \frac1M\sum_j\lVert\phi(x_j) - P_M\phi(x_j)\rVert`, on the training points
(``E_train``) and on the held-out test points of the split (``E_test``; the KOBL docstring's reading of
Table 2), with the fit time.

Settings (``settings:`` of the script config)
---------------------------------------------
gammas : list of str or float, default ["median/4", "median"]
    RBF widths (:func:`fsbench.experiments.scaled_gamma.parse_gamma`).
f : str, default "linear"
    KOBL's threshold function.
learners : list of str, default all five above.

Outputs in ``--out``: ``results.csv`` (one row per split × width × learner), ``summary.csv`` and
``table2.md`` (mean ± std beside the paper's values from ``settings.paper_values``), ``table2_E.png``,
``run.json``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from fsbench.algorithms.discriminant import KDA
from fsbench.algorithms.kernel_space import KGS, KOBL, KPCA
from fsbench.experiments.common import (
    RunRecord,
    ScriptConfig,
    draw,
    load_paper_values,
    load_script_config,
    md_table,
    mean_std,
    paper_cells,
    split_keys,
)
from fsbench.experiments.scaled_gamma import resolve_scaled_gamma

LEARNERS = ("kobl", "kgs", "kpca", "kda", "kda_discriminant")
DEFAULTS: dict[str, Any] = {"gammas": ["median/4", "median"], "f": "linear", "learners": list(LEARNERS)}
LABELS = {"kobl": "KOBL", "kgs": "KGS", "kpca": "KPCA", "kda": "KDA", "kda_discriminant": "KDA (C−1 dirs)"}


def _settings(cfg: ScriptConfig) -> dict[str, Any]:
    s = {**DEFAULTS, **cfg.settings}
    bad = sorted(set(s["learners"]) - set(LEARNERS))
    if bad:
        raise ValueError(f"settings.learners: unknown {bad}; expected some of {list(LEARNERS)}")
    return s


def _fit_learner(name: str, gamma: float, f: str, X: np.ndarray, y: np.ndarray):
    kw = {"kernel": "rbf", "gamma": gamma}
    if name == "kobl":
        return KOBL(**kw, f=f).fit(X)
    if name == "kgs":
        return KGS(**kw).fit(X)
    if name == "kpca":
        return KPCA(**kw).fit(X)
    return KDA(**kw, f=f, complete=(name == "kda")).fit(X, y)


def run_split(cfg: ScriptConfig, key: tuple[int, int, int]) -> list[dict[str, Any]]:
    """All rows of one split (every width × learner)."""
    s = _settings(cfg)
    i, n_train, repeat = key
    entry = cfg.experiment.datasets[i]
    rows = []
    with threadpool_limits(1):
        sp = draw(entry, cfg.experiment.seed, n_train, repeat)
        for spec in s["gammas"]:
            g = resolve_scaled_gamma(spec, sp.X_train)
            for name in s["learners"]:
                c0, w0 = time.process_time(), time.perf_counter()
                est = _fit_learner(name, g, s["f"], sp.X_train, sp.y_train)
                cpu, wall = time.process_time() - c0, time.perf_counter() - w0
                row = {
                    "experiment": cfg.name,
                    "dataset": sp.dataset,
                    "n_train": int(sp.y_train.size),
                    "n_test": int(sp.y_test.size),
                    "repeat": repeat,
                    "split_seed": sp.split_seed,
                    "gamma_rule": str(spec),
                    "gamma": g,
                    "learner": name,
                    "dim": int(est.n_components_),
                    "E_train": float(est.reconstruction_cost()),
                    "E_test": float(est.reconstruction_cost(sp.X_test)),
                    "fit_cpu_s": cpu,
                    "fit_wall_s": wall,
                }
                if name == "kobl":
                    row["kobl_bound"] = float(est.r_[0] * est.threshold_) if est.r_.size else float("nan")
                    row["stop"] = est.stop_reason_
                if name.startswith("kda"):
                    row["dim_requested"] = int(est.n_components_requested_)
                rows.append(row)
    return rows


def summarize(df: pd.DataFrame, paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean and std of dim, E_train, E_test per (dataset, gamma rule, learner), with the paper's E and Dim."""
    g = df.groupby(["dataset", "gamma_rule", "learner"], sort=False)
    out = g.agg(
        repeats=("repeat", "nunique"),
        n_train=("n_train", "first"),
        dim_mean=("dim", "mean"),
        dim_std=("dim", "std"),
        E_train_mean=("E_train", "mean"),
        E_train_std=("E_train", "std"),
        E_test_mean=("E_test", "mean"),
        E_test_std=("E_test", "std"),
        fit_cpu_s_mean=("fit_cpu_s", "mean"),
    ).reset_index()
    if paper is not None and not paper.empty:
        p = paper.rename(columns={"method": "learner", "value": "paper_E", "dim": "paper_dim"})
        out = out.merge(
            p[["dataset", "learner", "paper_E", "paper_dim"]], on=["dataset", "learner"], how="left"
        )
    return out


def markdown(df: pd.DataFrame, paper: pd.DataFrame | None = None) -> str:
    """Table 2 beside ours: one block per width rule; E as mean ± std over splits."""
    parts = []
    for rule, d in df.groupby("gamma_rule", sort=False):
        rows = []
        for (ds, learner), c in d.groupby(["dataset", "learner"], sort=False):
            pe = pdim = "–"
            if paper is not None and not paper.empty:
                m = paper[(paper["dataset"] == ds) & (paper["method"] == learner)]
                if not m.empty:
                    pe, pdim = f"{float(m['value'].iloc[0]):.3f}", str(int(m["dim"].iloc[0]))
            rows.append(
                [
                    ds,
                    LABELS.get(learner, learner),
                    pe,
                    mean_std(c["E_train"]),
                    mean_std(c["E_test"]),
                    pdim,
                    mean_std(c["dim"], "{:.1f}"),
                ]
            )
        n = int(d["repeat"].nunique())
        parts.append(
            f"**RBF γ = {rule}** (resolved on each training split; {n} splits per dataset)\n\n"
            + md_table(["dataset", "learner", "paper E", "E train", "E test", "paper Dim", "Dim"], rows)
        )
    return "\n".join(parts)


def plot(df: pd.DataFrame, path: Path, paper: pd.DataFrame | None = None) -> list[Path]:
    """Bar chart of mean E (train hatched, test solid) per dataset and learner, paper values as markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = list(dict.fromkeys(df["gamma_rule"]))
    learners = [x for x in ("kobl", "kgs", "kpca", "kda") if x in set(df["learner"])]
    datasets = list(dict.fromkeys(df["dataset"]))
    fig, axes = plt.subplots(1, len(rules), figsize=(6 * len(rules), 4), squeeze=False)
    w = 0.8 / max(1, len(learners))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, rule in zip(axes[0], rules):
        d = df[df["gamma_rule"] == rule]
        for j, learner in enumerate(learners):
            m = d[d["learner"] == learner].groupby("dataset", sort=False)[["E_train", "E_test"]].mean()
            m = m.reindex(datasets)
            x = np.arange(len(datasets)) + (j - (len(learners) - 1) / 2) * w
            ax.bar(x, m["E_test"], w, color=colors[j], label=f"{LABELS[learner]} test")
            ax.bar(x, m["E_train"], w * 0.5, color="white", edgecolor=colors[j], hatch="//")
            if paper is not None and not paper.empty:
                pv = paper[paper["method"] == learner].set_index("dataset")["value"].reindex(datasets)
                ax.plot(x, pv, "k_", markersize=10, markeredgewidth=2)
        ax.set_xticks(np.arange(len(datasets)))
        ax.set_xticklabels(datasets, rotation=20, fontsize=7)
        ax.set_ylabel("reconstruction cost E(M)")
        ax.set_title(f"RBF γ = {rule}: bars = held-out E, hatched = training E, — = paper", fontsize=8)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "pdf"):
        p = path.with_suffix(f".{ext}")
        fig.savefig(p, dpi=110, bbox_inches="tight")
        out.append(p)
    plt.close(fig)
    return out


def run(config: str | Path, out: str | Path, jobs: int = 1, repeats: int | None = None) -> pd.DataFrame:
    """Run the Table 2 experiment of ``config``; write the outputs to ``out``; return the rows.

    Parameters
    ----------
    config : the script config (``configs/takes2011/table2_reconstruction.yaml``).
    out : output directory.
    jobs : parallel worker processes (splits are independent; each uses one BLAS thread).
    repeats : optional override of the config's repeats.
    """
    cfg = load_script_config(config, repeats=repeats)
    s = _settings(cfg)
    out = Path(out)
    rec = RunRecord(cfg, __name__, {"jobs": jobs, "repeats": repeats})
    keys = split_keys(cfg)
    chunks = Parallel(n_jobs=jobs)(delayed(run_split)(cfg, k) for k in keys)
    df = pd.DataFrame([r for c in chunks for r in c])
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "results.csv", index=False, float_format="%.10g")
    paper = None
    if s.get("paper_values"):
        paper = paper_cells(load_paper_values(s["paper_values"]), "table2")
    summarize(df, paper).to_csv(out / "summary.csv", index=False, float_format="%.6g")
    (out / "table2.md").write_text(
        "# Xu et al. 2011 Table 2 — reconstruction cost E(M) and Dim\n\n"
        "E = mean residual norm of φ(x) on the span of the basis (eq. 19), on the training split (E train) "
        "and on the held-out rest of the dataset (E test); mean ± std over splits.\n\n" + markdown(df, paper)
    )
    plot(df, out / "table2_E", paper)
    rec.finish(out, splits=len(keys), rows=len(df))
    return df


def main(argv: list[str] | None = None) -> None:
    """Command line: ``python -m fsbench.experiments.takes_table2 CONFIG --out DIR [--jobs N]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=None)
    a = ap.parse_args(argv)
    run(a.config, a.out, jobs=a.jobs, repeats=a.repeats)


if __name__ == "__main__":  # pragma: no cover
    main()
