"""Weston toy generators (ALGORITHMS.md §1.1–1.3) and the generator registry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fsbench.data import DatasetError, SyntheticDataset, get_card, open_dataset
from fsbench.data.synthetic import resolve_generator, weston_linear_draw, weston_nonlinear_draw

N = 40_000


def test_cards_and_inline_spec_agree() -> None:
    card = open_dataset("weston_linear")
    inline = open_dataset({"generator": "weston_linear", "params": {}})
    assert isinstance(card, SyntheticDataset) and isinstance(inline, SyntheticDataset)
    assert card.n_features == inline.n_features == 202 == get_card("weston_linear").n_features
    assert get_card("weston_nonlinear").n_features == 52
    assert get_card("weston_linear").n_samples is None
    assert math.isclose(card.params["noise_sd"], math.sqrt(20))
    Xa, ya = card.sample(30, np.random.default_rng(5))
    Xb, yb = inline.sample(30, np.random.default_rng(5))
    np.testing.assert_array_equal(Xa, Xb)
    np.testing.assert_array_equal(ya, yb)


@pytest.mark.parametrize("name", ["weston_linear", "weston_nonlinear"])
def test_determinism_and_shape(name: str) -> None:
    ds = open_dataset(name)
    X1, y1 = ds.sample(50, np.random.default_rng(123))
    X2, y2 = ds.sample(50, np.random.default_rng(123))
    X3, _ = ds.sample(50, np.random.default_rng(124))
    assert X1.shape == (50, ds.n_features) and X1.dtype == np.float64
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert set(np.unique(y1)) <= {-1, 1}


@pytest.mark.parametrize("name", ["weston_linear", "weston_nonlinear"])
def test_class_balance_and_noise_variance(name: str) -> None:
    X, y = open_dataset(name).sample(N, np.random.default_rng(0))
    assert abs(np.mean(y == 1) - 0.5) < 0.01
    n_rel = 6 if name == "weston_linear" else 2
    noise = X[:, n_rel:]
    assert abs(noise.var() - 20.0) < 0.2  # variance-20 reading
    assert abs(noise.mean()) < 0.02
    X20, _ = open_dataset({"generator": name, "params": {"noise_sd": 20}}).sample(
        5000, np.random.default_rng(0)
    )
    assert abs(X20[:, n_rel:].std() - 20.0) < 0.3


def test_linear_mixture_components() -> None:
    X, y, first = weston_linear_draw(N, np.random.default_rng(1))
    assert abs(first.mean() - 0.7) < 0.01
    shift = np.array([1.0, 2.0, 3.0])
    yx = y[:, None] * X[:, :6]
    # informative block: y·x has mean i and unit variance; the other block is N(0,1) whatever y is
    np.testing.assert_allclose(yx[first, :3].mean(axis=0), shift, atol=0.03)
    np.testing.assert_allclose(yx[~first, 3:6].mean(axis=0), shift, atol=0.04)
    np.testing.assert_allclose(X[first, 3:6].mean(axis=0), 0.0, atol=0.03)
    np.testing.assert_allclose(X[~first, :3].mean(axis=0), 0.0, atol=0.04)
    np.testing.assert_allclose(X[first, :3].std(axis=0) ** 2, 1 + shift**2, rtol=0.03)  # ±i mixed by y
    np.testing.assert_allclose((yx[first, :3] - shift).std(axis=0), 1.0, atol=0.03)
    # per class: E[x_i | y] = y·(0.7 i) for i = 1..3, y·(0.3 (i−3)) for i = 4..6
    for label in (-1, 1):
        m = X[y == label, :6].mean(axis=0)
        np.testing.assert_allclose(m, label * np.r_[0.7 * shift, 0.3 * shift], atol=0.05)


def test_nonlinear_mixture_components() -> None:
    X, y, second = weston_nonlinear_draw(N, np.random.default_rng(2))
    assert abs(second.mean() - 0.5) < 0.01
    means = {(-1, False): (-0.75, -3), (-1, True): (0.75, 3), (1, False): (3, -3), (1, True): (-3, 3)}
    for (label, comp), mu in means.items():
        sel = (y == label) & (second == comp)
        np.testing.assert_allclose(X[sel, :2].mean(axis=0), mu, atol=0.04)
        np.testing.assert_allclose(X[sel, :2].std(axis=0), 1.0, atol=0.03)
    # class means are zero: the problem is not linearly separable on average
    np.testing.assert_allclose(X[y == 1, :2].mean(axis=0), 0.0, atol=0.1)


def test_n_features_param_pads_noise() -> None:
    ds = open_dataset({"generator": "weston_linear", "params": {"n_features": 30}})
    X, _ = ds.sample(10, np.random.default_rng(0))
    assert ds.n_features == 30 and X.shape == (10, 30)
    assert ds.name == "weston_linear(n_features=30)"


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"generator": "nope"}, "unknown generator 'nope'"),
        ({"generator": "weston_linear", "params": {"sigma": 1}}, "unknown param 'sigma'"),
        ({"generator": "weston_linear", "params": {"noise_sd": "big"}}, "must be a number"),
        ({"generator": "weston_linear", "params": {"noise_sd": -1}}, "noise_sd"),
        ({"generator": "weston_linear", "params": {"n_features": 0}}, ">= 1"),
        ({"generator": "weston_linear", "params": {"n_features": 7.5}}, "integer"),
        ({"params": {}}, "'generator' \\(required\\)"),
        ({"generator": "weston_linear", "seed": 1}, "unknown: seed"),
    ],
)
def test_bad_inline_specs(spec: dict, match: str) -> None:
    with pytest.raises(DatasetError, match=match):
        open_dataset(spec)


def test_sample_argument_checks() -> None:
    ds = open_dataset("weston_nonlinear")
    with pytest.raises(DatasetError, match="positive int"):
        ds.sample(0, np.random.default_rng(0))
    with pytest.raises(DatasetError, match="numpy.random.Generator"):
        ds.sample(5, 0)  # type: ignore[arg-type]


def test_resolve_generator_fills_defaults() -> None:
    r = resolve_generator("weston_nonlinear", {"noise_sd": 1})
    assert r.params == {"noise_sd": 1.0, "n_features": 52} and r.n_features == 52


def test_weston_linear_truncated_below_six_features_keeps_the_first_columns():
    full = open_dataset({"generator": "weston_linear", "params": {"n_features": 6}})
    five = open_dataset({"generator": "weston_linear", "params": {"n_features": 5}})
    Xf, yf = full.sample(50, np.random.default_rng(3))
    X5, y5 = five.sample(50, np.random.default_rng(3))
    assert X5.shape == (50, 5)
    np.testing.assert_array_equal(yf, y5)
    np.testing.assert_array_equal(Xf[:, :5], X5)
