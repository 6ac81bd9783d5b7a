r"""Optimal subset selection: branch-and-bound in RKHS (Ring & Eskofier 2015) and an exhaustive wrapper.

Goal: :math:`F^* = \arg\max_{F\subset\{1..D\},\,|F| = d} J(F)` (Ring eq. 1). Branch-and-bound finds it
without enumerating every d-subset **if J is monotone** (:math:`F_i\subset F_j\Rightarrow
J(F_i)\le J(F_j)`). The tree (ALGORITHMS.md §9.1): the root is the full set, each level removes one
more feature, the leaves are the d-subsets; depth first from right to left, bound
:math:`B = -\infty` at the start; a node with :math:`J \le B` is pruned (its leaves cannot beat B),
a leaf with :math:`J > B` becomes the incumbent.

Search variants (``search``):

``"narendra_fukunaga"``
    Narendra & Fukunaga (1977) with their ordering heuristic: at a node with p > 1 children, J is
    computed for the removal of every available feature, the p features whose removal gives the
    *smallest* J become the children and the one of largest J the right-most child (explored
    first); the others are removed further down. Every node on a visited path is evaluated.
``"yu_yuan"``
    The above plus Yu & Yuan's (1993) shortcut: the right-most child of a node has a single
    successor chain, which is replaced by its leaf (no inner evaluations).
``"chen"`` (default; ECST ``-T 1``, the search Ring used)
    Chen's (2003) improved B&B in ECST's exact order: no ordering heuristic; at level ℓ the
    children of a node whose last removed feature is :math:`f_p` remove :math:`j = f_p+1,\dots,d+\ell`
    (1-based), largest j first; the right-most child is completed to its leaf (Yu–Yuan); every
    pruned non-leaf removed-set is stored, and a later node whose removed set contains a stored one
    is skipped without evaluation (monotonicity: :math:`J \le J(\text{stored}) \le B`). The first
    leaf keeps features {1..d}, as in Ring's Fig. 2.
``"exhaustive"``
    Every d-subset, in lexicographic order; the first maximiser wins ties.

J values are cached by subset, so ``n_evaluations_`` counts distinct criterion evaluations of the
search (the ranking of the non-selected features below costs D more, not counted). B&B is not
guaranteed to need fewer evaluations than exhaustive search: the Narendra–Fukunaga ordering costs
one evaluation per available feature at every expanded node. Measured with the polynomial mean
distance on random data with 4 informative features (5 seeds, mean): D = 9, d = 3: NF 38, Yu–Yuan
35, Chen 18 vs 84 subsets; D = 20, d = 3: NF 2001, Yu–Yuan 1723, Chen 418 vs 1140; D = 20, d = 10:
NF 33244, Yu–Yuan 32867, Chen 20976 vs 184756. On real data the criterion grows fast with |F|, so
pruning starts only near the leaves and small d does not pay: parkinsons (z-scored, D = 22),
d = 3: NF 7833, Yu–Yuan 6419, Chen 2069 vs 1540; d = 10: 16064 / 16280 / 47083 vs 646646;
d = 17: 43 / 41 / 449 vs 26334. Ionosphere (D = 34, d = 3, Chen vs exhaustive): mean distance
5884 vs 5984, Bhattacharyya 8101 vs 5984. B&B's advantage over a *wrapper* (Ring's comparison)
comes mostly from the cheap criterion: one CV of an SVM costs far more than one evaluation. Prune ties
(:math:`J = B`) follow the paper's "≤ B" rule; the variants may therefore return different subsets
only when several subsets share the optimal value exactly.

Ranking (complete, [D]): the d selected features first, ordered by the loss
:math:`J(S) - J(S\setminus\{f\})` (largest first; input order when d = 1), then the other features
by :math:`J(S\cup\{f\})` (largest first) — the first step of a forward search from the optimum.
Ties go to the lower index.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from itertools import combinations
from math import comb
from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector, ranking_from_order
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS, joachims_C, make_kernel
from fsbench.algorithms.rkhs_criteria import (
    CRITERIA,
    GAUSSIAN_CRITERIA,
    gaussian_criterion,
    is_monotone,
    rkhs_criterion,
)

SEARCHES = ("chen", "yu_yuan", "narendra_fukunaga", "exhaustive")


class NonMonotoneCriterionWarning(UserWarning):
    """Branch-and-bound with a criterion that is not guaranteed monotone: the result may be suboptimal."""


# ---------------------------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------------------------
class SubsetSearch:
    r"""Maximise a set function over the d-subsets of D features.

    Parameters
    ----------
    J : callable taking a sorted int array of kept features and returning a float.
    n_features, d : D and the subset size (1 ≤ d ≤ D).
    search : one of :data:`SEARCHES`.

    After :meth:`run`: ``best`` (sorted kept features), ``value``, ``n_evaluations``.
    """

    def __init__(self, J: Callable[[np.ndarray], float], n_features: int, d: int, search: str = "chen"):
        if search not in SEARCHES:
            raise ValueError(f"search must be one of {SEARCHES}, got {search!r}")
        if not 1 <= d <= n_features:
            raise ValueError(f"need 1 <= d <= n_features, got d={d}, n_features={n_features}")
        self.J, self.D, self.d, self.search = J, n_features, d, search
        self._full = (1 << n_features) - 1
        self._cache: dict[int, float] = {}

    # -- criterion on removed-feature bit masks ---------------------------------------------
    def value_of(self, removed: int) -> float:
        v = self._cache.get(removed)
        if v is None:
            kept = np.array([f for f in range(self.D) if not (removed >> f) & 1], dtype=int)
            v = float(self.J(kept))
            if not np.isfinite(v):
                raise FloatingPointError(f"criterion is not finite for subset {kept.tolist()}")
            self._cache[removed] = v
        return v

    @property
    def n_evaluations(self) -> int:
        return len(self._cache)

    def run(self) -> SubsetSearch:
        self._bound = -np.inf
        self._best = None
        q = self.D - self.d
        if q == 0:
            self._leaf(0)
        elif self.search == "exhaustive":
            for kept in combinations(range(self.D), self.d):
                self._leaf(self._full ^ sum(1 << f for f in kept))
        elif self.search == "chen":
            self._stored: list[int] = []
            self._chen(0, -1, 1)
        else:
            self._nf(0, list(range(self.D)), 1, sort=True, shortcut=self.search == "yu_yuan")
        self.best = np.array([f for f in range(self.D) if not (self._best >> f) & 1], dtype=int)
        self.value = self._bound
        return self

    def _leaf(self, removed: int) -> None:
        v = self.value_of(removed)
        if v > self._bound or self._best is None:
            self._bound, self._best = v, removed

    def _nf(self, removed: int, avail: list[int], level: int, sort: bool, shortcut: bool) -> None:
        """Narendra–Fukunaga node expansion; ``level`` = depth of the children (1-based)."""
        need = self.D - self.d - level + 1  # removals still to make, including the children's
        p = len(avail) - need + 1  # number of children
        if sort and p > 1:
            avail = sorted(avail, key=lambda f: (self.value_of(removed | (1 << f)), f))
        children, rest = avail[:p], avail[p:]
        for i in range(p - 1, -1, -1):  # right-most child first
            mask = removed | (1 << children[i])
            below = children[i + 1 :] + rest
            if shortcut and i == p - 1:  # single successor chain → its leaf
                for f in below:
                    mask |= 1 << f
                below = []
            if len(below) == 0 or need == 1:
                self._leaf(mask)
                continue
            if self.value_of(mask) > self._bound:
                self._nf(mask, below, level + 1, sort, shortcut)

    def _chen(self, removed: int, last: int, level: int) -> None:
        """ECST's ``processLevelChen`` (0-based features: children remove j = last+1 … d+level-1)."""
        q = self.D - self.d
        for j in range(self.d + level - 1, last, -1):  # largest j first
            mask = removed | (1 << j)
            if j == self.d + level - 1:  # right-most child: complete the chain to its leaf
                for f in range(j + 1, self.D):
                    mask |= 1 << f
            if any(mask & s == s for s in self._stored):
                continue
            leaf = bin(mask).count("1") == q
            v = self.value_of(mask)
            if leaf:
                if v > self._bound or self._best is None:
                    self._bound, self._best = v, mask
            elif v <= self._bound:
                self._stored.append(mask)
            else:
                self._chen(mask, j, level + 1)


