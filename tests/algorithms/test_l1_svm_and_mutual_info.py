"""``l1_svm`` is seeded by the task and reports its capped fits; ``mutual_info`` reads the card's
categorical mask.

* ``l1_svm``: liblinear's coordinate order is a random draw; the selector takes ``random_state``, which
  a run sets to the task's selector seed (:func:`fsbench.evaluation.protocol.build_selector`), and counts the
  fits that hit ``max_iter`` (``n_not_converged_``; ``converged_`` is the run's ``converged`` column).
* ``mutual_info``: ``categorical`` (the card's mask, passed by the protocol as to the Relief adapters)
  becomes scikit-learn's ``discrete_features``.
"""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest
from conftest import TINY
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import mutual_info_classif
from sklearn.svm import LinearSVC

from fsbench.algorithms.registry import get_selector
from fsbench.config.experiment import KernelConfig, SelectorConfig, parse_experiment
from fsbench.data import DatasetError, open_dataset
from fsbench.evaluation.protocol import build_selector, load_task_data, run_task
from fsbench.run.plan import expand


def _problem(n: int = 40, D: int = 8, classes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Features 0-2 carry the class, feature 3 is a noisy copy of 0, the rest is noise."""
    rng = np.random.default_rng(2024)
    y = np.arange(n) % classes
    X = rng.standard_normal((n, D))
    X[:, :3] += 0.8 * y[:, None]
    X[:, 3] = X[:, 0] + 0.3 * rng.standard_normal(n)
    return X, y


def _tasks(selector: str | dict, **changes) -> list:
    return expand(parse_experiment({**TINY, "selectors": [selector], **changes}))


# ------------------------------------------------------------------------------------------ l1_svm
def test_l1_svm_random_state_seeds_every_liblinear_fit():
    # max_iter = 5: liblinear stops short, so its coordinate order shows in the weights
    X, y = _problem()
    est = get_selector("l1_svm", n_Cs=6, max_iter=5, random_state=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        direct = [
            LinearSVC(penalty="l1", dual=False, C=C, max_iter=5, random_state=3).fit(X, y).coef_
            for C in est.Cs_
        ]
    np.testing.assert_array_equal(est.coef_path_, np.stack(direct))


def _capped_fits(X: np.ndarray, y: np.ndarray, Cs: np.ndarray, max_iter: int) -> int:
    """Fits of the path that reach ``max_iter``: the condition of liblinear's ConvergenceWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return sum(
            LinearSVC(penalty="l1", dual=False, C=C, max_iter=max_iter, random_state=0).fit(X, y).n_iter_
            >= max_iter
            for C in Cs
        )


