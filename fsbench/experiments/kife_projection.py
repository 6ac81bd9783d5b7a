"""Liu et al. 2011, Fig. 2: 2-D projections of Statlog (satimage) by GDA, MMI and KIFE, as scatter plots.

One split of the config (``settings.repeat``; the ``fsbench run`` split of the same seed, dataset and
``n_train``): each method is fitted on the training split and both the training and the test points are
projected to 2-D. GDA shows its two leading discriminant directions (it has C−1 = 5); MMI and KIFE are
fitted with ``n_components = 2``. Each panel's title gives the 1-NN test accuracy in that 2-D space.

The paper draws its Fig. 2(c) with KIFE's *Algorithm 2* (a graph-Laplacian embedding whose parameters
σ¹, σ² are not given); fsbench implements Algorithm 1 (the gradient-ascent projection), which is what
is plotted here.

Settings
--------
repeat : int, default 0 — which split.
methods : mapping label -> {name: registry name, params: {...}}, default GDA, MMI (24 it.), KIFE (24 it.).
class_names : mapping card label -> display name (default: the paper's C1..C6 names for satimage).
max_points : int or None, default None — subsample each set for plotting (None: all points).

Outputs: ``projection.png``/``.pdf`` (2 rows: training, test; one column per method),
``projection_<label>.png`` per method (test points), ``projections.csv`` (coordinates), ``accuracy.csv``,
``run.json``.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from fsbench.algorithms.registry import get_selector
from fsbench.experiments.common import RunRecord, draw, load_script_config

SATIMAGE_CLASSES = {
    "1": "C1 red soil",
    "2": "C2 cotton crop",
    "3": "C3 grey soil",
    "4": "C4 damp grey soil",
    "5": "C5 vegetation stubble",
    "7": "C6 very damp grey soil",
}
DEFAULT_METHODS: dict[str, dict[str, Any]] = {
    "GDA": {"name": "gda", "params": {}},
    "MMI": {"name": "mmi", "params": {"n_components": 2, "max_iter": 24}},
    "KIFE": {"name": "kife", "params": {"n_components": 2, "max_iter": 24, "validation_fraction": None}},
}


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower()


def fit_projections(
    X_tr: np.ndarray, y_tr: np.ndarray, X_te: np.ndarray, y_te: np.ndarray, methods: dict[str, dict[str, Any]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit every method, project both sets to 2-D; return (coordinates, accuracy/time per method)."""
    coords, acc = [], []
    for label, spec in methods.items():
        est = get_selector(spec["name"], **dict(spec.get("params") or {}))
        c0 = time.process_time()
        est.fit(X_tr, y_tr)
        cpu = time.process_time() - c0
        Z_tr = np.asarray(est.transform(X_tr))[:, :2]
        Z_te = np.asarray(est.transform(X_te))[:, :2]
        if Z_tr.shape[1] < 2:  # a 1-D projection (two classes): pad for plotting
            Z_tr = np.hstack([Z_tr, np.zeros((Z_tr.shape[0], 2 - Z_tr.shape[1]))])
            Z_te = np.hstack([Z_te, np.zeros((Z_te.shape[0], 2 - Z_te.shape[1]))])
        pred = KNeighborsClassifier(n_neighbors=1).fit(Z_tr, y_tr).predict(Z_te)
        acc.append(
            {
                "method": label,
                "selector_name": spec["name"],
                "params": repr(spec.get("params") or {}),
                "accuracy_2d": float(np.mean(pred == y_te)),
                "fit_cpu_s": cpu,
                "n_iter": int(getattr(est, "n_iter_", 0) or 0),
            }
        )
        for part, Z, y in (("train", Z_tr, y_tr), ("test", Z_te, y_te)):
            coords.append(
                pd.DataFrame({"method": label, "set": part, "label": y, "z1": Z[:, 0], "z2": Z[:, 1]})
            )
    return pd.concat(coords, ignore_index=True), pd.DataFrame(acc)


