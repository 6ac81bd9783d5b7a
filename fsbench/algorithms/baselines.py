r"""Adapters to maintained feature-selection libraries: the optional extra ``fsbench[baselines]``.

Each adapter is a :class:`~fsbench.algorithms.base.BaseSelector` (``fit(X, y)`` sets a complete
``ranking_``, 1 = best) that calls the library on the training split and turns its output into a
complete order of the D features by a rule stated in the class docstring:

============== ================== ==============================================================
registry name  library (PyPI)     ranking
============== ================== ==============================================================
``hsic_lasso`` ``pyHSICLasso``    order of entry into the non-negative LARS path; the rest by HSIC
``mrmr``       ``mrmr-selection`` ``mrmr_classif`` with K = D; features of zero relevance last
``relieff``    ``skrebate``       ``feature_importances_``
``multisurf``  ``skrebate``       ``feature_importances_``
``boruta``     ``boruta``         BorutaPy's ``ranking_``, ties by the mean margin over the best shadow
============== ================== ==============================================================

The libraries are optional: they are imported inside ``fit`` (:func:`_require`), never when fsbench
starts or lists its selectors. A missing one is refused when a config is checked, before any work
starts: :meth:`_LibraryAdapter._validate_params` (which ``fsbench run`` calls for every selector, and
``fit`` calls first) raises :class:`MissingExtraError`, one line naming the extra to install; the
command line prints it and exits with code 2.

Library defects met on numpy 2.4 / scikit-learn 1.9 and how they are handled here (each is tested):

* ``pyHSICLasso`` 1.4.2: its LARS falls back on noise when the active set's Gram matrix is singular
  (e.g. two identical features), catching ``np.linalg.linalg.LinAlgError``; numpy 2 removed
  ``np.linalg.linalg``, so the fallback itself fails with ``AttributeError``. :func:`_hsic_lasso_module`
  gives that one module a numpy with the alias (numpy itself is not touched). The library also prints
  to stdout (silenced) and reseeds numpy's *global* random state (saved and restored around the call).
* ``mrmr-selection`` 0.2.8: importing it runs ``warnings.filterwarnings("ignore")``, silencing every
  warning of the process; it is imported under ``warnings.catch_warnings()``, which undoes that.
* ``skrebate`` 0.8.4: more than 10 classes are taken for a continuous target (``multiclass_threshold``)
  and a constant continuous feature divides by zero; the adapter passes ``label_type`` and scores only
  the non-constant features (constant ones rank last, as in every fsbench selector).
* ``boruta`` 0.4.3 no longer uses ``np.int`` / ``np.float`` (0.3 did) and runs unchanged.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector, ranking_from_order, ranking_from_scores

#: The optional extra of pyproject.toml that installs every library below.
EXTRA = "baselines"
INSTALL_HINT = f"pip install 'fsbench[{EXTRA}]'"


class MissingExtraError(ValueError):
    """An optional library of ``fsbench[baselines]`` is not installed (one line naming the extra).

    A ``ValueError``: a config naming the selector cannot run here, which ``fsbench run`` reports as a
    config problem (exit 2) before any work starts.
    """


def _missing(selector: str, package: str) -> MissingExtraError:
    return MissingExtraError(
        f"{selector} needs the optional package {package}, which is not installed: {INSTALL_HINT}"
    )


def _require(module: str, package: str, selector: str) -> types.ModuleType:
    """Import the optional library ``module`` (PyPI ``package``) or raise :class:`MissingExtraError`.

    The import is here, at fit time, rather than at the top of this module: the libraries are an
    optional extra (fsbench must list, check and run its other selectors without them) and some are
    slow to import (skrebate, pyHSICLasso: 1-3 s).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise _missing(selector, package) from None


class _LibraryAdapter(BaseSelector):
    """A selector that calls an optional library; refuses to validate when it is not installed."""

    #: (import name, PyPI name) of the library.
    library: tuple[str, str] = ("", "")
    supported_kernels: tuple[str, ...] = ()

    def _validate_params(self) -> None:
        super()._validate_params()
        module, package = self.library
        # find_spec, not an import: cheap, and enough to say "not installed" before a run starts
        if importlib.util.find_spec(module) is None:
            raise _missing(type(self).__name__, package)

    def _library(self) -> types.ModuleType:
        return _require(*self.library, type(self).__name__)


