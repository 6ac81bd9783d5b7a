r"""Ring & Eskofier 2015: branch-and-bound in RKHS versus Gaussian B&B criteria and the exhaustive wrapper.

Two parts (the paper's experiment section is not in our copy; ALGORITHMS.md §9.3 is a proposed default [D]):

``fig1``
    The synthetic problem of Fig. 1 (card ``ring_fig1``: (x1, x2) disk vs annulus, separable only
    non-linearly; (x3, x4) overlapping shifted Gaussians). For ``draws`` training sets of ``n_train``
    points (z-scored with the training statistics) and every criterion of ``criteria``: the criterion
    value of {x1, x2} and of {x3, x4}, and the pair chosen by B&B (d = 2, Chen search; exhaustive for the
    criteria that are not guaranteed monotone). Also the test accuracy (``n_test`` fresh points) of an
    RBF SVM on each pair.
``uci``
    Two-class UCI sets. Per dataset, subset size d and split (stratified, ``train_fraction`` train / rest
    test, :func:`fsbench.protocol._stratified_take` with ``derive_seed(seed, "split", dataset, split)``,
    z-scored with the training statistics): B&B (Chen) with each RKHS criterion (polynomial kernel
    (1 + x·z)³, r = 3) and the exhaustive wrapper
    (:class:`~fsbench.algorithms.branch_bound.ExhaustiveWrapper`:
    RBF SVM, γ = 1/(2d), C = 1, 10-fold CV accuracy). Recorded: the chosen subset, wall time, criterion
    evaluations, and the test accuracy of an RBF SVM (γ = 1/(2d), C = 1) trained on the training part
    restricted to the subset; plus the all-features SVM as a reference.

Usage::

    python -m fsbench.experiments.ring2015 configs/ring2015/ring2015.yaml --out results/ring2015 \
        [--part fig1|uci] [--datasets pima ...] [--jobs N]   # resumable (one JSON per task under tasks/)
    python -m fsbench.experiments.ring2015 configs/ring2015/ring2015.yaml --out results/ring2015 --report

Outputs: ``fig1.csv``, ``fig1_summary.csv``, ``plots/fig1_data.png``; ``uci.csv`` (one row per dataset ×
d × split × method), ``uci_summary.csv``, ``plots/uci_accuracy.png``, ``plots/uci_runtime.png``;
``run.json``; ``REPORT.md`` (generated tables; the discussion is in ``REPORT_notes.md`` if present).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from sklearn.svm import SVC

from fsbench.algorithms.branch_bound import BranchAndBound, ExhaustiveWrapper, NonMonotoneCriterionWarning
from fsbench.algorithms.kernels import make_kernel
from fsbench.algorithms.rkhs_criteria import is_monotone
from fsbench.data import open_dataset
from fsbench.experiments.common import run_task_files
from fsbench.protocol import _stratified_take, derive_seed, standardize
from fsbench.runner import git_commit, package_versions

FIG1_CRITERIA = ("mean_distance", "bhattacharyya", "kl", "gaussian_bhattacharyya", "gaussian_kl")


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a Ring 2015 script config (``name``, ``seed``, ``notes``, ``settings.fig1``, ``settings.uci``)."""
    cfg = yaml.safe_load(Path(path).read_text())
    if not isinstance(cfg, dict) or "settings" not in cfg:
        raise ValueError(f"{path}: expected a mapping with a 'settings' key")
    cfg.setdefault("name", Path(path).stem)
    return load_config_dict(cfg)


def load_config_dict(cfg: dict[str, Any]) -> dict[str, Any]:
    """Fill in the defaults of a Ring 2015 config mapping (see :func:`load_config`)."""
    cfg.setdefault("seed", 2015)
    cfg.setdefault("name", "ring2015")
    f = cfg["settings"].setdefault("fig1", {})
    f.setdefault("draws", 20)
    f.setdefault("n_train", 200)
    f.setdefault("n_test", 1000)
    f.setdefault("criteria", list(FIG1_CRITERIA))
    u = cfg["settings"].setdefault("uci", {})
    u.setdefault("splits", 3)
    u.setdefault("train_fraction", 0.7)
    u.setdefault("criteria", ["mean_distance", "bhattacharyya", "kl"])
    u.setdefault("cv", 10)
    u.setdefault("datasets", [])
    return cfg


