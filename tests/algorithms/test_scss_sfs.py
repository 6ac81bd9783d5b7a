"""SCSS (scaled class separability) and SFS (scaled Frobenius): gradients, values, toy findings."""

import functools
import warnings

import numpy as np
import pytest
from gradient_helpers import fd_check as _fd_check
from sklearn.exceptions import ConvergenceWarning

from fsbench.algorithms.alignment import SAS, SFS
from fsbench.algorithms.kernels import Kernel, resolve_gamma
from fsbench.algorithms.separability import SCSS, class_averaging, scatter_traces
from fsbench.algorithms.targets import class_target
from fsbench.data import open_dataset

rng = np.random.default_rng(7)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_scss_gradient_equals_finite_differences(kernel, n_classes):
    X = rng.normal(size=(30, 5))
    y = np.arange(30) % n_classes
    X[:, 0] += y  # some class structure, so that the criterion is not flat
    sel = SCSS(kernel=kernel, degree=2, offset=1.0, scale=0.3)
    f = _fd_check(sel, X, y, rng.uniform(0.5, 1.5, 5))
    assert f > 0


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize(("n_classes", "target"), [(2, "vert"), (3, "vert"), (2, "uneven")])
def test_sfs_gradient_equals_finite_differences(kernel, n_classes, target):
    X = rng.normal(size=(25, 4))
    y = np.arange(25) % n_classes
    X[:, 1] -= y
    sel = SFS(kernel=kernel, degree=2, scale=0.3, target=target)
    _fd_check(sel, X, y, rng.uniform(0.5, 1.5, 4))


def test_scatter_traces_match_input_space_scatter_for_linear_kernel():
    # eqs. (12)-(16): tr S_b = sum_c n_c |m_c - m|^2, tr S_w = sum_c sum_{x in c} |x - m_c|^2
    X = rng.normal(size=(17, 4))
    y = rng.integers(0, 3, 17)
    y[:3] = [0, 1, 2]
    trb, trw = scatter_traces(Kernel("linear").gram(X), class_averaging(y))
    m = X.mean(axis=0)
    sb = sum((y == c).sum() * np.sum((X[y == c].mean(axis=0) - m) ** 2) for c in range(3))
    sw = sum(np.sum((X[y == c] - X[y == c].mean(axis=0)) ** 2) for c in range(3))
    assert trb == pytest.approx(sb) and trw == pytest.approx(sw)


def test_scss_epsilon_fixed_at_unit_scales():
    X = rng.normal(size=(20, 3))
    y = np.arange(20) % 2
    sel = SCSS(kernel="rbf", gamma=0.5, epsilon=0.01)
    w = np.array([2.0, 0.5, 1.0])
    f, _ = sel.criterion(X, y, w)
    kern = Kernel("rbf", gamma=0.5)
    L = class_averaging(y)
    _, trw1 = scatter_traces(kern.gram(X), L)
    trb, trw = scatter_traces(kern.gram(X, w=w), L)
    assert sel.epsilon_ == pytest.approx(0.01 * trw1)
    assert f == pytest.approx(trb / (trw + 0.01 * trw1))


def test_sfs_value_is_frobenius_numerator_and_uneven_target_gives_trace_sb():
    X = rng.normal(size=(12, 3))
    y = np.array([0] * 5 + [1] * 7)
    w = np.array([1.3, 0.7, 1.0])
    f, _ = SFS(gamma=0.4).criterion(X, y, w)
    K = Kernel("rbf", gamma=0.4).gram(X, w=w)
    assert f == pytest.approx(np.sum(K * class_target(y)))
    # Ramona eq. (20): <K, K_uneven> = n/(n1 n2) tr S_b
    f_uneven, _ = SFS(gamma=0.4, target="uneven").criterion(X, y, w)
    trb, _ = scatter_traces(K, class_averaging(y))
    assert f_uneven == pytest.approx(12 / (5 * 7) * trb)


def test_sfs_refuses_linear_kernel():
    X = rng.normal(size=(20, 3))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="SFS cannot use the linear kernel"):
        SFS(kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match="grows without bound"):
        SFS(kernel="linear").criterion(X, y, np.ones(3))
    with pytest.raises(ValueError, match="linear"):
        SFS(kernel=Kernel("linear")).fit(X, y)
    assert "linear" not in SFS.supported_kernels


def test_sfs_poly_diverges_and_says_so():
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy overflow warnings are silenced
        with pytest.warns(ConvergenceWarning, match="diverged"):
            sel = SFS(kernel="poly", degree=2).fit(X, y)
    assert not sel.converged_ and sel.n_iter_ < sel.max_iter
    assert sel.criterion_history_[-1] > 1e100  # the criterion explodes within a few steps
    assert sorted(sel.ranking_) == list(range(1, 7))
    assert sel.order_[0] == 0


