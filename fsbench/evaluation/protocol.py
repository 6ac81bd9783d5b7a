"""Evaluation protocol of one task: split → select on train → classifier on the top-S features → metrics.

A *task* is one (dataset, kernel, selector, n_train, repeat[, fold]). Its random draws come from seeds
derived from the config seed and *names only* (:mod:`fsbench.evaluation.resampling`):

* the split stream from (dataset, n_train, repeat) — never the selector, so every selector sees the
  same training and test sets and comparisons between selectors are paired (the papers' t-tests);
* the selector's own stream (its ``random_state``) from (dataset, n_train, repeat, selector label).

Per task (Ramona 2012 §V; ALGORITHMS.md §0.2, §5, §13):

1. Draw the split (:func:`fsbench.evaluation.resampling.draw_split`): a count or fraction of the rows,
   stratified, balanced or plain; the test set is ``n_test`` further rows, the rest, the card's official test
   split, or one part of a k-fold partition; synthetic datasets draw fresh samples. Labels become class
   indices 0..C-1 (sorted order of the labels; a dataset entry's ``positive`` label makes it 2-class).
2. Optionally z-score with the training mean/std (a constant training column is centred and left
   unscaled, std := 1, so it stays constant and harmless).
3. Fit the selector on the training set (or on a stratified subset of ``n_select`` of it, Table V),
   timing CPU (``time.process_time``) and wall time. The selector sees the columns in a random order
   (a permutation from the split stream, mapped back afterwards): a selector that breaks ties by
   feature index would otherwise favour low indices — where the Weston toys put their relevant
   features — and look better than it is. Dataset-provided inputs (the card's ``categorical`` mask, for
   selectors with a ``categorical`` parameter) are permuted the same way.
   *Subset searches* (a class attribute ``subset_size_param``, e.g. branch-and-bound's ``d``) are fitted
   once per S with that parameter set to S, unless the config fixes it.
4. For each S: the final classifier (:mod:`fsbench.evaluation.classifiers`; default an SVM on a precomputed
   Gram matrix, C = Joachims' Ĉ = 1/R̄² recomputed on that training set and feature subset) on the top-S
   features of the *same* training set; record the test error and the balanced error, and the selector's
   scalar diagnostics (``n_iter_``, ``converged_``, ``n_evaluations_``, ``criterion_value_``, ``subset_``)
   where it has them.

Under ``selection: per_pair`` steps 3–4 run per pair of classes instead (:mod:`fsbench.evaluation.pairwise`):
the selector is fitted on each pair's training points and each pairwise machine uses its own pair's top-S.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score

from fsbench.algorithms.kernels import KERNELS, resolve_gamma
from fsbench.algorithms.registry import get_selector, resolve
from fsbench.config.classifier_names import evaluator_label
from fsbench.config.experiment import FeatureFractions, KernelConfig, ProtocolConfig, SelectorConfig
from fsbench.data import SyntheticDataset, open_dataset
from fsbench.evaluation.classifiers import fit_predict, fit_predict_per_pair
from fsbench.evaluation.pairwise import fit_per_pair
from fsbench.evaluation.resampling import _take, derive_seed, draw_split, standardize
from fsbench.results.schema import SCHEMA_VERSION


@dataclass(frozen=True)
class Task:
    """One unit of work: a selector fitted once (subset searches: once per S), evaluated at every S."""

    experiment: str
    dataset: str
    spec: Any
    kernel: KernelConfig
    selector: SelectorConfig
    #: the config's training size: a count, a fraction of the samples, or None under k-fold
    n_train: int | float | None
    repeat: int
    protocol: ProtocolConfig
    seed: int
    git_commit: str = "unknown"
    fold: int | None = None
    #: binarise: this label is class 1, the others class 0 (a dataset entry's ``positive``)
    positive: str | int | None = None
    #: a ``fsbench diagnose`` task: the diagnostic's name and settings (``selector`` is then a
    #: placeholder labelled ``<name>``, or one of the config's selectors for per-selector diagnostics)
    diagnostic: str | None = None
    settings: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    #: the config's ``plugins`` directories, put on ``sys.path`` by the worker before the selector is built
    plugins: tuple[str, ...] = field(default=(), compare=False)
    #: sha256 of the source file of a user selector class (None for fsbench's own), stored in the task file
    code_hash: str | None = field(default=None, compare=False)

    @property
    def _size_name(self) -> int | float | str | None:
        return self.n_train if self.protocol.folds is None else f"{self.protocol.folds}-fold"

    @property
    def task_id(self) -> str:
        ident = [self.experiment, self.dataset, self.kernel.name, self.selector.label, self._size_name]
        ident.append(self.repeat)
        if self.fold is not None:
            ident.append(self.fold)
        return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:16]

    @property
    def split_seed(self) -> int:
        """Seed of the split stream: shared by every selector and, under k-fold, by every fold."""
        return derive_seed(self.seed, "split", self.dataset, self._size_name, self.repeat)

    @property
    def selector_seed(self) -> int:
        names: list[Any] = [self.dataset, self._size_name, self.repeat]
        if self.fold is not None:
            names.append(self.fold)
        return derive_seed(self.seed, "selector", *names, self.selector.label)


@dataclass
class TaskResult:
    task_id: str
    rows: list[dict[str, Any]]
    ranking: dict[str, Any]
    status: str
    #: the full traceback of a failed task (the rows keep one line of it), or what is known of a worker
    #: that died (its fault handler's dump); written to the task file, not to the tables
    traceback: str | None = None
    #: :attr:`Task.code_hash`, written to the task file
    code_hash: str | None = None


# --------------------------------------------------------------------------- selector
def is_user_class(cls: type) -> bool:
    """Whether ``cls`` is a researcher's own class rather than one of fsbench's (checked, hashed, and
    given numeric ``gamma`` values, see :func:`build_selector` and :mod:`fsbench.evaluation.plugins`)."""
    module = getattr(cls, "__module__", "") or ""
    return not (module == "fsbench" or module.startswith("fsbench."))


#: Selector parameters the protocol fills in from the dataset when the config does not set them
#: (name -> the :class:`TaskData` attribute); recorded as ``"<from dataset>"`` in ``params``.
DATASET_INPUTS = {"categorical": "categorical"}


def build_selector(
    sel: SelectorConfig,
    kernel: KernelConfig,
    seed: int,
    inputs: dict[str, Any] | None = None,
    X: np.ndarray | None = None,
):
    """Instantiate the selector: its own params, else the experiment kernel, else its defaults.

    Parameters
    ----------
    sel : SelectorConfig
        The config entry: a registered name or a ``package.module:Class`` path, and its params.
    kernel : KernelConfig
        The experiment kernel of the task.
    seed : int
        The task's selector seed, given as ``random_state`` to a selector that has one and does not
        set it.
    inputs : dict, optional
        Dataset-provided parameters (e.g. the card's ``categorical`` mask, already in the column order
        the selector sees), passed to selectors that have such a parameter and do not set it.
    X : ndarray of shape (n_samples, n_features), optional
        The data the selector will be fitted on, to turn a ``gamma`` rule into a number for a user
        class (below).

    Returns
    -------
    estimator
        The unfitted selector.

    Notes
    -----
    The experiment's kernel is inherited only by selectors that accept a ``kernel`` parameter and
    support that kernel (``supported_kernels`` class attribute, default all); e.g. AROM and KFDS are
    linear machines and keep their own kernel under an RBF experiment (ALGORITHMS.md §3.3).

    A *user class* (a ``package.module:Class`` outside fsbench, :func:`is_user_class`)
    cannot be expected to know fsbench's RBF width rules: when its ``gamma`` parameter would receive a
    rule string (``"median"``, ``"median/4"``, ... — inherited from the experiment kernel or written
    in its own params), it receives the number that rule gives on ``X``, its training data
    (:func:`fsbench.algorithms.kernels.resolve_gamma`), and the ``params`` column records that number.
    fsbench's own selectors receive the rule and resolve it themselves.
    """
    cls = resolve(sel.name)
    params = dict(sel.params)
    defaults = cls().get_params(deep=False) if hasattr(cls, "get_params") else {}
    supported = getattr(cls, "supported_kernels", KERNELS)
    if "kernel" in defaults and "kernel" not in params and kernel.name in supported:
        for k, v in kernel.selector_params().items():
            if k in defaults and k not in params:
                params[k] = v
    if "random_state" in defaults and "random_state" not in params:
        params["random_state"] = seed
    for name, value in (inputs or {}).items():
        if name in defaults and name not in params and value is not None:
            params[name] = value
    if isinstance(params.get("gamma"), str) and X is not None and is_user_class(cls):
        params["gamma"] = resolve_gamma(params["gamma"], X)
    return get_selector(sel.name, **params)


def _json_params(est, provided: set[str]) -> str:
    try:
        params = est.get_params(deep=False)
    except Exception:  # a user selector without get_params
        params = {}
    params = {k: ("<from dataset>" if k in provided else v) for k, v in params.items()}
    return json.dumps(params, sort_keys=True, default=repr)


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
    if isinstance(protocol.n_features, FeatureFractions):  # fractions of the output dimension
        return sorted(set(protocol.n_features.resolve(dim)) | {dim})
    return sorted({s for s in protocol.n_features if s <= dim} | {dim})


def n_features_grid(protocol: ProtocolConfig, n_features: int) -> list[int]:
    """S values of a ranker on a dataset with ``n_features`` (D) features."""
    if protocol.n_features == "all":
        return [n_features]
    if isinstance(protocol.n_features, FeatureFractions):
        return protocol.n_features.resolve(n_features)
    return list(protocol.n_features)


# --------------------------------------------------------------------------- data of one task
@dataclass
class TaskData:
    """The split of one task, labels as class indices 0..C-1."""

    X_tr: np.ndarray
    y_tr: np.ndarray
    X_te: np.ndarray
    y_te: np.ndarray
    redraws: int
    #: which input columns are categorical (the card's mask; all False for synthetic data)
    categorical: np.ndarray


class _Indexed:
    """A card dataset with class-index labels (``positive``: 2 classes), as :func:`draw_split` reads it."""

    def __init__(self, ds, positive=None):
        y_test = getattr(ds, "y_test", None)
        self.X, self.X_test = ds.X, getattr(ds, "X_test", None)
        self.y, self.y_test = _class_indices(ds.y, y_test, positive)


def _class_indices(y, y_test=None, positive=None):
    """Class indices of ``y`` (and ``y_test``, with the same mapping): sorted labels → 0..C-1, or
    ``positive`` → 1 and every other label → 0."""
    y = np.asarray(y)
    if positive is not None:

        def bin_(v):
            return None if v is None else (np.asarray(v).astype(str) == str(positive)).astype(int)

        return bin_(y), bin_(y_test)
    both = y if y_test is None else np.concatenate([y, np.asarray(y_test)])
    classes = np.unique(both)
    idx = np.searchsorted(classes, y)
    return idx, (None if y_test is None else np.searchsorted(classes, np.asarray(y_test)))


def load_task_data(task: Task, rng: np.random.Generator) -> TaskData:
    """Open the dataset, draw the task's split from ``rng`` and standardise it (if the protocol says so)."""
    p = task.protocol
    ds = open_dataset(task.spec)
    if isinstance(ds, SyntheticDataset):
        X_tr, y_tr, X_te, y_te, redraws = draw_split(ds, p, task.n_train, rng)
        y_tr, y_te = _class_indices(y_tr, y_te, task.positive)
        categorical = np.zeros(X_tr.shape[1], dtype=bool)
    else:
        X_tr, y_tr, X_te, y_te, redraws = draw_split(
            _Indexed(ds, task.positive), p, task.n_train, rng, task.fold
        )
        categorical = np.asarray(getattr(ds, "categorical", np.zeros(X_tr.shape[1], bool)), dtype=bool)
    if p.standardize:
        X_tr, X_te = standardize(X_tr, X_te)
    return TaskData(X_tr, y_tr, X_te, y_te, redraws, categorical)