def svm_accuracy(X_tr: np.ndarray, y_tr: np.ndarray, X_te: np.ndarray, y_te: np.ndarray) -> float:
    """Test accuracy of an RBF SVM, γ = 1/(2·#features), C = 1 ([D], the wrapper's classifier)."""
    kern = make_kernel("rbf", gamma="n_features").resolved(X_tr)
    svc = SVC(kernel="precomputed", C=1.0).fit(kern.gram(X_tr), y_tr)
    return float(np.mean(svc.predict(kern.gram(X_te, X_tr)) == y_te))


def _bnb(criterion: str, d: int, X: np.ndarray, y: np.ndarray) -> BranchAndBound:
    search = "chen" if is_monotone(criterion, "poly", 3, 1.0) else "exhaustive"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonMonotoneCriterionWarning)
        return BranchAndBound(
            d=d, criterion=criterion, kernel="poly", degree=3, offset=1.0, search=search
        ).fit(X, y)


# ------------------------------------------------------------------------------------------ fig 1
def run_fig1_draw(cfg: dict[str, Any], draw: int) -> list[dict[str, Any]]:
    """One training/test draw of the Fig. 1 problem: criterion values and the B&B choice per criterion."""
    f = cfg["settings"]["fig1"]
    ds = open_dataset("ring_fig1")
    rng = np.random.default_rng(derive_seed(cfg["seed"], "fig1", draw))
    X_tr, y_tr = ds.sample(int(f["n_train"]), rng)
    X_te, y_te = ds.sample(int(f["n_test"]), rng)
    X_tr, X_te = standardize(X_tr, X_te)
    acc12 = svm_accuracy(X_tr[:, :2], y_tr, X_te[:, :2], y_te)
    acc34 = svm_accuracy(X_tr[:, 2:], y_tr, X_te[:, 2:], y_te)
    rows = []
    for crit in f["criteria"]:
        b = _bnb(crit, 2, X_tr, y_tr)
        J = b.criterion_function(X_tr, np.unique(y_tr, return_inverse=True)[1])
        rows.append(
            {
                "draw": draw,
                "criterion": crit,
                "search": "chen" if is_monotone(crit, "poly", 3, 1.0) else "exhaustive",
                "J_x1x2": float(J(np.array([0, 1]))),
                "J_x3x4": float(J(np.array([2, 3]))),
                "chosen": "x" + ",x".join(str(i + 1) for i in b.subset_),
                "picks_x1x2": bool(list(b.subset_) == [0, 1]),
                "n_evaluations": int(b.n_evaluations_),
                "acc_chosen": acc12
                if list(b.subset_) == [0, 1]
                else (
                    acc34
                    if list(b.subset_) == [2, 3]
                    else svm_accuracy(X_tr[:, b.subset_], y_tr, X_te[:, b.subset_], y_te)
                ),
                "acc_x1x2": acc12,
                "acc_x3x4": acc34,
            }
        )
    return rows


# ------------------------------------------------------------------------------------------ UCI
def run_uci_task(cfg: dict[str, Any], dataset: str, d: int, split: int) -> list[dict[str, Any]]:
    """B&B (every criterion) and the exhaustive wrapper on one split of one dataset at subset size d."""
    u = cfg["settings"]["uci"]
    ds = open_dataset(dataset)
    X = np.array(ds.X, dtype=float)
    _, y = np.unique(ds.y, return_inverse=True)
    rng = np.random.default_rng(derive_seed(cfg["seed"], "split", dataset, split))
    idx = np.arange(y.size)
    tr = np.sort(_stratified_take(y, idx, int(round(u["train_fraction"] * y.size)), rng))
    te = np.setdiff1d(idx, tr)
    X_tr, X_te = standardize(X[tr], X[te])
    y_tr, y_te = y[tr], y[te]
    D = X.shape[1]
    base = {"dataset": dataset, "D": D, "d": d, "split": split, "n_train": tr.size, "n_test": te.size}
    rows = []
    methods: list[tuple[str, Any]] = [(f"bnb_{c}", c) for c in u["criteria"]] + [("wrapper", None)]
    for label, crit in methods:
        t0 = time.perf_counter()
        if crit is None:
            est = ExhaustiveWrapper(
                d=d,
                kernel="rbf",
                gamma="n_features",
                C=1.0,
                cv=int(u["cv"]),
                random_state=derive_seed(cfg["seed"], "cv", dataset, split),
            ).fit(X_tr, y_tr)
            search = "exhaustive"
        else:
            est = _bnb(crit, d, X_tr, y_tr)
            search = "chen" if is_monotone(crit, "poly", 3, 1.0) else "exhaustive"
        wall = time.perf_counter() - t0
        sub = np.asarray(est.subset_)
        rows.append(
            {
                **base,
                "method": label,
                "search": search,
                "subset": " ".join(map(str, sub.tolist())),
                "wall_s": wall,
                "n_evaluations": int(est.n_evaluations_),
                "n_subsets": comb(D, d),
                "accuracy": svm_accuracy(X_tr[:, sub], y_tr, X_te[:, sub], y_te),
            }
        )
    rows.append(
        {
            **base,
            "method": "all_features",
            "search": "",
            "subset": "",
            "wall_s": 0.0,
            "n_evaluations": 0,
            "n_subsets": comb(D, d),
            "accuracy": svm_accuracy(X_tr, y_tr, X_te, y_te),
        }
    )
    return rows


