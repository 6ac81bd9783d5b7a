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

To add a classifier: a function with the signature of :func:`_svm` and one line in :data:`CLASSIFIERS`
(plus its options in :data:`fsbench.config.CLASSIFIER_OPTIONS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.svm import SVC

from fsbench.algorithms.kernels import Kernel, joachims_C


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
    from fsbench.algorithms.kernels import origin_sq_distances
    from fsbench.algorithms.svm import PairwiseCouplingSVC

    kern = _kernel(kernel).resolved(Z_tr)
    c = joachims_C(kern, Z_tr) if protocol.C == "joachims" else float(protocol.C)
    clf = PairwiseCouplingSVC(C=None if protocol.C == "joachims" else c, random_state=random_state)
    clf.fit(kern.gram(Z_tr), y_tr, origin_sq_dist=origin_sq_distances(kern, Z_tr))
    return Fitted(clf.predict(kern.gram(Z_te, Z_tr)), c)  # the whole-set Ĉ is reported


def _knn(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    from sklearn.neighbors import KNeighborsClassifier

    if protocol.k > len(y_tr):
        raise ValueError(f"knn with k = {protocol.k} needs at least k training samples, got {len(y_tr)}")
    pred = KNeighborsClassifier(n_neighbors=protocol.k).fit(Z_tr, y_tr).predict(Z_te)
    return Fitted(pred, float("nan"))


def _clinical_svm(Z_tr, y_tr, Z_te, kernel, protocol, *, categorical=None, random_state=None) -> Fitted:
    from fsbench.algorithms.clinical_kernel import ClinicalKernel

    kern = ClinicalKernel(categorical).fit(Z_tr)
    c = float(protocol.C)
    clf = SVC(kernel="precomputed", C=c, class_weight=protocol.class_weight).fit(kern.gram(Z_tr), y_tr)
    return Fitted(clf.predict(kern.gram(Z_te, Z_tr)), c)


#: name -> fit-and-predict function
CLASSIFIERS: dict[str, Callable[..., Fitted]] = {
    "svm": _svm,
    "svm_coupling": _svm_coupling,
    "knn": _knn,
    "clinical_svm": _clinical_svm,
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
    return CLASSIFIERS[protocol.classifier](
        Z_tr, y_tr, Z_te, kernel, protocol, categorical=categorical, random_state=random_state
    )
