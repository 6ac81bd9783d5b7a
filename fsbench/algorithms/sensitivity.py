r"""FSPP: feature selection by the sensitivity of SVM posterior probabilities (Shen et al. 2008).

Multiclass variant (MFSPP, Shen, Ong, Li & Wilder-Smith, SMC 2008 — Ramona 2012's reference
[24]): a feature matters as much as the multiclass SVM's posterior probabilities change when the
feature is taken away. fsbench implements the *permutation* form (ALGORITHMS.md §6 [D]):

.. math:: s_j = \frac1R\sum_{r=1}^R \frac1N\sum_{i=1}^N \sum_{c=1}^C
   \bigl|P(c\mid x_i) - P(c\mid \tilde x_i^{(j,r)})\bigr|,

where :math:`\tilde x^{(j,r)}` is the training set with column j permuted by the r-th random
permutation, and the posteriors come from :class:`fsbench.algorithms.svm.PairwiseCouplingSVC`
(one-vs-one SVMs, Platt sigmoids from an internal 5-fold CV, pairwise coupling) trained on the
same training set, evaluated in-sample. Backward elimination (fsbench's one loop,
:func:`fsbench.algorithms.elimination.backward_elimination`, with :math:`s_j` as the importance): retrain,
rescore, remove the lowest-scoring feature(s), until one feature is left; later-eliminated features rank
better.

Which of Shen et al.'s three approximations MFSPP1–MFSPP3 this corresponds to, and which one
Ramona 2012 ran, is **unknown** (the papers were not readable here, ALGORITHMS.md §14.6). The
permutation form follows a public ``get_fspp`` implementation of the binary criterion.

Defaults [D]:

* RBF kernel with the median-heuristic gamma, re-resolved on the surviving features at every
  iteration; ``C=None``: Joachims' :math:`\hat C` per pair, recomputed at every iteration.
* ``coupling="wu_lin_weng"``: Shen et al. cite Lin–Lin–Weng's Platt note and Wu–Lin–Weng's
  coupling (the LIBSVM ``-b 1`` chain), and the exact WLW solve is one batched linear system,
  much cheaper than the Hastie–Tibshirani fixed point inside a loop over features ×
  permutations. ``"hastie_tibshirani"`` is available.
* ``n_permutations=5``; the R permutations are drawn once per iteration and shared by all
  features (common random numbers: feature scores within an iteration differ by the feature,
  not by the permutation draw). Everything random (permutations, Platt CV folds) is seeded by
  ``random_state``.
* ``step=0.1``, ``step_threshold=100``: while more than 100 features survive, eliminate 10 %
  of them per iteration (rounded half-up, at least 1); from 100 features on, one per iteration.
* Ties in the score eliminate the higher feature index first.

Cost per iteration: one :class:`PairwiseCouplingSVC` fit ((n_folds+1)·C(C−1)/2 small SVMs, trained
through libsvm directly) and up to D·R·N posterior evaluations. What is computed is exactly the
score above (the same numbers up to round-off, so the same eliminations:
``tests/algorithms/test_fspp_reference.py`` compares rankings with the implementation before issue #15,
kept as ``benchmarks/reference_fspp.py``), but only what can matter is evaluated:

* a permuted row whose value does not change (pixels: the background in most rows) adds exactly 0,
  and the posteriors of a row depend only on (row, new value), so each distinct pair is evaluated
  once and weighted by how often it occurs (USPS: 59 % of the R·N rows remain);
* a replaced column changes one term of the feature-additive kernel statistic
  (:class:`fsbench.algorithms.feature_statistics.ColumnReplacement`): for RBF a kernel row is three
  gathers and two products against the support vectors, from K and per-value tables, not a new Gram matrix;
  rows are built in cache-sized blocks and fed straight into the pairwise decision product, which
  only multiplies each class's support vectors with that class's C−1 pairs; the Wu–Lin–Weng
  coupling is a Gaussian elimination vectorised over the rows;
* from the second iteration on, only the m features to eliminate must be known: features are
  scored in the order of their last score, and a feature's sum stops as soon as it exceeds the
  m-th lowest complete score (its terms are non-negative, so it cannot be among the m lowest; the
  pairs are summed most-likely-large first, so that happens early). The sum runs over fixed units
  of 32 pairs, so the pairs can be evaluated in batches of any size without changing a score: a
  batch is cut near the limit to what the limit is predicted to need. USPS: 8.9 million (row,
  value) evaluations per fit, in 13.8 thousand batches.

Measured (USPS Table II protocol: N = 1000, D = 256, 10 classes, 106 iterations; one core, CPU time;
``make bench``, benchmark (e), three alternated rounds): 69–82 s per fit against 340–358 s for the
implementation before, a speed-up of 4.35–4.90× per round (median 4.48×), the same ranking every
time. The fit time varies by ±10 % from run to run on the shared test machine, also in-process for
identical work. Where the time went before the last changes (phase timers, one ~80 s fit): ~14 s
retraining the classifier at every iteration (libsvm, the Platt fits and their CV), ~10 s the
per-feature tables, ~14 s the kernel rows, ~12 s the decision products and ~21 s the Platt and
coupling steps, whose Gaussian elimination is ~300 small array operations per batch.
"""

