"""Stability selection (fsbench/algorithms/stability.py) against its definition.

Selection probabilities are frequencies over subsamples: checked exactly against a refit of the same
subsamples, weights and solver seeds; a strong feature is selected on (nearly) every subsample and noise
rarely; the region rule, the first grid point, the multiclass rule and reproducibility from an int seed
(numpy's global state neither read nor changed). Small data: the file runs in about half a minute.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state
from typer.testing import CliRunner

from fsbench.algorithms.registry import get_selector, info
from fsbench.algorithms.stability import (
    INTERCEPT_SCALING,
    StabilitySelection,
    _l1_params,
    first_c,
    region_end,
    standardize,
)
from fsbench.cli import app


def _problem(n: int = 120, D: int = 15, seed: int = 0):
    """Feature 0 decides the class almost alone; feature 1 helps a little; the rest is noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = (2.5 * X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_a_strong_feature_is_selected_on_every_subsample_and_noise_rarely():
    X, y = _problem()
    est = StabilitySelection(random_state=0).fit(X, y)
    assert est.scores_[0] == 1.0
    assert est.ranking_[0] == 1
    assert np.median(est.scores_[2:]) < 0.3
    assert est.scores_[1] > np.median(est.scores_[2:])
    # the region keeps the expected number of selected features at most q = sqrt(0.8 D)
    assert est.q_ == pytest.approx(np.sqrt(0.8 * 15))
    assert est.q_hat_ <= est.q_
    assert est.selection_probabilities_.shape == (est.Cs_.size, 15)
    assert est.Cs_.size == est.n_region_ + 1  # the region ended before the grid did: one point past it


@pytest.mark.parametrize("weakness", [0.5, 1.0])
def test_scores_are_exact_selection_frequencies_on_a_one_point_grid(weakness):
    """One C, q = inf: the score of a feature is the number of subsamples whose fit selects it, over B,
    recomputed here from the documented order of draws (subsamples, weights, one solver seed per fit)."""
    X, y = _problem(n=60, D=6)
    B, seed = 9, 5
    C = 3 * first_c(standardize(X), y) * 60 / 30  # three times the first grid point: some selections
    est = StabilitySelection(n_subsamples=B, weakness=weakness, Cs=[C], q=np.inf, random_state=seed).fit(X, y)
    rng = check_random_state(seed)
    Z = standardize(X)
    subsamples = [rng.choice(60, size=30, replace=False) for _ in range(B)]
    weights = rng.uniform(weakness, 1.0, size=(B, 6))
    seeds = rng.randint(np.iinfo(np.int32).max, size=(1, B))
    counts = np.zeros(6, dtype=int)
    for b in range(B):
        model = LogisticRegression(
            C=C,
            solver="liblinear",
            intercept_scaling=INTERCEPT_SCALING,
            random_state=int(seeds[0, b]),
            **_l1_params(),
        ).fit(Z[subsamples[b]] * weights[b], y[subsamples[b]])
        counts += model.coef_.ravel() != 0
    assert 0 < counts.sum() < 6 * B  # a grid point where the count is informative
    np.testing.assert_array_equal(est.scores_, counts / B)
    np.testing.assert_array_equal(est.selection_probabilities_, [counts / B])
    assert est.n_region_ == 1 and est.n_iter_ == B
    if weakness == 1.0:
        np.testing.assert_array_equal(weights, 1.0)  # the plain lasso on subsamples


def test_degenerate_grids_by_hand():
    X, y = _problem(n=60, D=6)
    none = StabilitySelection(n_subsamples=5, Cs=[1e-9], q=np.inf, random_state=0).fit(X, y)
    np.testing.assert_array_equal(none.scores_, 0.0)  # nothing is ever selected: ties all the way,
    np.testing.assert_array_equal(none.order_, np.arange(6))  # so by index
    every = StabilitySelection(n_subsamples=5, Cs=[1e6], q=np.inf, random_state=0).fit(X, y)
    np.testing.assert_array_equal(every.scores_, 1.0)  # (almost) no penalty: every coefficient non-zero


def test_same_seed_same_fit_and_numpy_global_state_neither_read_nor_changed():
    X, y = _problem(n=80, D=10)
    params = dict(n_subsamples=20, random_state=7)
    np.random.seed(0)  # noqa: NPY002 - the global state is what is being tested
    first = StabilitySelection(**params).fit(X, y)
    np.random.seed(12345)  # noqa: NPY002
    np.random.rand(17)  # noqa: NPY002
    state = np.random.get_state()  # noqa: NPY002
    second = StabilitySelection(**params).fit(X, y)
    after = np.random.get_state()  # noqa: NPY002
    assert all(np.array_equal(a, b) for a, b in zip(state, after))  # the fit drew nothing from it
    np.testing.assert_array_equal(first.ranking_, second.ranking_)
    np.testing.assert_array_equal(first.selection_probabilities_, second.selection_probabilities_)
    other = StabilitySelection(n_subsamples=20, random_state=8).fit(X, y)
    assert not np.array_equal(other.selection_probabilities_, first.selection_probabilities_)


def test_ranking_rule_score_then_mean_probability_then_index():
    X, y = _problem(n=80, D=12, seed=3)
    est = StabilitySelection(n_subsamples=20, random_state=1).fit(X, y)
    inside = est.selection_probabilities_[: est.n_region_]
    np.testing.assert_array_equal(est.scores_, inside.max(axis=0))
    expected = np.lexsort((np.arange(12), -inside.mean(axis=0), -inside.max(axis=0)))
    np.testing.assert_array_equal(est.order_, expected)


def test_region_rule():
    unions = np.array([0.5, 2.0, 3.9, 4.1, 6.0])
    assert region_end(unions, 4.0) == 3
    assert region_end(unions, 4.1) == 4  # "at most q"
    assert region_end(unions, 0.1) == 1  # the first point is always in
    assert region_end(unions, np.inf) == 5
    X, y = _problem(n=80, D=10)
    whole = StabilitySelection(n_subsamples=10, Cs=6, C_ratio=100, q=np.inf, random_state=0).fit(X, y)
    assert whole.n_region_ == whole.Cs_.size == 6
    np.testing.assert_allclose(whole.Cs_[1:] / whole.Cs_[:-1], 100 ** (1 / 5))
    tight = StabilitySelection(n_subsamples=10, Cs=6, C_ratio=100, q=1e-3, random_state=0).fit(X, y)
    assert tight.n_region_ == 1
    np.testing.assert_array_equal(tight.scores_, tight.selection_probabilities_[0])


@pytest.mark.parametrize("classes", [2, 3])
def test_first_grid_point_is_where_the_full_data_model_stops_being_empty(classes):
    rng = np.random.default_rng(classes)
    X = standardize(rng.normal(size=(90, 5)))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=90), [-0.4, 0.4][: classes - 1])
    c0 = first_c(X, y)
    for scale, nonzero in ((0.95, False), (1.05, True)):
        coefs = [
            LogisticRegression(
                C=scale * c0,
                solver="liblinear",
                intercept_scaling=INTERCEPT_SCALING,
                tol=1e-8,
                **_l1_params(),
            )
            .fit(X, y == c)
            .coef_
            for c in (np.unique(y)[1:] if classes == 2 else np.unique(y))
        ]
        assert bool(np.any(np.concatenate(coefs))) is nonzero, scale
    est = StabilitySelection(n_subsamples=3, Cs=4, random_state=0).fit(X, y)
    assert est.Cs_[0] == pytest.approx(c0 * 90 / 45)  # rescaled to the subsample's size


