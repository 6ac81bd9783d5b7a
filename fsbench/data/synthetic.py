"""Synthetic data generators (ALGORITHMS.md §1.1–1.3) and a small registry for adding more.

A generator is a function ``draw(n, rng, **params) -> (X, y)`` that uses only the given
:class:`numpy.random.Generator`, so a draw is a pure function of the generator state. Registered with
:func:`register_generator`, it becomes usable from a card (``kind: synthetic``) or inline
(``open_dataset({"generator": "weston_linear", "params": {...}})``).

The Weston et al. (2000) toys:

* ``weston_linear``: 202 features, 6 relevant. y ∈ {−1,+1} equiprobable. With probability 0.7,
  x_i = y·N(i,1) for i = 1..3 and x_i = N(0,1) for i = 4..6; otherwise x_i = N(0,1) for i = 1..3 and
  x_i = y·N(i−3,1) for i = 4..6. Features 7..202 are N(0, noise_sd²).
* ``weston_nonlinear``: 52 features, 2 relevant. y = −1: (x1,x2) ~ ½N((−3/4,−3), I) + ½N((3/4,3), I);
  y = +1: ½N((3,−3), I) + ½N((−3,3), I). Features 3..52 are N(0, noise_sd²).

``noise_sd`` defaults to √20 ([D], ALGORITHMS.md §1.1): the paper writes N(0,20) and we read the 20 as
the variance (the usual N(μ,σ²) convention, also used by the NCFS implementation); pass
``noise_sd=20`` for the standard-deviation reading. ``n_features`` (default 202 / 52) pads or truncates
the noise block, e.g. for timing runs at a given dimension (ALGORITHMS.md §13.3); the relevant features
always come first. The data are not standardised (§0.2). A draw may contain one class only for very
small n; redrawing (the [D] rule of §1.3) is the caller's job, so that draws stay pure.

The scenario track's generators (``madelon``, ``parity``, ``linear_sparse``, ``correlated_nuisance``:
Madelon design, XOR/parity, sparse linear model, correlated nuisance features) are defined with their
relevant sets in :mod:`fsbench.data.scenarios` and registered at the end of this module.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsbench.data.errors import DatasetError
from fsbench.data.scenarios import SCENARIOS

DrawFn = Callable[..., tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class GeneratorInfo:
    """A registered generator: its draw function, default parameters and feature-count rule."""

    name: str
    draw: DrawFn
    defaults: dict[str, Any]
    n_features: Callable[[dict[str, Any]], int]
    description: str
    validate: Callable[[dict[str, Any]], None] = lambda params: None


@dataclass(frozen=True)
class ResolvedGenerator:
    """A generator with its full parameter set (defaults filled in, validated)."""

    info: GeneratorInfo
    params: dict[str, Any]

    @property
    def n_features(self) -> int:
        return self.info.n_features(self.params)


_GENERATORS: dict[str, GeneratorInfo] = {}


def register_generator(
    name: str,
    defaults: dict[str, Any],
    n_features: Callable[[dict[str, Any]], int],
    description: str,
    validate: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[DrawFn], DrawFn]:
    """Decorator registering ``draw(n, rng, **params)`` under ``name``."""

    def deco(fn: DrawFn) -> DrawFn:
        _GENERATORS[name] = GeneratorInfo(
            name, fn, dict(defaults), n_features, description, validate or (lambda p: None)
        )
        return fn

    return deco


def generator_names() -> list[str]:
    """Registered generator names, sorted."""
    return sorted(_GENERATORS)


def resolve_generator(name: str | None, params: dict[str, Any] | None = None) -> ResolvedGenerator:
    """Look up a generator and check ``params`` against its defaults (names and numeric types)."""
    if name not in _GENERATORS:
        raise DatasetError(f"unknown generator {name!r}; known: {', '.join(generator_names())}")
    info = _GENERATORS[name]
    full = dict(info.defaults)
    for key, value in (params or {}).items():
        if key not in info.defaults:
            raise DatasetError(
                f"generator '{name}': unknown param '{key}'; allowed: {', '.join(sorted(info.defaults))}"
            )
        default = info.defaults[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DatasetError(f"generator '{name}': param '{key}' must be a number, got {value!r}")
        if isinstance(default, int) and not isinstance(default, bool):
            if not float(value).is_integer():
                raise DatasetError(f"generator '{name}': param '{key}' must be an integer, got {value!r}")
            value = int(value)
        else:
            value = float(value)
        full[key] = value
    info.validate(full)
    return ResolvedGenerator(info, full)


def _check_common(name: str, min_features: int) -> Callable[[dict[str, Any]], None]:
    def check(p: dict[str, Any]) -> None:
        if not (p["noise_sd"] >= 0 and math.isfinite(p["noise_sd"])):
            raise DatasetError(
                f"generator '{name}': param 'noise_sd' must be finite and >= 0, got {p['noise_sd']}"
            )
        if p["n_features"] < min_features:
            raise DatasetError(
                f"generator '{name}': param 'n_features' must be >= {min_features}, got {p['n_features']}"
            )

    return check


def _labels(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(np.array([-1, 1]), size=n)


def weston_linear_draw(
    n: int, rng: np.random.Generator, noise_sd: float = math.sqrt(20), n_features: int = 202
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear toy plus the mixture indicator (True: the 0.7 component, features 1–3 informative).

    ``n_features < 6`` truncates the relevant block (the first ``n_features`` relevant columns are kept;
    Ramona 2012 Table IX times D = 5); the draw equals the first columns of the ``n_features = 6`` one.
    """
    y = _labels(n, rng)
    width = max(n_features, 6)
    X = rng.normal(0.0, noise_sd, size=(n, width))
    first = rng.random(n) < 0.7
    z = rng.normal(0.0, 1.0, size=(n, 6))
    shift = np.array([1.0, 2.0, 3.0])
    informative_a = y[:, None] * (shift + z[:, :3])  # y·N(i,1), i = 1..3
    informative_b = y[:, None] * (shift + z[:, 3:])  # y·N(i−3,1) for features 4..6
    X[:, :3] = np.where(first[:, None], informative_a, z[:, :3])
    X[:, 3:6] = np.where(first[:, None], z[:, 3:], informative_b)
    return X[:, :n_features], y, first


