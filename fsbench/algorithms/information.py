r"""Information-theoretic filters on discretised features: JMI, CMIM, DISR, CFS and FCBF.

Each is a :class:`~fsbench.algorithms.base.BaseSelector` (``fit(X, y)`` sets a complete ``ranking_``,
1 = best). All five estimate entropies by counting (the plug-in estimator) on a discretised copy of the
training split, in bits:

.. math::

    \hat H(Z) = -\sum_z \frac{n_z}{N}\log_2\frac{n_z}{N}, \qquad
    I(A;B) = H(A) + H(B) - H(A,B), \qquad
    I(A;B\mid C) = H(A,C) + H(B,C) - H(A,B,C) - H(C),

with :math:`n_z` the number of training samples in cell :math:`z` of the (joint) code. This is the
estimator of ``skfeature`` (``midd``, ``cmidd``, ``su_calculation``), which the tests use as reference.

**Discretisation rule** (fixed in advance, not tuned; :func:`discretize`, parameter ``n_bins = 5``):

* a column the dataset card marks categorical (``categorical``) keeps its codes, whatever their number;
* any other column with at most ``n_bins`` distinct training values (binary, ordinal or integer-coded
  features) keeps its values, one code per distinct value;
* every other column is cut into ``n_bins`` equal-frequency bins on the training data: a value whose
  training rank (the number of training values strictly below it) is :math:`r` goes to bin
  :math:`\lfloor n_\text{bins}\, r / N\rfloor`; tied values share a bin.

Why so: the plug-in estimate of :math:`I(A;B\mid Y)` counts :math:`N` samples into
:math:`L_A L_B C` cells; for independent :math:`A, B` it is biased upwards by about
:math:`C(L_A-1)(L_B-1)/(2N\ln 2)` bits (Miller–Madow; Paninski 2003, Neural Comput. 15:1191–1253):
0.23 bits with 5 levels, 2 classes and N = 100 (two samples per cell on average), but 1.2 bits with 10
levels — more than most features' :math:`I(X;Y)`. The benchmarks' training sets are N ≈ 100–1000. FEAST,
the C implementation behind Brown et al. 2012, likewise asks for few bins and notes that the right number
depends on the data set's size (its README suggests 10 equal-width bins).
Equal-frequency rather than equal-width bins (the two unsupervised rules; Dougherty, Kohavi & Sahami
1995, ICML), so that a skewed feature or one outlier (z-scored data keep both) does not leave most bins
nearly empty. Categorical codes are arbitrary labels, so cutting them by rank would merge unrelated
levels; they stay as they are.

The selectors (registry name: the next feature's criterion given the selected set :math:`S`; ranking):

* ``jmi``: :math:`\sum_{j\in S} I(X_kX_j;Y)`; the greedy order over all D features;
* ``cmim``: :math:`\min_{j\in S} I(X_k;Y\mid X_j)`; the greedy order over all D features;
* ``disr``: :math:`\sum_{j\in S} I(X_kX_j;Y)/H(X_kX_jY)`; the greedy order over all D features;
* ``cfs``: Hall's merit of :math:`S\cup\{k\}`; the features CFS selects, in its order, then the rest;
* ``fcbf``: the largest :math:`SU(X;Y)` left, removing the features redundant with it; the features FCBF
  selects, then the rest.

JMI, CMIM and DISR start with the feature of largest :math:`I(X;Y)` and add, one at a time, the feature
that maximises the criterion given the selected set :math:`S`; they rank **all** D features (no cap: one
fit at N = 100 and D = 10,000 takes about 65 s of CPU, see Cost below). CFS and FCBF stop on their
own; the features they do not select follow, ordered by their symmetric uncertainty with the class,
:math:`SU(X;Y) = 2I(X;Y)/(H(X)+H(Y))` (the relevance both methods start from). Every argmax takes the
lowest feature index among values that agree to 10 decimals (in bits): rounding first makes the choice
independent of the order in which the entropies were summed.

Why not ``skfeature`` itself
----------------------------
``skfeature-chappers`` 1.2.1 (PyPI; a maintained fork of ASU's scikit-feature) was meant to run these
five; on numpy 2.4 / scikit-learn 1.9 it imports and runs, but three of its five functions do not compute
the published method, and the other two cannot rank thousands of features in useful time (each defect
is pinned by a test in ``tests/algorithms/test_information.py``, so a fixed release will show up):

* ``JMI.jmi`` calls ``LCSI.lcsi`` without ``mode="index"`` and gets ranks back, which ``mode="index"``
  then returns as if they were feature indices; and the fork's ``lcsi`` ignores ``function_name`` (the
  original set :math:`\beta = \gamma = 1/|S|` for ``"JMI"``), so the criterion is
  :math:`I(X_k;Y) - 0.8\sum_j I(X_k;X_j) + 0.5\sum_j I(X_k;X_j\mid Y)`, not JMI.
* ``DISR.disr`` divides the DISR sum by :math:`\sum_j (1 + I(X_k;X_j))`, which neither Meyer & Bontempi
  nor the original scikit-feature do.
* ``FCBF.fcbf`` keeps the symmetric uncertainties in an integer array (``dtype=int``, so that the feature
  indices beside them can index), so they all become 0 and the "predominant" feature is the
  lowest-indexed one left, not the one of largest SU. (Given the columns sorted by SU it is right again;
  the tests do that.)
* ``CMIM.cmim`` and ``CFS.cfs`` are correct but pure Python: CMIM took 0.7 s per selected feature at
  N = 100, D = 2,000 (hours for a full ranking at D = 10,000); CFS recomputes Hall's merit from scratch
  for every candidate and took 140 s at D = 200.

So the criteria are computed here, vectorised over the candidate features (one matrix product of
one-hot codes per step), and the library is the tests' reference: ``cmim`` and ``cfs`` give the same
order as the library on the same discretised input, ``fcbf`` the same as the library given SU-sorted
columns, ``jmi`` and ``disr`` the same as the original scikit-feature loops run with the library's own
estimators. Its extra is therefore the test extra ``dev`` (it is GPL-2.0; fsbench does not import it).

Cost
----
CPU of one fit, measured on random data (2 classes, the module's discretisation, one BLAS thread, on a
2-core VM shared with other jobs; wall time was about twice the CPU time):

============ ================== =================== ================
selector     N = 100, D = 2,000 N = 100, D = 10,000 N = 700, D = 60
============ ================== =================== ================
``jmi``      2.1 s              65 s                0.04 s
``cmim``     2.3 s              64 s                0.03 s
``disr``     2.5 s              64 s                0.03 s
``cfs``      0.15 s             0.6 s               0.02 s
``fcbf``     0.10 s             0.4 s               0.02 s
============ ================== =================== ================

JMI, CMIM and DISR grow like :math:`N D^2`: D − 1 steps, each one product of an N × (L·C) and an
N × ΣL one-hot matrix (L ≤ 5 codes per column, C classes, ΣL ≈ 5D; once half the features are selected
they leave the product). CFS and FCBF take one such product per feature they select.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.stats import rankdata
from sklearn.utils._param_validation import Interval

from fsbench.algorithms.base import BaseSelector, ranking_from_order

#: Equal-frequency bins of a continuous column (the rule of the module docstring).
N_BINS = 5

#: Criterion values that agree to this many decimals (bits) are ties, broken by the lower feature index.
_DECIMALS = 10

#: A greedy search drops its selected columns from the joint tables once half of them are selected, if
#: more than this many are left (below it the copy costs more than it saves).
_RESTRICT_MIN = 256


def _mask(categorical, n_features: int) -> np.ndarray:
    """Boolean mask from a mask, a list of indices or None (no categorical column)."""
    cat = np.zeros(n_features, dtype=bool)
    if categorical is not None:
        c = np.asarray(categorical)
        if c.dtype == bool:
            if c.size != n_features:
                raise ValueError(f"categorical mask has {c.size} entries for {n_features} features")
            cat = c.copy()
        elif c.size:
            cat[c.astype(int)] = True
    return cat


def discretize(X: np.ndarray, n_bins: int = N_BINS, categorical=None) -> np.ndarray:
    r"""Integer codes of the columns of ``X`` by the module's discretisation rule.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The training data (no missing values).
    n_bins : int, default 5
        Equal-frequency bins of a column with more than ``n_bins`` distinct values.
    categorical : bool mask, list of indices or None
        Columns kept as their codes whatever their number of distinct values.

    Returns
    -------
    ndarray of int, shape (n_samples, n_features)
        Per column, codes :math:`0, 1, \ldots`: the rank of the distinct value (categorical columns and
        columns with at most ``n_bins`` distinct values), else :math:`\lfloor n_\text{bins} r/N\rfloor`
        with :math:`r` the number of training values strictly below the sample's.
    """
    X = np.asarray(X, dtype=float)
    N, D = X.shape
    keep = _mask(categorical, D)
    dense = rankdata(X, method="dense", axis=0).astype(np.intp) - 1  # distinct-value codes, in order
    keep |= dense.max(axis=0, initial=0) + 1 <= n_bins
    below = rankdata(X, method="min", axis=0).astype(np.intp) - 1  # training values strictly below
    return np.where(keep, dense, below * n_bins // N)


def _codes_of(y: np.ndarray) -> tuple[np.ndarray, int]:
    values, codes = np.unique(y, return_inverse=True)
    return codes.astype(np.intp), values.size


class EntropyTables:
    """Plug-in entropies (bits) of discretised columns, alone, with the class, and with one more column.

    The columns are held as one-hot indicators ``O`` (N × ΣL, float32: counts up to 2^24 are exact);
    the joint counts of a column ``s`` (and the class) with every column are then one matrix product,
    ``onehot(s, y).T @ O``, and the entropies follow from a lookup table of :math:`n\\log_2 n`.
    :meth:`restrict` limits those products to the columns still of interest (a greedy search's
    candidates), so that later steps cost less.

    Parameters
    ----------
    codes : ndarray of int, shape (n_samples, n_features)
        Discretised features (:func:`discretize`).
    y : ndarray of shape (n_samples,)
        Class labels.
    """

    def __init__(self, codes: np.ndarray, y: np.ndarray):
        # codes 0..L-1 without gaps (ties can leave an equal-frequency bin empty)
        self.codes = rankdata(np.asarray(codes), method="dense", axis=0).astype(np.intp) - 1
        self.n_samples, self.n_features = self.codes.shape
        self.y, self.n_classes = _codes_of(np.asarray(y))
        N = self.n_samples
        self.levels = self.codes.max(axis=0, initial=0) + 1
        self._all_starts = np.concatenate([[0], np.cumsum(self.levels)[:-1]]).astype(np.intp)
        self._all_onehot = np.zeros((N, int(self.levels.sum())), dtype=np.float32)
        self._all_onehot[np.arange(N)[:, None], self._all_starts + self.codes] = 1.0
        counts = np.arange(N + 1, dtype=float)
        #: n log2 n for n = 0..N (0 log 0 = 0)
        self._nlogn = np.where(counts > 0, counts * np.log2(np.maximum(counts, 1)), 0.0)
        self.restrict(np.arange(self.n_features))
        #: H(X_k), H(Y), H(X_k, Y)
        self.H = self._entropy(self._onehot.sum(axis=0, keepdims=True))
        self.H_y = self._entropy_of(self.y)
        self.H_xy = self._entropy(self._indicator(self.y, self.n_classes).T @ self._onehot)

    def restrict(self, features: np.ndarray) -> None:
        """Compute :meth:`joint` and :meth:`joint_with_class` for ``features`` only (``self.active``)."""
        self.active = np.asarray(features, dtype=np.intp)
        lv = self.levels[self.active]
        starts = np.concatenate([[0], np.cumsum(lv)[:-1]]).astype(np.intp)
        cols = np.repeat(self._all_starts[self.active] - starts, lv) + np.arange(int(lv.sum()))
        self._starts = starts
        self._onehot = self._all_onehot if self.active.size == self.n_features else self._all_onehot[:, cols]

    # ----------------------------------------------------------------------------- helpers
    def _entropy_of(self, z: np.ndarray) -> float:
        _, n = np.unique(z, return_counts=True)
        return float(np.log2(self.n_samples) - self._nlogn[n].sum() / self.n_samples)

    @staticmethod
    def _indicator(z: np.ndarray, width: int) -> np.ndarray:
        """One-hot columns (float32) of integer codes ``z`` in ``0..width-1``."""
        out = np.zeros((z.size, width), dtype=np.float32)
        out[np.arange(z.size), z] = 1.0
        return out

    def _entropy(self, counts: np.ndarray) -> np.ndarray:
        """Per active feature, the entropy of the cells in ``counts`` (rows: the other variable's cells).

        The float32 counts are exact integers, so ``astype`` only changes the type.
        """
        per_cell = self._nlogn[counts.astype(np.intp)].sum(axis=0)
        return np.log2(self.n_samples) - np.add.reduceat(per_cell, self._starts) / self.n_samples

    # ----------------------------------------------------------------------------- public
    def joint(self, s: int) -> np.ndarray:
        """:math:`H(X_k, X_s)` for every active feature k."""
        return self._entropy(self._indicator(self.codes[:, s], int(self.levels[s])).T @ self._onehot)

    def joint_with_class(self, s: int) -> tuple[np.ndarray, np.ndarray]:
        """:math:`H(X_k, X_s)` and :math:`H(X_k, X_s, Y)` for every active feature k (one product)."""
        C, L = self.n_classes, int(self.levels[s])
        counts = self._indicator(self.codes[:, s] * C + self.y, L * C).T @ self._onehot  # (L·C, ΣL)
        pair = counts.reshape(L, C, -1).sum(axis=1)
        return self._entropy(pair), self._entropy(counts)

    @property
    def relevance(self) -> np.ndarray:
        """:math:`I(X_k; Y)` for every feature k."""
        return self.H + self.H_y - self.H_xy

    def symmetric_uncertainty(self, H_a: np.ndarray, H_b, H_ab: np.ndarray) -> np.ndarray:
        """:math:`SU = 2 I(A;B)/(H(A)+H(B))`, 0 where both entropies are 0 (two constant variables)."""
        denom = H_a + H_b
        with np.errstate(invalid="ignore", divide="ignore"):
            su = 2.0 * (H_a + H_b - H_ab) / denom
        return np.where(denom > 0, su, 0.0)

    @property
    def class_su(self) -> np.ndarray:
        """:math:`SU(X_k; Y)` for every feature k."""
        return self.symmetric_uncertainty(self.H, self.H_y, self.H_xy)


def _argmax(values: np.ndarray, candidates: np.ndarray) -> int:
    """Index of the largest value among ``candidates`` (values within 1e-10: the lowest index)."""
    return int(np.argmax(np.where(candidates, np.round(values, _DECIMALS), -np.inf)))


def greedy_order(
    codes: np.ndarray, y: np.ndarray, criterion: str, tables: EntropyTables | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Forward selection of all features by JMI, CMIM or DISR on discretised data.

    The first feature maximises :math:`I(X_k;Y)`; then, with :math:`S` the selected set and
    :math:`s` its newest member, the next maximises over the unselected :math:`k`

    * JMI (Yang & Moody 1999; Brown et al. 2012's form):
      :math:`I(X_k;Y) - \frac1{|S|}\sum_{j\in S} I(X_k;X_j) + \frac1{|S|}\sum_{j\in S} I(X_k;X_j\mid Y)`,
      which orders the candidates as :math:`\sum_{j\in S} I(X_kX_j;Y)`;
    * CMIM (Fleuret 2004): :math:`\min_{j\in S} I(X_k;Y\mid X_j)
      = I(X_k;Y) - \max_{j\in S}\,[I(X_k;X_j) - I(X_k;X_j\mid Y)]`;
    * DISR (Meyer & Bontempi 2006): :math:`\sum_{j\in S} I(X_kX_j;Y)/H(X_kX_jY)`.

    Each step updates the sums / maxima with :math:`s` only, so a full ranking costs D − 1 joint
    tables of one column against all the others.

    Parameters
    ----------
    codes : ndarray of int, shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    criterion : {"jmi", "cmim", "disr"}
    tables : EntropyTables, optional
        ``EntropyTables(codes, y)`` when the caller has it already.

    Returns
    -------
    order : ndarray of int, shape (n_features,)
        Feature indices in the order selected.
    values : ndarray of shape (n_features,)
        The criterion of each feature when it was selected (the first: :math:`I(X;Y)`).
    """
    if criterion not in ("jmi", "cmim", "disr"):
        raise ValueError(f"unknown criterion {criterion!r}")
    tab = EntropyTables(codes, y) if tables is None else tables
    D = tab.n_features
    rel = tab.relevance
    free = np.ones(D, dtype=bool)
    redundancy = np.zeros(D)  # JMI: sum_j I(k;j); CMIM: max_j [I(k;j) - I(k;j|Y)]; DISR: the DISR sum
    synergy = np.zeros(D)  # JMI: sum_j I(k;j|Y)
    if criterion == "cmim":
        redundancy[:] = -np.inf
    first = _argmax(rel, free)
    order, values = [first], [rel[first]]
    free[first] = False
    H_ks, H_ksy = np.zeros(D), np.ones(D)  # entries of selected features stay unused (finite)
    for t in range(1, D):
        s = order[-1]
        if 2 * (D - t) <= tab.active.size and tab.active.size > _RESTRICT_MIN:
            # half the columns are selected: drop them from the products (about halves the total cost)
            tab.restrict(np.flatnonzero(free))
        H_ks[tab.active], H_ksy[tab.active] = tab.joint_with_class(s)
        if criterion == "disr":
            redundancy += (H_ks + tab.H_y - H_ksy) / H_ksy  # I(X_k X_s; Y) / H(X_k X_s Y); H_ksy >= H(Y) > 0
            J = redundancy
        else:
            mi = tab.H + tab.H[s] - H_ks  # I(X_k; X_s)
            cmi = tab.H_xy + tab.H_xy[s] - H_ksy - tab.H_y  # I(X_k; X_s | Y)
            if criterion == "jmi":
                redundancy += mi
                synergy += cmi
                J = rel - redundancy / t + synergy / t  # beta = gamma = 1/|S|, as scikit-feature's "JMI"
            else:
                redundancy = np.maximum(redundancy, mi - cmi)
                J = rel - redundancy
        k = _argmax(J, free)
        order.append(k)
        values.append(J[k])
        free[k] = False
    return np.asarray(order, dtype=int), np.asarray(values, dtype=float)


def cfs_selection(
    codes: np.ndarray, y: np.ndarray, tables: EntropyTables | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""CFS (Hall 1999) as ``skfeature``'s ``CFS.cfs`` runs it: greedy forward search on Hall's merit.

    The merit of a subset :math:`S` of :math:`k` features is

    .. math:: M_S = \frac{\sum_{i\in S} SU(X_i;Y)}{\sqrt{k + 2\sum_{i<j\in S} SU(X_i;X_j)}}
              = \frac{k\,\overline{r_{cf}}}{\sqrt{k + k(k-1)\,\overline{r_{ff}}}}.

    Each step adds the feature that gives the largest merit; the search stops when the merit has not
    increased for four steps in a row (``skfeature``'s rule: more than five steps taken and
    :math:`M_t \le M_{t-1} \le \dots \le M_{t-4}`), or when every feature is in. The selected features
    include those last four additions, as in the library. (Hall's own CFS is a best-first search that
    returns the subset of best merit; this is the library's simpler forward version.)

    Parameters
    ----------
    codes : ndarray of int, shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    tables : EntropyTables, optional
        ``EntropyTables(codes, y)`` when the caller has it already.

    Returns
    -------
    selected : ndarray of int
        The features added, in order.
    merits : ndarray
        The merit after each addition.
    """
    tab = EntropyTables(codes, y) if tables is None else tables
    D = tab.n_features
    su_c = tab.class_su
    free = np.ones(D, dtype=bool)
    su_with_selected = np.zeros(D)  # sum_{j in S} SU(X_k; X_j) for every k
    sum_c, sum_ff = 0.0, 0.0
    selected: list[int] = []
    merits: list[float] = []
    while free.any():
        k = len(selected) + 1
        merit = (sum_c + su_c) / np.sqrt(k + 2.0 * (sum_ff + su_with_selected))
        i = _argmax(merit, free)
        selected.append(i)
        merits.append(float(np.round(merit[i], _DECIMALS)))
        free[i] = False
        sum_c += su_c[i]
        sum_ff += su_with_selected[i]
        su_with_selected += tab.symmetric_uncertainty(tab.H, tab.H[i], tab.joint(i))
        m = merits
        if len(m) > 5 and m[-1] <= m[-2] <= m[-3] <= m[-4] <= m[-5]:
            break
    return np.asarray(selected, dtype=int), np.asarray(merits)


def fcbf_selection(
    codes: np.ndarray, y: np.ndarray, delta: float = 0.0, tables: EntropyTables | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""FCBF (Yu & Liu 2003): predominant features by symmetric uncertainty, redundant ones removed.

    The candidates are the features with :math:`SU(X;Y) > \delta`, in decreasing SU (ties by index).
    The first candidate :math:`p` is selected, and every later candidate :math:`q` with
    :math:`SU(X_p;X_q) \ge SU(X_q;Y)` is removed (an approximate Markov blanket); repeat with the next
    candidate left.

    Parameters
    ----------
    codes : ndarray of int, shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    delta : float, default 0
    tables : EntropyTables, optional
        ``EntropyTables(codes, y)`` when the caller has it already.

    Returns
    -------
    selected : ndarray of int
        The selected features, in decreasing SU with the class.
    su : ndarray of shape (n_features,)
        :math:`SU(X_k;Y)` of every feature.
    """
    tab = EntropyTables(codes, y) if tables is None else tables
    su_c = tab.class_su
    D = tab.n_features
    # ties by index (lexsort: last key first); rounding as in _argmax, so summation noise cannot reorder
    cand = [int(k) for k in np.lexsort((np.arange(D), -np.round(su_c, _DECIMALS))) if su_c[k] > delta]
    selected: list[int] = []
    while cand:
        p, rest = cand[0], np.asarray(cand[1:], dtype=int)
        selected.append(p)
        if rest.size == 0:
            break
        su_pq = tab.symmetric_uncertainty(tab.H[rest], tab.H[p], tab.joint(p)[rest])
        cand = rest[su_pq < su_c[rest]].tolist()
    return np.asarray(selected, dtype=int), su_c


def then_by_score(selected: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``selected`` in its order, then every other feature by ``score`` (higher first), ties by index."""
    D = score.size
    rest = np.setdiff1d(np.arange(D), selected)
    rest = rest[np.lexsort((rest, -np.round(score[rest], _DECIMALS)))]
    return np.concatenate([np.asarray(selected, dtype=int), rest])


# ------------------------------------------------------------------------------------ selectors
class _Discretised(BaseSelector):
    """Common part: the discretisation parameters and its codes."""

    supported_kernels: tuple[str, ...] = ()

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "categorical": ["array-like", None],
    }

    def __init__(
        self, n_bins: int = N_BINS, categorical=None, n_features_to_select: int | float | None = None
    ):
        self.n_bins = n_bins
        self.categorical = categorical
        self.n_features_to_select = n_features_to_select

    def _codes(self, X: np.ndarray) -> np.ndarray:
        return discretize(X, self.n_bins, self.categorical)


class _Greedy(_Discretised):
    criterion = ""

    def _fit(self, X, y):
        codes = self._codes(X)
        tab = EntropyTables(codes, y)
        order, values = greedy_order(codes, y, self.criterion, tables=tab)
        self.criterion_ = values
        self.scores_ = tab.relevance
        self.n_iter_ = X.shape[1] - 1  # greedy steps after the first pick
        self.ranking_ = ranking_from_order(order)


class JMI(_Greedy):
    r"""Joint mutual information (Yang & Moody 1999; Meyer, Schretter & Bontempi 2008), greedy forward.

    The next feature maximises :math:`\sum_{j\in S} I(X_kX_j;Y)` over the selected set :math:`S`, in
    Brown et al.'s (2012) form :math:`I(X_k;Y) - \frac1{|S|}\sum_j [I(X_k;X_j) - I(X_k;X_j\mid Y)]`
    (:func:`greedy_order`); the first is the feature of largest :math:`I(X;Y)`. Brown et al. found JMI
    the best trade-off of accuracy and stability among the information-theoretic criteria.
    **Ranking rule:** the greedy order over all D features. Plug-in entropies on the module's
    discretisation (:func:`discretize`).

    Parameters
    ----------
    n_bins : int, default 5
        Equal-frequency bins of a continuous column (the rule stated in the module docstring).
    categorical : bool mask, list of indices or None, default None
        Columns kept as their codes; a run passes the dataset card's mask.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (:math:`I(X;Y)` in bits), criterion_ (the criterion of each feature when it was
    selected, in selection order)

    Notes
    -----
    Cost grows like :math:`N D^2`; measured CPU of one fit (module docstring): N = 100, D = 2,000: 2.1 s;
    N = 100, D = 10,000: 65 s; N = 700, D = 60: 0.04 s.
    """

    description = "JMI: greedy forward joint mutual information on 5-bin discretised features"
    citation = "Yang & Moody 1999, NIPS 12; Brown, Pocock, Zhao & Lujan 2012, JMLR 13:27-66"
    criterion = "jmi"


class CMIM(_Greedy):
    r"""Conditional mutual information maximisation (Fleuret 2004), greedy forward.

    The next feature maximises :math:`\min_{j\in S} I(X_k;Y\mid X_j)` — the information it adds about
    the class given the most similar selected feature (:func:`greedy_order`); the first is the feature
    of largest :math:`I(X;Y)`. **Ranking rule:** the greedy order over all D features. Plug-in
    entropies on the module's discretisation (:func:`discretize`).

    Parameters
    ----------
    n_bins : int, default 5
    categorical : bool mask, list of indices or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (:math:`I(X;Y)` in bits), criterion_

    Notes
    -----
    Measured CPU of one fit (module docstring): N = 100, D = 2,000: 2.3 s; N = 100, D = 10,000: 64 s;
    N = 700, D = 60: 0.03 s.
    """

    description = "CMIM: greedy forward, min over selected features of I(X;Y|X_j), 5-bin discretised"
    citation = "Fleuret 2004, JMLR 5:1531-1555"
    criterion = "cmim"


class DISR(_Greedy):
    r"""Double input symmetrical relevance (Meyer & Bontempi 2006; Meyer, Schretter & Bontempi 2008).

    The next feature maximises :math:`\sum_{j\in S} I(X_kX_j;Y)/H(X_kX_jY)` (:func:`greedy_order`);
    the first is the feature of largest :math:`I(X;Y)`. **Ranking rule:** the greedy order over all
    D features. Plug-in entropies on the module's discretisation (:func:`discretize`).

    Parameters
    ----------
    n_bins : int, default 5
    categorical : bool mask, list of indices or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (:math:`I(X;Y)` in bits), criterion_

    Notes
    -----
    Measured CPU of one fit (module docstring): N = 100, D = 2,000: 2.5 s; N = 100, D = 10,000: 64 s;
    N = 700, D = 60: 0.03 s.
    """

    description = "DISR: greedy forward double input symmetrical relevance, 5-bin discretised"
    citation = "Meyer & Bontempi 2006, EvoWorkshops, LNCS 3907:91-102; Meyer, Schretter & Bontempi 2008"
    criterion = "disr"


class CFS(_Discretised):
    r"""Correlation-based feature selection (Hall 1999) with symmetric uncertainty, greedy forward.

    Adds, one at a time, the feature that maximises Hall's merit
    :math:`\sum_{i\in S} SU(X_i;Y) / \sqrt{k + 2\sum_{i<j\in S} SU(X_i;X_j)}` of the grown subset, and
    stops after four additions in a row that did not raise it (:func:`cfs_selection`, ``skfeature``'s
    search). **Ranking rule:** the features CFS added, in the order added; then the others by
    :math:`SU(X;Y)`, ties by index (:func:`then_by_score`).

    Parameters
    ----------
    n_bins : int, default 5
    categorical : bool mask, list of indices or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (:math:`SU(X;Y)`), selected_ (the features CFS added, in order), merits_ (the
    merit after each addition), n_iter_ (additions)

    Notes
    -----
    Each addition costs one joint table of the added feature against all others (as one JMI step);
    CFS usually stops after tens of additions. Measured CPU of one fit (module docstring):
    N = 100, D = 2,000: 0.15 s; N = 100, D = 10,000: 0.6 s; N = 700, D = 60: 0.02 s.
    """

    description = "CFS: Hall's merit (symmetric uncertainty), greedy forward; the rest by SU"
    citation = "Hall 1999, PhD thesis, Univ. of Waikato; Hall 2000, ICML"

    def _fit(self, X, y):
        codes = self._codes(X)
        tab = EntropyTables(codes, y)
        selected, merits = cfs_selection(codes, y, tables=tab)
        self.scores_ = tab.class_su
        self.selected_, self.merits_ = selected, merits
        self.n_iter_ = selected.size
        self.ranking_ = ranking_from_order(then_by_score(selected, self.scores_))


class FCBF(_Discretised):
    r"""Fast correlation-based filter (Yu & Liu 2003).

    Features with :math:`SU(X;Y) > \delta` are visited in decreasing SU; each one still in play is
    selected and removes every later one that is at least as correlated with it as with the class,
    :math:`SU(X_p;X_q) \ge SU(X_q;Y)` (:func:`fcbf_selection`). **Ranking rule:** the selected features
    (in decreasing SU), then the others (removed as redundant, or SU ≤ δ) by :math:`SU(X;Y)`, ties by
    index (:func:`then_by_score`).

    Parameters
    ----------
    delta : float, default 0
        The relevance threshold δ on :math:`SU(X;Y)` (Yu & Liu's and ``skfeature``'s default).
    n_bins : int, default 5
    categorical : bool mask, list of indices or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (:math:`SU(X;Y)`), selected_ (the features FCBF keeps), n_iter_ (= their number)

    Notes
    -----
    One joint table per selected feature, against the candidates left. Measured CPU of one fit (module
    docstring): N = 100, D = 2,000: 0.10 s; N = 100, D = 10,000: 0.4 s; N = 700, D = 60: 0.02 s.
    """

    description = "FCBF: predominant features by symmetric uncertainty, redundant ones removed; rest by SU"
    citation = "Yu & Liu 2003, ICML, 856-863"

    _parameter_constraints: dict = {
        **_Discretised._parameter_constraints,
        "delta": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(
        self,
        delta: float = 0.0,
        n_bins: int = N_BINS,
        categorical=None,
        n_features_to_select: int | float | None = None,
    ):
        self.delta = delta
        self.n_bins = n_bins
        self.categorical = categorical
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        selected, su = fcbf_selection(self._codes(X), y, self.delta)
        self.scores_ = su
        self.selected_ = selected
        self.n_iter_ = selected.size
        self.ranking_ = ranking_from_order(then_by_score(selected, su))


__all__ = [
    "CFS",
    "CMIM",
    "DISR",
    "FCBF",
    "JMI",
    "EntropyTables",
    "cfs_selection",
    "discretize",
    "fcbf_selection",
    "greedy_order",
    "then_by_score",
]
