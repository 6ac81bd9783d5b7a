r"""Feature selection by HSIC: BAHSIC and FOHSIC (Song, Smola, Gretton, Bedo & Borgwardt 2012, JMLR 13).

The Hilbert–Schmidt independence criterion of the features (kernel K on the m training samples) and
the labels (kernel L) has two estimators (Song et al. 2012, eqs. 4 and 5):

.. math::
   \mathrm{HSIC}_0 = \frac{1}{(m-1)^2}\operatorname{tr}(KHLH), \qquad H = I - \tfrac1m\mathbf 1\mathbf 1^\top,

.. math::
   \mathrm{HSIC}_1 = \frac{1}{m(m-3)}\Big[\operatorname{tr}(\tilde K\tilde L)
   + \frac{\mathbf 1^\top\tilde K\mathbf 1\,\mathbf 1^\top\tilde L\mathbf 1}{(m-1)(m-2)}
   - \frac{2}{m-2}\mathbf 1^\top\tilde K\tilde L\mathbf 1\Big],

with :math:`\tilde K, \tilde L` the kernels with their diagonals set to 0. :math:`\mathrm{HSIC}_1` is
the unbiased U-statistic (the paper's Theorem 3). Both are linear in K: :math:`c\,\langle K, W\rangle_F`
with a weight matrix W that depends on the labels only (:func:`hsic_weights`), so the value for every
candidate feature set differing from the current one by one feature is one contraction
(:func:`fsbench.algorithms.feature_statistics.updated_inner`, the loop SVM-RFE uses too).

**BAHSIC** (Algorithm 1): backward elimination; at each iteration the kernel width is set on the
surviving features S, and the features whose removal leaves the *largest* HSIC,
:math:`\arg\max_I \sum_{j\in I}\mathrm{HSIC}(S\setminus\{j\})`, are eliminated; the paper removes 10 %
of the survivors per iteration (``step=0.1``). Features eliminated later rank better.
**FOHSIC**: forward selection; at each iteration the features whose addition gives the largest
:math:`\mathrm{HSIC}(S^\dagger\cup\{j\})` are added; added earlier ranks better.

Relation to SAS: with the biased estimator, :math:`(m-1)^2\,\mathrm{HSIC}_0 = \langle HKH, HLH\rangle_F`
is the numerator of the *centred* kernel-target alignment; SAS's alignment (Ramona et al. 2012,
:mod:`fsbench.algorithms.alignment`) divides the uncentred :math:`\langle K, K^*\rangle` by
:math:`\lVert K\rVert\lVert K^*\rVert`, and the two numerators coincide when the target is centred
(Vert's target with equal class sizes). The tests check both identities.

Defaults [D] (what the paper leaves to the user):

* ``estimator="unbiased"`` (:math:`\mathrm{HSIC}_1`, the estimator the paper introduces; needs m ≥ 4);
* ``kernel="rbf"`` with ``gamma="median"``: the paper's step "σ ← Ξ" chooses the kernel parameter on the
  current features at every iteration; fsbench uses the median heuristic on the surviving features
  (BAHSIC), as its RFE does. FOHSIC's current set is empty at the start, so the rule is resolved once on
  all D features and rescaled to the candidate set's size k (:math:`\gamma_k = \gamma_D\,D/k`: on
  standardised features the squared distances grow in proportion to the number of features). A numeric
  ``gamma`` stays fixed;
* ``labels="delta"``: :math:`L_{ij} = [y_i = y_j]` (one-hot :math:`YY^\top`; for two classes the
  paper's :math:`yy^\top` with :math:`y \in \{\pm1\}` differs by a constant, which neither estimator
  sees, and a factor 2). ``"balanced"``: :math:`L_{ij} = [y_i = y_j]/m_{y_i}`, class sizes normalised
  (the paper's :math:`y_i \in \{m_+^{-1}, -m_-^{-1}\}` for two classes, up to a constant);
* ``step=0.1`` for BAHSIC (the paper's 10 %), ``step=1`` for FOHSIC; step rules as in
  :mod:`fsbench.algorithms.elimination`.
"""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from fsbench.algorithms.base import BaseSelector, ranking_from_order
from fsbench.algorithms.elimination import STEP_CONSTRAINTS, backward_elimination, n_to_drop
from fsbench.algorithms.feature_statistics import feature_statistic, gram_from_statistic, updated_inner
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS, make_kernel
from fsbench.algorithms.targets import expand_class_table