def _varying(X: np.ndarray) -> np.ndarray:
    """Mask of the columns of ``X`` that take more than one value."""
    return np.ptp(X, axis=0) > 0


# --------------------------------------------------------------------------------------- HSIC Lasso
class _LinalgWithAlias:
    """``numpy.linalg`` plus the ``linalg`` alias numpy 2 removed (pyHSICLasso's except clause)."""

    linalg = np.linalg

    def __getattr__(self, name: str) -> Any:
        return getattr(np.linalg, name)


class _NumpyWithLinalgAlias:
    """numpy, seen through :class:`_LinalgWithAlias` for ``np.linalg``."""

    linalg = _LinalgWithAlias()

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def _hsic_lasso_module(selector: str) -> types.ModuleType:
    """``pyHSICLasso``, its LARS module given a numpy with ``np.linalg.linalg`` on numpy >= 2."""
    lib = _require("pyHSICLasso", "pyHSICLasso", selector)
    nlars = importlib.import_module("pyHSICLasso.nlars")
    if not hasattr(np.linalg, "linalg") and nlars.np is np:
        nlars.np = _NumpyWithLinalgAlias()  # only pyHSICLasso.nlars sees it
    return lib


def hsic_lasso_order(path: np.ndarray, active: list[int], hsic: np.ndarray) -> np.ndarray:
    """Feature indices, best first, from a fitted pyHSICLasso path (the rule of :class:`HSICLasso`).

    Parameters
    ----------
    path : ndarray of shape (D, steps)
        ``HSICLasso.path``: the coefficients after each LARS step (column 0 is all zero).
    active : list of int
        ``HSICLasso.A``: the final active set (it includes the last entrant, whose coefficient is
        still 0 when the path stops).
    hsic : ndarray of shape (D,)
        ``HSICLasso.Xty``: each feature's (block) HSIC with the labels, the LARS starting correlation.

    Returns
    -------
    ndarray of int
        First the features in order of their first positive coefficient along the path (ties by that
        coefficient), then the final active members that never got one, then the rest by HSIC (ties by
        index).
    """
    D = path.shape[0]
    positive = path > 0
    entered = positive.any(axis=1)
    step = np.where(entered, positive.argmax(axis=1), path.shape[1]).astype(float)
    at_entry = path[np.arange(D), np.minimum(step.astype(int), path.shape[1] - 1)]
    in_active = np.isin(np.arange(D), active)
    step[~entered & ~in_active] = np.inf
    return np.lexsort((np.arange(D), -np.asarray(hsic, dtype=float), -np.where(entered, at_entry, 0), step))


class HSICLasso(_LibraryAdapter):
    r"""HSIC Lasso (Yamada et al. 2014) through ``pyHSICLasso``: block HSIC Lasso with the delta kernel
    on the labels and a Gaussian kernel per feature (width 1 on the feature divided by its std).

    HSIC Lasso solves :math:`\min_{\beta\ge0} \tfrac12\|\bar L - \sum_d \beta_d \bar K^{(d)}\|_F^2 +
    \lambda\|\beta\|_1` with centred, normalised Gram matrices; pyHSICLasso follows the whole
    non-negative LARS path. **Ranking rule:** the features in the order they enter the path (first
    positive coefficient; ties by that coefficient), then the last entrant that the path stopped at,
    then the features that never entered by their HSIC with the labels (the LARS starting
    correlation ``Xty``), ties by index (:func:`hsic_lasso_order`). pyHSICLasso's own
    ``classification(num_feat=S)`` returns the active set when an (S+1)-th feature enters; the top S of
    this ranking is that set whenever no feature left the path before (a lasso step may drop one).

    Parameters
    ----------
    B : int, default 20
        Block size of block HSIC Lasso (pyHSICLasso's default); 0 = vanilla HSIC Lasso (O(n²) memory
        per feature). Capped at n; samples beyond a multiple of B are left out by the library (its
        warning is silenced).
    M : int, default 3
        Permutations of the block HSIC (pyHSICLasso's default; 1 when there is a single block).
    n_jobs : int, default 1
        Workers of the library's per-feature kernel loop.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (``Xty``: each feature's HSIC with the labels), path_ (D × steps), active_

    Notes
    -----
    The library reseeds numpy's global random state (``np.random.seed(m)`` for its block permutations),
    so the blocks do not depend on ``random_state`` (there is none); the global state is restored.
    """

    description = "HSIC Lasso (pyHSICLasso): order of entry into the non-negative lasso path"
    citation = "Yamada, Jitkrittum, Sigal, Xing & Sugiyama 2014, Neural Comput. 26(1):185-207"
    library = ("pyHSICLasso", "pyHSICLasso")

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "B": [Interval(Integral, 0, None, closed="left")],
        "M": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self, B: int = 20, M: int = 3, n_jobs: int | None = 1, n_features_to_select: int | float | None = None
    ):
        self.B = B
        self.M = M
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        n, D = X.shape
        lib = _hsic_lasso_module(type(self).__name__)
        if D == 1:  # the library's LARS needs a feature left out of the active set
            self.ranking_, self.scores_ = np.array([1]), np.zeros(1)
            return
        model = lib.HSICLasso()
        model.input(np.ascontiguousarray(X), y.astype(float))
        B = n if self.B == 0 else min(self.B, n)
        state = np.random.get_state()  # noqa: NPY002 - the library seeds numpy's global state
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # "B must divide n": samples left out
                # num_feat = D - 1: the path then runs until every feature has entered or none can;
                # num_feat = D would index an empty candidate set when the last feature enters.
                model.classification(num_feat=D - 1, B=B, M=self.M, n_jobs=self.n_jobs, max_neighbors=0)
        finally:
            np.random.set_state(state)  # noqa: NPY002
        self.path_ = np.asarray(model.path, dtype=float)
        self.active_ = np.asarray(model.A, dtype=int)
        self.scores_ = np.asarray(model.Xty, dtype=float).ravel()
        self.ranking_ = ranking_from_order(hsic_lasso_order(self.path_, list(model.A), self.scores_))