# ------------------------------------------------------------------------------------------ driver
def run(cfg: dict[str, Any], out: Path, part: str | None, datasets: list[str] | None, jobs: int = 1) -> None:
    """Run (resume) the Fig. 1 draws and/or the UCI tasks; one JSON per finished task under ``out/tasks``.

    A UCI dataset entry may set its own ``splits`` (fewer for the sets whose wrapper is expensive).
    """
    s = cfg["settings"]
    pending = []
    if part in (None, "fig1"):
        for r in range(int(s["fig1"]["draws"])):
            pending.append((out / "tasks" / "fig1" / f"draw{r:03d}.json", run_fig1_draw, (cfg, r)))
    if part in (None, "uci"):
        for entry in s["uci"]["datasets"]:
            name = entry["name"]
            if datasets and name not in datasets:
                continue
            for d in entry["d"]:
                for sp in range(int(entry.get("splits", s["uci"]["splits"]))):
                    p = out / "tasks" / "uci" / f"{name}__d{d}__s{sp:03d}.json"
                    pending.append((p, run_uci_task, (cfg, name, int(d), sp)))
    # the most expensive tasks first, so the last worker is not left alone with a big one
    shapes = {
        name: open_dataset(name).X.shape for name in {a[1] for _, fn, a in pending if fn is run_uci_task}
    }
    pending.sort(
        key=lambda t: -(comb(shapes[t[2][1]][1], t[2][2]) * shapes[t[2][1]][0] if t[1] is run_uci_task else 0)
    )
    t0 = time.perf_counter()
    n = run_task_files(pending, jobs)
    print(f"{n} task(s) run, {len(pending) - n} already done, {time.perf_counter() - t0:.1f} s", flush=True)


def _read(out: Path, part: str) -> pd.DataFrame:
    rows = []
    for p in sorted((out / "tasks" / part).glob("*.json")):
        rows += json.loads(p.read_text())
    return pd.DataFrame(rows)


def _plots(fig1: pd.DataFrame, uci: pd.DataFrame, cfg: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / "plots").mkdir(parents=True, exist_ok=True)
    ds = open_dataset("ring_fig1")
    X, y = ds.sample(300, np.random.default_rng(derive_seed(cfg["seed"], "fig1", 0)))
    fig, ax = plt.subplots(1, 2, figsize=(8, 3.8))
    for a, (i, j) in zip(ax, [(0, 1), (2, 3)], strict=True):
        for c, m in [(-1, "o"), (1, "s")]:
            a.scatter(X[y == c, i], X[y == c, j], s=10, marker=m, alpha=0.6, label=f"class {c:+d}")
        a.set_xlabel(f"x{i + 1}")
        a.set_ylabel(f"x{j + 1}")
    ax[0].legend(fontsize=8)
    fig.suptitle("ring_fig1 (our Fig. 1 problem)")
    fig.tight_layout()
    fig.savefig(out / "plots" / "fig1_data.png", dpi=110)
    plt.close(fig)
    if uci.empty:
        return
    m = uci.groupby(["dataset", "d", "method"])[["accuracy", "wall_s"]].mean().reset_index()
    for value, fname, ylab in [
        ("accuracy", "uci_accuracy.png", "test accuracy"),
        ("wall_s", "uci_runtime.png", "selection wall time (s)"),
    ]:
        names = list(dict.fromkeys(m["dataset"]))
        fig, axes = plt.subplots(1, len(names), figsize=(2.6 * len(names), 3.4), squeeze=False)
        for a, name in zip(axes[0], names, strict=True):
            g = m[m["dataset"] == name]
            for meth, h in g.groupby("method", sort=False):
                if value == "wall_s" and meth == "all_features":
                    continue
                a.plot(h["d"], h[value], marker="o", ms=4, label=meth)
            a.set_title(name, fontsize=9)
            a.set_xlabel("d")
            if value == "wall_s":
                a.set_yscale("log")
        axes[0][0].set_ylabel(ylab)
        axes[0][-1].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(out / "plots" / fname, dpi=110)
        plt.close(fig)


