"""SVM-RFE and the feature-removal kernel downdates it relies on."""

import numpy as np
import pytest
from sklearn.feature_selection import RFE
from sklearn.svm import SVC, LinearSVC

from fsbench.algorithms import feature_statistics
from fsbench.algorithms.elimination import elimination_schedule, n_to_remove
from fsbench.algorithms.feature_statistics import (
    feature_statistic,
    gram_from_statistic,
    removal_contractions,
    replaced_column_gram,
)
from fsbench.algorithms.kernels import Kernel, joachims_C, make_kernel
from fsbench.algorithms.rfe import SVMRFE


def _linear_problem(seed, n=80, d=15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d) * (rng.random(d) < 0.5)
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("seed,C", [(0, 0.1), (1, 1.0), (2, 0.05), (3, 10.0)])
def test_linear_ranking_identical_to_sklearn_rfe(seed, C):
    X, y = _linear_problem(seed)
    ref = RFE(SVC(kernel="linear", C=C), n_features_to_select=1, step=1).fit(X, y).ranking_
    ours = SVMRFE(kernel="linear", C=C, step=1).fit(X, y).ranking_
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("seed,C,step", [(0, 0.1, 1), (1, 1.0, 1), (2, 0.05, 2), (3, 0.5, 1)])
def test_liblinear_solver_identical_to_sklearn_rfe_on_linear_svc(seed, C, step):
    X, y = _linear_problem(seed)
    est = LinearSVC(loss="hinge", C=C, dual=True, random_state=0, max_iter=10_000)
    ref = RFE(est, n_features_to_select=1, step=step).fit(X, y).ranking_
    sel = SVMRFE(kernel="linear", C=C, step=step, solver="liblinear").fit(X, y)
    if step == 1:
        np.testing.assert_array_equal(sel.ranking_, ref)
    else:  # sklearn ties a batch; ours orders it, so it must refine sklearn's
        assert np.all(_precedes(ref) <= _precedes(sel.ranking_))


def test_liblinear_solver_multiclass_sums_one_vs_rest_weights():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 8))
    y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(150, 3)), axis=1)
    # step = D: one iteration, so the ranking is the order of the first scores
    sel = SVMRFE(kernel="linear", C=0.5, step=8, solver="liblinear").fit(X, y)
    svm = LinearSVC(loss="hinge", C=0.5, random_state=0, max_iter=10_000)
    w2 = sum(svm.fit(X, np.where(y == c, 1, -1)).coef_[0] ** 2 for c in range(3))
    np.testing.assert_array_equal(sel.ranking_[np.argsort(-w2, kind="stable")][:1], [1])
    assert set(np.flatnonzero(sel.ranking_ <= 3)) == {0, 1, 2}


def test_liblinear_solver_needs_the_linear_kernel():
    X, y = _linear_problem(0, n=20, d=4)
    with pytest.raises(ValueError, match="solver='liblinear' needs kernel='linear'"):
        SVMRFE(kernel="rbf", solver="liblinear").fit(X, y)


def test_linear_abs_and_signed_agree():
    X, y = _linear_problem(5)
    a = SVMRFE(C=0.5, criterion="abs").fit(X, y).ranking_
    s = SVMRFE(C=0.5, criterion="signed").fit(X, y).ranking_
    np.testing.assert_array_equal(a, s)


KERNELS = [
    Kernel("linear"),
    Kernel("rbf", gamma=0.07),
    Kernel("rbf", gamma="median"),
    Kernel("poly", degree=2, offset=1.0, scale=0.5),
    Kernel("poly", degree=3, offset=0.3, scale=1.0),
]


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: f"{k.name}-{k.gamma}-{k.degree}")
@pytest.mark.parametrize("block", [None, 50])
def test_removal_contractions_match_recomputed_gram(kern, block, monkeypatch):
    if block is not None:  # force several feature blocks
        monkeypatch.setattr(feature_statistics, "_REMOVAL_BLOCK", block)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 9))
    a = rng.normal(size=30)
    a[rng.random(30) < 0.3] = 0.0  # non-support vectors
    res = kern.resolved(X)  # the gamma rule is resolved on the full feature set, as in RFE
    got = removal_contractions(res, X, a)
    want = [a @ res.gram(np.delete(X, f, axis=1)) @ a for f in range(X.shape[1])]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)
    # an unresolved rule is resolved on X, like joachims_C
    np.testing.assert_allclose(removal_contractions(kern, X, a), got, rtol=1e-12)