def plot(
    coords: pd.DataFrame,
    acc: pd.DataFrame,
    out: Path,
    title: str,
    class_names: dict[str, str],
    max_points: int | None = None,
    seed: int = 0,
) -> list[Path]:
    """The grid figure (rows: train, test) and one test-set figure per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(coords["method"]))
    labels = sorted(coords["label"].astype(str).unique(), key=lambda s: (len(s), s))
    colors = plt.get_cmap("tab10")
    rng = np.random.default_rng(seed)
    accd = acc.set_index("method")["accuracy_2d"].to_dict()

    def scatter(ax, d: pd.DataFrame) -> None:
        if max_points is not None and len(d) > max_points:
            d = d.iloc[np.sort(rng.choice(len(d), max_points, replace=False))]
        for j, lab in enumerate(labels):
            m = d["label"].astype(str) == lab
            ax.scatter(
                d.loc[m, "z1"],
                d.loc[m, "z2"],
                s=4,
                alpha=0.6,
                color=colors(j % 10),
                label=class_names.get(lab, lab),
            )
        ax.set_xticks([])
        ax.set_yticks([])

    written: list[Path] = []
    fig, axes = plt.subplots(2, len(methods), figsize=(4.2 * len(methods), 8), squeeze=False)
    for c, mth in enumerate(methods):
        for r, part in enumerate(("train", "test")):
            ax = axes[r, c]
            scatter(ax, coords[(coords["method"] == mth) & (coords["set"] == part)])
            extra = f" — 1-NN test acc. {100 * accd[mth]:.1f} %" if part == "test" else ""
            ax.set_title(f"({chr(97 + c)}) {mth}, {part} points{extra}", fontsize=8)
    axes[0, 0].legend(fontsize=6, markerscale=3, loc="best")
    fig.suptitle(title, fontsize=9)
    out.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        p = out / f"projection.{ext}"
        fig.savefig(p, dpi=110, bbox_inches="tight")
        written.append(p)
    plt.close(fig)
    for mth in methods:
        fig, ax = plt.subplots(figsize=(4.6, 4.2))
        scatter(ax, coords[(coords["method"] == mth) & (coords["set"] == "test")])
        ax.set_title(f"{mth} projection of the test points — 1-NN acc. {100 * accd[mth]:.1f} %", fontsize=8)
        ax.legend(fontsize=6, markerscale=3, loc="best")
        p = out / f"projection_{_slug(mth)}.png"
        fig.savefig(p, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(p)
    return written


def run(config: str | Path, out: str | Path) -> pd.DataFrame:
    """Fit, project and plot the split of ``config``; return the accuracy/time table."""
    cfg = load_script_config(config)
    s = cfg.settings
    out = Path(out)
    rec = RunRecord(cfg, __name__)
    entry = cfg.experiment.datasets[0]
    n_train = entry.protocol.n_train[0]
    repeat = int(s.get("repeat", 0))
    methods = s.get("methods") or DEFAULT_METHODS
    with threadpool_limits(1):
        sp = draw(entry, cfg.experiment.seed, n_train, repeat)
        coords, acc = fit_projections(sp.X_train, sp.y_train, sp.X_test, sp.y_test, methods)
    out.mkdir(parents=True, exist_ok=True)
    coords.to_csv(out / "projections.csv", index=False, float_format="%.6g")
    acc.assign(dataset=sp.dataset, n_train=n_train, n_test=int(sp.y_test.size), repeat=repeat).to_csv(
        out / "accuracy.csv", index=False, float_format="%.6g"
    )
    names = {str(k): str(v) for k, v in (s.get("class_names") or SATIMAGE_CLASSES).items()}
    title = (
        f"{sp.dataset}: {n_train} training / {sp.y_test.size} test points, split {repeat} "
        f"(seed {cfg.experiment.seed}); Algorithm 1 of KIFE (the paper's Fig. 2c uses Algorithm 2)"
    )
    plot(coords, acc, out, title, names, s.get("max_points"), cfg.experiment.seed)
    rec.finish(out, split_seed=sp.split_seed)
    return acc


def main(argv: list[str] | None = None) -> None:
    """Command line: ``python -m fsbench.experiments.kife_projection CONFIG --out DIR``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    run(a.config, a.out)


if __name__ == "__main__":  # pragma: no cover
    main()
