"""SAS (scaled alignment selection): gradient, ascent, and the Weston nonlinear toy finding."""

import numpy as np
import pytest

from fsbench.algorithms.alignment import SAS, alignment
from fsbench.algorithms.kernels import Kernel
from fsbench.algorithms.targets import class_target

rng = np.random.default_rng(1)


def fd_gradient(sel, X, y, w, eps=1e-6):
    """Central differences of ``sel.criterion(X, y, w)[0]`` along every coordinate of ``w``."""
    return np.array(
        [
            (sel.criterion(X, y, w + eps * e)[0] - sel.criterion(X, y, w - eps * e)[0]) / (2 * eps)
            for e in np.eye(w.size)
        ]
    )


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_gradient_equals_finite_differences(kernel, n_classes):
    X = rng.normal(size=(30, 5))
    y = rng.integers(0, n_classes, 30)
    sel = SAS(kernel=kernel, degree=2, offset=1.0, scale=0.3)
    w = rng.uniform(0.5, 1.5, 5)
    f, g = sel.criterion(X, y, w)
    np.testing.assert_allclose(g, fd_gradient(sel, X, y, w), rtol=1e-5, atol=1e-9)


def test_alignment_value():
    X = rng.normal(size=(10, 3))
    y = rng.integers(0, 2, 10)
    K = Kernel("linear").gram(X)
    T = class_target(y)
    a, _ = alignment(K, T)
    assert a == pytest.approx(np.sum(K * T) / np.sqrt(np.sum(K * K) * np.sum(T * T)))
    assert -1 <= a <= 1


def test_ascent_increases_alignment_and_ranks_completely():
    X = rng.normal(size=(60, 8))
    y = (X[:, 2] - X[:, 5] > 0).astype(int)
    sel = SAS(kernel="rbf").fit(X, y)
    h = sel.criterion_history_
    assert np.all(np.diff(h) >= 0) and h[-1] > h[0]
    assert sorted(sel.ranking_) == list(range(1, 9))
    assert set(np.argsort(sel.ranking_)[:2]) == {2, 5}


def test_fixed_iterations_for_timing():
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] > 0).astype(int)
    sel = SAS(kernel="linear", max_iter=3, tol=0.0).fit(X, y)
    assert sel.n_iter_ == 3 and not sel.converged_


def _weston_nonlinear(n, r):
    # ALGORITHMS.md §1.2 (generated inline so this test does not depend on the data package)
    y = r.choice([-1, 1], n)
    X = r.normal(0, np.sqrt(20), (n, 52))
    comp = r.random(n) < 0.5
    mu = np.where(
        y[:, None] < 0,
        np.where(comp[:, None], [-0.75, -3], [0.75, 3]),
        np.where(comp[:, None], [3, -3], [-3, 3]),
    )
    X[:, :2] = mu + r.normal(0, 1, (n, 2))
    return X, y


@pytest.mark.slow  # > 10 s on 2 cores
def test_sas_finds_relevant_features_of_nonlinear_toy():
    # As in the protocol, features are z-scored on the training split (fsbench's documented default
    # for the toys too: with raw scales the variance-20 noise dominates the median-width RBF at w = 1
    # and SAS reaches the relevant pair in about half of the draws only; README "Defaults").
    # "At least 6 of 10" is checked as at least 18 of 30 draws: the same rate, less luck of the draw.
    r = np.random.default_rng(2012)
    hits = 0
    for _ in range(30):
        X, y = _weston_nonlinear(100, r)
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        order = np.argsort(SAS(kernel="rbf").fit(X, y).ranking_)
        hits += set(order[:2]) == {0, 1}
    assert hits >= 18, f"SAS found both relevant features in only {hits}/30 draws"


@pytest.mark.parametrize("name", ["sas", "scss", "r2w2", "fisher", "arom", "kfds", "rfe"])
def test_constant_training_feature_is_ranked_last(name):
    # zero gradient keeps a constant feature's scale at its start value: without the rule SAS/SCSS/R2W2
    # would rank it first (Ionosphere a2, USPS border pixels on 14 samples)
    from fsbench.algorithms.registry import resolve

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    X[:, 3] = 2.5
    sel = resolve(name)().fit(X, y)
    assert sel.ranking_[3] == 6
    assert sorted(sel.ranking_) == list(range(1, 7))


def test_constant_features_last_keeps_the_other_order():
    from fsbench.algorithms.base import constant_features_last

    X = np.array([[1.0, 5.0, 0.0, np.nan], [2.0, 5.0, 1.0, 7.0], [3.0, 5.0, 2.0, 7.0]])
    ranking = np.array([4, 1, 3, 2])  # best first: 1, 3, 2, 0
    np.testing.assert_array_equal(constant_features_last(ranking, X), [2, 3, 1, 4])
