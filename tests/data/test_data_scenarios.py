"""Scenario track generators (fsbench/data/scenarios.py): cards, determinism, relevant sets, the Madelon
model against scikit-learn, and the XOR scenario that univariate filters cannot see."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification

from fsbench.algorithms.registry import get_selector
from fsbench.data import DatasetError, SyntheticDataset, generator_names, get_card, open_dataset
from fsbench.data.scenarios import (
    SCENARIOS,
    MadelonModel,
    madelon_assemble,
    madelon_cluster_sizes,
    madelon_model,
    madelon_vertices,
    scenario_relevance,
)
from fsbench.results.ground_truth import informative_features, relevant_features

#: card → (generator, D, |R|, |I|), as the cards' descriptions state them
CARDS = {
    "scen_madelon": ("madelon", 100, 12, 5),
    "scen_madelon_imbalanced": ("madelon", 100, 12, 5),
    "scen_madelon_label_noise": ("madelon", 100, 12, 5),
    "scen_madelon_p2000": ("madelon", 2000, 12, 5),
    "scen_xor": ("parity", 100, 2, 2),
    "scen_parity3": ("parity", 100, 3, 3),
    "scen_xor_p2000": ("parity", 2000, 2, 2),
    "scen_linear_sparse": ("linear_sparse", 100, 10, 10),
    "scen_correlated_nuisance": ("correlated_nuisance", 100, 5, 5),
}


def test_every_scenario_card_is_listed_here() -> None:
    from fsbench.data import list_cards

    assert {c.name for c in list_cards() if c.name.startswith("scen_")} == set(CARDS)
    assert sorted(SCENARIOS) == ["correlated_nuisance", "linear_sparse", "madelon", "parity"]
    assert set(SCENARIOS) <= set(generator_names())  # registered by fsbench.data.synthetic
    assert scenario_relevance("weston_linear") is None  # the toys keep their own table


@pytest.mark.parametrize("card", sorted(CARDS))
def test_determinism_shape_and_relevant_set(card: str) -> None:
    gen, d, r, i = CARDS[card]
    src = get_card(card).sources[0]
    assert src.generator == gen and get_card(card).n_features == d
    # the relevant features come first (0-based 0..r-1), the informative core first among them
    assert relevant_features(gen, src.params) == frozenset(range(r))
    assert informative_features(gen, src.params) == frozenset(range(i))
    ds = open_dataset(card)
    assert isinstance(ds, SyntheticDataset) and ds.n_features == d
    X1, y1 = ds.sample(60, np.random.default_rng(7))
    X2, y2 = ds.sample(60, np.random.default_rng(7))
    X3, y3 = ds.sample(60, np.random.default_rng(8))
    assert X1.shape == (60, d) and X1.dtype == np.float64 and y1.shape == (60,)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert set(np.unique(y1)) <= {-1, 1}
    assert np.isfinite(X1).all()


# ------------------------------------------------------------------------------------------------ Madelon
def _sklearn_order(seed, n, k, n_red, n_rep, d, cpc, sep, flip_y, weights):
    """Our assembly fed scikit-learn's random stream in scikit-learn's order (make_classification's
    source: hypercube vertices, informative normals, A_j per cluster, B, repeated indices, noise, flips)."""
    from sklearn.datasets._samples_generator import _generate_hypercube  # private: test only

    rs = np.random.RandomState(seed)
    n_clusters = 2 * cpc
    centroids = _generate_hypercube(n_clusters, k, rs).astype(float) * (2 * sep) - sep
    # scikit-learn gives each cluster a fixed count, clusters in order
    cluster = np.repeat(np.arange(n_clusters), madelon_cluster_sizes(n, weights[1], cpc))
    z = rs.standard_normal(size=(n, k))
    mixing = np.stack([2 * rs.uniform(size=(k, k)) - 1 for _ in range(n_clusters)])
    redundant = 2 * rs.uniform(size=(k, n_red)) - 1
    repeated = ((k + n_red - 1) * rs.uniform(size=n_rep) + 0.5).astype(np.intp)
    noise = rs.standard_normal(size=(n, d - k - n_red - n_rep))
    flip = rs.uniform(size=n) < flip_y
    new_class = rs.randint(2, size=int(flip.sum()))
    return madelon_assemble(
        MadelonModel(centroids, mixing, redundant, repeated), cluster, z, noise, flip, new_class
    )


@pytest.mark.parametrize(
    "seed, n, k, n_red, n_rep, d, cpc, sep, flip_y, weights",
    [(0, 200, 5, 5, 2, 40, 2, 1.0, 0.0, [0.5, 0.5]), (3, 157, 4, 3, 3, 30, 3, 1.5, 0.2, [0.9, 0.1])],
)
def test_madelon_is_make_classification_bit_for_bit(seed, n, k, n_red, n_rep, d, cpc, sep, flip_y, weights):
    """The column order (informative, redundant, repeated, noise) and the arithmetic are scikit-learn's."""
    X, c = _sklearn_order(seed, n, k, n_red, n_rep, d, cpc, sep, flip_y, weights)
    Xs, ys = make_classification(
        n_samples=n,
        n_features=d,
        n_informative=k,
        n_redundant=n_red,
        n_repeated=n_rep,
        n_clusters_per_class=cpc,
        class_sep=sep,
        flip_y=flip_y,
        weights=weights,
        shift=0.0,
        scale=1.0,
        shuffle=False,
        random_state=seed,
    )
    np.testing.assert_array_equal(X, Xs)
    np.testing.assert_array_equal(c, ys)


