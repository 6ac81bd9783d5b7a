"""Final classifiers of the protocol: the config's ``classifier`` name → a fit-and-predict function.

Every classifier is trained on the top-S features (or the first S output dimensions of a transformer) of
the training split and predicts the test split; the protocol turns the predictions into metrics. Options
come from the config (``classifier: {name, C, class_weight, k}``, :class:`fsbench.config.ProtocolConfig`).

``svm``
    scikit-learn's ``SVC(kernel="precomputed")`` on the experiment's kernel (one-vs-one voting for
    multiclass), C = Joachims' Ĉ = 1/R̄² on the training split and feature subset, or a fixed C;
    ``class_weight: balanced`` weights the classes by inverse frequency.
``svm_coupling``
    fsbench's pairwise SVMs with Platt scaling and Hastie–Tibshirani coupling (Ramona 2012 §V-B4), Ĉ per
    pair on that pair's points (ALGORITHMS.md §5 [D]); its Platt cross-validation uses ``random_state``.
``knn``
    Euclidean k-nearest neighbours (the 1-NN of TAKES and KIFE's ``knnclassify``); ``k`` must not exceed
    the training size (checked before the run).
``clinical_svm``
    An SVM on the clinical kernel of Paul et al. 2015 restricted to the selected features
    (:class:`fsbench.algorithms.clinical_kernel.ClinicalKernel`: ranges from the training split, test
    values clipped, ``k_f = 0`` for a missing value), with a fixed C and optional class weights; needs the
    dataset card's categorical mask, which the protocol passes.

``random_forest``
    scikit-learn's default forest (100 trees), seeded by the task's split seed; ``logreg``: L2 logistic
    regression with C = 1. Both exist to *evaluate* the same rankings with other learners than the kernel
    the selectors optimise
    (``protocol.evaluators``).

To add a classifier: a function with the signature of :func:`_svm` in :data:`_FIT_PREDICT`, and one line in
:data:`fsbench.config.classifier_names.CLASSIFIER_SPECS` naming it and its options;
:mod:`fsbench.config.experiment` reads the names and options from there.

Under ``selection: per_pair`` (:mod:`fsbench.evaluation.pairwise`) every pair of classes has its own feature
subset, so there is no single Z: :func:`fit_predict_per_pair` trains the pairwise machines of ``svm`` (voting)
or ``svm_coupling`` (Platt + Hastie–Tibshirani) one pair at a time, each on its own columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from fsbench.algorithms.clinical_kernel import ClinicalKernel
from fsbench.algorithms.coupling import couple_hastie_tibshirani
from fsbench.algorithms.kernels import Kernel, joachims_C, origin_sq_distances
from fsbench.algorithms.svm import PairwiseCouplingSVC
from fsbench.config.classifier_names import CLASSIFIER_SPECS, PER_PAIR_CLASSIFIERS


@dataclass(frozen=True)
class Fitted:
    """Predictions of a final classifier and the C it used (NaN where C does not apply)."""

    predictions: np.ndarray
    C: float


def _kernel(kernel: Any) -> Kernel:
    return Kernel(kernel.name, kernel.gamma, kernel.degree, kernel.offset, kernel.scale)


def _svm(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    kern = _kernel(kernel).resolved(Z_tr)
    c = joachims_C(kern, Z_tr) if protocol.C == "joachims" else float(protocol.C)
    clf = SVC(kernel="precomputed", C=c, class_weight=protocol.class_weight).fit(kern.gram(Z_tr), y_tr)
    return Fitted(clf.predict(kern.gram(Z_te, Z_tr)), c)


def _svm_coupling(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    kern = _kernel(kernel).resolved(Z_tr)
    c = joachims_C(kern, Z_tr) if protocol.C == "joachims" else float(protocol.C)
    clf = PairwiseCouplingSVC(C=None if protocol.C == "joachims" else c, random_state=random_state)
    clf.fit(kern.gram(Z_tr), y_tr, origin_sq_dist=origin_sq_distances(kern, Z_tr))
    return Fitted(clf.predict(kern.gram(Z_te, Z_tr)), c)  # the whole-set Ĉ is reported


def _knn(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    if protocol.k > len(y_tr):
        raise ValueError(f"knn with k = {protocol.k} needs at least k training samples, got {len(y_tr)}")
    pred = KNeighborsClassifier(n_neighbors=protocol.k).fit(Z_tr, y_tr).predict(Z_te)
    return Fitted(pred, float("nan"))


def _clinical_svm(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    kern = ClinicalKernel(categorical).fit(Z_tr)
    c = float(protocol.C)
    clf = SVC(kernel="precomputed", C=c, class_weight=protocol.class_weight).fit(kern.gram(Z_tr), y_tr)
    return Fitted(clf.predict(kern.gram(Z_te, Z_tr)), c)


def _random_forest(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    """[D] scikit-learn's defaults (100 trees, sqrt(S) features per split, fully grown trees), seeded by the
    task's split seed: an evaluator that neither uses the kernel nor shares the SVM's geometry."""
    clf = RandomForestClassifier(n_estimators=100, random_state=random_state, n_jobs=1).fit(Z_tr, y_tr)
    return Fitted(clf.predict(Z_te), float("nan"))


def _logreg(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    """[D] L2-regularised logistic regression with scikit-learn's C = 1 (lbfgs, multinomial for several
    classes, up to 1,000 iterations) on the z-scored features: the linear evaluator."""
    clf = LogisticRegression(C=1.0, max_iter=1000).fit(Z_tr, y_tr)
    return Fitted(clf.predict(Z_te), 1.0)


@dataclass(frozen=True)
class Classifier:
    """A final classifier: its fit-and-predict function and the config options it accepts besides ``name``."""

    fit_predict: Callable[..., Fitted]
    options: frozenset[str]
    #: Whether it can run under ``selection: per_pair`` (:func:`fit_predict_per_pair`).
    per_pair: bool = False


_FIT_PREDICT = {
    "svm": _svm,
    "svm_coupling": _svm_coupling,
    "knn": _knn,
    "clinical_svm": _clinical_svm,
    "random_forest": _random_forest,
    "logreg": _logreg,
}
#: name -> classifier, the one list of final classifiers; names, options and per-pair capability come from
#: :mod:`fsbench.config.classifier_names` (what config validation reads, without scikit-learn).
CLASSIFIERS: dict[str, Classifier] = {
    name: Classifier(_FIT_PREDICT[name], options, per_pair=per_pair)
    for name, (options, per_pair) in CLASSIFIER_SPECS.items()
}


def fit_predict(
    Z_tr: np.ndarray,
    y_tr: np.ndarray,
    Z_te: np.ndarray,
    kernel: Any,
    protocol: Any,
    *,
    categorical: np.ndarray | None = None,
    random_state: int | None = None,
) -> Fitted:
    """Train the protocol's final classifier on ``Z_tr`` and predict ``Z_te``.

    Parameters
    ----------
    Z_tr, Z_te : ndarray of shape (n, S)
        Training and test data restricted to the selected features (or transformer outputs).
    y_tr : ndarray of shape (n,)
        Class indices of the training split.
    kernel : KernelConfig
        The experiment's kernel (used by the SVMs on vector data).
    protocol : ProtocolConfig
        Its ``classifier``, ``C``, ``k`` and ``class_weight``.
    categorical : ndarray of bool, optional
        Which columns of ``Z`` are categorical (the clinical kernel needs it).
    random_state : int, optional
        Seed of a classifier's own randomness (Platt cross-validation).

    Returns
    -------
    Fitted
    """
    return CLASSIFIERS[protocol.classifier].fit_predict(
        Z_tr, y_tr, Z_te, kernel, protocol, categorical=categorical, random_state=random_state
    )


def fit_predict_per_pair(
    X_tr: np.ndarray,
    y_tr: np.ndarray,
    X_te: np.ndarray,
    columns: Sequence[np.ndarray],
    kernel: Any,
    protocol: Any,
    *,
    random_state: int | None = None,
) -> Fitted:
    r"""One-vs-one machines, each on its own feature subset, combined as the protocol's classifier does.

    Pair (a, b), a < b, in the order of :func:`itertools.combinations` (libsvm's), is trained on the
    training points of classes a and b restricted to ``columns[p]``. Its C is Joachims' Ĉ on those points
    and columns (or the protocol's fixed C), as the pairs of the global ``svm_coupling`` get theirs; its
    kernel's width rule is resolved on them too, whereas the global classifiers resolve it once on all
    training rows (per pair there is no single column set; with a numeric ``gamma`` the two agree).
    ``class_weight: balanced`` weights a pair's two classes by their counts in the pair.

    * ``svm_coupling``: each pair's machine is a two-class :class:`PairwiseCouplingSVC` (its Platt sigmoid
      fitted on an internal 5-fold CV; the folds of all pairs come from one generator seeded by
      ``random_state``, taken in pair order as the global classifier takes it); its
      :math:`r_{ab}(x) = P(a \mid a \text{ or } b, x)` on the test points are coupled by
      Hastie–Tibshirani with weights :math:`n_{ab}` (the pair's training points), and the prediction is
      the class of largest coupled probability.
    * ``svm``: each pair is ``SVC(kernel="precomputed")``; the prediction is the majority vote of the
      pairs (ties to the lower class index).

    Parameters
    ----------
    X_tr, X_te : ndarray of shape (n, D)
        Training and test data with all D features.
    y_tr : ndarray of shape (n_train,)
        Class indices 0..C-1.
    columns : sequence of C(C-1)/2 integer arrays
        The feature columns of each pair.
    kernel, protocol, random_state
        As for :func:`fit_predict`.

    Returns
    -------
    Fitted
        Predictions, and the mean of the pairs' C (the global ``svm_coupling`` reports the whole-set Ĉ
        instead, so the two ``C`` columns are not comparable).
    """
    if protocol.classifier not in PER_PAIR_CLASSIFIERS:
        raise ValueError(
            f"per-pair selection needs the svm or svm_coupling classifier, got {protocol.classifier!r}"
        )
    classes = np.unique(y_tr)
    pairs = list(combinations(range(classes.size), 2))
    if len(columns) != len(pairs):
        raise ValueError(
            f"expected {len(pairs)} column subsets (one per pair of classes), got {len(columns)}"
        )
    fixed_C = None if protocol.C == "joachims" else float(protocol.C)
    rng = np.random.RandomState(random_state)  # one stream over the pairs, in pair order
    n, k = X_te.shape[0], classes.size
    r = np.zeros((n, k, k))
    votes = np.zeros((n, k))
    weights = np.zeros((k, k))
    Cs = []
    for (a, b), cols in zip(pairs, columns, strict=True):
        cols = np.asarray(cols, dtype=int)
        idx = np.flatnonzero((y_tr == classes[a]) | (y_tr == classes[b]))
        Z_tr, Z_te = X_tr[np.ix_(idx, cols)], X_te[:, cols]
        kern = _kernel(kernel).resolved(Z_tr)
        K_tr, K_te = kern.gram(Z_tr), kern.gram(Z_te, Z_tr)
        if protocol.classifier == "svm_coupling":
            clf = PairwiseCouplingSVC(C=fixed_C, random_state=rng)
            # labels 0 = class a, 1 = class b: the machine's only pair (0, 1) gives P(a | a or b)
            clf.fit(
                K_tr, (y_tr[idx] == classes[b]).astype(int), origin_sq_dist=origin_sq_distances(kern, Z_tr)
            )
            r[:, a, b] = clf.pairwise_proba(clf.pairwise_decision(K_te))[:, 0, 1]
            weights[a, b] = weights[b, a] = idx.size
            Cs.append(float(clf.pair_C_[0]))
        else:
            c = joachims_C(kern, Z_tr) if fixed_C is None else fixed_C
            svc = SVC(kernel="precomputed", C=c, class_weight=protocol.class_weight).fit(K_tr, y_tr[idx])
            np.add.at(votes, (np.arange(n), np.searchsorted(classes, svc.predict(K_te))), 1)
            Cs.append(c)
    if protocol.classifier == "svm_coupling":
        proba = couple_hastie_tibshirani(r, weights)[0]
        pred = np.argmax(proba, axis=1)
    else:
        pred = np.argmax(votes, axis=1)  # the first maximum: ties go to the lower class
    return Fitted(classes[pred], float(np.mean(Cs)))