def _marginal_ranking(
    J: Callable[[np.ndarray], float], subset: np.ndarray, D: int, value: float
) -> np.ndarray:
    """Ranking of the module docstring: subset by loss on removal, others by gain on addition."""
    subset = np.asarray(subset, dtype=int)
    others = np.setdiff1d(np.arange(D), subset)
    if subset.size > 1:
        loss = np.array([value - J(np.delete(subset, i)) for i in range(subset.size)])
        inside = subset[np.lexsort((subset, -loss))]
    else:
        inside = subset
    if others.size:
        gain = np.array([J(np.sort(np.append(subset, f))) for f in others])
        outside = others[np.lexsort((others, -gain))]
    else:
        outside = others
    return ranking_from_order(np.concatenate([inside, outside]))


#: Parameters of both subset searches.
_SEARCH_CONSTRAINTS: dict = {
    **BaseSelector._parameter_constraints,
    **{k: KERNEL_CONSTRAINTS[k] for k in ("kernel", "gamma", "degree", "offset")},
    "d": [Interval(Integral, 1, None, closed="left")],
}


# ---------------------------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------------------------
class BranchAndBound(BaseSelector):
    r"""Optimal d-subset by branch-and-bound on a class-separability criterion in RKHS (or input space).

    Criteria (:mod:`fsbench.algorithms.rkhs_criteria`): ``"mean_distance"`` (Ring's new
    criterion), ``"bhattacharyya"`` and ``"kl"`` in RKHS; ``"gaussian_bhattacharyya"`` and
    ``"gaussian_kl"`` in input space (the classical B&B criteria, for comparison). Two classes in
    the paper; with more classes [D] the criterion is the sum over the class pairs (a, b), a < b,
    which keeps monotonicity. **Class order of the asymmetric KL**: KL(first ‖ second) where
    "first" is the smaller label (``classes_[0]``), i.e. ECST's class 1 is our ``classes_[0]``.

    Monotonicity: B&B is exact only for a monotone criterion
    (:func:`fsbench.algorithms.rkhs_criteria.is_monotone`): ``mean_distance`` with the linear or the
    polynomial kernel (integer degree, offset ≥ 0), and the Gaussian criteria. With the RBF kernel
    or the low-rank ``bhattacharyya``/``kl`` a :class:`NonMonotoneCriterionWarning` is issued
    (search ≠ "exhaustive"), and ``optimality_guaranteed_`` is False: the result is then a
    heuristic. ``search="exhaustive"`` is always exact.

    Parameters
    ----------
    d : int, default 3
        Subset size (ECST default 3); a d ≥ D selects every feature.
    search : {"chen", "yu_yuan", "narendra_fukunaga", "exhaustive"}, default "chen"
    criterion : str, default "mean_distance"
    kernel : {"poly", "rbf", "linear"}, default "poly"
        [D] ``poly`` = :math:`(\text{offset} + x\cdot z)^\text{degree}`, (1 + x·z)³ by default
        (ALGORITHMS.md §9.2: monotone; probably Ring's Fig. 1 kernel). Ignored by Gaussian criteria.
    gamma : float or rule, default 0.5
        RBF :math:`\exp(-\gamma\lVert x-y\rVert^2)`; 0.5 is ECST's default. A rule name
        (e.g. "median") is resolved once on all D features, so that every subset uses the same γ.
    degree, offset : float, default 3 and 1.0
    n_eigenvectors : int, default 3
        r of the low-rank ``bhattacharyya``/``kl`` (ECST default 3); needs r ≤ min class size − 1.
    regularization : float, default 0.0
        ρ of :mod:`fsbench.algorithms.rkhs_criteria` (0 = ECST).
    n_features_to_select : int, float or None
        Only for ``get_support``/``transform``; the subset is the top d of ``ranking_``.

    Attributes
    ----------
    subset_ : sorted 0-based indices of the selected features.
    criterion_value_ : J(subset_).
    n_evaluations_ : distinct criterion evaluations made by the search.
    optimality_guaranteed_ : bool.
    ranking_ : complete ranking, subset first (module docstring).
    """

    #: A subset search: one optimal d-subset (``subset_``); ``ranking_`` only extends it to a full order.
    kind = "subset"
    rank_constant_last = False  # ranking_ starts with subset_
    #: a subset search: the protocol fits it once per S with d = S (unless the config fixes d)
    subset_size_param = "d"
    description = "branch-and-bound optimal subset on an RKHS class-separability criterion (2-class)"
    citation = "Ring & Eskofier 2015, Pattern Recogn. Lett. 68:56-62; ECST BranchAndBound (Chen 2003)"
    supported_kernels: tuple[str, ...] = ("poly", "rbf", "linear")
    _parameter_constraints: dict = {
        **_SEARCH_CONSTRAINTS,
        "search": [StrOptions(set(SEARCHES))],
        "criterion": [StrOptions(set(CRITERIA))],
        "n_eigenvectors": [Interval(Integral, 1, None, closed="left")],
        "regularization": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        d: int = 3,
        search: str = "chen",
        criterion: str = "mean_distance",
        kernel: str = "poly",
        gamma: float | str = 0.5,
        degree: float = 3,
        offset: float = 1.0,
        n_eigenvectors: int = 3,
        regularization: float = 0.0,
        n_features_to_select: int | float | None = None,
    ):
        self.d = d
        self.search = search
        self.criterion = criterion
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.n_eigenvectors = n_eigenvectors
        self.regularization = regularization
        self.n_features_to_select = n_features_to_select

    def criterion_function(self, X: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], float]:
        """J(kept features) for training data ``X`` and class indices ``y`` (sum over class pairs)."""
        n_classes = int(y.max()) + 1
        groups = [np.flatnonzero(y == c) for c in range(n_classes)]
        pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
        if self.criterion in GAUSSIAN_CRITERIA:
            rho = float(self.regularization)

            def J(kept):
                Xs = X[:, kept]
                return sum(
                    gaussian_criterion(Xs[groups[a]], Xs[groups[b]], self.criterion, rho) for a, b in pairs
                )

            return J
        kern = make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset).resolved(X)

        def J(kept):
            K = kern.gram(X[:, kept])
            return sum(
                rkhs_criterion(
                    K, groups[a], groups[b], self.criterion, self.n_eigenvectors, self.regularization
                )
                for a, b in pairs
            )

        return J

    def _fit(self, X, y):
        D = X.shape[1]
        d = min(int(self.d), D)
        self.optimality_guaranteed_ = self.search == "exhaustive" or is_monotone(
            self.criterion, self.kernel, self.degree, self.offset
        )
        if not self.optimality_guaranteed_ and d < D:
            warnings.warn(
                f"criterion {self.criterion!r} with kernel {self.kernel!r} is not guaranteed monotone: "
                f"branch-and-bound ({self.search}) may miss the optimal subset; use search='exhaustive' "
                "for an exact answer",
                NonMonotoneCriterionWarning,
                stacklevel=3,
            )
        J = self.criterion_function(X, y)
        s = SubsetSearch(J, D, d, self.search).run()
        self.subset_ = s.best
        self.criterion_value_ = s.value
        self.n_evaluations_ = s.n_evaluations
        self.ranking_ = _marginal_ranking(J, s.best, D, s.value)