def test_madelon_structure_and_fixed_model() -> None:
    ds = open_dataset("scen_madelon")
    X, y = ds.sample(4000, np.random.default_rng(1))
    inf, red, rep = X[:, :5], X[:, 5:10], X[:, 10:12]
    # redundant = exact linear combinations of the informative features; repeated = copies of earlier ones
    coef, *_ = np.linalg.lstsq(inf, red, rcond=None)
    np.testing.assert_allclose(inf @ coef, red, atol=1e-9)
    model = madelon_model(0, 5, 5, 2, 4, 1.0)
    assert model.repeated.tolist() == [3, 5]  # x11 = x4, x12 = x6, as the cards say
    np.testing.assert_array_equal(rep, X[:, [3, 5]])
    np.testing.assert_allclose(coef, model.redundant, atol=1e-9)
    # noise: N(0, 1), independent of y
    noise = X[:, 12:]
    assert abs(noise.mean()) < 0.01 and abs(noise.var() - 1) < 0.02
    assert np.abs([np.corrcoef(noise[:, j], y)[0, 1] for j in range(noise.shape[1])]).max() < 0.07
    # the model is drawn from model_seed, not from the sample's rng: a second draw has the same B
    X2, _ = ds.sample(500, np.random.default_rng(2))
    coef2, *_ = np.linalg.lstsq(X2[:, :5], X2[:, 5:10], rcond=None)
    np.testing.assert_allclose(coef2, coef, atol=1e-9)
    # vertices: distinct corners of the cube
    v = madelon_vertices(4, 5, np.random.default_rng(0))
    assert set(np.unique(v)) <= {0.0, 1.0} and len({tuple(row) for row in v}) == 4


def test_madelon_variants_change_one_factor() -> None:
    n = 20_000
    base_X, base_y = open_dataset("scen_madelon").sample(n, np.random.default_rng(3))
    assert np.mean(base_y == 1) == 0.5
    # p >> n: the same draw plus more noise columns (same model, same rng stream up to the noise)
    small_X, small_y = open_dataset("scen_madelon").sample(50, np.random.default_rng(4))
    big_X, big_y = open_dataset("scen_madelon_p2000").sample(50, np.random.default_rng(4))
    np.testing.assert_array_equal(big_X[:, :12], small_X[:, :12])
    np.testing.assert_array_equal(big_y, small_y)
    # imbalance: exactly 10 % of every draw is class +1 (scikit-learn's fixed counts), rows in random order
    for size in (100, 37):
        _, y_imb = open_dataset("scen_madelon_imbalanced").sample(size, np.random.default_rng(3))
        assert np.sum(y_imb == 1) == sum(madelon_cluster_sizes(size, 0.1, 2)[1::2])
    assert madelon_cluster_sizes(100, 0.1, 2).tolist() == [45, 5, 45, 5]
    assert madelon_cluster_sizes(37, 0.1, 2).tolist() == [17, 2, 17, 1]  # 16, 1, 16, 1 + 1, 1, 1, 0
    in_cluster_order = np.repeat(np.arange(4), [17, 2, 17, 1]) % 2 * 2 - 1
    assert not np.array_equal(y_imb, in_cluster_order)  # rows shuffled, not scikit-learn's order
    # label noise: flip_y = 0.2 redraws 20 % of the labels, so about 10 % change; X unchanged
    noisy_X, noisy_y = open_dataset("scen_madelon_label_noise").sample(n, np.random.default_rng(3))
    np.testing.assert_array_equal(noisy_X, base_X)
    assert abs(np.mean(noisy_y != base_y) - 0.1) < 0.01


# ------------------------------------------------------------------------------------------------ parity
@pytest.mark.parametrize("card, k", [("scen_xor", 2), ("scen_parity3", 3)])
def test_parity_relevant_marginals_are_class_independent(card: str, k: int) -> None:
    """Every relevant feature alone has the same distribution, N(0, 1), in both classes (KS test), while
    y is a function of the k of them together."""
    X, y = open_dataset(card).sample(20_000, np.random.default_rng(11))
    np.testing.assert_array_equal(y, np.sign(np.prod(X[:, :k], axis=1)).astype(int))
    assert abs(np.mean(y == 1) - 0.5) < 0.015
    for j in range(k):
        a, b = X[y == 1, j], X[y == -1, j]
        assert stats.ks_2samp(a, b).pvalue > 0.01, j
        assert stats.kstest(a, "norm").pvalue > 0.01 and stats.kstest(b, "norm").pvalue > 0.01
    # while the product of the k (the interaction) separates the classes completely
    assert np.all(np.sign(np.prod(X[:, :k], axis=1)) == y)


