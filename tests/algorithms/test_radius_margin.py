"""R2W2 (radius–margin bound) and its simplex QP solver."""

import numpy as np
import pytest
from scipy.optimize import minimize

from fsbench.algorithms._qp import enclosing_ball_radius2, simplex_qp
from fsbench.algorithms.filters import FisherScore
from fsbench.algorithms.kernels import Kernel, joachims_C, joachims_C_gradient
from fsbench.algorithms.radius_margin import R2W2, RadiusMarginBound, binary_problems


# ---------------------------------------------------------------- toy data (ALGORITHMS.md §1.3)
def gen_linear(n, rng, noise_sd=np.sqrt(20)):
    y = rng.choice([-1, 1], n)
    X = rng.normal(0, noise_sd, (n, 202))
    A = rng.random(n) < 0.7
    for i in range(1, 4):
        X[A, i - 1] = y[A] * rng.normal(i, 1, A.sum())
        X[~A, i - 1] = rng.normal(0, 1, (~A).sum())
        X[A, i + 2] = rng.normal(0, 1, A.sum())
        X[~A, i + 2] = y[~A] * rng.normal(i, 1, (~A).sum())
    return X, y


def gen_nonlinear(n, rng, noise_sd=np.sqrt(20)):
    y = rng.choice([-1, 1], n)
    X = rng.normal(0, noise_sd, (n, 52))
    comp = (rng.random(n) < 0.5).astype(int)
    mu = {-1: np.array([[-0.75, -3.0], [0.75, 3.0]]), 1: np.array([[3.0, -3.0], [-3.0, 3.0]])}
    X[:, :2] = np.array([mu[int(yi)][c] for yi, c in zip(y, comp, strict=True)]) + rng.normal(0, 1, (n, 2))
    return X, y


def shuffled(X, rng):
    """Permute the columns so that ties broken by feature index cannot favour the relevant features."""
    perm = rng.permutation(X.shape[1])
    return X[:, perm], perm


# ---------------------------------------------------------------- the simplex QP
def _slsqp_radius(K):
    n = K.shape[0]
    d = np.diag(K)
    res = minimize(
        lambda b: -(d @ b - b @ K @ b),
        np.full(n, 1.0 / n),
        jac=lambda b: -(d - 2 * K @ b),
        method="SLSQP",
        bounds=[(0, None)] * n,
        constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1, "jac": lambda b: np.ones(n)}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return -res.fun


@pytest.mark.parametrize("seed", range(6))
def test_qp_matches_slsqp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    Z = rng.normal(size=(n, int(rng.integers(1, 6))))
    K = Z @ Z.T if seed % 2 == 0 else Kernel("rbf", gamma=0.3).gram(Z)
    res = enclosing_ball_radius2(K, tol=1e-9)
    assert res.converged
    assert res.value == pytest.approx(_slsqp_radius(K), abs=1e-6)
    assert res.beta.min() >= 0 and res.beta.sum() == pytest.approx(1.0)
    # warm start from a poor point reaches the same optimum
    warm = enclosing_ball_radius2(K, beta0=np.eye(n)[0], tol=1e-9)
    assert warm.value == pytest.approx(res.value, abs=1e-8)


def test_qp_default_tolerance_meets_spec():
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(40, 3))
    K = Z @ Z.T
    res = enclosing_ball_radius2(K)  # tol 1e-6 (ALGORITHMS.md §2.3)
    assert res.value == pytest.approx(_slsqp_radius(K), abs=1e-6)


def test_qp_closed_forms():
    # two points: the ball is centred at the midpoint, R² = |a-b|²/4
    Z = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert enclosing_ball_radius2(Z @ Z.T).value == pytest.approx(25 / 4)
    # one point / identical points: R² = 0
    assert enclosing_ball_radius2(np.array([[2.0]])).value == pytest.approx(0.0)
    assert enclosing_ball_radius2(np.ones((4, 4))).value == pytest.approx(0.0, abs=1e-12)
    # RBF with K = I (far-apart points): R² = 1 - 1/n
    assert enclosing_ball_radius2(np.eye(5)).value == pytest.approx(1 - 1 / 5)
    # general linear term: max c'b - b'Qb on the simplex with Q = I, c = (1, 0): b = (3/4, 1/4)
    r = simplex_qp(np.eye(2), np.array([1.0, 0.0]), tol=1e-12)
    assert r.beta == pytest.approx([0.75, 0.25]) and r.value == pytest.approx(0.75 - 0.625)