# --------------------------------------------------------------------------------------------- mRMR
class MRMR(_LibraryAdapter):
    r"""Minimum redundancy – maximum relevance (Ding & Peng 2005) through ``mrmr-selection``'s
    ``mrmr_classif``, as popularised by Uber's "Maximum relevance and minimum redundancy feature
    selection methods for a marketing machine learning platform" (Zhao, Anand & Wang 2019).

    Greedy forward selection of the feature maximising relevance / mean |Pearson correlation| with the
    features already chosen (the library's FCQ variant for relevance ``"f"``). **Ranking rule:** the
    library's order with K = D; it leaves out the features whose relevance is 0 (e.g. an F statistic
    of 0), which come after, by index.

    Parameters
    ----------
    relevance : {"f", "ks", "rf"}, default "f"
        The library's relevance: ANOVA F statistic, Kolmogorov–Smirnov statistic, or random-forest
        importance (the library fixes that forest's ``random_state=0``).
    denominator : {"mean", "max"}, default "mean"
        How the library aggregates the redundancy with the chosen features.
    n_jobs : int, default 1
        The library's joblib workers.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (the relevance; 0 where the library left a feature out)

    Notes
    -----
    One pass costs O(D²) correlations and, in the library's pandas bookkeeping, grows like D³:
    fine for hundreds of features, slow for thousands.
    """

    description = "mRMR (mrmr-selection, mrmr_classif): relevance / mean correlation, greedy forward"
    citation = "Ding & Peng 2005, J. Bioinform. Comput. Biol. 3(2):185-205; Zhao, Anand & Wang 2019"
    library = ("mrmr", "mrmr-selection")

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "relevance": [StrOptions({"f", "ks", "rf"})],
        "denominator": [StrOptions({"mean", "max"})],
        "n_jobs": [Integral],
    }

    def __init__(
        self,
        relevance: str = "f",
        denominator: str = "mean",
        n_jobs: int = 1,
        n_features_to_select: int | float | None = None,
    ):
        self.relevance = relevance
        self.denominator = denominator
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        with warnings.catch_warnings():  # the library's import silences every warning; undo that
            mrmr = _require("mrmr", "mrmr-selection", type(self).__name__)
        D = X.shape[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (RuntimeWarning, UserWarning))  # f_classif of a constant feature
            selected, relevance, _ = mrmr.mrmr_classif(
                X=pd.DataFrame(X),
                y=pd.Series(y),
                K=D,
                relevance=self.relevance,
                denominator=self.denominator,
                n_jobs=self.n_jobs,
                show_progress=False,
                return_scores=True,
            )
        order = [int(j) for j in selected]
        rest = sorted(set(range(D)) - set(order))
        scores = np.zeros(D)
        scores[order] = relevance.loc[selected].to_numpy(dtype=float)
        self.scores_ = scores
        self.ranking_ = ranking_from_order(np.array(order + rest, dtype=int))


