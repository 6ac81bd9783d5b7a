"""Evaluation protocol of one task: split → select on train → SVM on the top-S features → test error.

A *task* is one (dataset, kernel, selector, n_train, repeat). Its random draws come from seeds
derived with :class:`numpy.random.SeedSequence` from the config seed and *names only*:

* the split stream from (dataset, n_train, repeat) — never the selector, so every selector sees the
  same training and test sets and comparisons between selectors are paired (the papers' t-tests);
* the selector's own stream (its ``random_state``) from (dataset, n_train, repeat, selector label).

Per task (Ramona 2012 §V; ALGORITHMS.md §0.2, §5, §13):

1. Draw the split. Card datasets: a random subset of ``n_train`` rows, stratified (class proportions
   kept) or balanced (equal count per class, ``stratify: balanced``); the test set is
   ``n_test`` further rows, the rest (``test: rest``), or the card's official test split
   (``test: official``). Synthetic datasets: ``n_train`` and ``n_test`` fresh draws.
   A training draw with a single class (possible for tiny synthetic n) is redrawn; the number of
   redraws is recorded.
2. Optionally z-score with the training mean/std (a constant training column is centred and left
   unscaled, std := 1, so it stays constant and harmless).
3. Fit the selector on the training set (or on a stratified subset of ``n_select`` of it, Table V),
   timing CPU (``time.process_time``) and wall time. The selector sees the columns in a random order
   (a permutation from the split stream, mapped back afterwards): a selector that breaks ties by
   feature index would otherwise favour low indices — where the Weston toys put their relevant
   features — and look better than it is.
4. For each S: an SVM (``SVC(kernel="precomputed")``) on the top-S features of the *same* training
   set with C = Joachims' Ĉ = 1/R̄² recomputed on that training set and feature subset (or a fixed C);
   record the test error and the balanced error.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.metrics import balanced_accuracy_score
from sklearn.svm import SVC

from fsbench.algorithms.kernels import Kernel, joachims_C
from fsbench.algorithms.registry import get_selector, resolve
from fsbench.config import KernelConfig, ProtocolConfig, SelectorConfig
from fsbench.data import SyntheticDataset, open_dataset

SCHEMA_VERSION = 1

#: Column order of results.csv (documented in README "Result files").
RESULT_COLUMNS = [
    "schema_version",
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "selector_name",
    "params",
    "n_select",
    "n_train",
    "n_test",
    "repeat",
    "split_seed",
    "classifier",
    "C",
    "n_features",
    "error",
    "balanced_error",
    "fit_cpu_s",
    "fit_wall_s",
    "n_iter",
    "converged",
    "redraws",
    "status",
    "message",
    "git_commit",
    "task_id",
]
#: Columns that measure time; everything else is deterministic for a given config and seed.
TIMING_COLUMNS = ["fit_cpu_s", "fit_wall_s"]
RANKING_COLUMNS = [
    "task_id",
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "n_train",
    "repeat",
    "order",
    "scores",
]

MAX_REDRAWS = 100


def _name_key(name: Any) -> int:
    return int.from_bytes(hashlib.sha256(str(name).encode()).digest()[:4], "little")


def derive_seed(seed: int, *names: Any) -> int:
    """A 32-bit seed from the config seed and a tuple of names (SeedSequence spawn key)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(_name_key(n) for n in names))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class Task:
    """One unit of work: a selector fitted once, evaluated at every S."""

    experiment: str
    dataset: str
    spec: Any
    kernel: KernelConfig
    selector: SelectorConfig
    n_train: int
    repeat: int
    protocol: ProtocolConfig
    seed: int
    git_commit: str = "unknown"

    @property
    def task_id(self) -> str:
        key = json.dumps(
            [self.experiment, self.dataset, self.kernel.name, self.selector.label, self.n_train, self.repeat]
        )
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    @property
    def split_seed(self) -> int:
        return derive_seed(self.seed, "split", self.dataset, self.n_train, self.repeat)

    @property
    def selector_seed(self) -> int:
        return derive_seed(
            self.seed, "selector", self.dataset, self.n_train, self.repeat, self.selector.label
        )


@dataclass
class TaskResult:
    task_id: str
    rows: list[dict[str, Any]]
    ranking: dict[str, Any]
    status: str


