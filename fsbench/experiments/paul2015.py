r"""Paul, D'Ambrosio & Dupont 2015: RFE on the clinical kernel for mixed-type (clinical) data.

Why a script and not ``fsbench run``: the standard protocol z-scores X and trains an SVC on the top-S
*input* features, which is wrong for mixed data (categorical codes, NaN for missing values). Here every
selector sees the raw training table (NaN kept, the dataset card's ``categorical`` mask passed to the
selectors that take one), and the final classifier is an SVM on the **clinical kernel** restricted to
the top-k features (:class:`fsbench.algorithms.clinical_kernel.ClinicalKernel`: ranges from the training
part, test values clipped, ``k_f = 0`` for a missing value).

Protocol (ALGORITHMS.md §8.5 is a proposed default [D]; the paper's experiment section is not in our copy)

* ``resamples`` stratified random splits, ``train_fraction`` (0.9) train / rest test
  (:func:`fsbench.protocol._stratified_take`, seed ``derive_seed(seed, "split", dataset, resample)`` —
  independent of the selector, so every selector sees the same splits);
* every selector is fitted on the training part → complete ranking;
* for k in ``ks`` (``"all"`` = D): ``SVC(kernel="precomputed", C=C)`` on the clinical kernel of the top-k
  features, balanced classification rate (BCR = mean per-class recall) on the test part. The ``all``
  selector (no selection) is evaluated at k = D only;
* stability: the Kuncheva (2007) index of the top-k sets, averaged over all pairs of resamples,
  :math:`KI = (rD - k^2)/(k(D - k))` with r = |A ∩ B| (undefined for k = D).

Config (YAML): ``name``, ``paper``, ``seed``, ``notes`` and ``settings`` with ``datasets`` (card names,
optionally ``{name, positive}`` mappings to binarise a multiclass card: ``positive`` = the label of
class 1, all other labels class 0), ``resamples``, ``train_fraction``, ``ks``, ``C`` and
``class_weight`` of the final SVM
(default 1 and ``"balanced"`` [D]: with C = 1 and no weights the SVM predicts the majority class of
hepatitis/german almost always — all-features BCR 0.62/0.63 vs 0.77/0.73 weighted, 10 splits), ``selectors``
(``{name, label, params}``; ``categorical`` and ``random_state`` are filled in when the selector has
them).

Usage::

    python -m fsbench.experiments.paul2015 configs/paul2015/paul2015.yaml --out results/paul2015 \
        [--datasets hepatitis cleve_mod] [--resamples N]      # run (resumable, one file per split)
    python -m fsbench.experiments.paul2015 configs/paul2015/paul2015.yaml --out results/paul2015 --report

Outputs in ``--out``: ``tasks/<dataset>__r<NN>.json`` (one per split, resumable, git-ignored),
``results.csv`` (one row per dataset × resample × selector × k), ``rankings.csv``, ``fits.csv``
(fit times, missing values), ``summary.csv`` (mean/std BCR per k), ``stability.csv`` (Kuncheva per k),
``plots/bcr_vs_k.png``, ``plots/kuncheva_vs_k.png``, ``run.json``, ``REPORT.md``.
"""

from __future__ import annotations

import argparse
import json
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from sklearn.svm import SVC

from fsbench.algorithms.clinical_kernel import ClinicalKernel
from fsbench.algorithms.registry import resolve
from fsbench.data import open_dataset
from fsbench.experiments.common import run_task_files
from fsbench.protocol import _stratified_take, derive_seed
from fsbench.runner import git_commit, package_versions

DEFAULT_KS: list[Any] = [1, 2, 3, 5, 10, 20, "all"]


# ------------------------------------------------------------------------------------------ config
def load_config(path: str | Path) -> dict[str, Any]:
    """Read a Paul 2015 script config and fill in the defaults of ``settings``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict with ``name``, ``seed``, ``settings`` (``datasets`` normalised to ``{name, positive}`` dicts).
    """
    cfg = yaml.safe_load(Path(path).read_text())
    if not isinstance(cfg, dict) or "settings" not in cfg:
        raise ValueError(f"{path}: expected a mapping with a 'settings' key")
    s = cfg["settings"]
    s.setdefault("resamples", 20)
    s.setdefault("train_fraction", 0.9)
    s.setdefault("ks", DEFAULT_KS)
    s.setdefault("C", 1.0)
    s.setdefault("class_weight", "balanced")
    ds = []
    for d in s["datasets"]:
        ds.append({"name": d, "positive": None} if isinstance(d, str) else {"positive": None, **d})
    s["datasets"] = ds
    for sel in s["selectors"]:
        sel.setdefault("label", sel["name"])
        sel.setdefault("params", {})
    cfg.setdefault("seed", 2015)
    cfg.setdefault("name", Path(path).stem)
    return cfg