def test_qp_rejects_bad_shape():
    with pytest.raises(ValueError):
        simplex_qp(np.ones((2, 3)))


# ---------------------------------------------------------------- bound and gradient
def _separable(n=30, D=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    X[:, 0] += 0.3 * y  # a margin: the hard-margin SVM is well defined for every kernel below
    return X, y, rng.uniform(0.6, 1.4, D)


def _fd(est, X, y, w, h=1e-3):
    # libsvm caches the kernel in float32, so α is accurate to ~1e-7: a small step would measure noise
    return np.array(
        [
            (est.bound_and_gradient(X, y, w + h * e)[0] - est.bound_and_gradient(X, y, w - h * e)[0])
            / (2 * h)
            for e in np.eye(w.size)
        ]
    )


KERNELS = [{"kernel": "linear"}, {"kernel": "rbf"}, {"kernel": "poly", "degree": 2}]
EXACT_SETTINGS = [
    pytest.param({"C": 1e6}, id="hard-margin"),
    pytest.param({"C": 1e6, "radius": "variance"}, id="hard-margin-variance"),
    pytest.param({"l2_soft": True}, id="l2-soft-Chat"),
    pytest.param({"l2_soft": True, "C": 0.5}, id="l2-soft-fixedC"),
    pytest.param({"l2_soft": True, "radius": "variance"}, id="l2-soft-variance"),
]


@pytest.mark.parametrize("setting", EXACT_SETTINGS)
@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
def test_gradient_matches_finite_differences(kern, setting):
    X, y, w = _separable()
    est = R2W2(**kern, **setting)
    f, g = est.bound_and_gradient(X, y, w)
    num = _fd(est, X, y, w)
    assert f > 0
    assert np.abs(g - num).max() <= 2e-3 * np.abs(num).max()


def test_gradient_multiclass_sum_of_one_vs_rest():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(36, 4))
    y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(36, 3)), axis=1)
    w = rng.uniform(0.7, 1.3, 4)
    est = R2W2(kernel="rbf", l2_soft=True)
    f, g = est.bound_and_gradient(X, y, w)
    num = _fd(est, X, y, w)
    assert np.abs(g - num).max() <= 2e-3 * np.abs(num).max()
    # the value is R² times the sum of the three one-vs-rest W²
    total = 0.0
    for c in range(3):
        fc, _ = est.bound_and_gradient(X, (y == c).astype(int), w)
        total += fc
    assert f == pytest.approx(total, rel=1e-5)


def test_l1_soft_margin_gradient_is_only_an_approximation():
    """Documented behaviour: with bounded α and Ĉ(w) the envelope formula is not the true gradient."""
    X, y, w = _separable()
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.8 * np.random.default_rng(1).normal(size=y.size) > 0, 1, -1)
    est = R2W2(kernel="rbf", l2_soft=False)
    _, g = est.bound_and_gradient(X, y, w)
    num = _fd(est, X, y, w)
    assert np.abs(g - num).max() > 0.05 * np.abs(num).max()


def test_bound_closed_form_two_points():
    # x = ±1 in 1-D, linear kernel, hard margin: R² = 1 (ball centred at 0), W² = |w_h|² = 1.
    X = np.array([[1.0], [-1.0]])
    f, g = R2W2(kernel="linear", C=1e6).bound_and_gradient(X, np.array([1, 0]), np.ones(1))
    assert f == pytest.approx(1.0, rel=1e-6)
    assert g == pytest.approx([0.0], abs=1e-6)  # scale invariance of the linear hard-margin bound