@pytest.mark.parametrize("cls", [SCSS, SFS])
def test_ascent_increases_criterion_and_finds_features(cls):
    r = np.random.default_rng(11)
    X = r.normal(size=(60, 8))
    y = (X[:, 2] ** 2 + X[:, 5] ** 2 > 1.4).astype(int)  # radial: needs the RBF kernel
    sel = cls(kernel="rbf").fit(X, y)
    h = sel.criterion_history_
    assert np.all(np.diff(h) >= 0) and h[-1] > h[0]
    assert sorted(sel.ranking_) == list(range(1, 9))
    np.testing.assert_array_equal(sel.scores_, np.abs(sel.scale_factors_))
    if cls is SFS:
        assert set(sel.order_[:2]) == {2, 5}
    else:
        # SCSS concentrates the weight on one feature (see the nonlinear-toy tests): only the top
        # rank is reliable
        assert sel.order_[0] in {2, 5}


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_scss_multiclass(kernel):
    r = np.random.default_rng(12)
    n = 90
    y = np.arange(n) % 3
    X = r.normal(size=(n, 6))
    X[:, 4] += 2.0 * y  # separates all three classes
    X[:, 1] += 3.0 * (y == 2)  # separates class 2 from classes 0 and 1 only
    sel = SCSS(kernel=kernel).fit(X, np.array(["a", "b", "c"])[y])
    assert sel.order_[0] == 4
    assert sel.criterion_ > sel.criterion_history_[0]
    assert sorted(sel.ranking_) == list(range(1, 7))


# ---------------------------------------------------------------- Weston nonlinear toy (§1.2)
@functools.cache
def _nonlinear_draws(n_draws=30, n=100, seed=2012):
    """z-scored training draws, as the protocol standardises the toys too (README "Defaults")."""
    ds = open_dataset("weston_nonlinear")
    r = np.random.default_rng(seed)
    out = []
    while len(out) < n_draws:
        X, y = ds.sample(n, r)
        if np.unique(y).size < 2:
            continue
        out.append(((X - X.mean(axis=0)) / X.std(axis=0), y))
    return out


def _pair_hits(make, draws):
    return sum(set(make(X).fit(X, y).order_[:2]) == {0, 1} for X, y in draws)


@pytest.mark.xfail(
    strict=True,
    reason="Ramona's finding 'SCSS finds the relevant pair of the nonlinear toy' does not hold at the "
    "defaults (median RBF width, eps = 1e-3 tr S_w, ascent to convergence): 13/30 draws, SAS 23/30. "
    "SCSS collapses onto one feature (x1 or a noise feature) and the second rank is residue; "
    "stopping after 5 iterations gives 20/30, a 3x narrower start width 21/30 (test below).",
)
@pytest.mark.slow  # > 10 s on 2 cores
def test_scss_finds_relevant_pair_of_nonlinear_toy_at_defaults():
    # "at least 6 of 10" checked as at least 18 of 30 draws: the same rate, less luck of the draw
    hits = _pair_hits(lambda X: SCSS(kernel="rbf"), _nonlinear_draws())
    assert hits >= 18, f"SCSS found both relevant features in only {hits}/30 draws"


@pytest.mark.slow  # > 10 s on 2 cores
def test_scss_collapses_onto_a_single_feature_on_nonlinear_toy():
    # the mechanism behind the failure above: the KCS maximum puts almost all weight on one feature
    # (observed: top/second |w| > 25 in 23 of these 30 draws)
    ratios = []
    for X, y in _nonlinear_draws():
        w = np.sort(np.abs(SCSS(kernel="rbf").fit(X, y).scale_factors_))[::-1]
        ratios.append(w[0] / w[1])
    assert sum(q > 10 for q in ratios) >= 20, np.round(ratios, 1)


@pytest.mark.slow  # > 10 s on 2 cores
def test_scss_finds_relevant_pair_with_narrower_start_width():
    # With the RBF width 3x the median rule (the starting point of the ascent; the scale factors
    # absorb the width, Ramona eq. 6) SCSS finds x1 and x2 in 21/30 of these draws (SAS: 26/30).
    hits = _pair_hits(lambda X: SCSS(kernel="rbf", gamma=3 * resolve_gamma("median", X)), _nonlinear_draws())
    assert hits >= 18, f"SCSS found both relevant features in only {hits}/30 draws"


def test_sas_unchanged_by_sfs_addition():
    # SFS subclasses SAS; SAS keeps its alignment criterion and linear default
    assert SAS().kernel == "linear" and SFS().kernel == "rbf"
    X = rng.normal(size=(15, 3))
    y = np.arange(15) % 2
    a, _ = SAS(kernel="rbf", gamma=1.0).criterion(X, y, np.ones(3))
    assert 0 < a <= 1