def load_data(entry: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """X (NaN kept), class indices y, categorical mask and class names of a dataset entry."""
    ds = open_dataset(entry["name"])
    X = np.array(ds.X, dtype=float)
    if entry.get("positive") is not None:
        pos = entry["positive"]
        y = np.array([str(v) == str(pos) for v in ds.y], dtype=int)
        names = [f"not {pos}", str(pos)]
    else:
        classes, y = np.unique(ds.y, return_inverse=True)
        names = [str(c) for c in classes]
    return X, y, np.asarray(ds.categorical, dtype=bool), names


# ------------------------------------------------------------------------------------------ pieces
def split(y: np.ndarray, seed: int, dataset: str, resample: int, train_fraction: float):
    """Stratified train/test indices of one resample (the same for every selector)."""
    rng = np.random.default_rng(derive_seed(seed, "split", dataset, resample))
    idx = np.arange(y.size)
    n_train = int(round(train_fraction * y.size))
    tr = np.sort(_stratified_take(y, idx, n_train, rng))
    te = np.setdiff1d(idx, tr)
    return tr, te


def build(sel: dict[str, Any], categorical: np.ndarray, seed: int):
    """Instantiate a selector; ``categorical``/``random_state`` filled in when it takes them."""
    cls = resolve(sel["name"])
    params = dict(sel["params"])
    defaults = cls().get_params(deep=False)
    if "categorical" in defaults and "categorical" not in params:
        params["categorical"] = categorical
    if "random_state" in defaults and "random_state" not in params:
        params["random_state"] = seed
    return cls(**params)


def balanced_rate(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Balanced classification rate: mean over the classes present in ``y_true`` of their recall."""
    classes = np.unique(y_true)
    return float(np.mean([np.mean(y_pred[y_true == c] == c) for c in classes]))


def resolve_ks(ks: list[Any], D: int) -> list[int]:
    """The k grid for D features: values < D, plus D for ``"all"`` (or any k ≥ D)."""
    out = sorted({int(k) for k in ks if k != "all" and int(k) < D})
    if "all" in ks or any(k != "all" and int(k) >= D for k in ks):
        out.append(D)
    return out


def clinical_bcr(
    Ktr_f: np.ndarray,
    Kte_f: np.ndarray,
    feats: np.ndarray,
    y_tr: np.ndarray,
    y_te: np.ndarray,
    C: float,
    class_weight: str | None = "balanced",
) -> float:
    """BCR of an SVM on the clinical kernel of ``feats`` (subkernel stacks precomputed, (D, n, n))."""
    Ktr = Ktr_f[feats].mean(axis=0)
    Kte = Kte_f[feats].mean(axis=0)
    svc = SVC(kernel="precomputed", C=C, class_weight=class_weight).fit(Ktr, y_tr)
    return balanced_rate(y_te, svc.predict(Kte))


def kuncheva(sets: list[np.ndarray], k: int, D: int) -> float:
    """Kuncheva's consistency index averaged over all pairs of k-subsets of D features."""
    if not 0 < k < D or len(sets) < 2:
        return float("nan")
    vals = []
    for a, b in combinations(sets, 2):
        r = np.intersect1d(a, b).size
        vals.append((r * D - k * k) / (k * (D - k)))
    return float(np.mean(vals))


# ------------------------------------------------------------------------------------------ one split
def run_split(cfg: dict[str, Any], entry: dict[str, Any], resample: int) -> dict[str, Any]:
    """Fit every selector on one resample and evaluate the clinical-kernel SVM at every k."""
    s = cfg["settings"]
    X, y, cat, _ = load_data(entry)
    name = entry["name"]
    tr, te = split(y, cfg["seed"], name, resample, s["train_fraction"])
    D = X.shape[1]
    ks = resolve_ks(s["ks"], D)
    kern = ClinicalKernel(cat).fit(X[tr])
    Ktr_f = kern.subkernels(X[tr])
    Kte_f = kern.subkernels(X[te], X[tr])
    rows, fits = [], []
    for sel in s["selectors"]:
        label = sel["label"]
        seed = derive_seed(cfg["seed"], "selector", name, resample, label)
        if sel["name"] == "all":
            order = np.arange(D)
            fit_s, extra = 0.0, {}
            grid = [D]
        else:
            est = build(sel, cat, seed)
            t0 = time.perf_counter()
            est.fit(X[tr], y[tr])
            fit_s = time.perf_counter() - t0
            order = np.argsort(est.ranking_, kind="stable")
            extra = {
                k: getattr(est, k + "_")
                for k in ("n_iter", "converged")
                if hasattr(est, k + "_") and np.isscalar(getattr(est, k + "_"))
            }
            grid = [k for k in ks if k < D]
        for k in grid:
            bcr = clinical_bcr(Ktr_f, Kte_f, order[:k], y[tr], y[te], float(s["C"]), s["class_weight"])
            rows.append({"selector": label, "k": int(k), "bcr": bcr})
        fits.append(
            {
                "selector": label,
                "selector_name": sel["name"],
                "fit_wall_s": fit_s,
                "order": " ".join(map(str, order.tolist())),
                **{k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v)) for k, v in extra.items()},
            }
        )
    return {
        "dataset": name,
        "resample": resample,
        "n_train": int(tr.size),
        "n_test": int(te.size),
        "n_features": int(D),
        "n_missing_train": int(np.isnan(X[tr]).sum()),
        "rows": rows,
        "fits": fits,
    }