# -------------------------------------------------------------------------------- ReliefF, MultiSURF
class _Relief(_LibraryAdapter):
    """Common part of the skrebate adapters: constant features left out, label type stated."""

    library = ("skrebate", "skrebate")
    _estimator_name = ""

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "categorical": ["array-like", None],
        "n_jobs": [Integral],
    }

    def _library_params(self) -> dict[str, Any]:
        return {}

    def _fit(self, X, y):
        skrebate = self._library()
        keep = _varying(X)
        scores = np.full(X.shape[1], np.nan)  # constant features: no score, ranked last
        if keep.any():
            cat = np.zeros(X.shape[1], dtype=bool)
            if self.categorical is not None:
                c = np.asarray(self.categorical)
                cat[c if c.dtype != bool else np.flatnonzero(c)] = True
            est = getattr(skrebate, self._estimator_name)(
                n_features_to_select=int(keep.sum()),
                categorical_features=None if self.categorical is None else list(np.flatnonzero(cat[keep])),
                label_type="binary" if y.max() == 1 else "multiclass",
                n_jobs=self.n_jobs,
                **self._library_params(),
            )
            est.fit(X[:, keep], y)
            scores[keep] = est.feature_importances_
        self.scores_ = scores
        self.ranking_ = ranking_from_scores(scores)


class ReliefF(_Relief):
    r"""ReliefF (Kononenko 1994; Robnik-Šikonja & Kononenko 2003) through ``skrebate.ReliefF``.

    Each sample's k nearest hits and k nearest misses (per other class, weighted by its prior; Manhattan
    distance on min–max scaled features) update each feature's weight by how much more it differs on
    the misses than on the hits. **Ranking rule:** ``feature_importances_``, higher first, ties by index.

    Parameters
    ----------
    n_neighbors : int, default 10
        k [D]: the value Robnik-Šikonja & Kononenko 2003 recommend (skrebate's default is 100, more
        than the training sets of most papers' protocols hold).
    categorical : bool mask, list of indices or None, default None
        Features skrebate treats as categorical (Hamming difference). ``None``: skrebate decides (10
        or fewer distinct values = categorical). A run passes the dataset card's mask, so there a
        feature is categorical only when its card says so.
    n_jobs : int, default 1
    n_features_to_select : int, float or None

    Notes
    -----
    skrebate reads more than 10 classes as a continuous target; the adapter passes ``label_type``
    (``"binary"`` or ``"multiclass"``). Constant features are left out of the library's input (skrebate
    divides by their zero range) and ranked last.
    """

    description = "ReliefF (skrebate): k nearest hits and misses, feature weights"
    citation = "Kononenko 1994, ECML; Robnik-Sikonja & Kononenko 2003, Mach. Learn. 53:23-69"
    _estimator_name = "ReliefF"

    _parameter_constraints: dict = {
        **_Relief._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_neighbors: int = 10,
        categorical=None,
        n_jobs: int = 1,
        n_features_to_select: int | float | None = None,
    ):
        self.n_neighbors = n_neighbors
        self.categorical = categorical
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def _library_params(self) -> dict[str, Any]:
        return {"n_neighbors": self.n_neighbors}


class MultiSURF(_Relief):
    r"""MultiSURF (Urbanowicz et al. 2018) through ``skrebate.MultiSURF``: a Relief whose neighbours of a
    sample are those closer than its mean distance minus half its standard deviation (no k).

    **Ranking rule:** ``feature_importances_``, higher first, ties by index. Same input handling as
    :class:`ReliefF` (``categorical``, ``label_type``, constant features last).

    Parameters
    ----------
    categorical : bool mask, list of indices or None, default None
    n_jobs : int, default 1
    n_features_to_select : int, float or None
    """

    description = "MultiSURF (skrebate): Relief with adaptive neighbourhoods, feature weights"
    citation = "Urbanowicz, Olson, Schmitt, Meeker & Moore 2018, J. Biomed. Inform. 85:168-188"
    _estimator_name = "MultiSURF"

    def __init__(self, categorical=None, n_jobs: int = 1, n_features_to_select: int | float | None = None):
        self.categorical = categorical
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select


