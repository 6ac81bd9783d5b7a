"""Kernel-space bases and selections (Xu et al. 2011, Cao et al. 2007): KOBL, KGS, KPCA, KFFS, RELIEF."""

import numpy as np
import pytest
import scipy.linalg
import scipy.linalg.lapack

from fsbench.algorithms.kernel_space import (
    FSKGS,
    FSKPCA,
    KGS,
    KGSKFFS,
    KOBL,
    KPCA,
    TAKES,
    THRESHOLD_FUNCTIONS,
    expansion_residual_norms,
    kffs,
    klms_weak_predictions,
    kobl_gamma_for_dim,
    relief_weights,
    span_residual_norms,
    weak_predictions,
)
from fsbench.algorithms.kernels import GramCentering, Kernel, resolve_gamma, sq_distances
from fsbench.algorithms.registry import get_selector

rng = np.random.default_rng(11)


def _nn1(Ztr, ytr, Zte, yte):
    return float(np.mean(ytr[np.argmin(sq_distances(Zte, Ztr), axis=1)] == yte))


def _rings(n, seed):
    """Two classes separated by the radius in the first two of 4 dimensions (not linearly separable)."""
    r = np.random.default_rng(seed)
    X = r.normal(size=(n, 4))
    y = (np.hypot(X[:, 0], X[:, 1]) > 1.18).astype(int)
    return X, y


def _gram(X, gamma="median"):
    kern = Kernel("rbf", gamma=gamma).resolved(X)
    return kern, kern.gram(X)


def _naive_pivoted_cholesky(K, m):
    """Right-looking pivoted Cholesky on the dense matrix (the textbook outer-product loop)."""
    A = K.copy()
    n = K.shape[0]
    L = np.zeros((n, m))
    piv = []
    for k in range(m):
        d = np.diag(A).copy()
        d[piv] = -np.inf
        p = int(np.argmax(d))
        L[:, k] = A[:, p] / np.sqrt(A[p, p])
        A -= np.outer(L[:, k], L[:, k])
        piv.append(p)
    return np.array(piv), L


# --------------------------------------------------------------------------- KOBL
def test_kobl_equals_dense_pivoted_cholesky():
    X = rng.normal(size=(60, 5))
    _, K = _gram(X)
    kobl = KOBL().fit(X)
    m = kobl.n_components_
    assert 1 < m < 60
    piv, L = _naive_pivoted_cholesky(K, m)
    np.testing.assert_array_equal(kobl.pivots_, piv)
    np.testing.assert_allclose(kobl.embedding_, L, atol=1e-10)
    # LAPACK's pivoted Cholesky (dpstrf, same diagonal pivoting): the same first m pivots and columns.
    c, p, rank, info = scipy.linalg.lapack.dpstrf(K, lower=1)
    p = p - 1
    Lf = np.tril(c)[:, :m]
    G_lapack = np.empty_like(Lf)
    G_lapack[p] = Lf
    np.testing.assert_array_equal(kobl.pivots_, p[:m])
    np.testing.assert_allclose(kobl.embedding_, G_lapack, atol=1e-9)
    np.testing.assert_allclose(kobl.r_, np.diag(c)[:m], rtol=1e-9)


def test_kobl_basis_is_orthonormal_in_feature_space():
    X = rng.normal(size=(80, 3))
    kern, K = _gram(X)
    kobl = KOBL().fit(X)
    piv, A = kobl.pivots_, kobl.basis_coef_
    # <w_i, w_j> = A^T K[piv, piv] A = I
    np.testing.assert_allclose(A.T @ K[np.ix_(piv, piv)] @ A, np.eye(piv.size), atol=1e-8)
    # G G^T is the projection of K on the span of the pivots (Nyström), exact on the pivot rows
    G = kobl.embedding_
    Kp = K[:, piv]
    np.testing.assert_allclose(G @ G.T, Kp @ np.linalg.solve(K[np.ix_(piv, piv)], Kp.T), atol=1e-8)
    np.testing.assert_allclose((G @ G.T)[np.ix_(piv, piv)], K[np.ix_(piv, piv)], atol=1e-12)
    # Theorem 2: non-increasing r_jj, and the stop rule
    assert np.all(np.diff(kobl.r_) <= 1e-12)
    r11, n = kobl.r_[0], X.shape[0]
    assert all(kobl.r_[k] / r11 >= k / n for k in range(kobl.n_components_))
    assert kobl.stop_reason_ == "threshold" and kobl.r_rejected_ / r11 < kobl.n_components_ / n


