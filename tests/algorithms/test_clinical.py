"""Paul et al. 2015: clinical kernel, clinical SVM-RFE, SimpleMKL-RFE and the mixed-data baselines."""

import numpy as np
import pytest

from fsbench.algorithms import clinical
from fsbench.algorithms.clinical import (
    ClinicalMKLRFE,
    ClinicalSVMRFE,
    OneHotLinearSVMRFE,
    machine_targets,
    one_hot_encode,
    simple_mkl,
    svm_duals,
)
from fsbench.algorithms.clinical_kernel import (
    ClinicalKernel,
    SubkernelBank,
    categorical_mask,
    remove_subkernels,
)
from fsbench.algorithms.elimination import n_to_remove
from fsbench.algorithms.forests import RandomForestImportance
from fsbench.algorithms.kernels import joachims_C, make_kernel

CAT = [5, 6, 7]


def mixed(seed, n=100, missing=0.0):
    """5 continuous + 3 categorical (3 levels) features; relevant: continuous 0 and categorical 5."""
    rng = np.random.default_rng(seed)
    Xc = rng.normal(size=(n, 5))
    Xk = rng.integers(0, 3, size=(n, 3)).astype(float)
    X = np.hstack([Xc, Xk])
    y = (Xc[:, 0] + 1.5 * (Xk[:, 0] == 1) + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def naive_clinical(X, Z, lo, hi, cat):
    """Eqs. (1)-(2) written out pair by pair (NaN pairs contribute 0)."""
    K = np.zeros((X.shape[0], Z.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Z.shape[0]):
            s = 0.0
            for f in range(X.shape[1]):
                a, b = X[i, f], Z[j, f]
                if np.isnan(a) or np.isnan(b):
                    continue
                if cat[f]:
                    s += float(a == b)
                elif hi[f] == lo[f]:
                    s += 1.0
                else:
                    a, b = np.clip(a, lo[f], hi[f]), np.clip(b, lo[f], hi[f])
                    s += ((hi[f] - lo[f]) - abs(a - b)) / (hi[f] - lo[f])
            K[i, j] = s / X.shape[1]
    return K


# ------------------------------------------------------------------------------ clinical kernel
def test_clinical_kernel_matches_eqs_1_2_with_clipping_and_missing():
    X, _ = mixed(0, n=15, missing=0.1)
    X[:, 4] = 2.0  # constant feature: k_f = 1
    Z, _ = mixed(1, n=7, missing=0.1)
    Z[0, 0] = 50.0  # beyond the training range: clipped
    kern = ClinicalKernel(CAT).fit(X)
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    cat = categorical_mask(CAT, X.shape[1])
    np.testing.assert_allclose(kern.gram(X), naive_clinical(X, X, lo, hi, cat), atol=1e-12)
    np.testing.assert_allclose(kern.gram(Z, X), naive_clinical(Z, X, lo, hi, cat), atol=1e-12)
    assert kern.n_missing_ == int(np.isnan(X).sum())


@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_clinical_kernel_range_diagonal_psd(missing):
    X, _ = mixed(2, n=60, missing=missing)
    kern = ClinicalKernel(CAT).fit(X)
    K = kern.gram(X)
    assert K.min() >= 0.0 and K.max() <= 1.0 + 1e-12
    assert np.allclose(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    obs_frac = (~np.isnan(X)).mean(axis=1)
    # diag = fraction of observed features: exactly 1 without missing values
    np.testing.assert_allclose(np.diag(K), obs_frac, atol=1e-12)
    if missing == 0.0:
        assert np.allclose(np.diag(K), 1.0)
    else:
        assert np.diag(K).min() < 1.0
    # test points outside the training range stay in [0, 1] and PSD jointly with the training set
    Z = X[:10] * 5.0
    both = kern.gram(np.vstack([X, Z]))
    assert both.min() >= 0 and both.max() <= 1 + 1e-12
    assert np.linalg.eigvalsh(both).min() > -1e-10


def test_categorical_mask_forms():
    assert categorical_mask(None, 3).tolist() == [False, False, False]
    assert categorical_mask([0, 2], 3).tolist() == [True, False, True]
    assert categorical_mask(np.array([False, True, False]), 3).tolist() == [False, True, False]
    assert categorical_mask([-1], 3).tolist() == [False, False, True]
    with pytest.raises(ValueError):
        categorical_mask([True, False], 3)
    with pytest.raises(ValueError):
        categorical_mask([5], 3)


def test_subkernel_removal_equals_recomputation():
    X, _ = mixed(3, n=40, missing=0.05)
    kern = ClinicalKernel(CAT).fit(X)
    bank = SubkernelBank(kern, X)
    K = kern.gram(X)
    removed = np.array([1, 6, 7])
    kept = np.setdiff1d(np.arange(8), removed)
    down = remove_subkernels(K, bank.weighted_sum(removed), 8, removed.size)
    cat_kept = categorical_mask(CAT, 8)[kept]
    direct = ClinicalKernel(cat_kept).fit(X[:, kept]).gram(X[:, kept])
    np.testing.assert_allclose(down, direct, atol=1e-13)
    # one at a time, the paper's (pK - K_f)/(p-1)
    K7 = remove_subkernels(K, bank.subkernel(1), 8, 1)
    K6 = remove_subkernels(K7, bank.subkernel(6), 7, 1)
    K5 = remove_subkernels(K6, bank.subkernel(7), 6, 1)
    np.testing.assert_allclose(K5, direct, atol=1e-13)


def test_subkernel_bank_stored_and_chunked_agree():
    X, _ = mixed(4, n=30, missing=0.05)
    kern = ClinicalKernel(CAT).fit(X)
    stored, chunked = SubkernelBank(kern, X), SubkernelBank(kern, X, max_bytes=0)
    assert stored.stack is not None and chunked.stack is None
    feats = np.array([0, 3, 5, 7])
    w = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(stored.weighted_sum(feats, w), chunked.weighted_sum(feats, w), atol=1e-13)
    v = np.random.default_rng(0).normal(size=30)
    v[::3] = 0.0
    q = np.array([v @ stored.subkernel(f) @ v for f in feats])
    np.testing.assert_allclose(stored.quad_forms(v, feats), q, rtol=1e-12)
    np.testing.assert_allclose(chunked.quad_forms(v, feats), q, rtol=1e-12)


# ------------------------------------------------------------------------------ SVM-RFE
def test_svm_importance_equals_frozen_alpha_definition():
    """J(f) via (q_f - W²)/(p-1) equals W²(α) − W²_(−f)(α) with the recomputed kernel."""
    X, y = mixed(5, n=50)
    kern = ClinicalKernel(CAT).fit(X)
    bank = SubkernelBank(kern, X)
    K = kern.gram(X)
    remaining = np.arange(8)
    est = ClinicalSVMRFE(categorical=CAT)
    est._Cs = []
    targets = machine_targets(y)
    absolute, signed = est._importance(bank, K, remaining, targets)
    a, _ = svm_duals(K, targets[0], 1.0)
    w2 = a @ K @ a
    cat = categorical_mask(CAT, 8)
    brute = []
    for f in range(8):
        keep = np.delete(np.arange(8), f)
        Kf = ClinicalKernel(cat[keep]).fit(X[:, keep]).gram(X[:, keep])
        brute.append(w2 - a @ Kf @ a)
    brute = np.array(brute)
    np.testing.assert_allclose(signed, brute, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(absolute, np.round(np.abs(brute) / np.abs(brute).max(), 9), atol=1e-9)


def test_rfe_schedule_is_twenty_percent():
    D = 23
    X = np.random.default_rng(0).normal(size=(40, D))
    y = (X[:, 0] > 0).astype(int)
    est = ClinicalSVMRFE().fit(X, y)
    sizes, p = [], D
    while p > 1:
        m = max(1, int(np.floor(0.2 * p + 0.5)))
        sizes.append(m)
        p -= m
    assert est.n_iter_ == len(sizes)
    drops = [n_to_remove(0.2, s) for s in (23, 18, 14, 11, 9, 7, 6, 5, 4, 3, 2)]
    assert drops == sizes == [5, 4, 3, 2, 2, 1, 1, 1, 1, 1, 1]
    assert sorted(est.ranking_) == list(range(1, D + 1))


def test_abs_criterion_ties_on_last_pair_and_signed_breaks_them():
    X, y = mixed(6, n=60)
    Xs = X[:, [0, 2]]
    a = ClinicalSVMRFE(importance="abs").fit(Xs, y)
    s = ClinicalSVMRFE(importance="signed").fit(Xs, y)
    assert a.ranking_.tolist() == s.ranking_.tolist() == [1, 2]  # the relevant feature wins
    Xr = Xs[:, ::-1]  # index order must not decide the tie
    assert ClinicalSVMRFE(importance="abs").fit(Xr, y).ranking_.tolist() == [2, 1]


@pytest.mark.parametrize("seed", [0, 1])
def test_signed_svm_rfe_and_baselines_find_relevant_features(seed):
    X, y = mixed(seed)
    for est in (
        ClinicalSVMRFE(categorical=CAT, importance="signed"),
        ClinicalMKLRFE(categorical=CAT),
        OneHotLinearSVMRFE(categorical=CAT),
    ):
        est.fit(X, y)
        assert set(est.order_[:2]) == {0, 5}, type(est).__name__
    rf = RandomForestImportance(n_estimators=100, random_state=0).fit(X, y)
    assert rf.order_[0] == 0 and 5 in rf.order_[:3]
    np.testing.assert_allclose(rf.scores_.sum(), 1.0)


def test_paul_abs_criterion_keeps_the_continuous_relevant_feature():
    X, y = mixed(0)
    est = ClinicalSVMRFE(categorical=CAT).fit(X, y)
    assert est.order_[0] == 0
    assert est.C_.tolist() == [1.0] * est.n_iter_


def test_missing_values_accepted_and_counted():
    X, y = mixed(7, missing=0.1)
    for est in (
        ClinicalSVMRFE(categorical=CAT),
        ClinicalMKLRFE(categorical=CAT, max_iter=10),
        OneHotLinearSVMRFE(categorical=CAT),
    ):
        est.fit(X, y)
        assert est.n_missing_ == int(np.isnan(X).sum()) > 0
        assert sorted(est.ranking_) == list(range(1, 9))
    Xinf = X.copy()
    Xinf[0, 0] = np.inf
    with pytest.raises(ValueError):
        ClinicalSVMRFE().fit(Xinf, y)


def test_multiclass_runs():
    X, y = mixed(8, n=90)
    y3 = y + (X[:, 1] > 1).astype(int) * (1 - y) * 2  # classes 0, 1, 2
    for est in (
        ClinicalSVMRFE(categorical=CAT),
        ClinicalMKLRFE(categorical=CAT, max_iter=3),
        OneHotLinearSVMRFE(categorical=CAT),
    ):
        est.fit(X, y3)
        assert sorted(est.ranking_) == list(range(1, 9))


def test_inverse_mean_diag_C_is_one_for_complete_clinical_kernel():
    X, y = mixed(9, n=40)
    est = ClinicalSVMRFE(categorical=CAT, C="inverse_mean_diag").fit(X, y)
    np.testing.assert_allclose(est.C_, 1.0)
    with pytest.raises(ValueError):
        ClinicalSVMRFE(C=-1).fit(X, y)


def test_joachims_means_one_formula():
    """ "joachims" is kernels.joachims_C (1/R̄², needs φ(0)) everywhere; the clinical kernel has no origin."""
    X, y = mixed(9, n=40)
    for est in (ClinicalSVMRFE(categorical=CAT, C="joachims"), ClinicalMKLRFE(categorical=CAT, C="joachims")):
        with pytest.raises(ValueError, match="no origin; use C='inverse_mean_diag'"):
            est.fit(X, y)
    with pytest.raises(ValueError, match=r"float in the range \(0.0, inf\) or a str among {'joachims'}"):
        OneHotLinearSVMRFE(categorical=CAT, C="inverse_mean_diag").fit(X, y)
    # the one-hot baseline's "joachims" is Joachims' rule on its linear kernel: C = 1/R̄² >= 1/mean ||z||²
    Z, _ = one_hot_encode(X, categorical_mask(CAT, X.shape[1]))
    C_joachims = joachims_C(make_kernel("linear"), Z)
    C_diag = 1.0 / np.mean(np.sum(Z * Z, axis=1))
    assert C_joachims > C_diag
    seen = []
    real = clinical.svm_duals
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clinical, "svm_duals", lambda K, yb, C, **kw: seen.append(C) or real(K, yb, C, **kw))
        OneHotLinearSVMRFE(categorical=CAT, C="joachims", step=1).fit(X, y)
    assert seen[0] == pytest.approx(C_joachims)


# ------------------------------------------------------------------------------ SimpleMKL
def test_simple_mkl_simplex_and_decreasing_objective():
    X, y = mixed(4)
    kern = ClinicalKernel(CAT).fit(X)
    bank = SubkernelBank(kern, X)
    run = simple_mkl(bank, np.arange(8), machine_targets(y))
    w = run["weights"]
    assert np.all(w >= 0) and np.isclose(w.sum(), 1.0)
    obj = run["objective"]
    assert obj.size >= 2 and np.all(np.diff(obj) < 0)
    assert run["converged"] and run["gap"] < 0.01
    assert set(np.flatnonzero(w > 0.1)) == {0, 5}
    # KKT at the optimum: the active kernels share (nearly) the largest q_f
    q = run["q"]
    assert q[w > 0.1].min() > 0.95 * q.max()


def test_simple_mkl_reaches_grid_minimum_on_two_kernels():
    X, y = mixed(1, n=60)
    kern = ClinicalKernel(CAT).fit(X)
    bank = SubkernelBank(kern, X)
    feats = np.array([0, 5])
    targets = machine_targets(y)
    run = simple_mkl(bank, feats, targets, tol=1e-4)
    grid = []
    for t in np.linspace(0, 1, 41):
        K = bank.weighted_sum(feats, np.array([t, 1 - t]))
        grid.append(svm_duals(K, targets[0], 1.0, tol=1e-6)[1])
    assert run["objective"][-1] <= min(grid) + 1e-3 * abs(min(grid))
    assert run["objective"][-1] < grid[20]  # better than the clinical kernel (uniform weights)


def test_mkl_rfe_attributes():
    X, y = mixed(2)
    est = ClinicalMKLRFE(categorical=CAT).fit(X, y)
    assert est.weights_.shape == (8,) and np.isclose(est.weights_.sum(), 1.0)
    assert len(est.mkl_iter_) == est.n_iter_
    assert np.all(np.diff(est.objective_) < 0)
    cold = ClinicalMKLRFE(categorical=CAT, warm_start=False).fit(X, y)
    assert set(cold.order_[:2]) == set(est.order_[:2]) == {0, 5}
    np.testing.assert_allclose(cold.weights_, est.weights_)  # same first run (uniform start)
    assert sum(est.mkl_iter_[1:]) <= sum(cold.mkl_iter_[1:])


# ------------------------------------------------------------------------------ one-hot
def test_one_hot_encoding():
    X = np.array([[1.0, 0.0, 2.0], [2.0, 1.0, np.nan], [3.0, 2.0, 2.0], [np.nan, 1.0, 5.0]])
    Z, group = one_hot_encode(X, np.array([False, True, True]))
    assert group.tolist() == [0, 1, 1, 1, 2, 2]
    np.testing.assert_allclose(Z[:, 1:4].sum(axis=1), 1.0)
    assert Z[1, 4:].tolist() == [0.0, 0.0]  # missing category: all-zero row
    assert Z[3, 0] == 0.0  # missing continuous: mean
    np.testing.assert_allclose(Z[:3, 0], (np.array([1, 2, 3]) - 2) / np.std([1, 2, 3]))


def test_svm_duals_iteration_cap_returns_the_current_duals():
    """The MKL inner SVMs carry an iteration cap (libsvm can cycle without one): a capped fit warns
    and still returns feasible duals (|α| ≤ C, Σ α_i y_i = 0 up to libsvm's tolerance)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = mixed(5, n=60)
    K = ClinicalKernel(CAT).fit(X).gram(X)
    yb = machine_targets(y)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, obj = svm_duals(K, yb, 1.0, tol=1e-8, max_iter=3)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert np.all(np.abs(a) <= 1.0 + 1e-9) and abs(a.sum()) < 1e-6 and np.isfinite(obj)
    full, _ = svm_duals(K, yb, 1.0, tol=1e-8)
    assert not np.allclose(a, full)  # 3 iterations do not reach the optimum: the cap did act