def test_linear_bound_is_scale_invariant_with_Chat():
    """k = Σ w_d² x_d z_d with Ĉ re-estimated (L2 soft): R²W²(c·w) = R²W²(w) ⇒ w·∇ = 0 (Euler)."""
    X, y, w = _separable(seed=4)
    y[:3] = -y[:3]  # not separable: the L2 slack matters
    est = R2W2(kernel="linear", l2_soft=True)
    f, g = est.bound_and_gradient(X, y, w)
    f3, _ = est.bound_and_gradient(X, y, 3.0 * w)
    assert f3 == pytest.approx(f, rel=1e-5)
    assert abs(g @ w) <= 1e-4 * np.linalg.norm(g) * np.linalg.norm(w)


def test_variance_radius_formula():
    X, y, w = _separable(seed=5)
    kern = Kernel("rbf", gamma=0.2)
    obj = RadiusMarginBound(kern, X, binary_problems(y), C=1.0, radius="variance")
    obj(w)
    K = kern.gram(X, w=w)
    assert obj.R2 == pytest.approx(np.mean(np.diag(K)) - np.mean(K))
    assert obj.R2 < RadiusMarginBound(kern, X, binary_problems(y), C=1.0, radius="qp").__call__(w)[0] / obj.W2


@pytest.mark.parametrize(
    "kern", [Kernel("linear"), Kernel("rbf", gamma=0.2), Kernel("poly", degree=3, scale=0.5)], ids=str
)
def test_joachims_C_gradient(kern):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(15, 4))
    X[0] = 0.0  # a sample at the origin is skipped, not divided by zero
    w = rng.uniform(0.5, 1.5, 4)
    C, dC = joachims_C_gradient(kern, X, w)
    assert C == pytest.approx(joachims_C(kern, X, w))
    h = 1e-6
    num = [(joachims_C(kern, X, w + h * e) - joachims_C(kern, X, w - h * e)) / (2 * h) for e in np.eye(4)]
    assert dC == pytest.approx(num, rel=1e-5, abs=1e-9)


# ---------------------------------------------------------------- the selector
@pytest.mark.parametrize("mode", ["spider", "weston"])
@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
def test_fit_gives_complete_ranking_and_attributes(kern, mode):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 7))
    y = (X[:, 2] - X[:, 5] > 0).astype(int)
    # weston mode + L2 soft margin on this linear problem drops x2 before x3 in the {2, 3, 5} round
    # (measured; the L1 variant and spider mode find {2, 5}) — documented in R2W2's docstring.
    l2 = not (mode == "weston" and kern["kernel"] == "linear")
    est = R2W2(**kern, mode=mode, max_iter=20, l2_soft=l2).fit(X, y)
    assert sorted(est.ranking_.tolist()) == list(range(1, 8))
    assert est.scale_factors_.shape == (7,) and np.all(est.scale_factors_ >= 0)
    assert est.scores_ == pytest.approx(np.abs(est.scale_factors_))
    assert np.isfinite(est.bound_) and est.bound_ == pytest.approx(est.radius2_ * est.margin2_)
    assert est.n_iter_ >= 1 and est.n_evaluations_ >= est.n_iter_
    if kern["kernel"] != "poly":  # (1 + <x,z>)^2 mostly rescales all σ on a linear problem
        assert set(est.order_[:2]) == {2, 5}


def test_spider_descends_the_bound():
    X, y, _ = _separable(n=40, D=6, seed=8)
    est = R2W2(kernel="rbf", l2_soft=True).fit(X, y)
    f0, _ = est.bound_and_gradient(X, y, np.ones(6))
    assert est.bound_ < f0
    assert est.converged_


def test_weston_ranking_structure():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 12))
    y = (X[:, 4] + X[:, 9] > 0).astype(int)
    est = R2W2(kernel="linear", mode="weston", n_features_to_select=3, l2_soft=True).fit(X, y)
    order = est.order_
    surv = order[:3]
    assert np.all(est.scale_factors_[surv] > 0)
    assert np.all(est.scale_factors_[order[3:]] == 0)  # removed features are set to 0
    # survivors are ordered by |σ|
    assert np.all(np.diff(np.abs(est.scale_factors_[surv])) <= 0)
    assert {4, 9} <= set(surv.tolist())
    assert est.get_support().sum() == 3 and set(np.flatnonzero(est.get_support())) == set(surv.tolist())