ESTIMATORS = ("unbiased", "biased")
LABEL_KERNELS = ("delta", "balanced")


def label_gram(y: np.ndarray, kind: str = "delta") -> np.ndarray:
    """The m×m label kernel L of class indices ``y`` (0..C-1): ``"delta"`` or ``"balanced"`` (module doc)."""
    counts = np.bincount(y)
    table = np.eye(counts.size)
    if kind == "balanced":
        table /= np.maximum(counts, 1)
    elif kind != "delta":
        raise ValueError(f"unknown label kernel {kind!r}; expected one of {LABEL_KERNELS}")
    return expand_class_table(table, y)


def hsic_weights(L: np.ndarray, estimator: str = "unbiased") -> tuple[np.ndarray, float]:
    r"""W and c such that the HSIC estimate is :math:`c\,\langle K, W\rangle_F` for any kernel K.

    * ``"biased"``: :math:`W = HLH`, :math:`c = (m-1)^{-2}`;
    * ``"unbiased"``: with :math:`r = \tilde L\mathbf 1`,
      :math:`W = \tilde L + \frac{\mathbf 1^\top r}{(m-1)(m-2)}\mathbf 1\mathbf 1^\top
      - \frac{1}{m-2}(\mathbf 1 r^\top + r\mathbf 1^\top)` with its diagonal set to 0 (so that
      :math:`\langle K, W\rangle = \langle\tilde K, W\rangle`), :math:`c = 1/(m(m-3))`; this is the
      module's :math:`\mathrm{HSIC}_1` written as one inner product (K is symmetric).
    """
    L = np.asarray(L, dtype=float)
    m = L.shape[0]
    if estimator == "biased":
        Lc = L - L.mean(axis=0, keepdims=True)
        Lc -= Lc.mean(axis=1, keepdims=True)
        return Lc, 1.0 / (m - 1) ** 2
    if estimator != "unbiased":
        raise ValueError(f"unknown HSIC estimator {estimator!r}; expected one of {ESTIMATORS}")
    if m < 4:
        raise ValueError(f"the unbiased HSIC estimator needs at least 4 samples, got {m}")
    W = L.copy()
    np.fill_diagonal(W, 0.0)
    r = W.sum(axis=1)
    W += r.sum() / ((m - 1) * (m - 2))
    W -= (r[:, None] + r[None, :]) / (m - 2)
    np.fill_diagonal(W, 0.0)
    return W, 1.0 / (m * (m - 3))


def hsic(K: np.ndarray, L: np.ndarray, estimator: str = "unbiased") -> float:
    """HSIC estimate of the kernels ``K`` (features) and ``L`` (labels), both m×m (module doc)."""
    W, c = hsic_weights(L, estimator)
    return c * float(np.vdot(K, W))


_HSIC_CONSTRAINTS: dict = {
    **BaseSelector._parameter_constraints,
    **KERNEL_CONSTRAINTS,
    "estimator": [StrOptions(set(ESTIMATORS))],
    "labels": [StrOptions(set(LABEL_KERNELS))],
    "step": STEP_CONSTRAINTS["step"],
}


class _HSICSelector(BaseSelector):
    """What BAHSIC and FOHSIC share: the feature kernel and the label weights of the estimator."""

    _parameter_constraints = _HSIC_CONSTRAINTS

    def _kernel_and_weights(self, y: np.ndarray):
        base = make_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, offset=self.offset, scale=self.scale
        )
        W, c = hsic_weights(label_gram(y, self.labels), self.estimator)
        return base, W, c