@pytest.mark.parametrize("kern", KERNELS[:2] + KERNELS[3:], ids=lambda k: k.name)
def test_statistic_downdate_and_column_replacement(kern):
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(12, 6)), rng.normal(size=(7, 6))
    S = feature_statistic(kern, X, Z)
    np.testing.assert_allclose(gram_from_statistic(kern, S), kern.gram(X, Z), rtol=1e-10)
    S2 = S - feature_statistic(kern, X[:, [1, 4]], Z[:, [1, 4]])
    keep = [0, 2, 3, 5]
    np.testing.assert_allclose(gram_from_statistic(kern, S2), kern.gram(X[:, keep], Z[:, keep]), rtol=1e-10)
    new = rng.permutation(X[:, 2])
    Xn = X.copy()
    Xn[:, 2] = new
    got = replaced_column_gram(kern, S, Z[:, 2], X[:, 2], new)
    np.testing.assert_allclose(got, kern.gram(Xn, Z), rtol=1e-10)


def test_multiclass_first_elimination_is_smallest_ovr_sum():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(90, 6))
    y = np.where(X[:, 0] > 0.5, 2, np.where(X[:, 1] > 0, 1, 0))
    C = 0.3
    crit = np.zeros(6)
    for c in range(3):
        svc = SVC(kernel="linear", C=C).fit(X, np.where(y == c, 1, -1))
        crit += svc.coef_[0] ** 2
    sel = SVMRFE(C=C).fit(X, y)
    assert sel.ranking_[np.argmin(crit)] == 6
    assert set(np.flatnonzero(sel.ranking_ <= 2)) == {0, 1}


@pytest.mark.parametrize("kernel,params", [("rbf", {}), ("poly", {"degree": 2})])
@pytest.mark.parametrize("criterion", ["signed", "abs"])
def test_nonlinear_rfe_finds_xor_features(kernel, params, criterion):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 10))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    sel = SVMRFE(kernel=kernel, criterion=criterion, **params).fit(X, y)
    assert sorted(sel.ranking_) == list(range(1, 11))
    assert set(np.flatnonzero(sel.ranking_ <= 2)) == {0, 1}


def test_step_schedule_and_joachims_C_per_iteration():
    X, y = _linear_problem(4, n=60, d=20)
    sel = SVMRFE(step=0.2).fit(X, y)
    # 20 → 16 → 13 → 10 → 8 → 6 → 5 → 4 → 3 → 2 → 1 (round half-up, at least 1)
    assert sel.n_iter_ == 10
    assert sel.C_.shape == (10,)
    # Joachims' C = 1/mean(||x||)^2 grows as features are removed
    assert np.all(np.diff(sel.C_) > 0)
    assert SVMRFE(step=3).fit(X, y).n_iter_ == 7  # 20 → 17 → … → 2 → 1
    assert [n_to_remove(0.2, n) for n in (20, 5, 2, 1)] == [4, 1, 1, 0]
    assert n_to_remove(7, 4) == 3


def test_step_1_and_chunk_agree_on_the_best_feature():
    X, y = _linear_problem(8, n=100, d=12)
    a = SVMRFE(C=1.0).fit(X, y)
    b = SVMRFE(C=1.0, step=5).fit(X, y)
    assert a.order_[0] == b.order_[0]
    assert b.get_params()["step"] == 5


@pytest.mark.parametrize(
    "params",
    [
        {"step": 0},
        {"step": 1.5},
        {"step": "halve"},
        {"criterion": "dj"},
        {"C": -1.0},
        {"kernel": "sigmoid"},
        {"C_schedule": "every"},
        {"step_threshold": -1},
        {"step_threshold": 2.5},
    ],
)
def test_invalid_parameters(params):
    X, y = _linear_problem(0, n=20, d=4)
    with pytest.raises(ValueError):
        SVMRFE(**params).fit(X, y)