class ExhaustiveWrapper(BaseSelector):
    r"""Exhaustive wrapper: the d-subset of best stratified k-fold CV accuracy of an SVM.

    The baseline of Ring & Eskofier 2015 (a wrapper must search exhaustively to be optimal).
    Every d-subset is scored by the mean accuracy of ``SVC(kernel="precomputed")`` over
    ``cv`` stratified folds (shuffled once with ``random_state``; the same folds for every subset);
    the first maximiser in lexicographic order wins ties. The protocol (classifier, CV) is not in
    the truncated paper: [D] ALGORITHMS.md §9.3, an RBF SVM and 10 folds.

    Parameters
    ----------
    d : int, default 3
    kernel : {"rbf", "linear", "poly"}, default "rbf"
    gamma : float or rule, default "n_features"
        [D] §0.2: :math:`\gamma = 1/(2|S|)`, resolved on each candidate subset (z-scored data).
    degree, offset : float
    C : float or "joachims", default 1.0
        "joachims" = SVMlight's :math:`1/\bar R^2` on each candidate subset.
    cv : int, default 10
        Folds (reduced to the smallest class size if that is smaller; at least 2).
    random_state : int, default 0
        Seeds the fold shuffling.
    n_features_to_select : int, float or None

    Attributes
    ----------
    subset_, criterion_value_ (best CV accuracy), n_evaluations_ (= C(D, d) CV runs), ranking_
    (subset first, module docstring rule with J = CV accuracy; ties to the lower index).
    """

    kind = "subset"  # as BranchAndBound
    rank_constant_last = False  # ranking_ starts with subset_
    #: a subset search: the protocol fits it once per S with d = S (unless the config fixes d)
    subset_size_param = "d"
    description = "exhaustive wrapper: the d-subset with the best SVM cross-validated accuracy"
    citation = "Ring & Eskofier 2015, Pattern Recogn. Lett. 68:56-62 (wrapper baseline)"
    _parameter_constraints: dict = {
        **_SEARCH_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"joachims"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        d: int = 3,
        kernel: str = "rbf",
        gamma: float | str = "n_features",
        degree: float = 3,
        offset: float = 1.0,
        C: float | str = 1.0,
        cv: int = 10,
        random_state: int | None = 0,
        n_features_to_select: int | float | None = None,
    ):
        self.d = d
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.C = C
        self.cv = cv
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def criterion_function(self, X: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], float]:
        """Mean CV accuracy of the SVM on the kept features."""
        self._validate_params()  # also called outside fit (tools, tests)
        n_splits = min(int(self.cv), int(np.bincount(y).min()))
        if n_splits < 2:
            raise ValueError("the exhaustive wrapper needs at least 2 samples of every class")
        folds = list(StratifiedKFold(n_splits, shuffle=True, random_state=self.random_state).split(X, y))
        # index grids once: every subset reuses them (cross_val_score's per-call overhead was half the cost)
        grids = [(np.ix_(tr, tr), np.ix_(te, tr), y[tr], y[te]) for tr, te in folds]
        base = make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset)

        def J(kept):
            Xs = X[:, kept]
            kern = base.resolved(Xs)
            C = joachims_C(kern, Xs) if self.C == "joachims" else float(self.C)
            K = kern.gram(Xs)
            acc = [
                np.mean(SVC(kernel="precomputed", C=C).fit(K[g_tr], y_tr).predict(K[g_te]) == y_te)
                for g_tr, g_te, y_tr, y_te in grids
            ]
            return float(np.mean(acc))

        return J

    def _fit(self, X, y):
        D = X.shape[1]
        J = self.criterion_function(X, y)
        s = SubsetSearch(J, D, min(int(self.d), D), "exhaustive").run()
        self.subset_ = s.best
        self.criterion_value_ = s.value
        self.n_evaluations_ = s.n_evaluations
        self.ranking_ = _marginal_ranking(J, s.best, D, s.value)


def n_subsets(n_features: int, d: int) -> int:
    """Number of d-subsets, i.e. the evaluations of an exhaustive search."""
    return comb(n_features, d)