def test_kobl_full_dimension_reconstructs_K():
    X = rng.normal(size=(30, 4))
    _, K = _gram(X, gamma=1.0)
    kobl = KOBL(gamma=1.0, f="zero").fit(X)
    assert kobl.n_components_ == 30
    np.testing.assert_allclose(kobl.embedding_ @ kobl.embedding_.T, K, atol=1e-10)
    assert kobl.reconstruction_cost_ < 1e-6
    # a fixed dimension ignores the threshold
    assert KOBL(gamma=1.0, n_components=7).fit(X).n_components_ == 7


def test_kobl_stops_at_numerical_rank():
    # linear kernel on 3-D data: rank 3, no division by round-off residuals
    X = rng.normal(size=(25, 3))
    kobl = KOBL(kernel="linear", f="zero").fit(X)
    assert kobl.n_components_ == 3 and kobl.stop_reason_ == "rank"
    np.testing.assert_allclose(kobl.embedding_ @ kobl.embedding_.T, X @ X.T, atol=1e-9)
    assert np.all(np.isfinite(kobl.transform(rng.normal(size=(4, 3)))))


@pytest.mark.parametrize("f", ["linear", "sqrt", "square"])
@pytest.mark.parametrize("seed", range(4))
def test_theorem1_bound(f, seed):
    r = np.random.default_rng(seed)
    n, d = r.integers(40, 120), r.integers(2, 8)
    X = r.normal(size=(n, d)) * r.uniform(0.3, 3, d)
    for kernel, kw in [
        ("rbf", {"gamma": float(resolve_gamma("median", X) * r.uniform(0.2, 3))}),
        ("poly", {}),
    ]:
        kobl = KOBL(kernel=kernel, f=f, degree=2, scale=0.2, **kw).fit(X)
        bound = kobl.r_[0] * THRESHOLD_FUNCTIONS[f](kobl.n_components_ / n)
        assert kobl.reconstruction_cost_ <= bound + 1e-12
        assert kobl.threshold_ == pytest.approx(THRESHOLD_FUNCTIONS[f](kobl.n_components_ / n))


def test_kobl_test_points_project_on_the_span():
    X, Xt = rng.normal(size=(50, 3)), rng.normal(size=(20, 3))
    kobl = KOBL().fit(X)
    kern = kobl.kernel_
    P = kobl.basis_vectors_
    Kpp, Kpt = kern.gram(P), kern.gram(P, Xt)
    # residual of φ(x) on span{φ(x_piv)}: k(x,x) - k_p(x)^T K_pp^{-1} k_p(x)
    res2 = 1.0 - np.einsum("ij,ij->j", Kpt, np.linalg.solve(Kpp, Kpt))
    Z = kobl.transform(Xt)
    np.testing.assert_allclose(1.0 - np.sum(Z * Z, axis=1), res2, atol=1e-9)
    assert kobl.reconstruction_cost(Xt) == pytest.approx(np.mean(np.sqrt(np.maximum(res2, 0))), abs=1e-7)


def test_threshold_function_validation():
    with pytest.raises(ValueError, match="threshold"):
        KOBL(f="cubic").fit(rng.normal(size=(10, 2)))
    kobl = KOBL(f=lambda t: 0.5).fit(rng.normal(size=(40, 2)))
    assert kobl.r_[-1] / kobl.r_[0] >= 0.5


# --------------------------------------------------------------------------- KGS / KPCA
def test_kgs_full_dimension_reconstructs_K():
    X = rng.normal(size=(40, 4))
    _, K = _gram(X)
    kgs = KGS().fit(X)
    assert kgs.n_components_ == 40
    np.testing.assert_array_equal(kgs.pivots_, np.arange(40))
    np.testing.assert_allclose(kgs.embedding_ @ kgs.embedding_.T, K, atol=1e-8)
    # the unpivoted factor is the ordinary Cholesky factor
    np.testing.assert_allclose(kgs.embedding_, np.linalg.cholesky(K), atol=1e-8)