def report(cfg: dict[str, Any], out: Path) -> None:
    """CSVs, plots and REPORT.md from the finished task files."""
    fig1 = _read(out, "fig1")
    uci = _read(out, "uci")
    lines = [f"# Ring & Eskofier 2015 — {cfg['name']} (generated tables)", ""]
    if cfg.get("notes"):
        lines += [str(cfg["notes"]).strip(), ""]
    if not fig1.empty:
        fig1.to_csv(out / "fig1.csv", index=False)
        fs = (
            fig1.groupby(["criterion", "search"], sort=False)
            .agg(
                draws=("draw", "size"),
                picks_x1x2=("picks_x1x2", "sum"),
                J_x1x2=("J_x1x2", "mean"),
                J_x3x4=("J_x3x4", "mean"),
                acc_chosen=("acc_chosen", "mean"),
                evals=("n_evaluations", "mean"),
            )
            .reset_index()
        )
        fs.to_csv(out / "fig1_summary.csv", index=False)
        lines += [
            "## Fig. 1 problem (ring_fig1): which pair does B&B choose (d = 2)?",
            "",
            f"RBF-SVM test accuracy on {{x1,x2}}: {fig1['acc_x1x2'].mean():.3f}, on {{x3,x4}}: "
            f"{fig1['acc_x3x4'].mean():.3f} (mean over draws).",
            "",
            "| criterion | search | draws | picks {x1,x2} | mean J{x1,x2} | mean J{x3,x4} "
            "| acc. of chosen pair |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in fs.itertuples():
            lines.append(
                f"| {r.criterion} | {r.search} | {r.draws} | {int(r.picks_x1x2)} | {r.J_x1x2:.4g} | "
                f"{r.J_x3x4:.4g} | {r.acc_chosen:.3f} |"
            )
        lines.append("")
    if not uci.empty:
        uci.to_csv(out / "uci.csv", index=False)
        us = (
            uci.groupby(["dataset", "D", "d", "method"], sort=False)
            .agg(
                splits=("split", "size"),
                accuracy=("accuracy", "mean"),
                accuracy_sd=("accuracy", "std"),
                wall_s=("wall_s", "mean"),
                n_evaluations=("n_evaluations", "mean"),
                n_subsets=("n_subsets", "first"),
            )
            .reset_index()
        )
        us.to_csv(out / "uci_summary.csv", index=False)
        lines += [
            "## UCI: test accuracy, selection time and criterion evaluations (mean over splits)",
            "",
            "| dataset | D | d | method | splits | test acc. | wall s | evaluations | C(D,d) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in us.itertuples():
            sd = "" if r.accuracy_sd != r.accuracy_sd else f" ± {r.accuracy_sd:.3f}"
            lines.append(
                f"| {r.dataset} | {r.D} | {r.d} | {r.method} | {r.splits} | {r.accuracy:.3f}{sd} | "
                f"{r.wall_s:.2f} | {r.n_evaluations:.0f} | {r.n_subsets} |"
            )
        sp = uci.pivot_table(index=["dataset", "d", "split"], columns="method", values="wall_s")
        if "wrapper" in sp:
            lines += [
                "",
                "Speed-up of B&B over the exhaustive wrapper (geometric mean of wall-time ratios):",
                "",
            ]
            for c in sp.columns:
                if c.startswith("bnb_"):
                    ratio = np.exp(np.mean(np.log(sp["wrapper"] / sp[c])))
                    lines.append(f"- {c}: {ratio:.1f}×")
        lines.append("")
    _plots(fig1, uci, cfg, out)
    notes = out / "REPORT_notes.md"
    if notes.exists():
        lines += [notes.read_text()]
    (out / "REPORT.md").write_text("\n".join(lines) + "\n")
    meta = {
        "config": cfg,
        "git_commit": git_commit(),
        "packages": package_versions(),
        "written": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    (out / "run.json").write_text(json.dumps(meta, indent=1, default=str))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", default="results/ring2015")
    ap.add_argument("--part", choices=["fig1", "uci"], default=None)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (one BLAS thread each)")
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--report", action="store_true", help="only aggregate the finished tasks")
    a = ap.parse_args(argv)
    cfg = load_config(a.config)
    out = Path(a.out)
    if not a.report:
        run(cfg, out, a.part, a.datasets, a.jobs)
    report(cfg, out)


if __name__ == "__main__":
    main()