# --------------------------------------------------------------------------- the task
def _scalar(x: Any) -> Any:
    """A JSON/CSV-friendly scalar (numpy scalars unwrapped), or "" when ``x`` is not a finite scalar."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (Real, np.floating)) and np.isfinite(float(x)):
        return float(x)
    return ""


def _diagnostics(est, perm: np.ndarray) -> dict[str, Any]:
    """Scalar diagnostics of a fitted selector as result columns (original feature indices)."""
    out = {
        "n_iter": int(getattr(est, "n_iter_", 0) or 0),
        "converged": bool(getattr(est, "converged_", True)),
        "n_evaluations": _scalar(getattr(est, "n_evaluations_", "")),
        "criterion_value": _scalar(getattr(est, "criterion_value_", "")),
        "subset": "",
    }
    subset = getattr(est, "subset_", None)
    if subset is not None:
        out["subset"] = " ".join(map(str, np.sort(perm[np.asarray(subset, dtype=int)]).tolist()))
    return out


def _fit_timed(est, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    est.fit(X, y)
    return time.process_time() - c0, time.perf_counter() - w0


def _metrics(pred: np.ndarray, y_te: np.ndarray) -> dict[str, float]:
    return {
        "error": float(np.mean(pred != y_te)),
        "balanced_error": float(1.0 - balanced_accuracy_score(y_te, pred)),
    }


def _base_row(task: Task) -> dict[str, Any]:
    """The columns of a result row that the task alone determines."""
    return {
        "schema_version": SCHEMA_VERSION,
        "experiment": task.experiment,
        "dataset": task.dataset,
        "kernel": task.kernel.name,
        "selector": task.selector.label,
        "selector_name": task.selector.name,
        "n_train": task.n_train,
        "repeat": task.repeat,
        "fold": "" if task.fold is None else task.fold,
        "split_seed": task.split_seed,
        "classifier": task.protocol.classifier,
        "git_commit": task.git_commit,
        "task_id": task.task_id,
    }


def _ranking_row(task: Task) -> dict[str, Any]:
    """The rankings.csv row of a task, without its ``order`` and ``scores``."""
    return {
        "task_id": task.task_id,
        "experiment": task.experiment,
        "dataset": task.dataset,
        "kernel": task.kernel.name,
        "selector": task.selector.label,
        "n_train": task.n_train,
        "repeat": task.repeat,
        "fold": "" if task.fold is None else task.fold,
        "order": "",
        "scores": "",
    }


def failed_result(task: Task, message: str, tb: str | None = None) -> TaskResult:
    """A failed task's result: one row with status ``failed`` and ``message`` (one line), and ``tb``.

    Used by :func:`run_task` and by the runner for a task whose worker process died.
    """
    base = _base_row(task)
    if task.diagnostic is not None:
        base["diagnostic"] = task.diagnostic
    row = {
        **base,
        "params": json.dumps(task.selector.params, sort_keys=True),
        "n_features": 0,
        "status": "failed",
        "message": message.replace("\n", " ")[:500],
    }
    ranking = _ranking_row(task) if task.diagnostic is None else {"task_id": task.task_id}
    return TaskResult(task.task_id, [row], ranking, "failed", traceback=tb, code_hash=task.code_hash)


def _per_pair_rows(task: Task, selector, X_sel, y_sel, data: TaskData, perm, ranking, make) -> list[dict]:
    """Result rows of a ``selection: per_pair`` task: steps 3–4 run per pair of classes.

    ``make(X)`` builds the task's selector for the selection data ``X`` (:func:`build_selector`), so that a
    user class gets a width rule resolved on its own pair's rows, as fsbench's selectors resolve it.
    """
    p = task.protocol
    D = data.X_tr.shape[1]
    cls = type(selector)  # (a user class without ``kind`` is checked by its fitted ranking_, fit_per_pair)
    size_param = getattr(cls, "subset_size_param", None)
    searches_per_size = size_param is not None and size_param not in task.selector.params
    if searches_per_size or getattr(cls, "kind", None) == "transform":
        raise ValueError("per-pair selection needs a ranker, not a subset search or a transformer")
    missing = np.setdiff1d(np.unique(data.y_tr), np.unique(y_sel))
    if missing.size:
        raise ValueError(
            f"per-pair selection: the selection subset (n_select = {y_sel.size}) has no sample of class "
            f"index(es) {missing.tolist()}; every class of the training split must be in it"
        )
    if getattr(selector, "baseline_all", False):  # all features for every pair
        grid, orders = [D], None
        timing = {"fit_cpu_s": 0.0, "fit_wall_s": 0.0}
        diag = {"n_iter": 0, "converged": True}
    else:
        fits = fit_per_pair(make, X_sel, y_sel, _fit_timed)
        orders = [perm[o] for o in fits.orders]  # original feature indices, best first
        ranking["pair_orders"] = {
            f"{a}-{b}": o.tolist() for (a, b), o in zip(fits.pairs, orders, strict=True)
        }
        grid = n_features_grid(p, D)
        timing = {"fit_cpu_s": fits.fit_cpu_s, "fit_wall_s": fits.fit_wall_s}
        diag = {"n_iter": fits.n_iter, "converged": fits.converged}
    n_pairs = np.unique(data.y_tr).size * (np.unique(data.y_tr).size - 1) // 2
    rows = []
    for S in grid:
        cols = [np.arange(D)] * n_pairs if orders is None else [np.sort(o[:S]) for o in orders]
        fitted = fit_predict_per_pair(
            data.X_tr, data.y_tr, data.X_te, cols, task.kernel, p, random_state=task.split_seed
        )
        rows.append(
            {
                **timing,
                **diag,
                "n_evaluations": "",
                "criterion_value": "",
                "subset": "",
                "C": fitted.C,
                "n_features": S,
                **_metrics(fitted.predictions, data.y_te),
            }
        )
    return rows


def evaluator_protocols(p: ProtocolConfig) -> list[ProtocolConfig]:
    """The protocol once per evaluator of a top-S subset: as it is (its ``classifier``), then with each of
    ``p.evaluators`` as the classifier (its own C, k and class weights)."""
    return [p] + [
        replace(p, classifier=name, C=C, k=k, class_weight=cw, evaluators=())
        for name, C, k, cw in p.evaluators
    ]


def run_task(task: Task) -> TaskResult:
    """Run one task; a failure inside it is recorded (status ``failed``, a one-line message in the
    rows, the full traceback in :attr:`TaskResult.traceback`), not raised."""
    p = task.protocol
    base = _base_row(task)
    ranking = _ranking_row(task)
    stage = "loading data"
    try:
        rng = np.random.default_rng(task.split_seed)
        stage = "drawing the split"
        data = load_task_data(task, rng)
        X_tr, y_tr, X_te, y_te = data.X_tr, data.y_tr, data.X_te, data.y_te
        X_sel, y_sel = X_tr, y_tr
        if p.n_select is not None and p.n_select < X_tr.shape[0]:
            idx = _take(y_tr, np.arange(y_tr.size), p.n_select, rng, p.stratify)
            X_sel, y_sel = X_tr[idx], y_tr[idx]
        n_tr = int(y_tr.size)
        base.update(n_train=n_tr, n_select=int(y_sel.size), n_test=int(y_te.size), redraws=data.redraws)
        ranking["n_train"] = n_tr

        D = X_tr.shape[1]
        perm = rng.permutation(D)  # column j of the selector's input is feature perm[j]
        X_sel = np.ascontiguousarray(X_sel[:, perm])
        stage = "building the selector"
        inputs = {"categorical": data.categorical[perm]}
        selector = build_selector(task.selector, task.kernel, task.selector_seed, inputs, X=X_sel)
        provided = {k for k in inputs if k not in task.selector.params and k in selector.get_params()}
        base["params"] = _json_params(selector, provided)
        size_param = getattr(type(selector), "subset_size_param", None)
        per_size = size_param is not None and size_param not in task.selector.params

        def classify(S: int, Z_tr: np.ndarray, Z_te: np.ndarray, cols: np.ndarray | None) -> list[dict]:
            """One row per evaluator of the top-S subset: the protocol's classifier, then ``evaluators``."""
            nonlocal stage
            cat = None if cols is None else data.categorical[cols]
            out = []
            for i, q in enumerate(evaluator_protocols(p)):
                stage = f"training the {q.classifier} classifier on {S} features"
                fitted = fit_predict(
                    Z_tr, y_tr, Z_te, task.kernel, q, categorical=cat, random_state=task.split_seed
                )
                out.append(
                    {
                        # the protocol's own classifier keeps its name as every run has written it
                        "classifier": evaluator_label(q.classifier, q.k) if i else q.classifier,
                        "C": fitted.C,
                        "n_features": S,
                        **_metrics(fitted.predictions, y_te),
                    }
                )
            return out

        def ranked_rows(est, grid, timing) -> list[dict]:
            nonlocal stage
            stage = "reading the ranking"
            rank = np.asarray(est.ranking_)
            if rank.shape != (D,) or sorted(rank.tolist()) != list(range(1, D + 1)):
                raise ValueError("ranking_ must be a complete order 1..D (1 = best)")
            order = perm[np.argsort(rank, kind="stable")]  # original feature indices, best first
            top = p.rankings == "top"  # only the first max(S) features are kept, and no scores
            kept = order[: max(n_features_grid(p, D))] if top else order
            ranking["order"] = " ".join(map(str, kept.tolist()))
            scores = getattr(est, "scores_", None)
            if scores is not None and np.size(scores) == D and not top:
                orig = np.empty(D)
                orig[perm] = np.asarray(scores, dtype=float).ravel()
                ranking["scores"] = " ".join(f"{float(s):.10g}" for s in orig)
            rows = []
            diag = _diagnostics(est, perm)
            for S in grid:
                cols = np.sort(order[:S])
                rows += [{**timing, **diag, **r} for r in classify(S, X_tr[:, cols], X_te[:, cols], cols)]
            return rows

        if p.selection == "per_pair":
            stage = "selecting per pair of classes and classifying"
            rows = _per_pair_rows(
                task,
                selector,
                X_sel,
                y_sel,
                data,
                perm,
                ranking,
                lambda X: build_selector(task.selector, task.kernel, task.selector_seed, inputs, X=X),
            )
        elif per_size:
            # a subset search: one fit per S with its size parameter = S
            rows = []
            for S in n_features_grid(p, D):
                stage = f"fitting the selector ({size_param} = {S})"
                est = clone(selector).set_params(**{size_param: S})
                cpu, wall = _fit_timed(est, X_sel, y_sel)
                timing = {"fit_cpu_s": cpu, "fit_wall_s": wall, "params": _json_params(est, provided)}
                rows += ranked_rows(est, [S], timing)
        else:
            stage = "fitting the selector"
            cpu, wall = _fit_timed(selector, X_sel, y_sel)
            timing = {"fit_cpu_s": cpu, "fit_wall_s": wall}
            if is_transform(selector):
                # Kernel-space methods (TAKES, KIFE, ...): a learnt map; its output columns are ordered
                # best first, and "S features" means the first S output dimensions.
                stage = "transforming the data"
                Z_tr = np.asarray(selector.transform(X_tr[:, perm]), dtype=float)
                Z_te = np.asarray(selector.transform(X_te[:, perm]), dtype=float)
                diag = _diagnostics(selector, perm)
                rows = [
                    {**timing, **diag, **r}
                    for S in transform_grid(p, Z_tr.shape[1])
                    for r in classify(S, Z_tr[:, :S], Z_te[:, :S], None)
                ]
            else:
                grid = [D] if getattr(selector, "baseline_all", False) else n_features_grid(p, D)
                rows = ranked_rows(selector, grid, timing)
        rows = [{**base, **r, "status": "ok", "message": ""} for r in rows]
        return TaskResult(task.task_id, rows, ranking, "ok", code_hash=task.code_hash)
    except Exception as exc:  # recorded for this task; the run goes on
        msg = f"{stage}: {type(exc).__name__}: {exc}"
        res = failed_result(task, msg, traceback.format_exc())
        # what the task learnt before failing (sizes of the split, resolved params) stays in its row
        res.rows[0].update(base)
        res.ranking.update(ranking)
        return res
