r"""SVM recursive feature elimination (Guyon, Weston, Barnhill & Vapnik 2002; ALGORITHMS.md §4).

Repeat until one feature is left: train an SVM on the surviving features, score every surviving
feature f by the change of :math:`W^2(\alpha) = \breve\alpha^\top K\breve\alpha`
(:math:`\breve\alpha_i = \alpha_i y_i`) when f is deleted **with α frozen**, and eliminate the
lowest-scoring features. Features eliminated later rank better; the last survivor ranks 1.

Criterion, with :math:`W^2_{(-f)} = \breve\alpha^\top K^{(-f)}\breve\alpha`
(:func:`fsbench.algorithms.feature_statistics.removal_contractions`, all f at once):

* ``"signed"`` (Guyon 2002; Spider's ``rfe``, used by Ramona 2012):
  :math:`DJ(f) = \tfrac12(W^2 - W^2_{(-f)})`, remove the smallest;
* ``"abs"`` (Paul et al. 2015, eq. 4): :math:`|W^2 - W^2_{(-f)}|`, remove the smallest.

For the linear kernel :math:`W^2 - W^2_{(-f)} = w_f^2` with :math:`w = \sum_i\breve\alpha_i x_i`, so
both criteria are Guyon's :math:`w_f^2` rule and the elimination order is that of
``sklearn.feature_selection.RFE(SVC(kernel="linear"), step=1)`` (checked in the tests).

Multiclass [D]: one SVM per class against the rest, all trained on the same Gram matrix with the
same C; the criterion is the **sum** of the per-machine criteria (for the linear kernel
:math:`\sum_c w_{c,f}^2`). Two classes use a single machine. (scikit-learn's ``RFE(SVC)`` sums
over the one-vs-one machines instead.)

Implementation: the SVMs use ``SVC(kernel="precomputed")`` (``solver="precomputed"``, the
default). The feature-additive part of the kernel (:math:`XX^\top`, or the squared distances for RBF;
:func:`fsbench.algorithms.feature_statistics.feature_statistic`) is computed once and *downdated* after each
elimination (:math:`S \leftarrow S - X_rX_r^\top`), so an iteration costs O(N²·r) for the Gram
matrix instead of O(N²·D), plus the SVM and the criterion (O(N·D) linear; O(m²·D) RBF and
polynomial over the m support vectors).

``solver="liblinear"`` (linear kernel only) trains each machine in the primal instead, with
``LinearSVC(loss="hinge", dual=True)`` (liblinear's dual coordinate descent, O(N·D) per pass, no
N×N matrix), and scores :math:`\tfrac12 w_f^2` (``"signed"``) or :math:`w_f^2` (``"abs"``) from its
weight vector: the same criterion, for training sets too large for a Gram matrix (the N = 200,000
scale experiment: 320 GB dense). [D] Its one departure from the SVC machine: liblinear appends the
bias as a constant feature (``intercept_scaling=1``) and so regularises it with w; its random
coordinate order is seeded (``random_state=0``) so fits are reproducible. With a fixed C its
elimination order is that of ``sklearn.feature_selection.RFE(LinearSVC(loss="hinge"))`` with the
same step (checked in the tests).

Step rules (int, fraction, Spider's ``"halving"``; ``step_threshold``) and the order inside an eliminated
batch (``batch_order``; Spider's under ``"halving"``): :mod:`fsbench.algorithms.elimination`,
whose loop this selector runs with the criterion above as its importance hook.

Defaults [D]: ``step=1`` (exact RFE, one feature per iteration: Ramona 2012's timing table
implies it, ALGORITHMS.md §4.3; Paul 2015 uses ``step=0.2``); ``C=None`` → Joachims'
:math:`\hat C` recomputed on the surviving features at every iteration (``C_schedule="per_step"``,
Ramona 2012 §V-B, reason at :class:`SVMRFE`);
an RBF ``gamma`` rule (default ``"median"``) is re-resolved on the surviving features at every
iteration, as a classifier trained on those features would resolve it (a numeric gamma stays
fixed); the SVC tolerance is libsvm's 1e-3. Ties in the criterion eliminate the higher feature
index first, so that the lower index ranks better, as in :func:`ranking_from_scores` (under Spider's
batch order, the default of ``step="halving"``: the lower index first, MATLAB's stable sort).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.svm import SVC, LinearSVC
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector
from fsbench.algorithms.elimination import STEP_CONSTRAINTS, backward_elimination
from fsbench.algorithms.feature_statistics import feature_statistic, gram_from_statistic, removal_contractions
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS, joachims_C, make_kernel

CRITERIA = ("signed", "abs")
C_SCHEDULES = ("per_step", "once")
SOLVERS = ("precomputed", "liblinear")
#: liblinear's iteration cap: far above what the hinge-loss dual needs at Joachims' small Ĉ, so a fit
#: that reaches it is reported (scikit-learn's ConvergenceWarning) rather than silently truncated.
_LIBLINEAR_MAX_ITER = 10_000


class SVMRFE(BaseSelector):
    r"""SVM-RFE: backward elimination by the frozen-α change of :math:`\breve\alpha^\top K\breve\alpha`.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default "linear"
    gamma : float or {"median", "n_features", "scale"}, default "median"
        RBF width :math:`\exp(-\gamma\lVert x-z\rVert^2)`; a rule is re-resolved on the surviving
        features at each iteration.
    degree, offset, scale : float
        Polynomial kernel :math:`(\text{offset} + \text{scale}\langle x,z\rangle)^\text{degree}`.
    step : int, float or "halving", default 1
        Features eliminated per iteration (int), or that fraction of the surviving features
        (float in (0, 1), rounded half-up, at least 1; Paul 2015 uses 0.2), or ``"halving"``:
        Spider's :math:`\lfloor n/2\rfloor` of the n survivors (module docstring).
    step_threshold : int, default 0
        One feature per iteration once at most this many features survive (Spider's ``speed``;
        0: never).
    batch_order : {"auto", "spider", "best_first"}, default "auto"
        Which of the features eliminated in one iteration ranks best: ``"spider"``, the least
        important (Spider's ``@rfe/training.m``), or ``"best_first"``, the most important; ``"auto"``
        is ``"spider"`` for ``step="halving"`` and ``"best_first"`` otherwise
        (:mod:`fsbench.algorithms.elimination`, which quotes Spider's lines).
    C : float or None, default None
        Fixed SVM C, or None for Joachims' :math:`\hat C` (:func:`~fsbench.algorithms.kernels.joachims_C`)
        scheduled by ``C_schedule``.
    C_schedule : {"per_step", "once"}, default "per_step"
        With ``C=None``: ``"per_step"`` recomputes :math:`\hat C` on the surviving features before
        every SVM training; ``"once"`` computes one :math:`\hat C` on the whole training set (all D
        features, the kernel's gamma rule resolved on them) and keeps it for the whole elimination,
        as Spider's ``rfe`` keeps the C of the SVM it is given. Ignored when C is a number.

        Default "per_step", from Ramona 2012 §V-B: "The penalty factor C is always set to the
        estimated optimal value proposed by Joachims in the implementation of SVMlight, including
        inside the R2W2, RFE, and AROM loops (several experiments conducted internally confirm that
        this Ĉ value induces the minimization of the leave-one-out error)", with footnote 4
        ":math:`\hat C = 1/\bar R^2`, where :math:`\bar R = \frac1n\sum_i\lVert\phi(x_i) -
        \phi(0)\rVert` is an estimation of the radius of the smallest sphere containing all examples
        in the feature space". Ĉ is defined from the examples the SVM is trained on; inside the RFE
        loop each SVM sees only the surviving features, so "always" the estimated optimal value means
        the Ĉ of that training set (SVMlight's default C is likewise computed from the data of each
        ``svm_learn`` call). With one Ĉ kept fixed, "including inside the … RFE … loops" would add
        nothing. ``"once"`` is the other reading, kept for sensitivity checks.
    solver : {"precomputed", "liblinear"}, default "precomputed"
        ``"precomputed"``: libsvm on the Gram matrix (any kernel). ``"liblinear"``: the linear
        kernel's machines trained in the primal, without an N×N matrix (module docstring).
    criterion : {"signed", "abs"}, default "signed"
        Guyon/Spider :math:`\tfrac12(W^2 - W^2_{(-f)})` or Paul's :math:`|W^2 - W^2_{(-f)}|`
        (identical orders for the linear kernel).
    n_features_to_select : int, float or None
        Only for ``get_support``/``transform``; the ranking is always complete.

    Attributes
    ----------
    ranking_ : (D,) 1 = last survivor.
    n_iter_ : number of elimination iterations (SVM trainings per machine).
    C_ : (n_iter_,) the C used at each iteration (constant unless ``C=None, C_schedule="per_step"``).
    """

    description = "SVM-RFE: recursive elimination by the frozen-alpha change of ||w||^2 (lin/RBF/poly)"
    citation = "Guyon, Weston, Barnhill & Vapnik 2002, Mach. Learn. 46:389-422; Paul et al. 2015"
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **KERNEL_CONSTRAINTS,
        **STEP_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "criterion": [StrOptions(set(CRITERIA))],
        "C_schedule": [StrOptions(set(C_SCHEDULES))],
        "solver": [StrOptions(set(SOLVERS))],
    }

    def __init__(
        self,
        kernel: str = "linear",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        step: int | float | str = 1,
        C: float | None = None,
        criterion: str = "signed",
        n_features_to_select: int | float | None = None,
        step_threshold: int = 0,
        C_schedule: str = "per_step",
        batch_order: str = "auto",
        solver: str = "precomputed",
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.step = step
        self.C = C
        self.criterion = criterion
        self.step_threshold = step_threshold
        self.C_schedule = C_schedule
        self.batch_order = batch_order
        self.solver = solver
        self.n_features_to_select = n_features_to_select

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        if self.solver == "liblinear" and self.kernel != "linear":
            raise ValueError(f"SVMRFE: solver='liblinear' needs kernel='linear', got kernel={self.kernel!r}")
        base = make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        )
        n_classes = int(y.max()) + 1
        targets = (
            [np.where(y == 1, 1, -1)]
            if n_classes == 2
            else [np.where(y == c, 1, -1) for c in range(n_classes)]
        )
        S = feature_statistic(base, X) if self.solver == "precomputed" else None
        Cs: list[float] = []
        if self.C is not None:
            C_fixed = float(self.C)
        elif self.C_schedule == "once":
            # one Ĉ from the whole training set (gamma rule resolved on all D features), kept throughout
            C_fixed = joachims_C(base.resolved(X), X)
        else:
            C_fixed = None

        def importance(remaining: np.ndarray, n_drop: int) -> np.ndarray:
            Xr = X[:, remaining]
            kern = base.resolved(Xr)
            C = C_fixed if C_fixed is not None else joachims_C(kern, Xr)
            Cs.append(C)
            crit = np.zeros(remaining.size)
            if S is None:  # liblinear: W² − W²₍₋f₎ = w_f² from the primal weights
                for yb in targets:
                    w2 = _primal_weights(Xr, yb, C) ** 2
                    crit += 0.5 * w2 if self.criterion == "signed" else w2
                return crit
            K = gram_from_statistic(kern, S)
            for yb in targets:
                a = _signed_duals(K, yb, C)
                sv = np.flatnonzero(a)
                w2 = float(a[sv] @ K[np.ix_(sv, sv)] @ a[sv])
                diff = w2 - removal_contractions(kern, Xr, a)
                crit += 0.5 * diff if self.criterion == "signed" else np.abs(diff)
            return crit

        def downdate(dropped: np.ndarray, remaining: np.ndarray) -> None:
            if S is not None:
                S[...] -= feature_statistic(base, X[:, dropped])

        result = backward_elimination(
            X.shape[1], importance, self.step, self.step_threshold, downdate, self.batch_order
        )
        self.ranking_ = result.ranking
        self.n_iter_ = result.n_iter
        self.C_ = np.asarray(Cs)


def _signed_duals(K: np.ndarray, yb: np.ndarray, C: float) -> np.ndarray:
    r"""Full-length :math:`\breve\alpha = \alpha\circ y` of an SVC on the precomputed ``K`` (0 off SVs)."""
    a = np.zeros(yb.size)
    if np.all(yb == yb[0]):  # one class only (cannot happen for binary problems): no machine
        return a
    svc = SVC(kernel="precomputed", C=C).fit(K, yb)
    a[svc.support_] = svc.dual_coef_[0]
    return a


def _primal_weights(X: np.ndarray, yb: np.ndarray, C: float) -> np.ndarray:
    """Weights w of a hinge-loss linear SVM (liblinear) on ``X``, ``yb`` ∈ {−1, +1} (0 if one class)."""
    if np.all(yb == yb[0]):
        return np.zeros(X.shape[1])
    svm = LinearSVC(loss="hinge", C=C, dual=True, random_state=0, max_iter=_LIBLINEAR_MAX_ITER)
    return svm.fit(X, yb).coef_[0]
