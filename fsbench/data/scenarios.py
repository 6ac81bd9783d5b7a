r"""Scenario track: synthetic two-class problems whose relevant features are known by construction.

Each scenario is a generator registered like the Weston toys (:mod:`fsbench.data.synthetic` registers
every entry of :data:`SCENARIOS`; a card ``datasets/scen_*.yaml`` names it with its parameters) plus a
*relevance rule* giving, for its parameters, the relevant set R and its informative core I ⊆ R
(:func:`scenario_relevance`, read by :func:`fsbench.results.ground_truth.relevant_features`). As for the
Weston toys, the relevant features always come first — R = {0, …, r − 1} (0-based). A run permutes the
columns of every task before the selector sees them (``fsbench/evaluation/protocol.py``), so that layout helps
no selector that breaks score ties by the lower column index. Labels are y ∈ {−1, +1}. The data are neither
shifted nor scaled (the protocol z-scores with the training statistics).

What "relevant" means (stated once, for every scenario): R is the union of the *Markov boundaries* of y,
the minimal feature sets given which y is independent of all other features. A feature that is a
noise-free function of others that are relevant (Madelon's redundant linear combinations, its repeated
copies) is in some Markov boundary, so it is relevant; a noisy proxy of a relevant feature (the nuisance
features of ``correlated_nuisance``) is independent of y given R, in no Markov boundary, so it is not.
I ⊆ R is scored besides R: Madelon's informative features (the coordinates its clusters are drawn in,
without their redundant and repeated copies); I = R elsewhere.

Generators (D = ``n_features``; the defaults are the base scenario, the cards vary one factor at a time):

``madelon``
    Guyon's (2003) Madelon design, the generative model of :func:`sklearn.datasets.make_classification`
    with ``shuffle=False``, ``shift=0``, ``scale=1`` (column order: informative, redundant, repeated,
    noise). Classes c ∈ {0, 1}, ``n_clusters_per_class`` Gaussian clusters each, at distinct vertices of
    the hypercube {−class_sep, +class_sep}^k (k = ``n_informative``); cluster j has label j mod 2. A draw
    of n samples has scikit-learn's fixed counts (:func:`madelon_cluster_sizes`: n·w_c/n_clusters_per_class
    per cluster of class c, w = (1 − ``minority``, ``minority``), c = 1 ↔ y = +1, the remainder one by one
    to clusters 0, 1, 2, …), in random row order. A sample of cluster j: z ~ N(0, I_k) and

        x_I = z·A_j + μ_j  (the k informative features; A_j uniform on [−1, 1]^{k×k}: random covariance)
        x_red = x_I·B      (``n_redundant`` linear combinations; B uniform on [−1, 1]^{k×n_red})
        x_rep = copies of columns drawn (rounded uniformly) from informative ∪ redundant
        x_noise ~ N(0, I)  (the rest, up to D)

    then with probability ``flip_y`` the label is redrawn uniformly from both classes (so a share
    flip_y/2 of the labels is wrong, as in scikit-learn). R = informative ∪ redundant ∪ repeated (the
    first k + n_red + n_rep), I = the first k.

    [D] *Why not call make_classification per draw*: it draws the model (vertices, A_j, B, the repeated
    columns, the random shift and scale) and the samples from one random stream, so two calls — the
    training and the test draw of a task — would come from two different problems. Here the model is
    drawn once from ``model_seed`` (so it is the same for every draw and every variant that keeps k,
    n_red, n_rep, the clusters and class_sep) and only the samples from the caller's Generator;
    ``tests/data/test_data_scenarios.py`` checks that :func:`madelon_assemble` fed scikit-learn's random
    stream in scikit-learn's order reproduces ``make_classification`` exactly. [D] The fixed counts (a
    stratified draw, unlike the other generators' i.i.d. labels) keep a stated imbalance in every draw: at
    n = 100 and minority 0.1, i.i.d. labels would leave 2 or fewer minority samples in 0.2 % of the
    training sets and 5 or fewer in 6 %.

``parity``
    The k-way XOR: x_1..x_D i.i.d. N(0, 1), y = sign(x_1 · … · x_k) (k = ``order``; k = 2 is
    y = sign(x_1 x_2)). For k ≥ 2, sign(x_j) given y is still a fair coin (the other k − 1 signs are) and
    |x_j| is independent of everything, so every relevant feature — indeed every set of k − 1 of them —
    has the *same distribution N(0, 1) in both classes*: no univariate (or (k − 1)-variate) statistic can
    see it. R = I = the first k.

``linear_sparse``
    A sparse linear model: x ~ N(0, I_D), y = sign(Σ_{j<k} β_j x_j + ``noise_sd``·ε), ε ~ N(0, 1),
    β_j = (−1)^j (equal strength, alternating sign), k = ``n_relevant``. Each relevant feature has a
    class-mean shift, so univariate filters should find them: the positive control. R = I = the first k.

``correlated_nuisance``
    The linear model of ``linear_sparse`` on k = ``n_relevant`` features, plus ``copies`` noisy proxies
    of each: z_{j,m} = ρ x_j + √(1 − ρ²) e_{j,m} (columns k + j·copies + m), then N(0, 1) noise. A proxy
    is marginally dependent on y (correlation ρ times its source's) but independent of y given x_j, so
    univariate filters rank it almost as high as x_j while R = I = the first k only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsbench.data.errors import DatasetError

DrawFn = Callable[..., tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Relevance:
    """The known relevant set R of a scenario and its informative core I ⊆ R (0-based feature indices)."""

    relevant: frozenset[int]
    informative: frozenset[int]


@dataclass(frozen=True)
class Scenario:
    """A scenario generator: registered by :mod:`fsbench.data.synthetic` (D = ``n_features``), with the
    rule giving its relevant set."""

    name: str
    draw: DrawFn
    defaults: dict[str, Any]
    description: str
    validate: Callable[[dict[str, Any]], None]
    relevance: Callable[[dict[str, Any]], Relevance]


#: The scenario generators by name. This module does not import the registry
#: (:mod:`fsbench.data.synthetic` imports this one and registers them: no import cycle).
SCENARIOS: dict[str, Scenario] = {}


def scenario_relevance(generator: str, params: dict[str, Any] | None = None) -> Relevance | None:
    """R and I of a scenario generator with these parameters (missing ones take the defaults), or None if
    ``generator`` is not a scenario (the Weston toys: ``fsbench.results.ground_truth.RELEVANT_BY_GENERATOR``).

    Raises
    ------
    DatasetError
        Invalid parameter values (the generator's own check).
    """
    sc = SCENARIOS.get(generator)
    if sc is None:
        return None
    full = {**sc.defaults, **(params or {})}
    sc.validate(full)
    return sc.relevance(full)


def _first(r: int, i: int | None = None) -> Relevance:
    r = int(r)
    return Relevance(frozenset(range(r)), frozenset(range(r if i is None else int(i))))


def _scenario(
    name: str,
    defaults: dict[str, Any],
    description: str,
    validate: Callable[[dict[str, Any]], None],
    relevance: Callable[[dict[str, Any]], Relevance],
) -> Callable[[DrawFn], DrawFn]:
    """Record a draw function with its defaults, parameter check and relevance rule in :data:`SCENARIOS`."""

    def deco(fn: DrawFn) -> DrawFn:
        SCENARIOS[name] = Scenario(name, fn, dict(defaults), description, validate, relevance)
        return fn

    return deco


def _need(name: str, ok: bool, what: str) -> None:
    if not ok:
        raise DatasetError(f"generator '{name}': {what}")


def _labels_pm(c: np.ndarray) -> np.ndarray:
    """Class indices {0, 1} → labels {−1, +1} (the Weston toys' convention)."""
    return np.where(c > 0, 1, -1)


# ------------------------------------------------------------------------------------------------ Madelon
@dataclass(frozen=True)
class MadelonModel:
    """The fixed part of a Madelon problem (what scikit-learn draws besides the samples).

    Attributes
    ----------
    centroids : ndarray of shape (n_clusters, k)
        Cluster means μ_j, vertices of {−class_sep, +class_sep}^k; cluster j has class j mod 2.
    mixing : ndarray of shape (n_clusters, k, k)
        A_j: a cluster's informative features are z·A_j + μ_j, z ~ N(0, I_k).
    redundant : ndarray of shape (k, n_redundant)
        B: the redundant features are x_I·B.
    repeated : ndarray of shape (n_repeated,), int
        Source columns (in informative ∪ redundant) of the repeated features.
    """

    centroids: np.ndarray
    mixing: np.ndarray
    redundant: np.ndarray
    repeated: np.ndarray


def madelon_vertices(n_clusters: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``n_clusters`` distinct vertices of {0, 1}^k, drawn uniformly without replacement (as 0/1 floats)."""
    codes = rng.choice(2**k, size=n_clusters, replace=False)
    return ((codes[:, None] >> np.arange(k)[None, :]) & 1).astype(float)


def madelon_model(
    model_seed: int, n_informative: int, n_redundant: int, n_repeated: int, n_clusters: int, class_sep: float
) -> MadelonModel:
    """Draw the Madelon model from its own seed, in scikit-learn's order (vertices, A_j, B, repeats).

    The model has scikit-learn's form, drawn from ``numpy.random.default_rng(model_seed)`` (and our own
    vertex sampler: scikit-learn's is private), so the same seed gives another problem than
    ``make_classification(random_state=model_seed)``.
    """
    rng = np.random.default_rng(model_seed)
    k = n_informative
    centroids = madelon_vertices(n_clusters, k, rng) * (2 * class_sep) - class_sep
    mixing = 2 * rng.uniform(size=(n_clusters, k, k)) - 1
    redundant = 2 * rng.uniform(size=(k, n_redundant)) - 1
    repeated = ((k + n_redundant - 1) * rng.uniform(size=n_repeated) + 0.5).astype(np.intp)
    return MadelonModel(centroids, mixing, redundant, repeated)


def madelon_cluster_sizes(n: int, minority: float, n_clusters_per_class: int) -> np.ndarray:
    """Samples per cluster, as ``make_classification`` counts them (cluster j has class j mod 2).

    Each cluster of class c gets int(n·w_c / n_clusters_per_class), w = (1 − minority, minority); the
    remaining samples go one each to clusters 0, 1, 2, … in turn.
    """
    n_clusters = 2 * n_clusters_per_class
    weights = (1.0 - minority, minority)
    sizes = [int(n * weights[j % 2] / n_clusters_per_class) for j in range(n_clusters)]
    for j in range(n - sum(sizes)):
        sizes[j % n_clusters] += 1
    return np.array(sizes, dtype=np.intp)


def madelon_assemble(
    model: MadelonModel,
    cluster: np.ndarray,
    z: np.ndarray,
    noise: np.ndarray,
    flip: np.ndarray,
    new_class: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Samples of a Madelon model from their random parts (the arithmetic of ``make_classification``).

    Parameters
    ----------
    model : MadelonModel
    cluster : ndarray of shape (n,), int
        Each sample's cluster j (its class is j mod 2).
    z : ndarray of shape (n, k)
        N(0, I_k) draws of the informative part.
    noise : ndarray of shape (n, n_noise)
        The noise features.
    flip : ndarray of shape (n,), bool
        Samples whose label is redrawn.
    new_class : ndarray of shape (flip.sum(),), int
        Their new class indices in {0, 1}.

    Returns
    -------
    X : ndarray of shape (n, k + n_redundant + n_repeated + n_noise)
        Columns: informative, redundant, repeated, noise.
    c : ndarray of shape (n,), int
        Class indices {0, 1}.
    """
    x_inf = np.empty_like(z)
    for j in range(model.centroids.shape[0]):
        rows = cluster == j
        # the same product as scikit-learn's (z rows of one cluster times A_j), so the bits agree too
        x_inf[rows] = z[rows] @ model.mixing[j] + model.centroids[j]
    x_red = x_inf @ model.redundant
    useful = np.hstack([x_inf, x_red])
    X = np.hstack([useful, useful[:, model.repeated], noise])
    c = cluster % 2
    c[flip] = new_class
    return X, c


def _check_madelon(p: dict[str, Any]) -> None:
    name = "madelon"
    k, n_red, n_rep = p["n_informative"], p["n_redundant"], p["n_repeated"]
    _need(name, 1 <= k <= 30, f"param 'n_informative' must be in 1..30, got {k}")
    _need(name, n_red >= 0 and n_rep >= 0, "params 'n_redundant' and 'n_repeated' must be >= 0")
    _need(
        name,
        1 <= p["n_clusters_per_class"] and 2 * p["n_clusters_per_class"] <= 2**k,
        f"2 * n_clusters_per_class must be in 2..2**n_informative = {2**k}, got "
        f"n_clusters_per_class = {p['n_clusters_per_class']}",
    )
    _need(
        name,
        p["n_features"] >= k + n_red + n_rep,
        f"param 'n_features' must be >= n_informative + n_redundant + n_repeated = {k + n_red + n_rep}",
    )
    _need(name, 0 < p["minority"] < 1, f"param 'minority' must be in (0, 1), got {p['minority']}")
    _need(name, 0 <= p["flip_y"] <= 1, f"param 'flip_y' must be in [0, 1], got {p['flip_y']}")
    _need(name, 0 < p["class_sep"] < math.inf, f"param 'class_sep' must be > 0, got {p['class_sep']}")
    _need(name, p["model_seed"] >= 0, f"param 'model_seed' must be >= 0, got {p['model_seed']}")


_MADELON_DEFAULTS: dict[str, Any] = {
    "n_features": 100,
    "n_informative": 5,
    "n_redundant": 5,
    "n_repeated": 2,
    "n_clusters_per_class": 2,
    "class_sep": 1.0,
    "minority": 0.5,
    "flip_y": 0.0,
    "model_seed": 0,
}


@_scenario(
    "madelon",
    _MADELON_DEFAULTS,
    "Madelon design (Guyon 2003; make_classification's model): informative, redundant (linear "
    "combinations), repeated and noise features, Gaussian clusters on hypercube vertices",
    _check_madelon,
    lambda p: _first(p["n_informative"] + p["n_redundant"] + p["n_repeated"], p["n_informative"]),
)
def madelon(
    n: int,
    rng: np.random.Generator,
    n_features: int = 100,
    n_informative: int = 5,
    n_redundant: int = 5,
    n_repeated: int = 2,
    n_clusters_per_class: int = 2,
    class_sep: float = 1.0,
    minority: float = 0.5,
    flip_y: float = 0.0,
    model_seed: int = 0,
):
    """Madelon samples (the module docstring gives the model); only ``rng`` varies between draws."""
    n_clusters = 2 * n_clusters_per_class
    model = madelon_model(model_seed, n_informative, n_redundant, n_repeated, n_clusters, class_sep)
    sizes = madelon_cluster_sizes(n, minority, n_clusters_per_class)
    # scikit-learn's rows come sorted by cluster; shuffled here, so that no selector or subsample that
    # reads rows in order sees them grouped by class
    cluster = np.repeat(np.arange(n_clusters), sizes)[rng.permutation(n)]
    z = rng.standard_normal((n, n_informative))
    noise = rng.standard_normal((n, n_features - n_informative - n_redundant - n_repeated))
    flip = rng.random(n) < flip_y
    new_class = rng.integers(0, 2, size=int(flip.sum()))
    X, c = madelon_assemble(model, cluster, z, noise, flip, new_class)
    return X, _labels_pm(c)


# ------------------------------------------------------------------------------------------------ parity
def _check_parity(p: dict[str, Any]) -> None:
    _need("parity", p["order"] >= 2, f"param 'order' must be >= 2 (k = 1 is univariate), got {p['order']}")
    _need("parity", p["n_features"] >= p["order"], f"param 'n_features' must be >= order = {p['order']}")


@_scenario(
    "parity",
    {"n_features": 100, "order": 2},
    "k-way XOR: y = sign(x_1 ... x_k), x ~ N(0, I); each relevant feature is N(0, 1) in both classes",
    _check_parity,
    lambda p: _first(p["order"]),
)
def parity(n: int, rng: np.random.Generator, n_features: int = 100, order: int = 2):
    """y = sign(∏_{j<k} x_j), x ~ N(0, I_D) (module docstring)."""
    X = rng.standard_normal((n, n_features))
    # a product sign is the parity of the negative signs; x_j = 0 has probability 0
    negatives = np.sum(X[:, :order] < 0, axis=1)
    return X, np.where(negatives % 2 == 0, 1, -1)


# ------------------------------------------------------------------------------------------- linear models
def _linear_labels(x_rel: np.ndarray, noise_sd: float, rng: np.random.Generator) -> np.ndarray:
    beta = np.where(np.arange(x_rel.shape[1]) % 2 == 0, 1.0, -1.0)
    latent = x_rel @ beta + noise_sd * rng.standard_normal(x_rel.shape[0])
    # latent = 0 has probability 0 for noise_sd > 0; at noise_sd = 0 it is measure zero too (continuous x)
    return np.where(latent > 0, 1, -1)


def _check_linear(name: str, extra: Callable[[dict[str, Any]], int]) -> Callable[[dict[str, Any]], None]:
    def check(p: dict[str, Any]) -> None:
        _need(name, p["n_relevant"] >= 1, f"param 'n_relevant' must be >= 1, got {p['n_relevant']}")
        _need(name, 0 <= p["noise_sd"] < math.inf, "param 'noise_sd' must be finite and >= 0")
        width = p["n_relevant"] + extra(p)
        _need(name, p["n_features"] >= width, f"param 'n_features' must be >= {width}, got {p['n_features']}")

    return check


@_scenario(
    "linear_sparse",
    {"n_features": 100, "n_relevant": 10, "noise_sd": 1.0},
    "sparse linear model: y = sign(sum_j (-1)^j x_j + noise_sd*eps) over the first n_relevant of x ~ N(0, I)",
    _check_linear("linear_sparse", lambda p: 0),
    lambda p: _first(p["n_relevant"]),
)
def linear_sparse(
    n: int, rng: np.random.Generator, n_features: int = 100, n_relevant: int = 10, noise_sd: float = 1.0
):
    """y = sign(Σ_{j<k} (−1)^j x_j + noise_sd·ε), x ~ N(0, I_D) (module docstring)."""
    X = rng.standard_normal((n, n_features))
    return X, _linear_labels(X[:, :n_relevant], noise_sd, rng)


def _check_nuisance(p: dict[str, Any]) -> None:
    _check_linear("correlated_nuisance", lambda q: q["n_relevant"] * q["copies"])(p)
    _need("correlated_nuisance", p["copies"] >= 0, f"param 'copies' must be >= 0, got {p['copies']}")
    _need("correlated_nuisance", 0 <= p["rho"] <= 1, f"param 'rho' must be in [0, 1], got {p['rho']}")


@_scenario(
    "correlated_nuisance",
    {"n_features": 100, "n_relevant": 5, "copies": 2, "rho": 0.8, "noise_sd": 1.0},
    "linear model on n_relevant features plus `copies` noisy proxies of each (correlation rho), "
    "independent of y given the relevant ones",
    _check_nuisance,
    lambda p: _first(p["n_relevant"]),
)
def correlated_nuisance(
    n: int,
    rng: np.random.Generator,
    n_features: int = 100,
    n_relevant: int = 5,
    copies: int = 2,
    rho: float = 0.8,
    noise_sd: float = 1.0,
):
    """The ``linear_sparse`` model plus proxies z_{j,m} = ρ x_j + √(1 − ρ²) e (module docstring)."""
    X = rng.standard_normal((n, n_features))
    y = _linear_labels(X[:, :n_relevant], noise_sd, rng)
    k, m = n_relevant, copies
    # proxies of x_j in columns k + j*m .. k + j*m + m − 1: the fresh N(0, 1) drawn there becomes e_{j,m}
    source = np.repeat(np.arange(k), m)
    X[:, k : k + k * m] = rho * X[:, source] + math.sqrt(1.0 - rho * rho) * X[:, k : k + k * m]
    return X, y