from __future__ import annotations

import heapq
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector
from fsbench.algorithms.elimination import STEP_CONSTRAINTS, backward_elimination
from fsbench.algorithms.feature_statistics import ColumnReplacement, feature_statistic, gram_from_statistic
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS
from fsbench.algorithms.svm import COUPLINGS, PairwiseKernelSVC

#: Target size of one block of permuted kernel rows (fits the L2 cache of current CPUs).
_BLOCK_BYTES = 1 << 20
#: Blocks whose posteriors are coupled in one batch, after which an early stop is checked. The
#: coupling has a fixed cost of a few hundred µs per call (its elimination is ~300 small array
#: operations), so large batches pay; near a limit the group shrinks to what the limit is predicted
#: to need (:func:`_group_size`). USPS, in-process A/B over five captured iterations: 4 blocks
#: with shrinking took 12 % less CPU than 2 in one run of 10 alternations (3 in between), and were
#: within 1 % of it in an earlier run of 5 (the machine's noise is of that order); by the counts,
#: 8.9 M pairs in 13.8 k batches against 8.5 M in 23.9 k.
_GROUP = 4
#: Pairs per term of a feature's sum (and the granularity of blocks and groups): the sum adds
#: these terms in a fixed order, so it does not depend on how the pairs were grouped. (That also
#: needs each pair's posteriors to be the same bits in any batch; batches start at multiples of
#: _UNIT, and a one-row batch is evaluated as two rows, see PairwiseCouplingSVC._decision.)
_UNIT = 32