#: XOR at n = 150, D = 20 (fast, and the joint methods find it in every draw we tried); 6 draws
XOR_N, XOR_D, XOR_DRAWS, XOR_TOP = 150, 20, 6, 5


def _xor_ranks(name: str, **params) -> list[np.ndarray]:
    """The 0-based rank of x1 and x2 in each draw. The columns are permuted per draw first, as a run
    permutes them per task: several selectors break score ties by the lower column index (mutual_info's
    estimates clip at 0 and tie), and the relevant features come first, so without the permutation ties
    would count as finding them."""
    ds = open_dataset({"generator": "parity", "params": {"n_features": XOR_D}})
    out = []
    for seed in range(XOR_DRAWS):
        X, y = ds.sample(XOR_N, np.random.default_rng(seed))
        perm = np.random.default_rng(1000 + seed).permutation(XOR_D)
        est = get_selector(name, **params).fit(X[:, perm], y)
        rank = np.empty(XOR_D, dtype=int)
        rank[perm] = np.asarray(est.ranking_) - 1  # ranking_ is 1 = best
        out.append(rank[:2])
    return out


@pytest.mark.parametrize(
    "name, params", [("fisher", {}), ("anova_f", {}), ("mutual_info", {"random_state": 0})]
)
def test_univariate_filters_do_not_find_xor(name: str, params: dict) -> None:
    """x1, x2 land in a filter's top 5 of 20 no more often than chance (5/20 each): over 6 draws, 12
    features, Binomial(12, 0.25) has mean 3 and P(>= 9) = 4e-4."""
    ranks = _xor_ranks(name, **params)
    hits = sum(int(np.sum(r < XOR_TOP)) for r in ranks)
    assert hits <= 8, (name, ranks)
    # the pair itself on top: chance 1/190 per draw, so at most once in 6 (two or more: p = 4e-4)
    assert sum(set(r.tolist()) == {0, 1} for r in ranks) <= 1


@pytest.mark.parametrize("name", ["relieff", "bahsic"])
def test_joint_methods_find_xor(name: str) -> None:
    """ReliefF (neighbours in all features at once) and backward-elimination HSIC (an RBF kernel on the
    feature set) rank x1, x2 first in (at least 5 of) the 6 draws."""
    if name == "relieff":
        pytest.importorskip("skrebate")
    ranks = _xor_ranks(name)
    assert sum(set(r.tolist()) == {0, 1} for r in ranks) >= XOR_DRAWS - 1, (name, ranks)


# ------------------------------------------------------------------------------------------ linear models
def test_linear_sparse_and_correlated_nuisance() -> None:
    X, y = open_dataset("scen_linear_sparse").sample(20_000, np.random.default_rng(5))
    corr = np.array([np.corrcoef(X[:, j], y)[0, 1] for j in range(X.shape[1])])
    # β_j = (−1)^j: every relevant feature shifts the class means, with alternating sign; noise does not
    assert np.all(np.sign(corr[:10]) == np.where(np.arange(10) % 2 == 0, 1, -1))
    assert np.abs(corr[:10]).min() > 0.15 and np.abs(corr[10:]).max() < 0.04

    X, y = open_dataset("scen_correlated_nuisance").sample(20_000, np.random.default_rng(6))
    k, m, rho = 5, 2, 0.8
    for j in range(k):
        for c in range(m):
            z = X[:, k + j * m + c]
            assert abs(np.corrcoef(z, X[:, j])[0, 1] - rho) < 0.015
            # the proxy is marginally related to y, but its own noise e = (z − ρ x_j)/√(1 − ρ²) is not
            assert abs(np.corrcoef(z, y)[0, 1]) > 0.1
            e = (z - rho * X[:, j]) / np.sqrt(1 - rho**2)
            assert abs(np.corrcoef(e, y)[0, 1]) < 0.03 and abs(e.std() - 1) < 0.02
    assert np.abs([np.corrcoef(X[:, j], y)[0, 1] for j in range(k + k * m, X.shape[1])]).max() < 0.04


@pytest.mark.parametrize(
    "gen, params, match",
    [
        ("madelon", {"n_features": 11}, "n_features"),
        ("madelon", {"n_clusters_per_class": 17}, "n_clusters_per_class"),
        ("madelon", {"minority": 1.0}, "minority"),
        ("madelon", {"flip_y": 1.5}, "flip_y"),
        ("parity", {"order": 1}, "order"),
        ("parity", {"n_features": 2, "order": 3}, "n_features"),
        ("linear_sparse", {"n_features": 5}, "n_features"),
        ("correlated_nuisance", {"rho": 1.2}, "rho"),
        ("correlated_nuisance", {"n_features": 14}, "n_features"),
        ("parity", {"noise": 1}, "unknown param"),
    ],
)
def test_bad_params_are_refused(gen: str, params: dict, match: str) -> None:
    with pytest.raises(DatasetError, match=match):
        open_dataset({"generator": gen, "params": params})