# --------------------------------------------------------------------------- splitting
def _stratified_take(y: np.ndarray, idx: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices from ``idx`` with class proportions kept (largest remainders), random within class."""
    classes, inv = np.unique(y[idx], return_inverse=True)
    counts = np.bincount(inv)
    quota = counts * (n / idx.size)
    take = np.floor(quota).astype(int)
    rest = n - take.sum()
    if rest > 0:
        # Largest fractional parts first; ties broken at random (from the split stream).
        frac = quota - take
        order = np.lexsort((rng.random(classes.size), -frac))
        take[order[:rest]] += 1
    # Every class present when possible (n >= number of classes).
    if n >= classes.size:
        for c in np.flatnonzero(take == 0):
            donor = int(np.argmax(take))
            if take[donor] > 1 and counts[c] > 0:
                take[donor] -= 1
                take[c] += 1
    chosen = [rng.permutation(idx[inv == c])[: take[c]] for c in range(classes.size)]
    return rng.permutation(np.concatenate(chosen))


def _balanced_take(y: np.ndarray, idx: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices with the same count from every class (``n // C`` each; a remainder goes to
    classes drawn at random): Ramona 2012's "100 per class" (Table II) and "7 per class" (Table V)."""
    classes, inv = np.unique(y[idx], return_inverse=True)
    C = classes.size
    take = np.full(C, n // C)
    take[rng.permutation(C)[: n % C]] += 1
    counts = np.bincount(inv, minlength=C)
    short = np.flatnonzero(counts < take)
    if short.size:
        c = short[0]
        raise ValueError(
            f"balanced sampling needs {take[c]} samples of class {classes[c]!r}, only {counts[c]} left"
        )
    chosen = [rng.permutation(idx[inv == c])[: take[c]] for c in range(C)]
    return rng.permutation(np.concatenate(chosen))


def _take(y, idx, n, rng, stratify):
    if n > idx.size:
        raise ValueError(f"asked for {n} samples but only {idx.size} are available")
    if stratify == "balanced":
        return _balanced_take(y, idx, n, rng)
    if stratify:
        return _stratified_take(y, idx, n, rng)
    return rng.permutation(idx)[:n]


def draw_split(ds, protocol: ProtocolConfig, n_train: int, rng: np.random.Generator):
    """Return ``X_train, y_train, X_test, y_test, redraws`` for one repeat."""
    redraws = 0
    if isinstance(ds, SyntheticDataset):
        while True:
            X_tr, y_tr = ds.sample(n_train, rng)
            if np.unique(y_tr).size >= 2:
                break
            redraws += 1
            if redraws > MAX_REDRAWS:
                raise RuntimeError(f"{MAX_REDRAWS} training draws of size {n_train} had a single class")
        X_te, y_te = ds.sample(protocol.n_test, rng)
        return X_tr, y_tr, X_te, y_te, redraws
    X, y = ds.X, ds.y
    all_idx = np.arange(y.size)
    while True:
        tr = _take(y, all_idx, n_train, rng, protocol.stratify)
        if np.unique(y[tr]).size >= 2:
            break
        redraws += 1
        if redraws > MAX_REDRAWS:
            raise RuntimeError(f"{MAX_REDRAWS} training draws of size {n_train} had a single class")
    if protocol.test == "official":
        return X[tr], y[tr], ds.X_test, ds.y_test, redraws
    rest = np.setdiff1d(all_idx, tr, assume_unique=False)
    te = rest if protocol.test == "rest" else _take(y, rest, protocol.n_test, rng, protocol.stratify)
    return X[tr], y[tr], X[te], y[te], redraws


def standardize(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z-score both sets with the training mean and std (std 0 → 1: a constant column stays constant)."""
    mu = X_train.mean(axis=0)
    sd = X_train.std(axis=0)
    sd[~(sd > 0)] = 1.0
    return (X_train - mu) / sd, (X_test - mu) / sd


# --------------------------------------------------------------------------- selector
def build_selector(sel: SelectorConfig, kernel: KernelConfig, seed: int):
    """Instantiate the selector: its own params, else the experiment kernel, else its defaults.

    The experiment's kernel is inherited only by selectors that accept a ``kernel`` parameter and
    support that kernel (``supported_kernels`` class attribute, default all); e.g. AROM and KFDS are
    linear machines and keep their own kernel under an RBF experiment (ALGORITHMS.md §3.3).
    """
    cls = resolve(sel.name)
    params = dict(sel.params)
    defaults = cls().get_params(deep=False) if hasattr(cls, "get_params") else {}
    supported = getattr(cls, "supported_kernels", ("linear", "rbf", "poly"))
    if "kernel" in defaults and "kernel" not in params and kernel.name in supported:
        for k, v in kernel.selector_params().items():
            if k in defaults and k not in params:
                params[k] = v
    if "random_state" in defaults and "random_state" not in params:
        params["random_state"] = seed
    return get_selector(sel.name, **params)


def _json_params(est) -> str:
    try:
        params = est.get_params(deep=False)
    except Exception:  # a user selector without get_params
        params = {}
    return json.dumps(params, sort_keys=True, default=repr)


# --------------------------------------------------------------------------- classifier
def svm_error(
    X_tr: np.ndarray,
    y_tr: np.ndarray,
    X_te: np.ndarray,
    y_te: np.ndarray,
    kernel: KernelConfig,
    C: str | float,
    classifier: str = "svm",
    random_state: int | None = None,
) -> tuple[float, float, float]:
    """Train the final SVM on a precomputed Gram matrix; return (error, balanced error, C).

    ``svm``: scikit-learn's SVC (one-vs-one voting for multiclass) with one Ĉ from the whole training
    set. ``svm_coupling``: fsbench's pairwise SVMs with Platt scaling and Hastie–Tibshirani coupling
    (Ramona 2012 §V-B4), Ĉ per pair on that pair's points (ALGORITHMS.md §5 [D]); its internal Platt
    cross-validation is seeded with ``random_state``. The C reported is the whole-set Ĉ (or the fixed C).
    """
    kern = Kernel(kernel.name, kernel.gamma, kernel.degree, kernel.offset, kernel.scale).resolved(X_tr)
    c = joachims_C(kern, X_tr) if C == "joachims" else float(C)
    K_tr = kern.gram(X_tr)
    K_te = kern.gram(X_te, X_tr)
    if classifier == "svm_coupling":
        from fsbench.algorithms.kernels import origin_sq_distances
        from fsbench.algorithms.svm import PairwiseCouplingSVC

        clf = PairwiseCouplingSVC(C=None if C == "joachims" else c, random_state=random_state)
        clf.fit(K_tr, y_tr, origin_sq_dist=origin_sq_distances(kern, X_tr))
    else:
        clf = SVC(kernel="precomputed", C=c).fit(K_tr, y_tr)
    pred = clf.predict(K_te)
    err = float(np.mean(pred != y_te))
    berr = float(1.0 - balanced_accuracy_score(y_te, pred))
    return err, berr, c


def classify(
    Z_tr: np.ndarray,
    y_tr: np.ndarray,
    Z_te: np.ndarray,
    y_te: np.ndarray,
    kernel: KernelConfig,
    protocol: ProtocolConfig,
    random_state: int | None = None,
) -> tuple[float, float, float]:
    """The protocol's final classifier on given features; returns (error, balanced error, C).

    ``knn``: scikit-learn's k-nearest-neighbour classifier (Euclidean, ``protocol.k`` neighbours; the
    1-NN of TAKES and KIFE's ``knnclassify``); C is NaN. Otherwise :func:`svm_error`.
    """
    if protocol.classifier == "knn":
        from sklearn.neighbors import KNeighborsClassifier

        k = min(protocol.k, len(y_tr))
        pred = KNeighborsClassifier(n_neighbors=k).fit(Z_tr, y_tr).predict(Z_te)
        err = float(np.mean(pred != y_te))
        return err, float(1.0 - balanced_accuracy_score(y_te, pred)), float("nan")
    return svm_error(Z_tr, y_tr, Z_te, y_te, kernel, protocol.C, protocol.classifier, random_state)


def is_transform(est) -> bool:
    """Kernel-space feature extractors (``kind = "transform"``, or a fitted estimator with
    ``transform`` but no ``ranking_``) are evaluated on their output dimensions."""
    kind = getattr(type(est), "kind", None)
    if kind is not None:
        return kind == "transform"
    return not hasattr(est, "ranking_") and hasattr(est, "transform")


def transform_grid(protocol: ProtocolConfig, dim: int) -> list[int]:
    """S values for a transformer with ``dim`` output dimensions: the requested S ≤ dim, plus dim itself
    (its own, possibly data-dependent, choice — e.g. TAKES is a single point in Xu 2011 Figs. 2–3)."""
    if protocol.n_features == "all":
        return [dim]
    return sorted({s for s in protocol.n_features if s <= dim} | {dim})


def n_features_grid(protocol: ProtocolConfig, n_features: int) -> list[int]:
    return [n_features] if protocol.n_features == "all" else list(protocol.n_features)


# --------------------------------------------------------------------------- the task
def run_task(task: Task) -> TaskResult:
    """Run one task; a failure inside it is recorded (status ``failed`` + message), not raised."""
    p = task.protocol
    base = {
        "schema_version": SCHEMA_VERSION,
        "experiment": task.experiment,
        "dataset": task.dataset,
        "kernel": task.kernel.name,
        "selector": task.selector.label,
        "selector_name": task.selector.name,
        "n_train": task.n_train,
        "repeat": task.repeat,
        "split_seed": task.split_seed,
        "classifier": p.classifier,
        "git_commit": task.git_commit,
        "task_id": task.task_id,
    }
    ranking = {
        "task_id": task.task_id,
        "experiment": task.experiment,
        "dataset": task.dataset,
        "kernel": task.kernel.name,
        "selector": task.selector.label,
        "n_train": task.n_train,
        "repeat": task.repeat,
        "order": "",
        "scores": "",
    }
    stage = "loading data"
    try:
        ds = open_dataset(task.spec)
        stage = "drawing the split"
        rng = np.random.default_rng(task.split_seed)
        X_tr, y_tr, X_te, y_te, redraws = draw_split(ds, p, task.n_train, rng)
        if p.standardize:
            X_tr, X_te = standardize(X_tr, X_te)
        X_sel, y_sel = X_tr, y_tr
        if p.n_select is not None and p.n_select < task.n_train:
            idx = _take(y_tr, np.arange(y_tr.size), p.n_select, rng, p.stratify)
            X_sel, y_sel = X_tr[idx], y_tr[idx]
        base.update(n_select=int(y_sel.size), n_test=int(y_te.size), redraws=redraws)

        stage = "building the selector"
        selector = build_selector(task.selector, task.kernel, task.selector_seed)
        base["params"] = _json_params(selector)
        stage = "fitting the selector"
        D = X_tr.shape[1]
        perm = rng.permutation(D)  # column j of the selector's input is feature perm[j]
        X_sel = np.ascontiguousarray(X_sel[:, perm])
        c0, w0 = time.process_time(), time.perf_counter()
        selector.fit(X_sel, y_sel)
        fit_cpu, fit_wall = time.process_time() - c0, time.perf_counter() - w0
        base.update(
            fit_cpu_s=fit_cpu,
            fit_wall_s=fit_wall,
            n_iter=int(getattr(selector, "n_iter_", 0) or 0),
            converged=bool(getattr(selector, "converged_", True)),
        )
        if is_transform(selector):
            # Kernel-space methods (TAKES, KIFE, ...): a learnt map; its output columns are ordered best
            # first, and "S features" means the first S output dimensions.
            stage = "transforming the data"
            Z_tr = np.asarray(selector.transform(X_tr[:, perm]), dtype=float)
            Z_te = np.asarray(selector.transform(X_te[:, perm]), dtype=float)
            dim = Z_tr.shape[1]
            grid = transform_grid(p, dim)
            views = [(S, Z_tr[:, :S], Z_te[:, :S]) for S in grid]
        else:
            stage = "reading the ranking"
            rank = np.asarray(selector.ranking_)
            if rank.shape != (D,) or sorted(rank.tolist()) != list(range(1, D + 1)):
                raise ValueError("ranking_ must be a complete order 1..D (1 = best)")
            order = perm[np.argsort(rank, kind="stable")]  # original feature indices, best first
            ranking["order"] = " ".join(map(str, order.tolist()))
            scores = getattr(selector, "scores_", None)
            if scores is not None and np.size(scores) == D:
                orig = np.empty(D)
                orig[perm] = np.asarray(scores, dtype=float).ravel()
                ranking["scores"] = " ".join(f"{float(s):.10g}" for s in orig)
            grid = [D] if getattr(selector, "baseline_all", False) else n_features_grid(p, D)
            views = [(S, X_tr[:, np.sort(order[:S])], X_te[:, np.sort(order[:S])]) for S in grid]

        rows = []
        for S, Z_tr, Z_te in views:
            stage = f"training the {p.classifier} classifier on {S} features"
            err, berr, c = classify(Z_tr, y_tr, Z_te, y_te, task.kernel, p, task.split_seed)
            rows.append(
                {
                    **base,
                    "C": c,
                    "n_features": S,
                    "error": err,
                    "balanced_error": berr,
                    "status": "ok",
                    "message": "",
                }
            )
        return TaskResult(task.task_id, rows, ranking, "ok")
    except Exception as exc:  # recorded for this task; the run goes on
        msg = f"{stage}: {type(exc).__name__}: {exc}".replace("\n", " ")
        tb = traceback.format_exc(limit=3).strip().splitlines()[-1]
        row = {
            **base,
            "params": base.get("params", json.dumps(task.selector.params, sort_keys=True)),
            "n_features": 0,
            "status": "failed",
            "message": msg[:500] or tb,
        }
        return TaskResult(task.task_id, [row], ranking, "failed")