def test_kgs_skips_dependent_points():
    X = rng.normal(size=(20, 2))
    X = np.vstack([X, X[:3]])  # three duplicates: rank 20
    kgs = KGS().fit(X)
    assert kgs.n_components_ == 20
    np.testing.assert_array_equal(kgs.skipped_, [20, 21, 22])


def test_kpca_full_dimension_reconstructs_centred_K():
    X = rng.normal(size=(35, 3))
    _, K = _gram(X)
    kp = KPCA().fit(X)
    H = np.eye(35) - 1.0 / 35
    np.testing.assert_allclose(kp.embedding_ @ kp.embedding_.T, H @ K @ H, atol=1e-8)
    assert kp.n_components_ == 34  # the centred Gram matrix has rank N - 1
    # orthonormal in feature space: α^T K̃ α = I
    np.testing.assert_allclose(kp.dual_coef_.T @ (H @ K @ H) @ kp.dual_coef_, np.eye(34), atol=1e-6)
    unc = KPCA(center=False).fit(X)
    np.testing.assert_allclose(unc.embedding_ @ unc.embedding_.T, K, atol=1e-8)
    assert unc.reconstruction_cost_ < 1e-5
    # the centred basis misses the mean direction: E(M) > 0 at full dimension (cf. Xu et al. Table 2)
    assert kp.reconstruction_cost_ > 0.05


def test_gram_centering_matches_explicit_linear_feature_map():
    X, Xt = rng.normal(size=(15, 3)), rng.normal(size=(6, 3))
    cent = GramCentering.from_gram(X @ X.T)
    m = X.mean(axis=0)
    np.testing.assert_allclose(cent.center(X @ X.T), (X - m) @ (X - m).T, atol=1e-12)
    np.testing.assert_allclose(cent.center(Xt @ X.T), (Xt - m) @ (X - m).T, atol=1e-12)
    np.testing.assert_allclose(
        cent.center_diag(np.sum(Xt * Xt, 1), Xt @ X.T), np.sum((Xt - m) ** 2, 1), atol=1e-12
    )


# --------------------------------------------------------------------------- KFFS / RELIEF
def test_weak_learner_is_sign_of_least_squares_fit():
    Z = rng.normal(size=(30, 6))
    y = (Z[:, 2] + 0.5 * rng.normal(size=30) > 0).astype(int)
    V = weak_predictions(Z, y, 2)
    s = 2.0 * y - 1
    for i in range(6):
        A = np.column_stack([Z[:, i], np.ones(30)])
        coef = np.linalg.lstsq(A, s, rcond=None)[0]
        np.testing.assert_array_equal(V[i], (A @ coef >= 0).astype(int))


