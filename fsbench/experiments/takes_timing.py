r"""Fit time of the kernel-space learners against the training-set size N (Xu et al. 2011 Table 1, §3.1.3).

The paper states complexities only: KOBL and TAKES :math:`O(N^2 d)` (d = number of basis vectors),
KGS :math:`O(N^3)`, KPCA :math:`O(N^3 + N^2 d)`, FSKGS :math:`O(N^3)`, FSKPCA :math:`O(N^3 + N^2d)`,
KDA :math:`O(N^3)`. For every N of the config's ``n_train`` list and every repeat (``fsbench run`` splits),
each learner is fitted on the z-scored training split with one BLAS thread, timing CPU
(``time.process_time``) and wall clock; the learnt dimension is recorded. The log-log slope of the
median CPU time against N over ``settings.slope_from`` ≤ N is the empirical exponent.

Settings
--------
gamma : str or float, default "median/4"
learners : list, default ["kobl", "takes", "kgs", "kpca", "kda", "fskgs", "fskpca"]
slope_from : int, default 1000 — smallest N of the slope fit.
f : str, default "linear" (KOBL threshold).

Outputs: ``results.csv`` (one row per N × repeat × learner), ``timing.md`` / ``timing.csv`` (median CPU
time per N and learner, slopes), ``timing.png`` (log-log, with N² and N³ guides), ``run.json``.
Run it serially (``--jobs 1``, the default): parallel workers would share the cores and distort the times.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from fsbench.algorithms import discriminant, kernel_space
from fsbench.experiments.common import RunRecord, ScriptConfig, draw, load_script_config, md_table, split_keys
from fsbench.experiments.scaled_gamma import resolve_scaled_gamma

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
DEFAULTS: dict[str, Any] = {
    "gamma": "median/4",
    "learners": list(LEARNERS),
    "slope_from": 1000,
    "f": "linear",
}


def _settings(cfg: ScriptConfig) -> dict[str, Any]:
    s = {**DEFAULTS, **cfg.settings}
    bad = sorted(set(s["learners"]) - set(LEARNERS))
    if bad:
        raise ValueError(f"settings.learners: unknown {bad}; expected some of {list(LEARNERS)}")
    return s


def make_learner(name: str, gamma: float, f: str = "linear"):
    """The estimator timed for ``name`` (RBF with the numeric ``gamma``)."""
    kw = {"kernel": "rbf", "gamma": gamma}
    return {
        "kobl": lambda: kernel_space.KOBL(**kw, f=f),
        "takes": lambda: kernel_space.TAKES(**kw, f=f),
        "kgs": lambda: kernel_space.KGS(**kw),
        "kpca": lambda: kernel_space.KPCA(**kw),
        "kda": lambda: discriminant.KDA(**kw, f=f, complete=True),
        "fskgs": lambda: kernel_space.FSKGS(**kw),
        "fskpca": lambda: kernel_space.FSKPCA(**kw),
    }[name]()


def time_split(cfg: ScriptConfig, key: tuple[int, int, int]) -> list[dict[str, Any]]:
    """Time every learner on one split."""
    s = _settings(cfg)
    i, n_train, repeat = key
    entry = cfg.experiment.datasets[i]
    rows = []
    with threadpool_limits(1):
        sp = draw(entry, cfg.experiment.seed, n_train, repeat)
        g = resolve_scaled_gamma(s["gamma"], sp.X_train)
        for name in s["learners"]:
            est = make_learner(name, g, s["f"])
            c0, w0 = time.process_time(), time.perf_counter()
            est.fit(sp.X_train, sp.y_train)
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            basis = getattr(est, "basis_", None)
            rows.append(
                {
                    "experiment": cfg.name,
                    "dataset": sp.dataset,
                    "n_train": n_train,
                    "n_features_in": int(sp.X_train.shape[1]),
                    "repeat": repeat,
                    "split_seed": sp.split_seed,
                    "gamma_rule": str(s["gamma"]),
                    "gamma": g,
                    "learner": name,
                    "dim": int(est.n_components_),
                    "basis_dim": int(basis.n_components_) if basis is not None else int(est.n_components_),
                    "fit_cpu_s": cpu,
                    "fit_wall_s": wall,
                }
            )
    return rows


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
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "pdf"):
        p = path.with_suffix(f".{ext}")
        fig.savefig(p, dpi=110, bbox_inches="tight")
        out.append(p)
    plt.close(fig)
    return out


def run(config: str | Path, out: str | Path, repeats: int | None = None) -> pd.DataFrame:
    """Run the timing experiment of ``config`` serially; write the outputs to ``out``; return the rows."""
    cfg = load_script_config(config, repeats=repeats)
    s = _settings(cfg)
    out = Path(out)
    rec = RunRecord(cfg, __name__, {"repeats": repeats})
    rows = []
    for key in split_keys(cfg):
        rows += time_split(cfg, key)
    df = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "results.csv", index=False, float_format="%.6g")
    med, md = table(df, int(s["slope_from"]))
    med.to_csv(out / "timing.csv", index=False, float_format="%.6g")
    (out / "timing.md").write_text(
        f"# Fit CPU time vs N — {df['dataset'].iloc[0]}, RBF γ = {s['gamma']}\n\n"
        "Median `time.process_time` (s) over repeats, one BLAS thread; in brackets the dimension of the "
        "basis (KOBL's Dim for KOBL, TAKES's basis and KDA). `paper` = Xu et al. Table 1 / §3.1.3.\n\n" + md
    )
    plot(df, out / "timing")
    rec.finish(out, rows=len(df))
    return df


def main(argv: list[str] | None = None) -> None:
    """Command line: ``python -m fsbench.experiments.takes_timing CONFIG --out DIR [--repeats N]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=None)
    a = ap.parse_args(argv)
    run(a.config, a.out, repeats=a.repeats)


if __name__ == "__main__":  # pragma: no cover
    main()