class FSPP(BaseSelector):
    r"""Backward elimination by the permutation sensitivity of coupled SVM posteriors (MFSPP).

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default "rbf"
    gamma : float or {"median", "n_features", "scale"}, default "median"
    degree, offset, scale : float
        Polynomial kernel parameters.
    C : float or None, default None
        Fixed C for every pairwise SVM, or None for Joachims' :math:`\hat C` per pair.
    coupling : {"wu_lin_weng", "hastie_tibshirani"}, default "wu_lin_weng"
    n_permutations : int, default 5
        Permutations R averaged in each score.
    step : int or float, default 0.1
        Features eliminated per iteration while more than ``step_threshold`` survive (an int, or
        that fraction of the survivors); afterwards one per iteration.
    step_threshold : int, default 100
    batch_order : {"auto", "spider", "best_first"}, default "auto"
        Order inside an eliminated batch (:mod:`fsbench.algorithms.elimination`): ``"auto"`` is
        Spider's order for ``step="halving"``, best-first otherwise.
    n_folds : int, default 5
        Internal CV folds of the Platt fits.
    random_state : int, RandomState or None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_ : (D,)
    scores_ : (D,) the sensitivity of every feature in the first iteration (all features present).
    n_iter_ : number of elimination iterations.
    """

    description = "FSPP: backward elimination by permutation sensitivity of coupled SVM posteriors"
    citation = "Shen, Ong, Li & Wilder-Smith 2008 (Mach. Learn.; SMC multiclass MFSPP)"
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **KERNEL_CONSTRAINTS,
        **STEP_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "coupling": [StrOptions(set(COUPLINGS))],
        "n_permutations": [Interval(Integral, 1, None, closed="left")],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        C: float | None = None,
        coupling: str = "wu_lin_weng",
        n_permutations: int = 5,
        step: int | float = 0.1,
        step_threshold: int = 100,
        n_folds: int = 5,
        random_state=None,
        n_features_to_select: int | float | None = None,
        batch_order: str = "auto",
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.C = C
        self.coupling = coupling
        self.n_permutations = n_permutations
        self.step = step
        self.step_threshold = step_threshold
        self.batch_order = batch_order
        self.n_folds = n_folds
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _classifier(self, seed: int) -> PairwiseKernelSVC:
        return PairwiseKernelSVC(
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            offset=self.offset,
            scale=self.scale,
            C=self.C,
            coupling=self.coupling,
            n_folds=self.n_folds,
            random_state=seed,
        )

    def sensitivities(self, X: np.ndarray, y: np.ndarray, rng) -> np.ndarray:
        """Scores :math:`s_j` of every column of ``X`` for one classifier fit (y: class indices)."""
        return self._scores(X, y, rng)[0]

    def _scores(
        self,
        X: np.ndarray,
        y: np.ndarray,
        rng,
        keep: int | None = None,
        order: np.ndarray | None = None,
        priors: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sensitivities of the columns of ``X``; with ``keep``, only as far as needed to find the lowest.

        Columns are scored in ``order``. With ``keep`` = m, a column is abandoned as soon as its
        partial sum exceeds the m-th lowest complete score so far: every term is non-negative and
        floating-point addition of a non-negative number never decreases a sum, so its complete
        score would exceed it too, and it cannot be among the m lowest. Abandoned columns get
        ``inf``; the m lowest scores, and so which columns they are and their order, are exactly
        those of the complete computation. The second array holds the scores, or for abandoned
        columns an extrapolated guess (for the order of the next iteration, and as ``priors``, which
        only size the batches of :func:`_sensitivity`).
        """
        rng = check_random_state(rng)
        clf = self._classifier(int(rng.randint(np.iinfo(np.int32).max))).fit(X, y)
        kern, svc, Z = clf.kernel_, clf.svc_, clf.support_vectors_
        S = feature_statistic(kern, X, Z)
        K = gram_from_statistic(kern, S)
        P = svc.proba_from_decision(svc.pairwise_decision(K, support_only=True))
        perms = np.stack([rng.permutation(X.shape[0]) for _ in range(self.n_permutations)])
        columns = ColumnReplacement(kern, S, K)
        # How much a row's posteriors can move: nothing for a point classified with certainty.
        doubt = 1.0 - P.max(axis=1)
        scores = np.full(X.shape[1], np.inf)
        guesses = np.zeros(X.shape[1])
        lowest: list[float] = []  # max-heap (negated) of the `keep` lowest complete scores
        for j in range(X.shape[1]) if order is None else order:
            limit = -lowest[0] if keep is not None and len(lowest) >= keep else np.inf
            prior = None if priors is None else float(priors[j])
            value, complete, guesses[j] = _sensitivity(
                columns, svc, P, doubt, X[:, j], Z[:, j], perms, limit, prior
            )
            if complete:
                scores[j] = value
                if keep is not None:
                    heapq.heappush(lowest, -value)
                    if len(lowest) > keep:
                        heapq.heappop(lowest)
        return scores, guesses

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        rng = check_random_state(self.random_state)
        first_scores = None
        # last score (or its guess) of every feature: the likely-lowest are scored first, so the
        # bound that lets the others stop early is tight from the start
        last = np.zeros(X.shape[1])

        def importance(remaining: np.ndarray, n_drop: int) -> np.ndarray:
            nonlocal first_scores
            # the first iteration scores every feature (scores_); later ones only need the n_drop lowest
            keep = None if first_scores is None else n_drop
            order = np.argsort(last[remaining], kind="stable")
            scores, guesses = self._scores(
                X[:, remaining], y, rng, keep=keep, order=order, priors=last[remaining]
            )
            last[remaining] = guesses
            if first_scores is None:
                first_scores = scores
            return scores

        result = backward_elimination(
            X.shape[1], importance, self.step, self.step_threshold, batch_order=self.batch_order
        )
        self.ranking_ = result.ranking
        self.scores_ = first_scores if first_scores is not None else np.zeros(X.shape[1])
        self.n_iter_ = result.n_iter


def _sensitivity(
    columns: ColumnReplacement,
    svc,
    P: np.ndarray,
    doubt: np.ndarray,
    x: np.ndarray,
    z: np.ndarray,
    perms: np.ndarray,
    limit: float = np.inf,
    prior: float | None = None,
) -> tuple[float, bool, float]:
    r"""Mean absolute posterior change when the column ``x`` is permuted by each row of ``perms``.

    Only what changes is evaluated. Row i of the r-th permuted set differs from row i of X only if
    its new value :math:`u = x_{\pi_r(i)}` differs from :math:`x_i` (image pixels and other
    discretised features keep their value in most rows), and the posteriors of that row depend on
    (i, u) alone, so every distinct pair (i, u) with :math:`u \ne x_i` is evaluated once and counted
    as often as it occurs among the R·N permuted rows; the others add exactly 0.

    The pairs are summed in units of ``_UNIT`` pairs, those expected to change most first (count ×
    |u − x_i| × ``doubt`` of row i), and the sum stops after the unit that takes it above ``limit``
    (the caller only needs to know that the score is above it). The units and their order depend
    neither on ``limit`` nor on how many pairs are evaluated per batch, so a complete sum is the
    same number with or without a limit, and a partial one the same for any batch sizes. (A sum
    that crosses the limit in its last unit is reported as partial, ``complete`` False, although
    every pair was added: it is above the limit either way.)

    The pairs are evaluated in groups of up to ``_GROUP`` blocks; with a limit, a group is cut to
    what the limit is predicted to need (from the change per unit of expected change of the group
    before, or for the first group from ``prior``, the score guessed in the last iteration). That
    is a speed choice only: the sum is the same for any group sizes.

    Returns
    -------
    (score, complete, guess) : the score, or the partial score when it stopped above ``limit``; then
    ``guess`` extrapolates it to all pairs (otherwise it is the score).
    """
    n, R = x.size, perms.shape[0]
    values, code = np.unique(x, return_inverse=True)
    src = code[perms]
    # (row, value) pairs as one integer key: unique gives them sorted by row, with their counts
    keys, counts = np.unique((np.arange(n) * values.size + src)[src != code], return_counts=True)
    if keys.size == 0:
        return 0.0, True, 0.0
    rows, vals = np.divmod(keys, values.size)
    expected = counts * np.abs(values[vals] - x[rows]) * doubt[rows]
    first = np.argsort(-expected, kind="stable")
    rows, vals, counts = rows[first], vals[first], counts[first]
    ranked = expected[first]
    kernel_rows = columns.rows(z, values, code)
    # Kernel rows are built and consumed block by block (about 1 MB each) so the block is still in
    # cache for the decision product; the posteriors are coupled per group of up to _GROUP blocks.
    m = columns.S.shape[1]
    chunk = _UNIT * max(1, _BLOCK_BYTES // (8 * max(m, 1) * _UNIT))
    largest = _GROUP * chunk
    buf = np.empty((min(chunk, rows.size), m))
    target = limit * (n * R)  # the limit on the unnormalised sum
    total = 0.0
    start, size = 0, largest
    if np.isfinite(limit) and prior is not None and prior > 0:
        # the first group: what the limit needs if the score is as large as the last guess
        size = _group_size(ranked, prior * (n * R), ranked.sum(), target, largest)
    while start < rows.size:
        stop = min(start + size, rows.size)
        # decision values stored one row per pair, as svc._decision computes them (see there)
        dec = np.empty((svc.intercept_.size, stop - start))
        for a in range(start, stop, chunk):
            b = min(a + chunk, stop)
            dec[:, a - start : b - start] = svc._decision(
                kernel_rows(rows[a:b], vals[a:b], out=buf[: b - a])
            ).T
        change = np.abs(svc.proba_from_decision(dec.T) - P[rows[start:stop]]).sum(axis=1)
        # The sum runs over units of _UNIT pairs at fixed positions (groups start at multiples of
        # it), one unit after the other, and stops after the first unit that takes it above the
        # limit: the score, complete or partial, does not depend on the group sizes.
        units = np.add.reduceat(counts[start:stop] * change, np.arange(0, stop - start, _UNIT))
        running = np.cumsum(np.concatenate(([total], units)))[1:]
        above = np.flatnonzero(running / (n * R) > limit)
        if above.size:
            total = float(running[above[0]])
            # extrapolated by the share of the expected change covered so far: a guess, used
            # only to decide in which order the next iteration scores the features
            covered = ranked[: start + (above[0] + 1) * _UNIT].sum()
            guess = total * expected.sum() / covered if covered > 0 else total
            return total / (n * R), False, guess / (n * R)
        total = float(running[-1])
        if np.isfinite(limit):
            # the next group: what the limit still needs at this group's change per `expected`
            size = _group_size(ranked[stop:], units.sum(), ranked[start:stop].sum(), target - total, largest)
        start = stop
    return total / (n * R), True, total / (n * R)


def _group_size(ranked: np.ndarray, change: float, expected: float, need: float, largest: int) -> int:
    """Pairs for the next group: enough for the sum to reach ``need`` if the pairs ahead (their
    ``ranked`` expected changes) change by ``change / expected`` times their expected change, with
    a margin of 1/4 and two units (an undershoot costs another batch); at most ``largest``."""
    rate = float(change) / float(expected) if expected > 0 else 0.0  # Python floats: inf, no warning
    if not 0.0 < rate < np.inf:
        return largest
    reach = np.cumsum(ranked[:largest]) * rate
    pairs = int(np.searchsorted(reach, need)) + 1
    return min(largest, _UNIT * (int(1.25 * pairs) // _UNIT + 2))
