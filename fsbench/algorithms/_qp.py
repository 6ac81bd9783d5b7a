r"""A small solver for concave quadratic programs on the probability simplex.

.. math:: \max_\beta\; f(\beta) = c^\top\beta - \beta^\top Q\beta
   \quad\text{s.t.}\quad \sum_i\beta_i = 1,\ \beta\ge 0,

with :math:`Q` symmetric positive semi-definite. With :math:`Q = K` and :math:`c = \operatorname{diag} K`
the optimum is :math:`R^2`, the squared radius of the smallest ball enclosing the training points in
feature space (Chapelle et al. 2002; ALGORITHMS.md §2.1), and :math:`\beta` are its weights.

Method (ALGORITHMS.md §2.3 [D], "our own simple method"): pairwise (SMO-style) ascent. The gradient is
:math:`g = c - 2Q\beta`. Moving mass :math:`t` from :math:`j` to :math:`i` changes f by
:math:`t(g_i-g_j) - t^2 a_{ij}` with :math:`a_{ij} = Q_{ii}+Q_{jj}-2Q_{ij} \ge 0`, so the best step is
:math:`t^* = (g_i-g_j)/(2a_{ij})` clipped to :math:`[0,\beta_j]` (all of :math:`\beta_j` when
:math:`a_{ij}\approx 0`).

* Working pair: :math:`i = \arg\max_i g_i` (any coordinate may grow); :math:`j` among
  :math:`\{\beta_j > 0,\ g_j < g_i\}` maximising the guaranteed gain :math:`(g_i-g_j)^2/a_{ij}` — the
  second-order choice of Fan, Chen & Lin (JMLR 2005) instead of §2.3's plain :math:`\arg\min g_j`;
  it needs no extra kernel evaluations (one column of Q) and converges in far fewer steps.
* Stopping rule (§2.3): :math:`\max_i g_i - \min_{\beta_j>0} g_j < \text{tol}\cdot\max(1, |f|)`.
  Because f is concave, this gap bounds the distance to the optimum:
  :math:`f^* - f(\beta) \le \max_i g_i - \beta^\top g \le \max_i g_i - \min_{\beta_j>0} g_j`.
* The gradient and the value are updated with one column pair per step and recomputed exactly at the
  end (and every ``n`` steps) so that rounding errors cannot accumulate.
* Warm start: pass the previous solution as ``beta0`` (it is projected back on the simplex).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_TAU = 1e-12  # curvature floor: below it a direction is treated as linear


@dataclass(frozen=True)
class SimplexQPResult:
    """Result of :func:`simplex_qp`: optimal value, weights, steps taken, whether the gap rule stopped it."""

    value: float
    beta: np.ndarray
    n_iter: int
    converged: bool
    gap: float


def _start(beta0: np.ndarray | None, n: int) -> np.ndarray:
    if beta0 is None:
        return np.full(n, 1.0 / n)
    beta = np.maximum(np.asarray(beta0, dtype=float).ravel(), 0.0)
    s = beta.sum()
    if beta.size != n or not np.isfinite(s) or s <= 0:
        return np.full(n, 1.0 / n)
    return beta / s


def simplex_qp(
    Q: np.ndarray,
    c: np.ndarray | None = None,
    beta0: np.ndarray | None = None,
    tol: float = 1e-6,
    max_iter: int | None = None,
) -> SimplexQPResult:
    r"""Maximise :math:`c^\top\beta - \beta^\top Q\beta` over the probability simplex.

    Parameters
    ----------
    Q : (n, n) symmetric positive semi-definite matrix.
    c : (n,) linear term; default ``diag(Q)`` (the enclosing-ball problem, value = :math:`R^2`).
    beta0 : (n,) optional warm start (e.g. the solution for a nearby Q); default uniform 1/n.
    tol : float
        Stop when the optimality gap :math:`\max_i g_i - \min_{\beta_j>0} g_j` is below
        ``tol * max(1, |f|)``; this also bounds :math:`f^* - f`.
    max_iter : int, optional
        Cap on pairwise steps; default ``max(1000, 50 n)``.

    Returns
    -------
    SimplexQPResult
    """
    Q = np.asarray(Q, dtype=float)
    n = Q.shape[0]
    if Q.ndim != 2 or Q.shape[1] != n or n == 0:
        raise ValueError(f"Q must be a non-empty square matrix, got shape {Q.shape}")
    c = np.diag(Q).copy() if c is None else np.asarray(c, dtype=float).ravel()
    if max_iter is None:
        max_iter = max(1000, 50 * n)
    qd = np.diag(Q).copy()
    beta = _start(beta0, n)
    g = c - 2.0 * (Q @ beta)
    value = float(beta @ (c + g)) / 2.0  # c'b - b'Qb = b'(c + g)/2
    converged = False
    gap = np.inf
    it = 0
    while True:
        i = int(np.argmax(g))
        support = beta > 0
        gap = float(g[i]) - float(np.min(g, where=support, initial=np.inf))
        if gap < tol * max(1.0, abs(value)):
            converged = True
            break
        if it >= max_iter:
            break
        # second-order choice of j among the support with g_j < g_i
        diff = g[i] - g
        a = np.maximum(qd[i] + qd - 2.0 * Q[:, i], _TAU)
        gain = np.where(support & (diff > 0), diff * diff / a, -np.inf)
        j = int(np.argmax(gain))
        t = min(diff[j] / (2.0 * a[j]), beta[j]) if a[j] > _TAU else beta[j]
        if t <= 0:  # cannot happen for a valid pair; guard against an endless loop
            break
        beta[i] += t
        if t >= beta[j]:
            beta[j] = 0.0
        else:
            beta[j] -= t
        value += t * diff[j] - t * t * a[j]
        it += 1
        if it % n == 0:  # refresh: no accumulation of rounding errors
            beta /= beta.sum()
            g = c - 2.0 * (Q @ beta)
            value = float(beta @ (c + g)) / 2.0
        else:
            g -= (2.0 * t) * (Q[:, i] - Q[:, j])
    beta /= beta.sum()
    value = float(c @ beta - beta @ (Q @ beta))
    return SimplexQPResult(value=value, beta=beta, n_iter=it, converged=converged, gap=gap)


def enclosing_ball_radius2(
    K: np.ndarray, beta0: np.ndarray | None = None, tol: float = 1e-6, max_iter: int | None = None
) -> SimplexQPResult:
    r"""Squared radius of the smallest feature-space ball around the points of Gram matrix ``K``.

    :math:`R^2 = \max_\beta \sum_i\beta_iK_{ii} - \beta^\top K\beta` on the simplex (ALGORITHMS.md §2.1);
    see :func:`simplex_qp` for the method and the parameters.
    """
    return simplex_qp(K, None, beta0=beta0, tol=tol, max_iter=max_iter)
