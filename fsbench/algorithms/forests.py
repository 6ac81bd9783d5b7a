r"""Random-forest impurity importance: the tree-ensemble baseline of Paul et al. 2015 (§1).

Paul et al. name Random Forests (Breiman 2001) as the natural embedded selector for mixed data.
Here: ``sklearn.ensemble.RandomForestClassifier`` (Gini), features ranked by the mean decrease in
impurity (``feature_importances_``), ties by index.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils._param_validation import StrOptions

from fsbench.algorithms.base import ranking_from_scores
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