@pytest.mark.parametrize("classes", [2, 3])
def test_l1_svm_counts_the_fits_that_hit_max_iter(classes):
    X, y = _problem(classes=classes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capped = get_selector("l1_svm", n_Cs=8, max_iter=3, random_state=0).fit(X, y)
        free = get_selector("l1_svm", n_Cs=8, random_state=0).fit(X, y)
    # the ConvergenceWarnings become the diagnostics instead of reaching the caller
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert capped.n_not_converged_ == _capped_fits(X, y, capped.Cs_, 3) > 0
    assert free.n_not_converged_ == _capped_fits(X, y, free.Cs_, 1000) < capped.n_not_converged_
    assert capped.converged_ is False
    assert free.converged_ is (free.n_not_converged_ == 0)
    assert capped.n_iter_ == free.n_iter_ == 8  # fits, one per C
    if classes == 2:
        assert free.converged_ is True


def test_the_protocol_gives_l1_svm_the_task_seed_and_records_convergence():
    tasks = _tasks({"name": "l1_svm", "params": {"max_iter": 2}})
    task = tasks[0]
    est = build_selector(task.selector, task.kernel, task.selector_seed)
    assert est.random_state == task.selector_seed
    # distinct (split, selector) streams: not one constant seed for every task
    assert len({t.selector_seed for t in tasks}) == len(tasks)
    runs = []
    for np_seed, py_seed in [(0, 0), (99, 5)]:  # a rerun under another global state
        np.random.seed(np_seed)  # noqa: NPY002 - the global state is what must not matter
        random.seed(py_seed)
        runs.append(run_task(task))
    a, b = runs
    assert a.status == b.status == "ok", a.traceback
    assert a.ranking["order"] == b.ranking["order"]
    for row in a.rows:
        assert json.loads(row["params"])["random_state"] == task.selector_seed
        assert row["converged"] is False  # max_iter = 2: liblinear is capped at some C


# ------------------------------------------------------------------------------------- mutual_info
def _mixed(n: int = 90) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns 0 and 2 are integer-coded categories (0's depend on the class), 1 and 3 continuous."""
    rng = np.random.default_rng(11)
    y = np.arange(n) % 3
    X = rng.standard_normal((n, 4))
    X[:, 0] = (y + rng.integers(0, 2, n)) % 4  # 4 codes, shifted by the class
    X[:, 1] += 0.5 * y
    X[:, 2] = rng.integers(0, 5, n)
    return X, y, np.array([True, False, True, False])


@pytest.mark.parametrize("as_indices", [False, True])
def test_mutual_info_with_the_mask_is_mutual_info_classif_with_discrete_features(as_indices):
    X, y, mask = _mixed()
    categorical = np.flatnonzero(mask).tolist() if as_indices else mask
    est = get_selector("mutual_info", categorical=categorical, random_state=4).fit(X, y)
    direct = mutual_info_classif(X, y, discrete_features=mask, n_neighbors=3, random_state=4)
    np.testing.assert_array_equal(est.scores_, direct)
    continuous = mutual_info_classif(X, y, discrete_features=False, n_neighbors=3, random_state=4)
    assert not np.allclose(est.scores_[mask], continuous[mask])  # the kNN estimate differs
    # without a mask: every feature continuous, as before the parameter existed
    np.testing.assert_array_equal(get_selector("mutual_info", random_state=4).fit(X, y).scores_, continuous)


def test_mutual_info_rejects_a_mask_of_the_wrong_length():
    X, y, _ = _mixed()
    with pytest.raises(ValueError, match="categorical mask has 3 entries"):
        get_selector("mutual_info", categorical=[True, False, True]).fit(X, y)


def test_the_protocol_passes_the_card_mask_to_mutual_info():
    mask = np.array([False, True, True, False])
    sel = SelectorConfig(label="mutual_info", name="mutual_info")
    est = build_selector(sel, KernelConfig(), seed=5, inputs={"categorical": mask})
    np.testing.assert_array_equal(est.categorical, mask)
    assert est.random_state == 5
    # a mask in the config wins over the card's
    own = SelectorConfig(label="mi", name="mutual_info", params={"categorical": [0]})
    assert build_selector(own, KernelConfig(), seed=5, inputs={"categorical": mask}).categorical == [0]


def test_a_run_on_a_card_with_categorical_features_uses_its_mask():
    try:
        card = open_dataset("heart_disease_cleveland")  # 13 features, 7 of them categorical
    except DatasetError as exc:
        pytest.skip(f"dataset not available: {exc}")
    mask = np.asarray(card.categorical, dtype=bool)
    assert mask.any() and not mask.all()
    task = _tasks(
        "mutual_info",
        dataset="heart_disease_cleveland",
        protocol={"n_train": [120], "test": "rest", "repeats": 1, "n_features": [3]},
    )[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_task(task)
    assert result.status == "ok", result.traceback
    assert json.loads(result.rows[0]["params"])["categorical"] == "<from dataset>"
    # the z-scored codes reach scikit-learn as integer codes: no "continuous values for label" warning
    assert not [w for w in caught if "Clustering metrics" in str(w.message)]
    # A categorical column's score is the contingency-table estimate: no noise, no neighbours, so it
    # does not depend on the seed or on the column order the selector saw.
    data = load_task_data(task, np.random.default_rng(task.split_seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # that warning, on the z-scored codes given here
        expected = mutual_info_classif(data.X_tr, data.y_tr, discrete_features=mask, random_state=0)
    scores = np.array(result.ranking["scores"].split(), dtype=float)
    np.testing.assert_allclose(scores[mask], expected[mask], rtol=1e-9)
    continuous = mutual_info_classif(data.X_tr, data.y_tr, discrete_features=False, random_state=0)
    assert not np.allclose(scores[mask], continuous[mask])