def _precedes(rank):
    """Boolean matrix: feature i ranks strictly better than feature j."""
    return rank[:, None] < rank[None, :]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("step", [1, 3])
def test_linear_ranking_with_C_once_matches_sklearn_rfe(seed, step):
    """C_schedule="once": one Joachims Ĉ on the training set, then sklearn's RFE with that C.

    Integer steps are where both schedules coincide (min(step, n - 1) per iteration). sklearn gives
    the features eliminated in one iteration the same rank; ours orders them by the criterion, so
    for step > 1 our ranking must refine sklearn's.
    """
    X, y = _linear_problem(seed)
    sel = SVMRFE(kernel="linear", C=None, C_schedule="once", step=step).fit(X, y)
    c = joachims_C(make_kernel("linear"), X)
    np.testing.assert_allclose(sel.C_, c, rtol=1e-12)  # one value, kept for every iteration
    ref = RFE(SVC(kernel="linear", C=c), n_features_to_select=1, step=step).fit(X, y).ranking_
    if step == 1:
        np.testing.assert_array_equal(sel.ranking_, ref)
    else:
        assert np.all(_precedes(ref) <= _precedes(sel.ranking_))
        assert sel.n_iter_ == ref.max() - 1


def test_C_schedule_per_step_is_the_default_and_differs_from_once():
    X, y = _linear_problem(4, n=60, d=20)
    assert SVMRFE().get_params()["C_schedule"] == "per_step"
    per = SVMRFE(step=5).fit(X, y)
    once = SVMRFE(step=5, C_schedule="once").fit(X, y)
    assert per.C_[0] == pytest.approx(once.C_[0], rel=1e-12)  # same Ĉ on all D features
    assert np.all(np.diff(per.C_) > 0) and np.all(once.C_ == once.C_[0])
    # a numeric C overrides the schedule
    np.testing.assert_array_equal(SVMRFE(C=0.3, C_schedule="per_step", step=5).fit(X, y).C_, 0.3)


def test_halving_schedule_is_spiders_floor_rule():
    # Spider @rfe/training.m: nToRemove = floor(vDim/2); a fraction 0.5 rounds half-up instead
    assert [n_to_remove("halving", n) for n in range(1, 10)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [n_to_remove(0.5, n) for n in range(1, 10)] == [0, 1, 2, 2, 3, 3, 4, 4, 5]
    assert elimination_schedule("halving", 20) == [20, 10, 5, 3, 2]
    assert elimination_schedule(0.5, 20) == [20, 10, 5, 2]
    assert elimination_schedule("halving", 15) == [15, 8, 4, 2]
    # Spider's `speed`: one at a time once n <= step_threshold
    assert elimination_schedule("halving", 20, step_threshold=5) == [20, 10, 5, 4, 3, 2]
    assert elimination_schedule(1, 4) == [4, 3, 2]


@pytest.mark.parametrize("step_threshold", [0, 5])
def test_halving_elimination_matches_reference_loop(step_threshold):
    """Each iteration removes the floor(n/2) smallest w_f² of a linear SVC on the survivors."""
    X, y = _linear_problem(6, n=80, d=20)
    C = 0.5
    sel = SVMRFE(C=C, step="halving", step_threshold=step_threshold).fit(X, y)
    sizes = elimination_schedule("halving", 20, step_threshold)
    assert sel.n_iter_ == len(sizes)
    surv = np.arange(20)
    for n in sizes:
        assert surv.size == n
        w2 = SVC(kernel="linear", C=C).fit(X[:, surv], y).coef_[0] ** 2
        m = n // 2 if n > step_threshold else 1
        drop = surv[np.argsort(w2, kind="stable")[:m]]
        # features eliminated at this iteration hold ranks n - m + 1 … n
        dropped_here = np.flatnonzero((sel.ranking_ > n - m) & (sel.ranking_ <= n))
        np.testing.assert_array_equal(np.sort(drop), dropped_here)
        surv = np.setdiff1d(surv, drop)
        assert np.all(sel.ranking_[surv] <= n - m)
