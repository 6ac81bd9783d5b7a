r"""The one backward-elimination loop of fsbench (SVM-RFE, the clinical RFEs, FSPP).

:func:`backward_elimination` repeats until one feature is left: ask the selector's importance hook for
a score of every surviving feature, eliminate the lowest-scoring ones, tell the selector which features
went (so that it can downdate its Gram matrix or kernel statistic). Features eliminated later rank
better; the last survivor ranks 1. The hook plays the part of scikit-learn ``RFE``'s
``importance_getter``; everything else — the step rule, the tie rule, the ranking — is here, once.

Step rules (features eliminated from the :math:`n` survivors; at least one always survives):

* int ``m``: :math:`\min(m, n-1)`;
* fraction ``p`` in (0, 1): :math:`\max(1, \lfloor pn + \tfrac12\rfloor)` (rounded half-up; Paul 2015's
  20 %), so ``0.5`` removes :math:`\lceil n/2\rceil`;
* ``"halving"``: Spider's rule, :math:`\lfloor n/2\rfloor` (rounded **down**), e.g. 20 → 10 → 5 → 3 → 2 → 1.

``step_threshold`` (Spider's ``speed``) switches to one feature per iteration once at most that many
features remain, for every rule (0: never).

Order inside a batch (``batch_order``). The features eliminated in one iteration take consecutive
ranks; which of them ranks best is a convention:

* ``"best_first"``: by descending importance, the batch's most important feature ranks best (as if it
  had been eliminated last);
* ``"spider"``: Spider's order, the batch's **least** important feature ranks best;
* ``"auto"`` (default): ``"spider"`` for ``step="halving"``, ``"best_first"`` for every other step
  (int and fraction steps are not Spider's and keep fsbench's order).

Spider's ``@rfe/training.m`` (The Spider toolbox, which Ramona et al. 2012 ran; the copy read is
``CVPD/KinVer``, ``src/external/fisher/lib/@rfe/training.m``, commit 42ea269), inside its ``while 1``
loop::

    Ct(i) = sum(w(sel).^2);
    [val,index]= sort(Ct); % least influential first
    ordered_gid = gid(index);
    if vDim>a.speed
        nToRemove = floor(vDim/2);    %% choose number of groups to take
    else
        nToRemove = 1;             %% slow mode- remove one group
    end
    if vDim-nToRemove < feat, nToRemove = vDim-feat; end
    keep = ~ismember(gi, ordered_gid(1:nToRemove));
    rank = [ordered_gid(1:nToRemove) rank]; % group labels come out ordered according to rank

and after the loop ``rank=[unique(gi) rank]; a.rank=rank;``. ``a.rank`` lists the features best
**first**: the survivors lead it, each batch is put in front of the batches removed before it, and
``a.rank(1:a.feat)`` are the selected features (``use_prev_train`` reads them back so). But each batch
is put in front as ``ordered_gid(1:nToRemove)``, in ascending :math:`w^2`: inside a batch the least
influential feature comes first, so it ranks best of its batch. E.g. scores 1, 2, 3, 4, 5 for features
0–4: Spider removes {0, 1} (``floor(5/2)``), then {2}, then {3}; ``a.rank`` = [4, 3, 2, 0, 1], where
best-first gives [4, 3, 2, 1, 0]. ``"spider"`` reproduces ``a.rank`` with ``feat = 1``.

Which convention Ramona's top-S sets follow depends on how Spider was called, which the paper does
not say: with ``feat = S`` Spider's last iteration removes only ``vDim - S`` features and keeps the S
most influential, the same set as the top S of ``"best_first"``; with one run at ``feat`` below S and
``a.rank(1:S)`` read off, the set is that of ``"spider"``. The two differ only when S falls strictly
inside a batch (S = 5 in 202 → 101 → 51 → 26 → 13 → 7 → 4 → 2 → 1).

Ties: the hook may return several keys (importance first, then tie-breaks); features are eliminated in
ascending lexicographic order of the keys. A complete tie:

* ``"best_first"``: the higher feature index is eliminated first, so that the lower index ranks
  better, as in :func:`fsbench.algorithms.base.ranking_from_scores`;
* ``"spider"``: MATLAB's ``sort`` is stable, so the lower index comes first in ``ordered_gid``: it is
  eliminated first and, inside its batch, ranks better.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from fsbench.algorithms.base import ranking_from_order

HALVING = "halving"
#: Orders of the features inside one eliminated batch (module docstring).
BATCH_ORDERS = ("auto", "spider", "best_first")

#: scikit-learn parameter constraints of ``step``, ``step_threshold`` and ``batch_order`` (declared by
#: every selector that eliminates through :func:`backward_elimination`).
STEP_CONSTRAINTS: dict[str, list] = {
    "step": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0, 1, closed="neither"),
        StrOptions({HALVING}),
    ],
    "step_threshold": [Interval(Integral, 0, None, closed="left")],
    "batch_order": [StrOptions(set(BATCH_ORDERS))],
}

#: ``importance(remaining, n_drop)``: one score per surviving feature (index into ``remaining``;
#: lowest eliminated first), or a tuple of such arrays — the importance, then its tie-breaks.
ImportanceHook = Callable[[np.ndarray, int], "np.ndarray | tuple[np.ndarray, ...]"]
#: ``on_eliminate(dropped, remaining)``: called after each iteration with the eliminated features and
#: the survivors *before* the elimination (e.g. to downdate a kernel).
EliminateHook = Callable[[np.ndarray, np.ndarray], None]


def n_to_remove(step: int | float | str, n_remaining: int) -> int:
    r"""Features eliminated in one iteration from ``n_remaining`` survivors.

    Parameters
    ----------
    step : int, float in (0, 1) or "halving"
        int: ``step`` itself; fraction p: :math:`\max(1, \lfloor pn + \tfrac12\rfloor)` (half-up);
        ``"halving"``: Spider's :math:`\lfloor n/2\rfloor` (rounded down, ``@rfe/training.m``).
    n_remaining : int

    Returns
    -------
    int
        Clipped to :math:`[0, n-1]`: at least one feature always survives.
    """
    if isinstance(step, str):
        if step != HALVING:
            raise ValueError(f"unknown step rule {step!r}; expected {HALVING!r}")
        # Spider removes floor(vDim/2): with an odd count the smaller half goes
        m = n_remaining // 2
    elif isinstance(step, Integral) and not isinstance(step, bool):
        m = int(step)
    elif isinstance(step, Real):
        m = max(1, int(np.floor(step * n_remaining + 0.5)))
    else:
        raise ValueError(f"step must be a positive int, a fraction in (0, 1) or {HALVING!r}; got {step!r}")
    return max(0, min(m, n_remaining - 1))


def n_to_drop(step: int | float | str, n_remaining: int, step_threshold: int = 0) -> int:
    """:func:`n_to_remove`, or 1 once at most ``step_threshold`` features survive."""
    return n_to_remove(step, n_remaining) if n_remaining > step_threshold else 1


def elimination_schedule(step: int | float | str, n_features: int, step_threshold: int = 0) -> list[int]:
    """Numbers of survivors before each iteration, down to (excluding) the last one.

    ``step_threshold``: one feature per iteration once ``n ≤ step_threshold`` (Spider's ``speed``).
    E.g. ``elimination_schedule("halving", 20) == [20, 10, 5, 3, 2]``.
    """
    sizes, n = [], int(n_features)
    while n > 1:
        sizes.append(n)
        n -= n_to_drop(step, n, step_threshold)
    return sizes


def least_important(keys: np.ndarray | tuple[np.ndarray, ...], m: int, stable: bool = False) -> np.ndarray:
    """Positions of the ``m`` smallest keys, smallest first (lexicographic, first key first).

    Complete ties: the higher position first, or with ``stable`` the lower position first (MATLAB's
    stable ``sort``, Spider's tie rule).
    """
    keys = (keys,) if isinstance(keys, np.ndarray) else tuple(k for k in keys if k is not None)
    pos = np.arange(np.asarray(keys[0]).size)
    # np.lexsort sorts by its last key first
    return np.lexsort((pos if stable else -pos, *reversed(keys)))[:m]


def resolve_batch_order(step: int | float | str, batch_order: str = "auto") -> str:
    """``"spider"`` or ``"best_first"``: ``"auto"`` is Spider's order for ``"halving"`` only."""
    if batch_order not in BATCH_ORDERS:
        raise ValueError(f"batch_order must be one of {BATCH_ORDERS}; got {batch_order!r}")
    if batch_order == "auto":
        return "spider" if isinstance(step, str) and step == HALVING else "best_first"
    return batch_order


@dataclass(frozen=True)
class Elimination:
    """Result of :func:`backward_elimination`."""

    #: (D,) ranks 1..D, 1 = last survivor.
    ranking: np.ndarray
    #: Number of iterations (importance evaluations).
    n_iter: int


def backward_elimination(
    n_features: int,
    importance: ImportanceHook,
    step: int | float | str = 1,
    step_threshold: int = 0,
    on_eliminate: EliminateHook | None = None,
    batch_order: str = "auto",
) -> Elimination:
    """Rank ``n_features`` features by backward elimination with the importance hook ``importance``.

    Parameters
    ----------
    n_features : int
    importance : callable ``(remaining, n_drop) -> keys``
        ``remaining``: the surviving feature indices (ascending); ``n_drop``: how many will be eliminated
        (a hook may use it to score only as far as needed). ``keys``: an array with one score per
        survivor, or a tuple of such arrays (importance, then tie-breaks; None entries are skipped).
    step, step_threshold
        The step rule (module docstring).
    on_eliminate : callable ``(dropped, remaining) -> None``, optional
        Called after each iteration with the eliminated features and the survivors before it.
    batch_order : {"auto", "spider", "best_first"}, default "auto"
        Order of the features eliminated in one iteration, and the tie rule (module docstring):
        ``"auto"`` is ``"spider"`` for ``step="halving"`` and ``"best_first"`` otherwise.

    Returns
    -------
    Elimination
    """
    spider = resolve_batch_order(step, batch_order) == "spider"
    remaining = np.arange(int(n_features))
    worst_first: list[np.ndarray] = []
    n_iter = 0
    while remaining.size > 1:
        m = n_to_drop(step, remaining.size, step_threshold)
        pos = least_important(importance(remaining, m), m, stable=spider)
        dropped = remaining[pos]  # ascending importance
        # the list is reversed at the end: Spider's batch must come out ascending, so enter it reversed
        worst_first.append(dropped[::-1] if spider else dropped)
        if on_eliminate is not None:
            on_eliminate(dropped, remaining)
        remaining = np.delete(remaining, pos)
        n_iter += 1
    worst_first.append(remaining)
    return Elimination(ranking=ranking_from_order(np.concatenate(worst_first)[::-1]), n_iter=n_iter)
