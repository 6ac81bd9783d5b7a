r"""Multiclass SVM with posterior probabilities: one-vs-one machines, Platt sigmoids, pairwise coupling.

Ramona et al. 2012 (§V-B4) classify USPS with 45 one-vs-one SVMs "combined with the pairwise
coupling algorithm [Hastie & Tibshirani] to determine the maximum likelihood class on the
posterior probabilities". scikit-learn 1.9 deprecates ``SVC(probability=True)`` (and it couples
with Wu–Lin–Weng, not Hastie–Tibshirani), so fsbench owns the whole chain (ALGORITHMS.md §7):

1. **One SVC per class pair** (i, j), i < j, trained on that pair's points as
   ``sklearn.svm.SVC(kernel="precomputed")`` would (through scikit-learn's libsvm binding directly,
   bitwise the same machine: :func:`_fit_binary`); C is fixed or, by default, Joachims'
   :math:`\hat C = 1/\bar R^2` computed on **the pair's** points (ALGORITHMS.md §5 [D]).
2. **Platt sigmoid per pair**, :math:`r_{ij}(x) = P(y=i \mid y\in\{i,j\}, x) = 1/(1+e^{A f_{ij}(x)+B})`,
   fitted on out-of-sample decision values from an internal stratified ``n_folds``-fold CV of
   the pair's points (LIBSVM's ``svm_binary_svc_probability``; the folds are seeded by
   ``random_state``) with LIBSVM's target smoothing. A CV training fold that holds one class only
   gives decision values ±1 for its test fold, as in LIBSVM. The CV machines use the pair's C.
3. **Pairwise coupling** of the :math:`r_{ij}` (clipped to :math:`[10^{-7}, 1-10^{-7}]` as in
   LIBSVM) into :math:`p(c\mid x)`: ``coupling="hastie_tibshirani"`` (default; what Ramona 2012
   names), weighted by the pairs' training counts :math:`n_{ij}`, stopping at ``coupling_tol`` /
   ``coupling_max_iter``; or ``"wu_lin_weng"`` (LIBSVM's ``multiclass_probability``, solved
   exactly).

   Steps 2 and 3 need no SVM: the sigmoid fit and both couplings, with their math, are in
   :mod:`fsbench.algorithms.coupling`.

4. ``predict`` = :math:`\arg\max_c p(c\mid x)` (first class on ties); ``decision_function``
   returns :math:`\log p(c\mid x)` (two classes: the log-odds), so that it agrees with ``predict``
   as scikit-learn requires; the raw pairwise SVM outputs are ``pairwise_decision``.

Design: :class:`PairwiseCouplingSVC` works on precomputed Gram matrices — ``fit(K_train, y)``,
``predict(K_test_train)`` with ``K_test_train`` of shape (n_test, n_train). Joachims' C needs
:math:`\lVert\phi(x_i)-\phi(0)\rVert^2` for each training point, which a Gram matrix does not
contain: it is passed to ``fit`` as ``origin_sq_dist`` (from
:func:`fsbench.algorithms.kernels.origin_sq_distances`); with a numeric ``C`` it is not needed.
:class:`PairwiseKernelSVC` wraps it for raw features and a kernel spec (it builds the Gram
matrices and the distances itself); predictions only evaluate the kernel against the union of
support vectors.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.svm import SVC
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from fsbench.algorithms.coupling import _MIN_PROB, COUPLINGS, _couple_ht, _couple_wlw, platt_fit, platt_proba
from fsbench.algorithms.kernels import (
    joachims_C_from_sq_distances,
    make_kernel,
    origin_sq_distances,
)

try:  # scikit-learn's libsvm binding, called directly by _fit_binary (see there); SVC is the fallback
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover - a scikit-learn without the private module
    _libsvm = None


class PairwiseCouplingSVC(ClassifierMixin, BaseEstimator):
    r"""One-vs-one SVMs on a precomputed kernel, Platt-calibrated and pairwise-coupled.

    See the module docstring for the method. ``fit(K, y, origin_sq_dist=None)`` takes the
    training Gram matrix (n, n); ``predict``, ``predict_proba`` and ``decision_function`` take
    the test-versus-training kernel (n_test, n_train).

    Parameters
    ----------
    C : float or None, default None
        Fixed SVM C for every pair, or None: Joachims' :math:`\hat C` per pair from that pair's
        ``origin_sq_dist`` (required by ``fit`` then).
    coupling : {"hastie_tibshirani", "wu_lin_weng"}, default "hastie_tibshirani"
    n_folds : int, default 5
        Folds of the internal CV that produces the decision values the Platt sigmoids are
        fitted on (stratified per class, seeded by ``random_state``).
    tol : float, default 1e-3
        libsvm stopping tolerance of every SVC.
    coupling_tol : float, default 1e-6
    coupling_max_iter : int, default 1000
        Hastie–Tibshirani fixed-point stopping rule.
    random_state : int, RandomState or None
        Seeds the Platt CV folds (None: not reproducible, as scikit-learn's convention).

    Attributes
    ----------
    classes_ : (C,) labels.
    pairs_ : (P, 2) class indices (i, j), i < j, in libsvm's order.
    pair_C_ : (P,) the C of each pair's SVM.
    pair_counts_ : (P,) training points of each pair (the Hastie–Tibshirani weights :math:`n_{ij}`).
    support_ : (n_SV,) indices of the training points that are a support vector of some pair,
        grouped by class (classes in ``classes_`` order, indices ascending within a class).
    dual_coef_ : (n_SV, P) signed dual coefficients :math:`\alpha_i y_i` per pair (0 where the
        point is not a support vector of that pair; y = +1 for class i).
    intercept_ : (P,)
    probA_, probB_ : (P,) Platt parameters.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "coupling": [StrOptions(set(COUPLINGS))],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "coupling_tol": [Interval(Real, 0, None, closed="left")],
        "coupling_max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        C: float | None = None,
        coupling: str = "hastie_tibshirani",
        n_folds: int = 5,
        tol: float = 1e-3,
        coupling_tol: float = 1e-6,
        coupling_max_iter: int = 1000,
        random_state=None,
    ):
        self.C = C
        self.coupling = coupling
        self.n_folds = n_folds
        self.tol = tol
        self.coupling_tol = coupling_tol
        self.coupling_max_iter = coupling_max_iter
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, K, y, origin_sq_dist=None):
        """Train the C(C−1)/2 pairwise SVMs and their Platt sigmoids.

        Parameters
        ----------
        K : (n, n) training Gram matrix.
        y : (n,) labels.
        origin_sq_dist : (n,) array or None
            :math:`\\lVert\\phi(x_i)-\\phi(0)\\rVert^2` per training point
            (:func:`fsbench.algorithms.kernels.origin_sq_distances`); required when ``C`` is None.
        """
        K, y = validate_data(self, K, y, dtype=np.float64, ensure_min_samples=2)
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square training Gram matrix, got shape {K.shape}")
        check_classification_targets(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        k = self.classes_.size
        if k < 2:
            raise ValueError(f"PairwiseCouplingSVC needs at least two classes; got {self.classes_!r}")
        if self.C is None:
            if origin_sq_dist is None:
                raise ValueError("C=None (Joachims' rule) needs origin_sq_dist in fit")
            d2 = np.asarray(origin_sq_dist, dtype=float).ravel()
            if d2.shape != (K.shape[0],):
                raise ValueError(f"origin_sq_dist must have shape ({K.shape[0]},), got {d2.shape}")
        rng = check_random_state(self.random_state)
        pairs, Cs, counts, svs, coefs, b, A, B = [], [], [], [], [], [], [], []
        for i in range(k):
            for j in range(i + 1, k):
                idx = np.flatnonzero((yi == i) | (yi == j))
                yb = np.where(yi[idx] == i, 1, -1)
                C = float(self.C) if self.C is not None else joachims_C_from_sq_distances(d2[idx])
                Kp = K[np.ix_(idx, idx)]
                sv, coef, icpt = _fit_binary(Kp, yb, C, self.tol)
                dec = self._cv_decisions(Kp, yb, C, rng)
                a_, b_ = platt_fit(dec, yb)
                pairs.append((i, j))
                Cs.append(C)
                counts.append(idx.size)
                svs.append(idx[sv])
                coefs.append(coef)
                b.append(icpt)
                A.append(a_)
                B.append(b_)
        support = np.unique(np.concatenate(svs)) if svs else np.zeros(0, dtype=int)
        # Support vectors grouped by class (then by index): a pair's machine only has support
        # vectors of its two classes, so _decision works on contiguous class blocks.
        support = support[np.lexsort((support, yi[support]))]
        row = np.full(K.shape[0], -1)
        row[support] = np.arange(support.size)
        dual = np.zeros((support.size, len(pairs)))
        for p, (sv, coef) in enumerate(zip(svs, coefs, strict=True)):
            dual[row[sv], p] = coef
        self.pairs_ = np.asarray(pairs, dtype=int).reshape(-1, 2)
        self._class_blocks = _class_blocks(yi[support], self.pairs_, dual)
        self.pair_C_ = np.asarray(Cs)
        self.pair_counts_ = np.asarray(counts)
        self.support_ = support
        self.dual_coef_ = dual
        self.intercept_ = np.asarray(b)
        self.probA_ = np.asarray(A)
        self.probB_ = np.asarray(B)
        return self

    def _cv_decisions(self, Kp: np.ndarray, yb: np.ndarray, C: float, rng) -> np.ndarray:
        """Out-of-fold decision values for the Platt fit (stratified folds; LIBSVM's ±1 fallback)."""
        n = yb.size
        fold = np.empty(n, dtype=int)
        for lab in (1, -1):
            members = np.flatnonzero(yb == lab)
            fold[rng.permutation(members)] = np.arange(members.size) % self.n_folds
        dec = np.zeros(n)
        for f in range(self.n_folds):
            test = np.flatnonzero(fold == f)
            if test.size == 0:
                continue
            train = np.flatnonzero(fold != f)
            ytr = yb[train]
            n_pos = int((ytr > 0).sum())
            if ytr.size == 0:
                dec[test] = 0.0
            elif n_pos == ytr.size:
                dec[test] = 1.0
            elif n_pos == 0:
                dec[test] = -1.0
            else:
                sv, coef, icpt = _fit_binary(Kp, yb, C, self.tol, keep=fold != f)
                dec[test] = Kp[np.ix_(test, train[sv])] @ coef + icpt
        return dec

    # -- prediction ---------------------------------------------------------------------
    def _check_test_kernel(self, K, support_only: bool) -> np.ndarray:
        check_is_fitted(self, "support_")
        if not support_only:  # one column per training point (scikit-learn's n_features_in_ check)
            return validate_data(self, K, dtype=np.float64, reset=False)
        K = check_array(K, dtype=np.float64)
        if K.shape[1] != self.support_.size:
            raise ValueError(
                f"K has {K.shape[1]} columns; expected one per support vector = {self.support_.size}"
            )
        return K

    def pairwise_decision(self, K, support_only: bool = False) -> np.ndarray:
        """Decision values (n, P) of the pairwise machines; positive favours the pair's first class.

        ``K`` is (n, n_train), or (n, n_SV) with the columns ``support_`` only when
        ``support_only`` (cheaper: callers evaluate the kernel against the support vectors only).
        """
        K = self._check_test_kernel(K, support_only)
        Ks = K if support_only else K[:, self.support_]
        return self._decision(Ks)

    def _decision(self, Ks: np.ndarray) -> np.ndarray:
        """Pairwise decision values from a kernel against ``support_`` (no validation).

        With C > 2 classes the dense product ``Ks @ dual_coef_`` is mostly zeros: pair (i, j)
        only has support vectors of classes i and j. Summed per class block instead, each
        block times the C−1 pairs of its class, the work drops by a factor C(C−1)/2 / (C−1) = C/2.
        Each block's product is written to its own rows of one work array, transposed (one row
        per class-pair product, one column per sample), and pair (i, j) then adds its two rows
        (block i, then block j) to its intercept: the same additions in the same order as
        accumulating into the pair columns, without C scattered read-modify-writes. Transposed,
        those sums add contiguous rows (gathering columns of the wide array cost as much as a third
        of the products on FSPP's blocks); the result is the transposed view (n, P), which the Platt
        and coupling steps read pair by pair without a copy.
        """
        if Ks.shape[0] == 1:
            # A single row goes through another BLAS routine (gemv or dot instead of gemm), whose
            # sums round differently. Evaluated as two rows, a row gets the bits it gets inside any
            # larger block starting at a multiple of 32 rows, which FSPP relies on: its scores must
            # not depend on how the pairs were batched (tests/algorithms/test_fspp.py).
            return self._decision(np.concatenate([Ks, Ks]))[:1]
        blocks = getattr(self, "_class_blocks", None)
        if blocks is None or self.classes_.size <= 2:
            return Ks @ self.dual_coef_ + self.intercept_
        layout, first, second, width = blocks
        Y = np.empty((width + 1, Ks.shape[0]))
        Y[width] = 0.0  # the row of a class without support vectors
        KsT = Ks.T
        for start, stop, a, b, coef_t in layout:
            np.matmul(coef_t, KsT[start:stop], out=Y[a:b])
        out = np.take(Y, first, axis=0)
        out += self.intercept_[:, None]
        out += np.take(Y, second, axis=0)
        return out.T

    def _pair_proba(self, dec: np.ndarray) -> np.ndarray:
        """Platt probabilities (n, P) of the pairs' first classes, clipped as LIBSVM does."""
        p = platt_proba(dec, self.probA_, self.probB_)
        return np.clip(p, _MIN_PROB, 1.0 - _MIN_PROB, out=p)

    def pairwise_proba(self, dec: np.ndarray) -> np.ndarray:
        """Pairwise probabilities (n, C, C), ``r[:, i, j]`` = P(i | i or j), from pairwise decisions."""
        check_is_fitted(self, "support_")
        k = self.classes_.size
        rp = self._pair_proba(dec)
        r = np.zeros((rp.shape[0], k, k))
        r[:, self.pairs_[:, 0], self.pairs_[:, 1]] = rp
        r[:, self.pairs_[:, 1], self.pairs_[:, 0]] = 1.0 - rp
        return r

    def proba_from_decision(self, dec: np.ndarray) -> np.ndarray:
        """Coupled class probabilities (n, C) from pairwise decision values (n, P)."""
        k = self.classes_.size
        if self.coupling == "wu_lin_weng":
            return _couple_wlw(self._pair_proba(dec), self.pairs_, k)
        r = self.pairwise_proba(dec)
        W = np.zeros((k, k))
        W[self.pairs_[:, 0], self.pairs_[:, 1]] = self.pair_counts_
        W = W + W.T
        return _couple_ht(r, W, self.coupling_tol, self.coupling_max_iter)[0]

    def decision_function(self, K) -> np.ndarray:
        r"""Log posteriors, so that ``predict`` is their argmax (two classes: the log-odds).

        Two classes: shape (n,), :math:`\log p(c_1\mid x) - \log p(c_0\mid x)`, positive for
        ``classes_[1]`` (scikit-learn's binary convention). More classes: (n, C),
        :math:`\log p(c\mid x)`. The raw outputs of the pairwise SVMs are :meth:`pairwise_decision`.
        """
        return _log_posterior_scores(self.predict_proba(K))

    def predict_proba(self, K) -> np.ndarray:
        """Posterior probabilities (n, C) from the coupled Platt-calibrated pairwise machines."""
        return self.proba_from_decision(self.pairwise_decision(K))

    def predict(self, K) -> np.ndarray:
        """Class of maximum coupled posterior probability (ties: the first class)."""
        P = self.predict_proba(K)
        return self.classes_[np.argmax(P, axis=1)]


def _class_blocks(sv_class: np.ndarray, pairs: np.ndarray, dual: np.ndarray) -> tuple:
    """Class-block layout of the decision product, for support vectors sorted by class.

    Returns ``(layout, first, second, width)``: ``layout`` lists (start, stop, a, b, transposed dual
    block) per class with support vectors — rows start:stop of the support vectors, their products
    with the class's pairs go to rows a:b of a (transposed) work array; ``first[p]`` / ``second[p]``
    are the work rows that pair p = (i, j) adds for class i and class j (row ``width``, kept 0, for
    a class without support vectors).
    """
    layout, first, second = [], {}, {}
    width = 0
    for c in np.unique(sv_class):
        start, stop = np.searchsorted(sv_class, [c, c + 1])
        cols = np.flatnonzero((pairs[:, 0] == c) | (pairs[:, 1] == c))
        block = np.ascontiguousarray(dual[start:stop][:, cols].T)
        layout.append((int(start), int(stop), width, width + cols.size, block))
        for t, q in enumerate(cols):
            (first if pairs[q, 0] == c else second)[int(q)] = width + t
        width += cols.size
    n_pairs = pairs.shape[0]
    return (
        layout,
        np.array([first.get(q, width) for q in range(n_pairs)], dtype=np.intp),
        np.array([second.get(q, width) for q in range(n_pairs)], dtype=np.intp),
        width,
    )


def _log_posterior_scores(P: np.ndarray) -> np.ndarray:
    L = np.log(np.maximum(P, np.finfo(float).tiny))
    return L[:, 1] - L[:, 0] if P.shape[1] == 2 else L


def _binary_parts(svc: SVC) -> tuple[np.ndarray, np.ndarray, float]:
    """(support indices, coefficients, intercept) with f(x) = K[:, sv] @ coef + b > 0 ⇔ class +1."""
    # scikit-learn stores a binary SVC so that decision_function = K_sv @ dual_coef_[0] + intercept_
    # and positive means classes_[1] (= +1 here, classes_ being [-1, 1]).
    return svc.support_, svc.dual_coef_[0].copy(), float(svc.intercept_[0])


#: class_weight that SVC(class_weight=None) hands to libsvm for two classes.
_UNIT_WEIGHTS = np.ones(2)
_NO_SAMPLE_WEIGHT = np.empty(0)


def _fit_binary(
    K: np.ndarray, yb: np.ndarray, C: float, tol: float, keep: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """Train ``SVC(kernel="precomputed", C=C, tol=tol)`` on ``K`` (n, n) and ``yb`` ∈ {−1, +1}.

    With ``keep`` (n,) boolean, only the points ``keep`` are trained on (in their order), as if
    ``K[np.ix_(keep, keep)]`` were passed; the support indices then count the kept points.

    Returns :func:`_binary_parts` of the fitted machine. The pairwise classifier trains
    (n_folds + 1)·C(C−1)/2 such machines per fit, on a few hundred points each: ``SVC.fit`` spends
    ~10× longer validating its input and labels than libsvm spends solving (FSPP refits the
    classifier at every elimination step). So libsvm is called directly, with exactly the arguments
    ``SVC.fit`` passes (labels encoded 0/1 for ``classes_ = [-1, 1]``, unit class weights, 200 MB
    cache, shrinking, no probability; the seed only matters for libsvm's probability CV, which is
    off), and the sign flip SVC applies to two-class models. ``keep`` becomes sample weights 1/0:
    libsvm drops zero-weight points before training and looks precomputed kernel values up by the
    original index, so no submatrix is copied (the Platt CV trains five machines per pair). The
    result is bitwise the same as through ``SVC`` on the submatrix (``tests/algorithms/test_svm_coupling.py``
    checks it); ``SVC`` is the fallback if the private binding is missing or refuses the call.
    """
    if _libsvm is not None:
        try:
            _libsvm.set_verbosity_wrap(0)  # a process-wide switch; SVC.fit sets it on every call too
            support, _, _, dual, intercept, _, _, status, _ = _libsvm.fit(
                np.ascontiguousarray(K, dtype=np.float64),
                (np.asarray(yb) > 0).astype(np.float64),
                svm_type=0,
                kernel="precomputed",
                degree=3,
                gamma=0.0,
                coef0=0.0,
                tol=tol,
                C=C,
                nu=0.0,
                epsilon=0.0,
                class_weight=_UNIT_WEIGHTS,
                sample_weight=_NO_SAMPLE_WEIGHT if keep is None else keep.astype(np.float64),
                shrinking=1,
                probability=0,
                cache_size=200.0,
                max_iter=-1,
                random_seed=0,
            )
        except (TypeError, ValueError):  # pragma: no cover - another binding signature
            pass
        else:
            if status == 0 and np.isfinite(dual).all() and np.isfinite(intercept).all():
                return np.asarray(support, dtype=np.int32), -np.asarray(dual)[0], -float(intercept[0])
    if keep is not None:
        K, yb = K[np.ix_(keep, keep)], np.asarray(yb)[keep]
    return _binary_parts(SVC(kernel="precomputed", C=C, tol=tol).fit(K, yb))


class PairwiseKernelSVC(ClassifierMixin, BaseEstimator):
    """:class:`PairwiseCouplingSVC` on raw features with a kernel from :mod:`fsbench.algorithms.kernels`.

    ``fit(X, y)`` resolves the kernel's gamma rule on ``X``, builds the Gram matrix and, for
    ``C=None``, the per-point origin distances of Joachims' rule; predictions evaluate the kernel
    between the test rows and the support vectors only.

    Parameters
    ----------
    kernel, gamma, degree, offset, scale
        Kernel specification (:func:`fsbench.algorithms.kernels.make_kernel`); default RBF with
        the median heuristic.
    C, coupling, n_folds, tol, coupling_tol, coupling_max_iter, random_state
        As in :class:`PairwiseCouplingSVC`.

    Attributes
    ----------
    kernel_ : the resolved :class:`~fsbench.algorithms.kernels.Kernel`.
    svc_ : the fitted :class:`PairwiseCouplingSVC`.
    support_vectors_ : (n_SV, D) rows of ``X`` in ``svc_.support_``.
    classes_
    """

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        C: float | None = None,
        coupling: str = "hastie_tibshirani",
        n_folds: int = 5,
        tol: float = 1e-3,
        coupling_tol: float = 1e-6,
        coupling_max_iter: int = 1000,
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.C = C
        self.coupling = coupling
        self.n_folds = n_folds
        self.tol = tol
        self.coupling_tol = coupling_tol
        self.coupling_max_iter = coupling_max_iter
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        kern = make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        ).resolved(X)
        d2 = origin_sq_distances(kern, X) if self.C is None else None
        self.svc_ = PairwiseCouplingSVC(
            C=self.C,
            coupling=self.coupling,
            n_folds=self.n_folds,
            tol=self.tol,
            coupling_tol=self.coupling_tol,
            coupling_max_iter=self.coupling_max_iter,
            random_state=self.random_state,
        ).fit(kern.gram(X), y, origin_sq_dist=d2)
        self.kernel_ = kern
        self.classes_ = self.svc_.classes_
        self.support_vectors_ = X[self.svc_.support_]
        return self

    def _support_kernel(self, X) -> np.ndarray:
        check_is_fitted(self, "svc_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.kernel_.gram(X, self.support_vectors_)

    def decision_function(self, X) -> np.ndarray:
        """As :meth:`PairwiseCouplingSVC.decision_function` (log posteriors; binary: log-odds)."""
        return _log_posterior_scores(self.predict_proba(X))

    def pairwise_decision(self, X) -> np.ndarray:
        """Raw pairwise SVM outputs (n, P), as :meth:`PairwiseCouplingSVC.pairwise_decision`."""
        Ks = self._support_kernel(X)
        return self.svc_.pairwise_decision(Ks, support_only=True)

    def predict_proba(self, X) -> np.ndarray:
        """Coupled posterior probabilities (n, C)."""
        dec = self.pairwise_decision(X)
        return self.svc_.proba_from_decision(dec)

    def predict(self, X) -> np.ndarray:
        """Class of maximum coupled posterior probability (ties: the first class)."""
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]