class BAHSIC(_HSICSelector):
    """Backward elimination by HSIC (Song et al. 2012, Algorithm 1; module doc).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"}, default "rbf"
        Kernel on the features.
    gamma : float or {"median", "n_features", "scale"}, default "median"
        RBF width; a rule is re-resolved on the surviving features at every iteration.
    degree, offset, scale : float
        Polynomial kernel :math:`(\\text{offset} + \\text{scale}\\langle x, z\\rangle)^\\text{degree}`.
    estimator : {"unbiased", "biased"}, default "unbiased"
    labels : {"delta", "balanced"}, default "delta"
        Kernel on the labels.
    step : int, float in (0, 1) or "halving", default 0.1
        Features eliminated per iteration (:mod:`fsbench.algorithms.elimination`); the paper's 10 %.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_ : (D,) ndarray, 1 = best.
    hsic_ : list of float
        HSIC of the surviving features at each iteration (the first is that of all D features).
    n_iter_ : int
    """

    description = "HSIC backward elimination (BAHSIC; RBF kernel, unbiased HSIC, 10 % per step)"
    citation = "Song, Smola, Gretton, Bedo & Borgwardt 2012, JMLR 13:1393-1434 (Algorithm 1)"

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        estimator: str = "unbiased",
        labels: str = "delta",
        step: int | float | str = 0.1,
        n_features_to_select: int | float | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.estimator = estimator
        self.labels = labels
        self.step = step
        self.n_features_to_select = n_features_to_select

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        base, W, c = self._kernel_and_weights(y)
        path: list[float] = []

        def importance(remaining: np.ndarray, n_drop: int) -> np.ndarray:
            Xr = X[:, remaining]
            kern = base.resolved(Xr)
            S = feature_statistic(kern, Xr)
            path.append(c * float(np.vdot(gram_from_statistic(kern, S), W)))
            # eliminate first the features whose removal keeps HSIC highest: the lowest key goes first
            return -c * updated_inner(kern, S, Xr, W, sign=-1)

        result = backward_elimination(X.shape[1], importance, self.step)
        self.ranking_ = result.ranking
        self.n_iter_ = result.n_iter
        self.hsic_ = path


class FOHSIC(_HSICSelector):
    """Forward selection by HSIC (Song et al. 2012, FOHSIC; module doc).

    Parameters
    ----------
    kernel, gamma, degree, offset, scale, estimator, labels
        As :class:`BAHSIC`; a ``gamma`` rule is resolved once on all features and rescaled to the
        candidate set's size (module doc).
    step : int or float in (0, 1), default 1
        Features added per iteration, counted on the remaining candidates as
        :mod:`fsbench.algorithms.elimination` counts eliminations.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_ : (D,) ndarray, 1 = added first.
    hsic_ : list of float
        HSIC of the selected set after each iteration.
    n_iter_ : int
    """

    description = "HSIC forward selection (FOHSIC; RBF kernel, unbiased HSIC, one feature per step)"
    citation = "Song, Smola, Gretton, Bedo & Borgwardt 2012, JMLR 13:1393-1434 (FOHSIC)"
    _parameter_constraints = {
        **_HSIC_CONSTRAINTS,
        "step": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float | str = "median",
        degree: float = 3,
        offset: float = 1.0,
        scale: float = 1.0,
        estimator: str = "unbiased",
        labels: str = "delta",
        step: int | float = 1,
        n_features_to_select: int | float | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.offset = offset
        self.scale = scale
        self.estimator = estimator
        self.labels = labels
        self.step = step
        self.n_features_to_select = n_features_to_select

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        base, W, c = self._kernel_and_weights(y)
        n, d = X.shape
        rule = base.name == "rbf" and isinstance(base.gamma, str)
        gamma_all = base.resolved(X).gamma if base.name == "rbf" else None
        S = np.zeros((n, n))  # statistic of the empty set (no features: distances and products 0)
        order: list[np.ndarray] = []
        candidates = np.arange(d)
        path: list[float] = []
        while candidates.size:
            k = d - candidates.size + 1  # size of each candidate set
            kern = replace(base, gamma=float(gamma_all) * d / k) if rule else base.resolved(X)
            m = 1 if candidates.size == 1 else n_to_drop(self.step, candidates.size)
            gain = updated_inner(kern, S, X[:, candidates], W, sign=+1)
            # largest HSIC first; ties: the lower feature index first
            pos = np.lexsort((candidates, -gain))[:m]
            added = candidates[pos]
            order.append(added)
            S += feature_statistic(kern, X[:, added])
            path.append(c * float(np.vdot(gram_from_statistic(kern, S), W)))
            candidates = np.delete(candidates, pos)
        self.ranking_ = ranking_from_order(np.concatenate(order))
        self.n_iter_ = len(order)
        self.hsic_ = path
