r"""Bayesian signed-rank test with a region of practical equivalence (ROPE), over datasets.

Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a tutorial for comparing multiple classifiers
through Bayesian analysis", JMLR 18(77):1–36, 2017, §4 (the test of Benavoli et al., ICML 2014). For two
selectors A and B with block (dataset) values a_i, b_i, the differences z_i = b_i − a_i (B's error minus
A's: positive when A is better) get a Dirichlet-process prior of strength s centred on one pseudo-observation
z_0 = 0 (inside the ROPE). The posterior is a Dirichlet distribution of weights
(w_0, w_1, …, w_N) ~ Dir(s, 1, …, 1) on (z_0, z_1, …, z_N), and the probabilities of the three regions are
sums over the Walsh averages (z_i + z_j)/2, as in Wilcoxon's statistic:

.. math::

    \theta_A = \sum_{i,j} w_i w_j\, I\big(z_i + z_j > 2r\big), \qquad
    \theta_B = \sum_{i,j} w_i w_j\, I\big(z_i + z_j < -2r\big), \qquad
    \theta_= = 1 - \theta_A - \theta_B,

r the ROPE's half-width (a sum exactly on a boundary counts one half). Monte-Carlo samples of the weights
give samples of (θ_A, θ_=, θ_B); the test reports, as baycomp and the authors' tutorial code do, the
share of samples in which each region is the most probable: P(A better), P(equivalent), P(B better).

The computation is that of ``baycomp`` (by the paper's authors; ``SignedRankTest``), an optional
dependency: ``pip install 'fsbench[stats]'``. baycomp 1.0.3 (its last release, 2023) passes its own test
suite under numpy 2.4 / scipy 1.17, and reproduces its documented example (tests/results/test_bayes.py). It
samples in a Python loop: about 3 s for 50,000 samples over 19 datasets on the project's machine.

The ROPE is stated in advance, in the metric's units: 0.01 = one percentage point of error.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt
import pandas as pd

from fsbench.results.pairing import columns, groups, paired_values
from fsbench.results.schema import BASELINE
from fsbench.results.stats_compare import rank_blocks

#: The optional extra that installs baycomp.
EXTRA = "stats"

#: One percentage point of error: the default ROPE half-width (errors are fractions in results.csv).
ROPE = 0.01


class MissingExtraError(ImportError):
    """baycomp, of ``fsbench[stats]``, is not installed (one line naming the extra)."""


def _baycomp() -> types.ModuleType:
    # importlib, not an import statement: baycomp is an optional extra, needed only by this test
    try:
        return importlib.import_module("baycomp")
    except ImportError:
        raise MissingExtraError(
            f"the Bayesian signed-rank test needs baycomp, which is not installed: "
            f"pip install 'fsbench[{EXTRA}]'"
        ) from None


def bayesian_signed_rank(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    rope: float = ROPE,
    prior: float = 1.0,
    nsamples: int = 50_000,
    seed: int = 0,
    higher_is_better: bool = False,
) -> tuple[float, float, float]:
    """P(A better), P(equivalent), P(B better) of two methods over the same blocks (module docstring).

    Parameters
    ----------
    a, b : array_like
        The two methods' values on the same N blocks (datasets), paired by position.
    rope : float
        Half-width r of the region of practical equivalence, in the values' units, stated in advance.
    prior : float
        Strength s of the Dirichlet-process prior, the weight of the pseudo-observation at 0. 1 here (one
        dataset's worth: a difference the data must outweigh); baycomp's own default is 0.5.
    nsamples : int
        Monte-Carlo samples of the posterior.
    seed : int
        Seed of the sampling (``numpy.random.RandomState``, baycomp's generator).
    higher_is_better : bool
        The values are accuracies: A is better where a > b.

    Returns
    -------
    (p_a, p_equivalent, p_b) : tuple of float
        Shares of posterior samples in which "A better by more than r", "within ±r" and "B better by more
        than r" is the most probable region; they sum to 1. With ``rope == 0`` the middle one is 0.

    Raises
    ------
    MissingExtraError
        baycomp is not installed.
    ValueError
        Unequal lengths, no block, a missing value or a negative ROPE.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size == 0:
        raise ValueError(f"need two 1-D arrays of the same positive length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("the values must be finite")
    if rope < 0:
        raise ValueError(f"rope must be >= 0, got {rope}")
    bc = _baycomp()
    if higher_is_better:
        x, y = y, x
    # baycomp's differences are y − x and its "right" region y − x > r: with x = A's error, y = B's,
    # "right" is B's error above A's by more than r, i.e. A better
    probs = bc.SignedRankTest.probs(x, y, rope, prior=prior, nsamples=nsamples, random_state=seed)
    if rope > 0:
        p_b, p_eq, p_a = probs
    else:
        (p_b, p_a), p_eq = probs, 0.0
    return float(p_a), float(p_eq), float(p_b)


def bayes_comparisons(
    table: pd.DataFrame,
    leading: Sequence[str] | None = None,
    n_leading: int = 3,
    baseline: str = BASELINE,
    rope: float = ROPE,
    prior: float = 1.0,
    nsamples: int = 50_000,
    seed: int = 0,
    decide: float = 0.95,
    by: str | Sequence[str] = (),
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
) -> pd.DataFrame:
    """The Bayesian signed-rank test between the leading selectors, pairwise, and each against all features.

    Per ``by`` group (a fraction of D), the pairs are every two of the leading selectors and each leading
    selector with ``baseline`` (the SVM on all features, when the group has it). Each pair is compared on
    the blocks where both have common splits (:func:`fsbench.results.pairing.paired_values`, per pair),
    with :func:`bayesian_signed_rank` (lower values are better). Every pair uses the same ``seed``, so a
    pair's result does not depend on which other pairs are compared.

    Parameters
    ----------
    table : DataFrame
        Long table, the baseline's rows included (:func:`fsbench.results.pairing.fraction_rows`).
    leading : sequence of str, optional
        The selectors to compare; default, in each group, the ``n_leading`` best average ranks among the
        selectors other than the baseline (ranked on their common splits, as the post-hoc tests rank them).
    n_leading : int
        How many leading selectors when ``leading`` is not given.
    baseline : str
        The all-features selector's label.
    rope, prior, nsamples, seed
        As for :func:`bayesian_signed_rank`; the ROPE is stated in advance (default 0.01, one percentage
        point of error).
    decide : float
        A region whose probability reaches this is the ``decision``; otherwise ``undecided``.
    by, block, split, selector, value, status
        Column names.

    Returns
    -------
    DataFrame
        One row per (group, pair): the ``by`` columns, ``a``, ``b``, ``n_blocks``, ``mean_a``,
        ``mean_b``, ``median_diff`` (a − b), ``rope``, ``prior``, ``nsamples``, ``seed``, ``p_a_better``,
        ``p_equivalent``, ``p_b_better`` and ``decision`` (``a``'s name, ``equivalent``, ``b``'s name, or
        ``undecided``).
    """
    rows = []
    for key, g in groups(table, columns(by)):
        names = g[selector].astype(str)
        others = sorted(set(names) - {baseline})
        if leading is not None:
            chosen = [s for s in leading if s in set(others)]
        else:
            wide = paired_values(g[names != baseline], others, block, split, selector, value, status)
            order = rank_blocks(wide).mean(axis=0).sort_values(kind="stable")
            chosen = list(order.index[:n_leading])
        pairs = list(combinations(chosen, 2))
        if baseline in set(names):
            pairs += [(s, baseline) for s in chosen]
        for a, b in pairs:
            wide = paired_values(g, [a, b], block, split, selector, value, status)
            pa, pe, pb = bayesian_signed_rank(wide[a], wide[b], rope, prior, nsamples, seed)
            decision = "undecided"
            for name, p in ((a, pa), ("equivalent", pe), (b, pb)):
                if p >= decide:
                    decision = name
            rows.append(
                {
                    **key,
                    "a": a,
                    "b": b,
                    "n_blocks": len(wide),
                    "mean_a": float(wide[a].mean()),
                    "mean_b": float(wide[b].mean()),
                    "median_diff": float((wide[a] - wide[b]).median()),
                    "rope": rope,
                    "prior": prior,
                    "nsamples": nsamples,
                    "seed": seed,
                    "p_a_better": pa,
                    "p_equivalent": pe,
                    "p_b_better": pb,
                    "decision": decision,
                }
            )
    return pd.DataFrame(rows)
