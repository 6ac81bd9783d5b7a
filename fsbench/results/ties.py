"""Ties: the values fsbench ranks, at the metric's resolution.

Every ranking of metric values in fsbench (:func:`fsbench.results.stats.ranks` and
:func:`fsbench.results.stats.rank_shares`, the report's best-in-row marks, ``fsbench compare``'s block ranks,
wins/ties/losses and Wilcoxon differences in :mod:`fsbench.results.stats_compare`) ranks
:func:`at_resolution` values, the one place the tie rule lives. A mean error is a count of errors over a
number of test points, but the mean of 30 per-repeat rates carries the rounding of the floating-point sum in
its last bits: 3,471 errors over 30 × 1,000 test points average to 0.11569999999999998 for one selector and
0.11570000000000001 for another (Ramona Fig. 2b, Spambase, RBF, n = 500, S = 10, arom vs fisher). Ranked as
they are, the tie is broken by noise. The rule: values closer than :data:`TIE_RTOL` (1e-12) times the
largest magnitude compared are equal (chained: sorted values whose successive gaps are all that small form
one tie group), and each takes its group's smallest value. 1e-12 is far above the rounding of a mean of a
few hundred doubles (~1e-15 relative) and far below any resolution a metric has (one error in a million test
points is 1e-6).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Relative resolution of ranked values: closer than this times the largest magnitude compared is a tie.
TIE_RTOL = 1e-12


def _resolve_1d(x: np.ndarray, rtol: float) -> np.ndarray:
    out = x.copy()
    finite = np.isfinite(x)
    if finite.sum() < 2:
        return out
    v = x[finite]
    order = np.argsort(v, kind="stable")
    sv = v[order]
    # a new tie group starts wherever the sorted values jump by more than the resolution
    starts = np.diff(sv) > rtol * float(np.max(np.abs(v)))
    group = np.concatenate([[0], np.cumsum(starts)])
    first = sv[np.concatenate([[0], np.flatnonzero(starts) + 1])]
    res = np.empty_like(v)
    res[order] = first[group]
    out[finite] = res
    return out


def at_resolution(values: npt.ArrayLike, rtol: float = TIE_RTOL) -> np.ndarray:
    """The values to rank: those equal up to rounding noise made exactly equal (the module's tie rule).

    Parameters
    ----------
    values : array_like
        Values compared with each other: 1-D, or 2-D where each row is ranked on its own (blocks ×
        methods).
    rtol : float
        Resolution relative to the largest finite magnitude of the values compared (of the row).

    Returns
    -------
    ndarray of float
        Same shape. Sorted values whose successive gaps are at most ``rtol`` × max |value| form one tie
        group and all take the group's smallest value; the others, NaN and ±inf are unchanged. Idempotent,
        so ranking already resolved values again changes nothing.
    """
    x = np.array(values, dtype=float)
    if x.ndim == 1:
        return _resolve_1d(x, rtol)
    if x.ndim != 2:
        raise ValueError(f"at_resolution: expected 1-D or 2-D values, got shape {x.shape}")
    return np.array([_resolve_1d(row, rtol) for row in x]).reshape(x.shape)