def test_multiclass_a_feature_is_selected_if_any_class_selects_it():
    """Feature 0 separates class 0 only, feature 1 class 2 only: both are stable."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 8))
    X[:, 0] += 3.0 * (y == 0)
    X[:, 1] += 3.0 * (y == 2)
    est = StabilitySelection(n_subsamples=30, random_state=0).fit(X, y)
    assert set(est.order_[:2].tolist()) == {0, 1}
    assert est.scores_[0] == est.scores_[1] == 1.0


def test_complete_ranking_with_a_constant_feature():
    X, y = _problem(n=60, D=7)
    X[:, 3] = 2.0
    est = get_selector("stability_selection", n_subsamples=10, random_state=0).fit(X, y)
    assert sorted(est.ranking_.tolist()) == list(range(1, 8))
    assert est.ranking_[3] == 7 and est.ranking_[0] == 1
    assert est.scores_[3] == 0.0  # a constant column is 0 after standardising: never selected


def test_solver_warnings_are_counted_not_shown():
    X, y = _problem(n=80, D=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # one escaping would fail the fit
        est = StabilitySelection(n_subsamples=5, max_iter=1, tol=1e-12, random_state=0).fit(X, y)
    assert est.n_not_converged_ > 0 and not est.converged_
    ok = StabilitySelection(n_subsamples=5, random_state=0).fit(X, y)
    assert ok.n_not_converged_ == 0 and ok.converged_
    assert ok.n_iter_ == 5 * ok.Cs_.size  # one machine for two classes


def test_selectors_list_and_info_show_it():
    res = CliRunner().invoke(app, ["selectors", "list"])
    line = next(ln for ln in res.stdout.splitlines() if ln.split()[0] == "stability_selection")
    assert line.split()[1] == "rank" and f"[{info('stability_selection').citation}]" in line
    res = CliRunner().invoke(app, ["selectors", "info", "stability_selection"])
    lines = [ln.split("=") for ln in res.stdout.splitlines() if " = " in ln]
    params = {name.strip(): value.strip() for name, value in lines}
    assert res.exit_code == 0 and params["n_subsamples"] == "100" and params["weakness"] == "0.5"