def weston_nonlinear_draw(
    n: int, rng: np.random.Generator, noise_sd: float = math.sqrt(20), n_features: int = 52
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nonlinear toy plus the component indicator (True: the second mean of the sample's class)."""
    y = _labels(n, rng)
    X = rng.normal(0.0, noise_sd, size=(n, n_features))
    second = rng.random(n) < 0.5
    means = np.array(
        [
            [[-0.75, -3.0], [0.75, 3.0]],  # y = −1
            [[3.0, -3.0], [-3.0, 3.0]],  # y = +1
        ]
    )
    mu = means[(y > 0).astype(int), second.astype(int)]
    X[:, :2] = mu + rng.normal(0.0, 1.0, size=(n, 2))
    return X, y, second


@register_generator(
    "weston_linear",
    {"noise_sd": math.sqrt(20), "n_features": 202},
    lambda p: p["n_features"],
    "Weston et al. 2000 linear toy: 6 relevant features (mixture 0.7/0.3), noise N(0, noise_sd^2)",
    _check_common("weston_linear", 1),
)
def weston_linear(n: int, rng: np.random.Generator, noise_sd: float = math.sqrt(20), n_features: int = 202):
    X, y, _ = weston_linear_draw(n, rng, noise_sd, n_features)
    return X, y


@register_generator(
    "weston_nonlinear",
    {"noise_sd": math.sqrt(20), "n_features": 52},
    lambda p: p["n_features"],
    "Weston et al. 2000 nonlinear toy: 2 relevant features (XOR-like mixture), noise N(0, noise_sd^2)",
    _check_common("weston_nonlinear", 2),
)
def weston_nonlinear(n: int, rng: np.random.Generator, noise_sd: float = math.sqrt(20), n_features: int = 52):
    X, y, _ = weston_nonlinear_draw(n, rng, noise_sd, n_features)
    return X, y


@dataclass(frozen=True)
class SyntheticDataset:
    """A synthetic dataset: draw samples with :meth:`sample`.

    Attributes
    ----------
    name : str
        Card name, or ``generator`` (plus params) for an inline spec.
    n_features : int
    generator : str
    params : dict
        Full parameter set, defaults included.
    notes : str
    """

    name: str
    n_features: int
    generator: str
    params: dict[str, Any] = field(default_factory=dict)
    notes: str = ""

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` i.i.d. samples; a pure function of ``rng``'s state.

        Parameters
        ----------
        n : int
            Number of samples (>= 1).
        rng : numpy.random.Generator

        Returns
        -------
        X : ndarray of shape (n, n_features), float64
        y : ndarray of shape (n,), int, values in {-1, +1} for the Weston toys
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise DatasetError(f"dataset '{self.name}': sample size must be a positive int, got {n!r}")
        if not isinstance(rng, np.random.Generator):
            raise DatasetError(
                f"dataset '{self.name}': rng must be a numpy.random.Generator, got {type(rng).__name__}"
            )
        draw = _GENERATORS[self.generator].draw
        X, y = draw(int(n), rng, **self.params)
        return np.asarray(X, dtype=np.float64), np.asarray(y)


def make_synthetic(
    name: str, generator: str | None, params: dict[str, Any] | None, notes: str = ""
) -> SyntheticDataset:
    """Build a :class:`SyntheticDataset` after validating the generator and params."""
    resolved = resolve_generator(generator, params)
    return SyntheticDataset(name, resolved.n_features, resolved.info.name, resolved.params, notes)


# ---------------------------------------------------------------------------------- Ring & Eskofier 2015
def _check_ring_fig1(p: dict[str, Any]) -> None:
    if not 0 < p["r_inner"] < p["r_annulus_lo"] < p["r_annulus_hi"]:
        raise DatasetError(
            "generator 'ring_fig1': need 0 < r_inner < r_annulus_lo < r_annulus_hi, got "
            f"{p['r_inner']}, {p['r_annulus_lo']}, {p['r_annulus_hi']}"
        )
    if not (p["shift"] >= 0 and math.isfinite(p["shift"])):
        raise DatasetError(f"generator 'ring_fig1': param 'shift' must be finite and >= 0, got {p['shift']}")


@register_generator(
    "ring_fig1",
    {"shift": 2.0, "r_inner": 1.0, "r_annulus_lo": 1.5, "r_annulus_hi": 2.5},
    lambda p: 4,
    "Ring & Eskofier 2015 Fig. 1 toy: (x1,x2) disk vs annulus (separable, non-linearly only), "
    "(x3,x4) overlapping Gaussians with shifted means",
    _check_ring_fig1,
)
def ring_fig1(
    n: int,
    rng: np.random.Generator,
    shift: float = 2.0,
    r_inner: float = 1.0,
    r_annulus_lo: float = 1.5,
    r_annulus_hi: float = 2.5,
):
    r"""The four-feature problem of Ring & Eskofier 2015, Fig. 1 (our construction; the figure's data
    are not given).

    y ∈ {−1, +1} equiprobable. (x1, x2): class −1 uniform on the disk of radius ``r_inner``, class +1
    uniform on the annulus ``r_annulus_lo`` ≤ r ≤ ``r_annulus_hi`` — perfectly separable by a circle,
    same class means (0), so only the covariances differ. (x3, x4) ~ N(y·shift/2·(1, 1), I): the class
    means differ by ``shift`` per feature and the classes overlap (Bayes error Φ(−shift/√2) ≈ 8 % at
    shift 2). Defaults [D]: the Gaussian Bhattacharyya distance of (x3, x4) is shift²/4 = 1.0 (paper:
    1.09), larger than that of (x1, x2) (≈ 0.5 at the defaults; paper 0.74), so Gaussian B&B prefers
    (x3, x4), as in the paper.
    """
    y = _labels(n, rng)
    theta = rng.uniform(0.0, 2.0 * np.pi, n)
    r_in = r_inner * np.sqrt(rng.uniform(0.0, 1.0, n))
    r_out = np.sqrt(rng.uniform(r_annulus_lo**2, r_annulus_hi**2, n))
    r = np.where(y < 0, r_in, r_out)
    gauss = rng.normal(0.0, 1.0, (n, 2)) + (y * shift / 2.0)[:, None]
    X = np.column_stack([r * np.cos(theta), r * np.sin(theta), gauss])
    return X, y


# ------------------------------------------------------------------------------- the scenario track
# Madelon, parity/XOR, sparse linear, correlated nuisance (fsbench/data/scenarios.py, which holds their
# draw functions and relevance rules and does not import this module): registered like the toys above.
for _sc in SCENARIOS.values():
    register_generator(_sc.name, _sc.defaults, lambda p: p["n_features"], _sc.description, _sc.validate)(
        _sc.draw
    )