# ------------------------------------------------------------------------------------------- Boruta
class Boruta(_LibraryAdapter):
    r"""Boruta (Kursa & Rudnicki 2010) through ``boruta.BorutaPy`` with a random forest.

    Each iteration fits the forest on the features still in play plus shuffled copies ("shadows") and
    counts a hit for a feature that beats the best shadow; a binomial test confirms or rejects it.
    BorutaPy's own ``ranking_`` gives 1 to every confirmed feature, 2 to tentative ones and orders
    the rejected by their median per-iteration rank. **Ranking rule:** BorutaPy's ``ranking_``, ties
    (all confirmed features share rank 1) broken by the feature's mean margin over the best shadow,
    :math:`\mathrm{mean}_t\,(I_{t,d} - \max_s I_{t,s})` over the iterations it was in play, then by
    index. ``scores_`` holds that margin.

    Parameters
    ----------
    n_estimators : int or "auto", default "auto"
        Trees per iteration; ``"auto"``: BorutaPy's rule from the number of features in play.
    max_depth : int or None, default 5
        Tree depth (the BorutaPy README's forest: ``max_depth=5``, ``class_weight="balanced"``).
    perc : int, default 100
        Percentile of the shadow importances a hit must beat (100 = the maximum).
    alpha : float, default 0.05
        Level of the corrected tests.
    max_iter : int, default 100
    random_state : int, RandomState or None, default None
        Seeds BorutaPy (shadow shuffles and the forests).
    n_jobs : int or None, default 1
        The forest's workers.
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_, boruta_ranking_ (BorutaPy's), boruta_support_ (confirmed), importance_history_,
    shadow_max_history_, n_iter_, converged_ (False when ``max_iter`` ended it with features undecided)
    """

    description = "Boruta (BorutaPy): shadow-feature test, ranked by its ranking_ and mean shadow margin"
    citation = "Kursa & Rudnicki 2010, J. Stat. Softw. 36(11)"
    library = ("boruta", "boruta")

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "perc": [Interval(Integral, 1, 100, closed="both")],
        "alpha": [Interval(Real, 0, 1, closed="right")],
        "max_iter": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_estimators: int | str = "auto",
        max_depth: int | None = 5,
        perc: int = 100,
        alpha: float = 0.05,
        max_iter: int = 100,
        random_state=None,
        n_jobs: int | None = 1,
        n_features_to_select: int | float | None = None,
    ):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.perc = perc
        self.alpha = alpha
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def boruta(self):
        """The unfitted ``BorutaPy`` this adapter runs (its forest included)."""
        lib = self._library()
        forest = RandomForestClassifier(max_depth=self.max_depth, class_weight="balanced", n_jobs=self.n_jobs)
        return lib.BorutaPy(
            forest,
            n_estimators=self.n_estimators,
            perc=self.perc,
            alpha=self.alpha,
            max_iter=self.max_iter,
            random_state=check_random_state(self.random_state),
        )

    def _fit(self, X, y):
        bp = self.boruta()
        shadow_max: list[float] = []
        record = bp._assign_hits

        def _assign_hits(hit_reg, cur_imp, imp_sha_max):  # BorutaPy keeps no history of the best shadow
            shadow_max.append(float(imp_sha_max))
            return record(hit_reg, cur_imp, imp_sha_max)

        bp._assign_hits = _assign_hits
        bp.fit(X, y)
        history = np.asarray(bp.importance_history_[1:], dtype=float)  # row 0 is BorutaPy's zeros
        self.shadow_max_history_ = np.asarray(shadow_max)
        self.n_iter_ = len(shadow_max)
        # BorutaPy stops early only when every feature is decided; at the cap some stay tentative
        self.converged_ = self.n_iter_ < self.max_iter - 1
        self.importance_history_ = history
        margin = history - self.shadow_max_history_[:, None]  # NaN once a feature is rejected
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column cannot occur; stay quiet
            scores = np.nanmean(margin, axis=0)
        self.scores_ = scores
        self.boruta_ranking_ = np.asarray(bp.ranking_, dtype=int)
        self.boruta_support_ = np.asarray(bp.support_, dtype=bool)
        D = X.shape[1]
        key = np.where(np.isnan(scores), -np.inf, scores)
        self.ranking_ = ranking_from_order(np.lexsort((np.arange(D), -key, self.boruta_ranking_)))