def task_path(out: Path, dataset: str, resample: int) -> Path:
    return out / "tasks" / f"{dataset}__r{resample:03d}.json"


def run(
    cfg: dict[str, Any],
    out: Path,
    datasets: list[str] | None = None,
    resamples: int | None = None,
    jobs: int = 1,
) -> None:
    """Run (or resume) every split of the selected datasets; one JSON file per finished split.

    A dataset entry may set its own ``resamples`` (fewer for the expensive high-dimensional set); the
    command line's ``resamples`` overrides both.
    """
    s = cfg["settings"]
    pending = []
    for entry in s["datasets"]:
        if datasets and entry["name"] not in datasets:
            continue
        n_res = int(resamples if resamples is not None else entry.get("resamples", s["resamples"]))
        pending += [(task_path(out, entry["name"], r), run_split, (cfg, entry, r)) for r in range(n_res)]
    t0 = time.perf_counter()
    n = run_task_files(pending, jobs)
    print(f"{n} split(s) run, {len(pending) - n} already done, {time.perf_counter() - t0:.1f} s", flush=True)


# ------------------------------------------------------------------------------------------ report
def collect(out: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """results (BCR rows), fits (one row per split × selector) and splits from ``out/tasks``."""
    rows, fits, splits = [], [], []
    for p in sorted((out / "tasks").glob("*.json")):
        t = json.loads(p.read_text())
        meta = {k: t[k] for k in ("dataset", "resample", "n_train", "n_test", "n_features")}
        rows += [{**meta, **r} for r in t["rows"]]
        fits += [{**meta, **f} for f in t["fits"]]
        splits.append({**meta, "n_missing_train": t["n_missing_train"]})
    return pd.DataFrame(rows), pd.DataFrame(fits), pd.DataFrame(splits)


def stability(fits: pd.DataFrame, ks: list[Any]) -> pd.DataFrame:
    """Kuncheva index per dataset × selector × k (k < D) over the resamples."""
    out = []
    for (ds, sel), g in fits.groupby(["dataset", "selector"], sort=False):
        D = int(g["n_features"].iloc[0])
        orders = [np.array(o.split(), dtype=int) for o in g["order"]]
        if sel == "all":
            continue
        for k in resolve_ks(ks, D):
            if k < D:
                out.append(
                    {
                        "dataset": ds,
                        "selector": sel,
                        "k": k,
                        "kuncheva": kuncheva([o[:k] for o in orders], k, D),
                        "n_resamples": len(orders),
                    }
                )
    return pd.DataFrame(out)


def _plot(df: pd.DataFrame, value: str, ylabel: str, path: Path, ref: pd.DataFrame | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(df["dataset"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, ds in zip(axes[0], names, strict=True):
        g = df[df["dataset"] == ds]
        for sel, h in g.groupby("selector", sort=False):
            if sel == "all":
                continue
            h = h.sort_values("k")
            ax.plot(h["k"], h["mean"], marker="o", ms=3, label=sel)
        if ref is not None:
            r = ref[(ref["dataset"] == ds) & (ref["selector"] == "all")]
            if len(r):
                ax.axhline(float(r["mean"].iloc[0]), color="k", ls="--", lw=1, label="all features")
        ax.set_xscale("log")
        ax.set_xlabel("k (top features)")
        ax.set_title(ds)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=7, loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(cfg: dict[str, Any], out: Path) -> None:
    """Write the CSVs, the plots and REPORT.md from the finished task files."""
    s = cfg["settings"]
    res, fits, splits = collect(out)
    if res.empty:
        raise SystemExit(f"no finished splits under {out / 'tasks'}")
    res.to_csv(out / "results.csv", index=False)
    fits[["dataset", "resample", "selector", "order"]].to_csv(out / "rankings.csv", index=False)
    fits.drop(columns="order").to_csv(out / "fits.csv", index=False)
    summ = (
        res.groupby(["dataset", "selector", "k"], sort=False)["bcr"]
        .agg(["mean", "std", "count"])
        .reset_index()
    )
    summ.to_csv(out / "summary.csv", index=False)
    stab = stability(fits, s["ks"])
    stab.to_csv(out / "stability.csv", index=False)
    _plot(summ, "mean", "BCR (test)", out / "plots" / "bcr_vs_k.png", ref=summ)
    _plot(
        stab.rename(columns={"kuncheva": "mean"}),
        "mean",
        "Kuncheva index",
        out / "plots" / "kuncheva_vs_k.png",
    )
    meta = {
        "config": cfg,
        "git_commit": git_commit(),
        "packages": package_versions(),
        "written": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    (out / "run.json").write_text(json.dumps(meta, indent=1, default=str))
    text = render_report(cfg, summ, stab, fits, splits)
    notes = out / "REPORT_notes.md"  # hand-written discussion, appended verbatim
    if notes.exists():
        text += "\n" + notes.read_text()
    (out / "REPORT.md").write_text(text)


def _fmt(m: float, sd: float | None = None) -> str:
    if m != m:  # NaN
        return "–"
    return f"{m:.3f}" if sd is None or sd != sd else f"{m:.3f} ± {sd:.3f}"


def render_report(
    cfg: dict[str, Any], summ: pd.DataFrame, stab: pd.DataFrame, fits: pd.DataFrame, splits: pd.DataFrame
) -> str:
    """Markdown tables: BCR per k, Kuncheva per k, fit times; the text around them is in the config notes."""
    lines = [f"# Paul et al. 2015 — {cfg['name']} (generated tables)", ""]
    if cfg.get("notes"):
        lines += [str(cfg["notes"]).strip(), ""]
    for ds, g in summ.groupby("dataset", sort=False):
        sp = splits[splits["dataset"] == ds]
        lines += [
            f"## {ds}: D = {int(sp['n_features'].iloc[0])}, {len(sp)} resamples, n_train = "
            f"{int(sp['n_train'].iloc[0])}, n_test = {int(sp['n_test'].iloc[0])}, "
            f"missing entries per training part = {sp['n_missing_train'].mean():.0f}",
            "",
        ]
        ks = sorted(g["k"].unique())
        sels = list(dict.fromkeys(g["selector"]))
        lines += ["BCR (mean ± sd over resamples)", ""]
        lines += ["| selector | " + " | ".join(f"k={k}" for k in ks) + " |", "|---" * (len(ks) + 1) + "|"]
        for sel in sels:
            h = g[g["selector"] == sel].set_index("k")
            cells = [_fmt(h.loc[k, "mean"], h.loc[k, "std"]) if k in h.index else "" for k in ks]
            lines.append(f"| {sel} | " + " | ".join(cells) + " |")
        st = stab[stab["dataset"] == ds]
        if len(st):
            kk = sorted(st["k"].unique())
            lines += ["", "Kuncheva index of the top-k sets", ""]
            lines += ["| selector | " + " | ".join(f"k={k}" for k in kk) + " |", "|---" * (len(kk) + 1) + "|"]
            for sel in dict.fromkeys(st["selector"]):
                h = st[st["selector"] == sel].set_index("k")
                lines.append(f"| {sel} | " + " | ".join(_fmt(h.loc[k, "kuncheva"]) for k in kk) + " |")
        ft = fits[(fits["dataset"] == ds) & (fits["selector"] != "all")]
        ft = ft.groupby("selector", sort=False)["fit_wall_s"].mean()
        lines += [
            "",
            "Mean fit wall time (s, loaded machine): " + ", ".join(f"{k} {v:.2f}" for k, v in ft.items()),
        ]
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", default="results/paul2015")
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--resamples", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (one BLAS thread each)")
    ap.add_argument("--report", action="store_true", help="only aggregate the finished splits")
    a = ap.parse_args(argv)
    cfg = load_config(a.config)
    out = Path(a.out)
    if not a.report:
        run(cfg, out, a.datasets, a.resamples, a.jobs)
    report(cfg, out)


if __name__ == "__main__":
    main()
