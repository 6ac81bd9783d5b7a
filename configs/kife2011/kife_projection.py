"""Liu et al. 2011, Fig. 2: 2-D projections of Statlog (satimage) by GDA, MMI and KIFE, as scatter plots.

A diagnostic (``fsbench diagnose configs/<paper>/fig2_projection.yaml``, in the paper's folder), one task
per selector of the config and split (the ``fsbench run`` split of the same seed, dataset and ``n_train``;
the config draws one): each selector (a transformer) is fitted on the training split as in the Table II
experiments (experiment kernel inherited, seeded by the task) and both the training and the test points
are projected to 2-D. GDA shows its two leading discriminant directions (it has C−1 = 5); MMI and KIFE are
fitted with ``n_components = 2``. Each panel's title gives the 1-NN test accuracy in that 2-D space.

The paper draws its Fig. 2(c) with KIFE's *Algorithm 2* (a graph-Laplacian embedding whose parameters
σ¹, σ² are not given); fsbench implements Algorithm 1 (the gradient-ascent projection), which is what
is plotted here.

Settings
--------
class_names : list of display names by class index (sorted card labels; default: the paper's C1..C6
    names for satimage).
max_points : int or None, default None — subsample each set for plotting (None: all points).

Outputs: ``results.csv`` (one row per projected point: set, class, z1, z2, with the method's 1-NN
accuracy and fit time), and from it ``projection.png``/``.pdf`` (2 rows: training, test; one column per
method), ``projection_<label>.png`` per method (test points), ``accuracy.csv``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

from fsbench.config.experiment import Experiment
from fsbench.diagnostics.base import Diagnostic
from fsbench.evaluation.protocol import build_selector
from fsbench.results.tables import figure_metadata, save_figure

#: satimage's classes by index (labels 1, 2, 3, 4, 5, 7 sorted) in the paper's names
SATIMAGE_CLASSES = [
    "C1 red soil",
    "C2 cotton crop",
    "C3 grey soil",
    "C4 damp grey soil",
    "C5 vegetation stubble",
    "C6 very damp grey soil",
]


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower()


class KifeProjection(Diagnostic):
    """Liu et al. 2011 Fig. 2: every selector's 2-D projection of the training and test points."""

    name = "kife_projection"
    per_selector = True
    columns = ["set", "label", "z1", "z2", "accuracy_2d", "fit_cpu_s", "n_iter"]
    defaults: dict[str, Any] = {"class_names": SATIMAGE_CLASSES, "max_points": None}

    def run(self, task, data, rng) -> list[dict[str, Any]]:
        est = build_selector(task.selector, task.kernel, task.selector_seed)
        c0 = time.process_time()
        est.fit(data.X_tr, data.y_tr)
        cpu = time.process_time() - c0
        Z_tr = np.asarray(est.transform(data.X_tr))[:, :2]
        Z_te = np.asarray(est.transform(data.X_te))[:, :2]
        if Z_tr.shape[1] < 2:  # a 1-D projection (two classes): pad for plotting
            Z_tr = np.hstack([Z_tr, np.zeros((Z_tr.shape[0], 2 - Z_tr.shape[1]))])
            Z_te = np.hstack([Z_te, np.zeros((Z_te.shape[0], 2 - Z_te.shape[1]))])
        pred = KNeighborsClassifier(n_neighbors=1).fit(Z_tr, data.y_tr).predict(Z_te)
        common = {
            "accuracy_2d": float(np.mean(pred == data.y_te)),
            "fit_cpu_s": cpu,
            "n_iter": int(getattr(est, "n_iter_", 0) or 0),
        }
        rows = []
        for part, Z, y in (("train", Z_tr, data.y_tr), ("test", Z_te, data.y_te)):
            rows += [
                {"set": part, "label": int(c), "z1": float(a), "z2": float(b), **common}
                for c, a, b in zip(y, Z[:, 0], Z[:, 1])
            ]
        return rows

    def render(self, out: Path, exp: Experiment) -> list[Path]:
        df = self.ok_rows(out)
        if df.empty:
            return []
        s = self.settings(exp)
        coords = df.rename(columns={"selector": "method"})
        acc = (
            coords.groupby("method", sort=False)
            .agg(
                accuracy_2d=("accuracy_2d", "first"),
                fit_cpu_s=("fit_cpu_s", "first"),
                n_iter=("n_iter", "first"),
                dataset=("dataset", "first"),
                n_train=("n_train", "first"),
                n_test=("n_test", "first"),
                repeat=("repeat", "first"),
            )
            .reset_index()
        )
        acc.to_csv(out / "accuracy.csv", index=False, float_format="%.6g")
        names = {str(i): str(v) for i, v in enumerate(s["class_names"] or [])}
        first = df.iloc[0]
        title = (
            f"{first['dataset']}: {first['n_train']} training / {first['n_test']} test points, split "
            f"{first['repeat']} (seed {exp.seed}); Algorithm 1 of KIFE (the paper's Fig. 2c uses Algorithm 2)"
        )
        return [out / "accuracy.csv", *plot(coords, acc, out, title, names, s["max_points"], exp.seed)]


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
    # function-level: matplotlib loads only when a figure is drawn, not when tasks run
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
    written += save_figure(fig, out / "projection", dpi=110)
    for mth in methods:
        fig, ax = plt.subplots(figsize=(4.6, 4.2))
        scatter(ax, coords[(coords["method"] == mth) & (coords["set"] == "test")])
        ax.set_title(f"{mth} projection of the test points — 1-NN acc. {100 * accd[mth]:.1f} %", fontsize=8)
        ax.legend(fontsize=6, markerscale=3, loc="best")
        p = out / f"projection_{_slug(mth)}.png"
        fig.savefig(p, dpi=110, bbox_inches="tight", metadata=figure_metadata(p))
        plt.close(fig)
        written.append(p)
    return written
