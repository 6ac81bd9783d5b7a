r"""Random-forest importances: impurity (the tree-ensemble baseline of Paul et al. 2015, §1) and permutation.

Paul et al. name Random Forests (Breiman 2001) as the natural embedded selector for mixed data.
:class:`RandomForestImportance`: ``sklearn.ensemble.RandomForestClassifier`` (Gini), features ranked by
the mean decrease in impurity (``feature_importances_``), ties by index.
:class:`PermutationImportance`: the drop in held-out accuracy when a feature is shuffled
(``sklearn.inspection.permutation_importance``), on a part of the *training* split kept from the forest.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from fsbench.algorithms.base import BaseSelector, ranking_from_scores
from fsbench.algorithms.clinical import _NaNTolerantSelector, one_hot_encode
from fsbench.algorithms.clinical_kernel import categorical_mask

ENCODINGS = ("ordinal", "onehot")


class RandomForestImportance(_NaNTolerantSelector):
    r"""Rank features by the Gini (mean decrease in impurity) importance of a random forest.

    Parameters
    ----------
    n_estimators : int, default 500
        [D] randomForest's (R) default ``ntree``, which the RF-vs-kernel literature of the time used;
        scikit-learn's 100 gives noticeably less stable rankings.
    max_features : {"sqrt", "log2"}, int, float or None, default "sqrt"
        Features tried per split (Breiman's :math:`\sqrt D` for classification).
    categorical : bool mask, list of indices or None, default None
        Only used by ``encoding="onehot"``.
    encoding : {"ordinal", "onehot"}, default "ordinal"
        ``"ordinal"``: every column as given (categorical codes as numbers, as a scikit-learn
        user would; scikit-learn trees have no categorical splits). ``"onehot"``: categorical
        features one-hot encoded, a feature's importance = the sum over its columns.
        Missing values (NaN) are handled natively by scikit-learn's trees (``"ordinal"``) or by
        :func:`fsbench.algorithms.clinical.one_hot_encode` (``"onehot"``).
    random_state : int, RandomState or None, default None
        Seeds the forest (bootstrap samples and split candidates).
    n_jobs : int or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (the importances), forest_ (the fitted forest)
    """

    description = "random forest (Gini) impurity importance; mixed-data tree-ensemble baseline"
    citation = "Breiman 2001, Mach. Learn. 45:5-32; baseline named in Paul et al. 2015, §1"
    supported_kernels: tuple[str, ...] = ()

    _parameter_constraints: dict = {
        **_NaNTolerantSelector._parameter_constraints,
        # the forest's own declarations (its fit skips them: fit runs under our _fit_context)
        **{
            k: RandomForestClassifier._parameter_constraints[k]
            for k in ("n_estimators", "max_features", "random_state", "n_jobs")
        },
        "categorical": ["array-like", None],
        "encoding": [StrOptions(set(ENCODINGS))],
    }

    def __init__(
        self,
        n_estimators: int = 500,
        max_features="sqrt",
        categorical=None,
        encoding: str = "ordinal",
        random_state=None,
        n_jobs: int | None = None,
        n_features_to_select: int | float | None = None,
    ):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.categorical = categorical
        self.encoding = encoding
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        D = X.shape[1]
        if self.encoding == "onehot":
            Z, group = one_hot_encode(X, categorical_mask(self.categorical, D))
        else:
            Z, group = X, np.arange(D)
        self.forest_ = RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_features=self.max_features,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
        ).fit(Z, y)
        scores = np.bincount(group, weights=self.forest_.feature_importances_, minlength=D)
        self.scores_ = scores
        self.ranking_ = ranking_from_scores(scores)


def holdout_split(y: np.ndarray, holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (fit, held out) of a split of the training labels ``y``: stratified when every class has
    two samples or more, else a plain random split; each part keeps at least one sample."""
    idx = np.arange(y.size)
    n_out = min(max(1, int(round(holdout * y.size))), y.size - 1)
    stratify = y if np.bincount(y).min() >= 2 and n_out >= np.unique(y).size else None
    try:
        fit, out = train_test_split(idx, test_size=n_out, random_state=seed, stratify=stratify)
    except ValueError:  # a stratified split that cannot give every class a place in both parts
        fit, out = train_test_split(idx, test_size=n_out, random_state=seed)
    return np.sort(fit), np.sort(out)


class PermutationImportance(BaseSelector):
    r"""Permutation importance (Breiman 2001) of a random forest, on held-out *training* samples.

    The training split is cut once (``holdout`` of it held out, stratified where possible,
    :func:`holdout_split`); a forest is fitted on the rest, and each feature's importance is the mean
    drop in the forest's accuracy on the held-out part over ``n_repeats`` shuffles of that feature
    (``sklearn.inspection.permutation_importance``). The run's test split is never seen (the selector
    only gets the training split). Higher first, ties by index.

    Seeds: ``check_random_state(random_state).randint(2**31 - 1, size=3)`` gives the split's, the
    forest's and the shuffles' seeds, in that order.

    Parameters
    ----------
    n_estimators : int, default 100
        Trees of the forest (scikit-learn's default).
    holdout : float in (0, 1), default 1/3
        Share of the training split held out for the permutations.
    n_repeats : int, default 5
        Shuffles per feature (scikit-learn's default).
    random_state : int, RandomState or None, default None
    n_jobs : int or None, default None
    n_features_to_select : int, float or None

    Attributes
    ----------
    ranking_, scores_ (mean accuracy drops), forest_, holdout_ (held-out indices into the training split)
    """

    description = "permutation importance of a random forest on held-out training samples"
    citation = "Breiman 2001, Mach. Learn. 45:5-32; scikit-learn permutation_importance"
    supported_kernels: tuple[str, ...] = ()

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "holdout": [Interval(Real, 0, 1, closed="neither")],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_estimators: int = 100,
        holdout: float = 1 / 3,
        n_repeats: int = 5,
        random_state=None,
        n_jobs: int | None = None,
        n_features_to_select: int | float | None = None,
    ):
        self.n_estimators = n_estimators
        self.holdout = holdout
        self.n_repeats = n_repeats
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        split_seed, forest_seed, shuffle_seed = check_random_state(self.random_state).randint(
            2**31 - 1, size=3
        )
        fit, out = holdout_split(y, self.holdout, int(split_seed))
        self.holdout_ = out
        self.forest_ = RandomForestClassifier(
            n_estimators=self.n_estimators, random_state=int(forest_seed), n_jobs=self.n_jobs
        ).fit(X[fit], y[fit])
        result = permutation_importance(
            self.forest_,
            X[out],
            y[out],
            n_repeats=self.n_repeats,
            random_state=int(shuffle_seed),
            n_jobs=self.n_jobs,
        )
        self.scores_ = np.asarray(result.importances_mean, dtype=float)
        self.ranking_ = ranking_from_scores(self.scores_)