def test_kffs_picks_the_perfect_coordinate_and_stops():
    n = 40
    y = np.repeat([0, 1], n // 2)
    V = rng.integers(0, 2, size=(5, n))
    V[3] = y
    res = kffs(V, y, 2)
    assert res.picks.tolist() == [3] and res.stop == "perfect"
    assert res.gammas[0] == pytest.approx(np.log(2 * n - 1))
    assert res.weights[3] == pytest.approx(res.gammas[0]) and np.count_nonzero(res.weights) == 1


def test_kffs_weights_follow_eq23_and_stop_at_chance():
    n = 60
    y = rng.integers(0, 2, n)
    V = np.where(rng.random((8, n)) < 0.7, y, 1 - y)  # 70 % accurate weak learners
    res = kffs(V, y, 2)
    assert res.picks.size >= 1
    e = np.maximum(res.errors, 1 / (2 * n))
    np.testing.assert_allclose(res.gammas, np.log((1 - e) / e))
    assert np.all(res.errors < 0.5)
    assert res.stop in {"chance", "perfect", "max_rounds"}
    np.testing.assert_allclose(res.weights.sum(), res.gammas.sum())


def test_klms_weak_learner_by_hand():
    """Three points z = 0, 1, 2, labels 0, 1, 1, h = 1, η = 0.5 (centred one-hot targets ±0.5), by hand:
    coefficients η·e_t = (.25, −.25), (−.32582, .32582), (−.16811, .16811); final f at z = 0, 1, 2 for
    class 0 = .02963, −.27615, −.33190 → classes 0, 1, 1."""
    Z = np.array([[0.0], [1.0], [2.0]])
    V = klms_weak_predictions(Z, np.array([0, 1, 1]), 2, step=0.5, width=1.0)
    assert V.tolist() == [[0, 1, 1]]
    # the default width is the median pairwise |z_s − z_t| = median(1, 2, 1) = 1: the same case
    assert klms_weak_predictions(Z, np.array([0, 1, 1]), 2).tolist() == [[0, 1, 1]]


def test_klms_weak_learner_is_nonlinear_in_the_coordinate():
    """Labels 0, 1, 0 at z = 0, 1, 2: no threshold on z fits them. The LS learner's slope is 0 (cov(z, y)
    = 0), so it predicts the majority class everywhere; a narrow-kernel KLMS (κ ≈ 0 between the points)
    interpolates f(z_t) = η·T̃_t and fits the labels."""
    Z = np.array([[0.0], [1.0], [2.0]])
    y = np.array([0, 1, 0])
    assert weak_predictions(Z, y, 2).tolist() == [[0, 0, 0]]
    assert klms_weak_predictions(Z, y, 2, width=0.1).tolist() == [[0, 1, 0]]


def test_kffs_without_early_stop_runs_all_rounds_as_printed():
    n = 40
    y = np.repeat([0, 1], n // 2)
    V = np.random.default_rng(3).integers(0, 2, size=(5, n))
    V[3] = y
    res = kffs(V, y, 2, early_stop=False)
    # Algorithm 2's "for t = 1 to d": 5 rounds instead of the default stop after the first. Rounds 1–2 can
    # only be perfect with coordinate 3 (another vote would tie → class 1 on a class-0 sample); from round 3
    # the true class leads by 2 votes, so every candidate is perfect and ties go to the first index.
    assert res.stop == "max_rounds" and res.picks.size == 5 and res.picks[:2].tolist() == [3, 3]
    assert np.all(res.errors == 0)
    np.testing.assert_allclose(res.gammas, np.log(2 * n - 1))
    assert kffs(V, y, 2).picks.tolist() == [3]
    # always-wrong weak learners: ε = 1 → γ = log(1/(2N − 1)) < 0, finite (ε̃ capped at 1 − 1/(2N))
    res = kffs(1 - y[None, :].repeat(3, axis=0), y, 2, early_stop=False)
    assert res.picks.size == 3 and np.all(np.isfinite(res.gammas))
    np.testing.assert_allclose(res.gammas[0], np.log(1 / (2 * n - 1)))
    assert kffs(1 - y[None, :].repeat(3, axis=0), y, 2).picks.size == 0  # default: stops at chance


@pytest.mark.parametrize("params", [{"weak_learner": "klms"}, {"early_stop": False}])
def test_takes_kffs_readings_fit_and_transform(params):
    X, y = _rings(80, 5)
    est = TAKES(**params).fit(X, y)
    assert est.n_components_ >= 1
    np.testing.assert_allclose(est.transform(X), est.embedding_, atol=1e-8)


def test_relief_ranks_the_label_coordinate_first():
    n = 50
    y = rng.integers(0, 3, n)
    Z = rng.normal(size=(n, 5))
    Z[:, 4] = y + 0.05 * rng.normal(size=n)
    w = relief_weights(Z, y, 3)
    assert np.argmax(w) == 4 and w[4] > 0


# --------------------------------------------------------------------------- transformers
KERNEL_SPACE = ["kobl", "kgs", "kpca", "takes", "kgs_kffs", "fskgs", "fskpca"]


@pytest.mark.parametrize("name", KERNEL_SPACE)
def test_transform_of_training_data_equals_fit_time_coordinates(name):
    X, y = _rings(70, 0)
    est = get_selector(name).fit(X, y)
    assert est.kind == "transform" and not hasattr(est, "ranking_")
    Z = est.transform(X)
    assert Z.shape == (70, est.n_components_) and est.n_components_ >= 1
    np.testing.assert_allclose(Z, est.embedding_, atol=1e-8)
    # test points are mapped row by row with training statistics only
    Xt = rng.normal(size=(9, 4))
    np.testing.assert_allclose(est.transform(Xt)[3:5], est.transform(Xt[3:5]), atol=1e-10)


def test_takes_output_is_weighted_selected_kobl_coordinates():
    X, y = _rings(80, 1)
    t = TAKES().fit(X, y)
    kobl = KOBL().fit(X)
    np.testing.assert_array_equal(t.basis_.pivots_, kobl.pivots_)
    Xt = rng.normal(size=(7, 4))
    np.testing.assert_allclose(t.transform(Xt), kobl.transform(Xt)[:, t.selected_] * t.weights_, atol=1e-10)
    assert np.all(np.diff(t.weights_) <= 0) and np.all(t.weights_ > 0)
    t2 = TAKES(n_components=1).fit(X, y)
    assert t2.n_components_ == 1 and t2.selected_[0] == t.selected_[0]


@pytest.mark.parametrize("cls", [TAKES, KGSKFFS, FSKGS, FSKPCA])
def test_1nn_on_kernel_space_features_beats_chance(cls):
    X, y = _rings(150, 2)
    Xt, yt = _rings(300, 3)
    est = cls().fit(X, y)
    acc = _nn1(est.embedding_, y, est.transform(Xt), yt)
    # chance: max class share ≈ 0.51, binomial sd ≈ 0.03 on 300 points; measured 0.68-0.84 over 5 draws
    # (TAKES, the weakest: few coordinates), 0.75-0.82 for the others
    assert acc > 0.62, acc


def test_takes_multiclass_modes():
    r = np.random.default_rng(5)
    X = r.normal(size=(90, 3))
    y = np.digitize(np.hypot(X[:, 0], X[:, 1]), [0.9, 1.5])
    samme = TAKES().fit(X, y)
    ovr = TAKES(multiclass="first_vs_rest").fit(X, y)
    assert samme.n_components_ >= 1 and ovr.n_components_ >= 1
    assert set(samme.weak_predictions_.ravel()) <= {0, 1, 2}
    assert set(ovr.weak_predictions_.ravel()) <= {0, 1}
    with pytest.raises(ValueError, match="multiclass"):
        TAKES(multiclass="ovo").fit(X, y)
    weak = TAKES(sample_update="weak").fit(X, y)
    assert weak.n_components_ >= 1


def test_fs_n_components_and_relief_order():
    X, y = _rings(60, 4)
    est = FSKPCA(n_components=5).fit(X, y)
    assert est.n_components_ == 5
    w = est.relief_weights_
    assert np.all(np.diff(w[est.selected_]) <= 0) and w[est.selected_[0]] == w.max()


# --------------------------------------------------------------------------- Table 2 readings
def test_expansion_residual_by_hand_differs_from_span_for_a_non_orthonormal_basis():
    """Linear kernel on R²: w1 = (1, 0), w2 = (1, 1)/√2 (unit, not orthogonal), x = (0, 1): t = (0, 1/√2),
    Σ t_j w_j = (.5, .5), residual (−.5, .5) of norm √.5; the span is R², so the projection residual is 0."""
    W = np.array([[1.0, 0.0], [1.0, 1.0]]) / np.array([[1.0], [np.sqrt(2.0)]])
    x = np.array([[0.0, 1.0]])
    T, gram = x @ W.T, W @ W.T
    np.testing.assert_allclose(expansion_residual_norms([1.0], T, gram), [np.sqrt(0.5)])
    np.testing.assert_allclose(span_residual_norms([1.0], T, gram), [0.0], atol=1e-7)
    # orthonormal basis: both lines of eq. (19) agree
    Q = np.eye(2)[:1]
    np.testing.assert_allclose(
        expansion_residual_norms([1.0], x @ Q.T, Q @ Q.T), span_residual_norms([1.0], x @ Q.T)
    )


def test_kobl_gamma_for_dim_by_hand():
    """x = 0, 1, 10 (1-D), RBF, f(t) = t, r11 = 1: the first pivot is x = 0; the second candidate is x = 10
    (k(0, 10) = exp(−100γ)) with residual norm sqrt(1 − exp(−200γ)), accepted iff it is ≥ f(1/3) = 1/3,
    i.e. iff γ ≥ ln(9/8)/200. So the smallest γ giving Dim = 2 is ln(9/8)/200."""
    X = np.array([[0.0], [1.0], [10.0]])
    g = kobl_gamma_for_dim(X, 2)
    assert g == pytest.approx(np.log(9 / 8) / 200, rel=1e-5)
    assert KOBL(gamma=g).fit(X).n_components_ >= 2
    assert KOBL(gamma=g * 0.999).fit(X).n_components_ == 1
