"""Kernel width rules and multiples of them (``gamma: median/4``) resolved in the kernel layer."""

import numpy as np
import pytest

from fsbench.algorithms.kernels import parse_gamma, resolve_gamma
from fsbench.algorithms.registry import get_selector
from fsbench.config.experiment import ConfigError, parse_experiment


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("median", ("median", 1.0)),
        ("median/4", ("median", 0.25)),
        ("0.25*median", ("median", 0.25)),
        ("median*2", ("median", 2.0)),
        (" n_features / 2 ", ("n_features", 0.5)),
        (0.5, (0.5, 1.0)),
    ],
)
def test_parse_gamma(spec, expected):
    assert parse_gamma(spec) == expected


@pytest.mark.parametrize(
    "spec", ["widest", "median/0", "median/-2", "2*median*2", "median/", -1.0, 0.0, True]
)
def test_parse_gamma_refuses(spec):
    with pytest.raises(ValueError):
        parse_gamma(spec)


def test_multiple_of_a_rule_is_the_rule_times_the_factor():
    X = np.random.default_rng(0).normal(size=(40, 5))
    assert resolve_gamma("median/4", X) == pytest.approx(resolve_gamma("median", X) / 4, rel=1e-15)
    assert resolve_gamma("3*scale", X) == pytest.approx(3 * resolve_gamma("scale", X), rel=1e-15)
    assert resolve_gamma("median", X) == resolve_gamma("median*1", X)


@pytest.mark.parametrize("name", ["takes", "kobl", "kda", "fskpca"])
def test_transformer_with_a_scaled_rule_equals_the_resolved_number(name):
    """An estimator (and the basis inside it) given ``median/4`` behaves as if given the number."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    g = resolve_gamma("median", X) / 4
    a = get_selector(name, gamma="median/4").fit(X, y)
    b = get_selector(name, gamma=g).fit(X, y)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-10, atol=1e-12)
    assert a.get_params()["gamma"] == "median/4"


def test_config_accepts_scaled_rules_and_refuses_bad_ones():
    raw = {
        "name": "x",
        "dataset": "weston_nonlinear",
        "kernel": {"name": "rbf", "gamma": "median/4"},
        "protocol": {"n_train": 10, "n_test": 10},
        "selectors": ["fisher"],
    }
    assert parse_experiment(raw).datasets[0].kernels[0].gamma == "median/4"
    raw["kernel"]["gamma"] = "median/zero"
    with pytest.raises(ConfigError, match="kernel.gamma"):
        parse_experiment(raw)


@pytest.mark.parametrize("n", [2, 7, 60])
def test_median_rule_is_the_median_over_the_upper_triangle(n):
    # resolve_gamma indexes the distance matrix with a cached triangle mask; same pairs, same number
    from fsbench.algorithms.kernels import sq_distances

    rng = np.random.default_rng(n)
    X = np.round(rng.normal(size=(n, 3)))  # repeated rows: zero distances are left out
    d2 = sq_distances(X)[np.triu_indices(n, k=1)]
    d2 = d2[d2 > 1e-10 * max(float(np.einsum("ij,ij->i", X, X).max()), 1e-300)]
    want = 1.0 / float(np.median(d2)) if d2.size else 1.0
    assert resolve_gamma("median", X) == want
