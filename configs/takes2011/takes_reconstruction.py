r"""Xu et al. 2011, Table 2: reconstruction cost E(M) and dimension of each kernel-space basis learner.

A diagnostic (``fsbench diagnose configs/<paper>/table2_reconstruction.yaml``, in the paper's folder). For
every split of the config (the ``fsbench run`` splits of the same seed, dataset, ``n_train`` and repeat —
those of the Figs. 2–3 experiments) and every RBF width in ``settings.gammas`` (resolved on the training
split, e.g. ``median``, ``median/4``), fit on the training split

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
Table 2), with the fit time. For the KDA learners (a non-orthonormal basis) also eq. (19)'s second line
taken literally, :math:`\lVert\phi - \sum_j\langle v_j,\phi\rangle v_j\rVert`
(``E_train_eq19b``, ``E_test_eq19b``; equal to E for the orthonormal bases, left empty there).

Settings (``settings:`` of the config)
-------------------------------------
gammas : list of str or float, default ["median", "median/4"]
    RBF widths (:func:`fsbench.algorithms.kernels.parse_gamma`); the first is the main setting. The name
    ``"kobl_dim"`` is the conditional reading of the width: on each training split, the smallest γ at which
    KOBL's Dim reaches ``calibrate_dim[dataset]``
    (:func:`~fsbench.algorithms.kernel_space.kobl_gamma_for_dim`), i.e. γ calibrated on Table 2's KOBL Dim
    column only, so that the *other* columns (E of KOBL, KGS, KPCA, KDA) can be tested at it.
calibrate_dim : mapping dataset -> int, default {}
    The Dim targets of ``"kobl_dim"`` (required for every dataset of the config when it is used).
f : str, default "linear"
    KOBL's threshold function.
learners : list of str, default all five above.
paper_values : str or None
    The paper folder's ``configs/<paper>/paper_values.yaml``, relative to the config file's directory's
    parent's parent (the repository) or absolute; its Table 2 cells are shown beside ours.

Outputs: ``results.csv`` (one row per split × width × learner), and from it ``summary.csv``, ``table2.md``
(mean ± std beside the paper's values) and ``table2_E.png``/``.pdf``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fsbench.algorithms.discriminant import KDA
from fsbench.algorithms.kernel_space import KGS, KOBL, KPCA, kobl_gamma_for_dim
from fsbench.algorithms.kernels import parse_gamma, resolve_gamma
from fsbench.config.experiment import ConfigError, Experiment
from fsbench.diagnostics.base import Diagnostic
from fsbench.results.paper_values import mean_std, paper_cells, read_paper_values
from fsbench.results.tables import md_table, save_figure

LEARNERS = ("kobl", "kgs", "kpca", "kda", "kda_discriminant")
#: The ``gammas`` entry of the width calibrated on KOBL's Dim (``settings.calibrate_dim``).
CALIBRATED = "kobl_dim"
LABELS = {"kobl": "KOBL", "kgs": "KGS", "kpca": "KPCA", "kda": "KDA", "kda_discriminant": "KDA (C−1 dirs)"}


def _fit_learner(name: str, gamma: float, f: str, X: np.ndarray, y: np.ndarray):
    kw = {"kernel": "rbf", "gamma": gamma}
    if name == "kobl":
        return KOBL(**kw, f=f).fit(X)
    if name == "kgs":
        return KGS(**kw).fit(X)
    if name == "kpca":
        return KPCA(**kw).fit(X)
    return KDA(**kw, f=f, complete=(name == "kda")).fit(X, y)


class TakesReconstruction(Diagnostic):
    """Xu et al. 2011 Table 2: E(M) and Dim of KOBL, KGS, KPCA and KDA on every split."""

    name = "takes_reconstruction"
    columns = [
        "gamma_rule",
        "gamma",
        "learner",
        "dim",
        "E_train",
        "E_test",
        "fit_cpu_s",
        "fit_wall_s",
        "kobl_bound",
        "stop",
        "dim_requested",
        "E_train_eq19b",
        "E_test_eq19b",
    ]
    defaults: dict[str, Any] = {
        "gammas": ["median", "median/4"],
        "f": "linear",
        "learners": list(LEARNERS),
        "paper_values": None,
        "calibrate_dim": {},
    }

    def check(self, exp: Experiment) -> None:
        s = self.settings(exp)
        bad = sorted(set(s["learners"]) - set(LEARNERS))
        if bad:
            raise ConfigError(
                exp.source, "settings.learners", f"unknown {bad}; expected some of {list(LEARNERS)}"
            )
        for i, g in enumerate(s["gammas"]):
            if g == CALIBRATED:
                targets = s["calibrate_dim"] if isinstance(s["calibrate_dim"], dict) else {}
                missing = sorted({d.label for d in exp.datasets} - set(targets))
                if missing:
                    raise ConfigError(
                        exp.source,
                        "settings.calibrate_dim",
                        f"gamma {CALIBRATED!r} needs a Dim target for {missing}",
                    )
                continue
            try:
                parse_gamma(g)
            except ValueError as exc:
                raise ConfigError(exp.source, f"settings.gammas[{i}]", str(exc)) from None

    def run(self, task, data, rng) -> list[dict[str, Any]]:
        s = {**self.defaults, **task.settings}
        rows = []
        for spec in s["gammas"]:
            if spec == CALIBRATED:
                g = kobl_gamma_for_dim(data.X_tr, int(s["calibrate_dim"][task.dataset]), s["f"])
            else:
                g = resolve_gamma(spec, data.X_tr)
            for name in s["learners"]:
                c0, w0 = time.process_time(), time.perf_counter()
                est = _fit_learner(name, g, s["f"], data.X_tr, data.y_tr)
                cpu, wall = time.process_time() - c0, time.perf_counter() - w0
                row = {
                    "gamma_rule": str(spec),
                    "gamma": g,
                    "learner": name,
                    "dim": int(est.n_components_),
                    "E_train": float(est.reconstruction_cost()),
                    "E_test": float(est.reconstruction_cost(data.X_te)),
                    "fit_cpu_s": cpu,
                    "fit_wall_s": wall,
                }
                if name == "kobl":
                    row["kobl_bound"] = float(est.r_[0] * est.threshold_) if est.r_.size else float("nan")
                    row["stop"] = est.stop_reason_
                if name.startswith("kda"):
                    row["dim_requested"] = int(est.n_components_requested_)
                    row["E_train_eq19b"] = float(est.reconstruction_cost(formula="expansion"))
                    row["E_test_eq19b"] = float(est.reconstruction_cost(data.X_te, formula="expansion"))
                rows.append(row)
        return rows

    def render(self, out: Path, exp: Experiment) -> list[Path]:
        df = self.ok_rows(out)
        if df.empty:
            return []
        s = self.settings(exp)
        paper = None
        if s.get("paper_values"):
            pv_path = Path(s["paper_values"])
            if not pv_path.is_absolute():
                pv_path = Path(exp.source).resolve().parent / pv_path
            paper = paper_cells(read_paper_values(pv_path), "table2")
        summarize(df, paper).to_csv(out / "summary.csv", index=False, float_format="%.6g")
        (out / "table2.md").write_text(
            "# Xu et al. 2011 Table 2 — reconstruction cost E(M) and Dim\n\n"
            "E = mean residual norm of φ(x) on the span of the basis (eq. 19), on the training split "
            "(E train) and on the held-out rest of the dataset (E test); mean ± std over splits.\n\n"
            + markdown(df, paper)
        )
        return [out / "summary.csv", out / "table2.md", *plot(df, out / "table2_E", paper)]


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
    # function-level: matplotlib loads only when a figure is drawn, not when tasks run
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
    return save_figure(fig, path, dpi=110)
