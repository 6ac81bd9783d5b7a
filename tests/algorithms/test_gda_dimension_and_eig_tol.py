"""GDA's output dimension (C−1, "controlled by the number of classes") and its eigenvalue floor τ chosen
by cross-validation inside the training data (fixed grid), never on test results."""

import inspect

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from fsbench.algorithms import discriminant, kernel_space
from fsbench.algorithms.discriminant import GDA, GDA_EIG_TOL_GRID, KDA, KIFE
from fsbench.algorithms.kernels import sq_distances


def _blobs(n, n_classes, seed, d=4, sep=1.5):
    r = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = r.normal(size=(n, d))
    ang = 2 * np.pi * y / n_classes
    X[:, 0] += sep * np.cos(ang)
    X[:, 1] += sep * np.sin(ang)
    return X, y


def _collinear_means(n_per=20, seed=0):
    """Three classes in 2-D whose sample means lie exactly on the x-axis: between-class rank 1 < C−1."""
    r = np.random.default_rng(seed)
    X, y = [], []
    for c, mx in enumerate((-2.0, 0.0, 2.0)):
        Z = r.normal(size=(n_per, 2))
        X.append(Z - Z.mean(axis=0) + [mx, 0.0])
        y += [c] * n_per
    return np.vstack(X), np.array(y)


@pytest.mark.parametrize("n_classes", [2, 4, 6])
def test_gda_outputs_c_minus_1_directions_by_default(n_classes):
    X, y = _blobs(30 * n_classes, n_classes, seed=n_classes)
    gda = GDA().fit(X, y)
    assert gda.get_params()["n_components"] is None
    assert gda.n_components_ == n_classes - 1
    assert np.all(np.diff(gda.eigenvalues_) <= 1e-12)  # λ descending
    # a larger request is capped at C−1 (no completion)
    assert GDA(n_components=n_classes + 3, eig_tol=1e-6).fit(X, y).n_components_ == n_classes - 1


def test_gda_keeps_c_minus_1_directions_even_with_a_zero_eigenvalue():
    X, y = _collinear_means()
    gda = GDA(kernel="linear", eig_tol=1e-10).fit(X, y)
    assert gda.n_discriminant_ == 1  # only one direction separates the collinear means
    assert gda.n_components_ == 2  # but GDA's dimension is C−1
    assert gda.eigenvalues_[0] > 0.5 and gda.eigenvalues_[1] == pytest.approx(0.0, abs=1e-9)
    # both directions unit-norm in feature space; the projections are uncorrelated (total-scatter metric)
    np.testing.assert_allclose(np.einsum("ij,ij->j", gda.dual_coef_, gda.embedding_), 1.0, rtol=1e-8)
    Z = gda.embedding_
    assert abs(Z[:, 0] @ Z[:, 1]) < 1e-8 * np.linalg.norm(Z[:, 0]) * np.linalg.norm(Z[:, 1])


def _reference_cv_tau(X, y, gamma):
    """Independent re-statement of the rule: 3-fold stratified CV (shuffled, seed 0) of 1-NN on the
    GDA projection for each τ of the grid, on the training data only; first maximum (largest τ)."""
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    acc = []
    for tau in GDA_EIG_TOL_GRID:
        hits = 0
        for tr, va in folds:
            g = GDA(gamma=gamma, eig_tol=tau).fit(X[tr], y[tr])
            nn = np.argmin(sq_distances(g.transform(X[va]), g.embedding_), axis=1)
            hits += int(np.sum(y[tr][nn] == y[va]))
        acc.append(hits / y.size)
    return GDA_EIG_TOL_GRID[int(np.argmax(acc))], np.array(acc)


@pytest.mark.parametrize("seed,n_classes", [(1, 3), (2, 4)])
def test_gda_eig_tol_is_selected_by_cross_validation_on_training_data(seed, n_classes):
    X, y = _blobs(25 * n_classes, n_classes, seed, sep=2.0)
    gda = GDA().fit(X, y)
    assert gda.get_params()["eig_tol"] == "cv"
    tau, acc = _reference_cv_tau(X, y, gda.kernel_.gamma)
    assert gda.eig_tol_ == tau
    np.testing.assert_allclose(gda.eig_tol_scores_, acc, atol=1e-12)
    # the final model is the GDA with that τ on all training data
    fixed = GDA(eig_tol=tau).fit(X, y)
    np.testing.assert_allclose(gda.embedding_, fixed.embedding_, atol=1e-10)


def test_gda_eig_tol_fallback_and_validation():
    X, y = _blobs(30, 3, 5)
    y = y.copy()
    y[0] = 3  # a class with one sample: no stratified fold possible
    g = GDA().fit(X, y)
    assert g.eig_tol_ == discriminant.GDA_EIG_TOL_FALLBACK and g.eig_tol_scores_ is None
    for bad in ("auto", 0.0, 1.5, True):
        with pytest.raises(ValueError, match="eig_tol"):
            GDA(eig_tol=bad).fit(X, y)


def test_kda_completion_candidates_keep_enough_eigenvalues():
    X, y = _blobs(60, 2, 9)
    kda = KDA(complete=True).fit(X, y)
    m = kda.n_components_requested_
    assert kda.n_components_ == m > 1
    # candidates are exactly the τ whose kept eigenvalues can carry m completed directions
    for tau, score in zip(GDA_EIG_TOL_GRID, kda.eig_tol_scores_, strict=True):
        delivered = KDA(complete=True, eig_tol=tau).fit(X, y).n_components_
        assert np.isfinite(score) == (delivered == m), tau


def test_kife_default_eig_tol_is_cv():
    assert KIFE().get_params()["eig_tol"] == "cv" and KDA().get_params()["eig_tol"] == "cv"


@pytest.mark.parametrize(
    "obj", [discriminant.GDA, discriminant.KIFE, discriminant.KDA, kernel_space.KOBL, kernel_space.KGS]
)
def test_no_docstring_reports_tuning_on_test_results(obj):
    doc = inspect.getdoc(obj).lower()
    for phrase in ("test accuracy", "calibrat", "best or near-best"):
        assert phrase not in doc, phrase