def test_all_zero_scale_factors_are_excluded():
    # σ = 0 collapses every sample to one point; the L1 "bound" there would be 0 (a spurious minimum)
    X, y, _ = _separable()
    f, g = R2W2(kernel="rbf").bound_and_gradient(X, y, np.zeros(X.shape[1]))
    assert f == np.inf and not np.any(g)


@pytest.mark.parametrize("mode", ["spider", "weston"])
def test_ties_in_scale_are_broken_by_gradient(mode):
    # max_iter = 0: no step, all σ = 1 tie ⇒ the bound's gradient at σ = 1 orders the features
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    y = (X[:, 4] > 0).astype(int)
    est = R2W2(kernel="linear", l2_soft=True, mode=mode, max_iter=0).fit(X, y)
    _, g = est.bound_and_gradient(X, y, np.ones(6))
    by_gradient = np.argsort(g, kind="stable")
    if mode == "spider":
        assert est.order_.tolist() == by_gradient.tolist()
        assert est.order_[0] == 4
    else:  # the first round removes the 3 features with the largest gradient, the worst last
        assert est.order_[-1] == by_gradient[-1]
        assert set(est.order_[3:].tolist()) == set(by_gradient[3:].tolist())


def test_multiclass_fit():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 6))
    y = np.digitize(X[:, 3], [-0.5, 0.5])
    est = R2W2(kernel="rbf", l2_soft=True, max_iter=30).fit(X, y)
    assert est.order_[0] == 3


@pytest.mark.parametrize(
    "params",
    [
        {"mode": "fast"},
        {"radius": "exact"},
        {"C": 0.0},
        {"C": -1.0},
        {"max_iter": -1},
        {"tol": -1.0},
        {"l2_soft": "yes"},
    ],
)
def test_invalid_params(params):
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(ValueError):
        R2W2(**params).fit(X, np.arange(10) % 2)


# ---------------------------------------------------------------- Weston 2000 toys (slow)
def _nonlinear_hits(params, draws=10, n=100):
    hits = 0
    for seed in range(draws):
        rng = np.random.default_rng(1000 + seed)
        X, y = gen_nonlinear(n, rng)
        Xp, perm = shuffled(X, rng)
        est = R2W2(**params).fit(Xp, y)
        hits += set(perm[est.order_[:2]].tolist()) == {0, 1}
    return hits


@pytest.mark.slow
def test_nonlinear_toy_rbf_l2_soft():
    # RBF with the exact (L2-soft-margin) bound, the default: 6/10 on these draws (9/20 on others;
    # mode="weston" also 6/10)
    assert _nonlinear_hits({"kernel": "rbf"}) >= 6


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="measured 2/10 here (4/20 over other draws): the L1 soft margin with Ĉ re-estimated makes the "
    "envelope gradient a poor approximation and the optimiser stops in local minima; see the R2W2 report",
)
def test_nonlinear_toy_rbf_l1_soft_margin():
    assert _nonlinear_hits({"kernel": "rbf", "l2_soft": False}) >= 6


@pytest.mark.slow
def test_nonlinear_toy_poly2():
    # Weston 2000 used a 2nd-order polynomial kernel on this problem: 9/10 here
    assert _nonlinear_hits({"kernel": "poly", "degree": 2}) >= 8


@pytest.mark.slow
def test_linear_toy_complementary_pair_more_often_than_fisher():
    def complementary(top):
        return len(set(top) & {0, 1, 2}) == 1 and len(set(top) & {3, 4, 5}) == 1

    r2w2 = fisher = 0
    for seed in range(10):
        rng = np.random.default_rng(2000 + seed)
        X, y = gen_linear(100, rng)
        Xp, perm = shuffled(X, rng)
        r2w2 += complementary(perm[R2W2(kernel="linear").fit(Xp, y).order_[:2]].tolist())
        fisher += complementary(perm[FisherScore().fit(Xp, y).order_[:2]].tolist())
    assert r2w2 > fisher
    assert r2w2 >= 5
