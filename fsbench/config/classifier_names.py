"""Names, config options and per-pair capability of the final classifiers: what a config is checked against.

Defined here, without scikit-learn, so that reading and validating a config (:mod:`fsbench.config.experiment`)
imports no heavy library; :data:`fsbench.evaluation.classifiers.CLASSIFIERS` pairs each name with its
fit-and-predict function.
"""

from __future__ import annotations

#: name -> (the config options it accepts besides ``name``, whether it can run under ``selection: per_pair``)
CLASSIFIER_SPECS: dict[str, tuple[frozenset[str], bool]] = {
    "svm": (frozenset({"C", "class_weight"}), True),
    "svm_coupling": (frozenset({"C"}), True),
    "knn": (frozenset({"k"}), False),
    "clinical_svm": (frozenset({"C", "class_weight"}), False),
    "random_forest": (frozenset(), False),
    "logreg": (frozenset(), False),
}
#: name -> the config options it accepts besides ``name``.
CLASSIFIER_OPTIONS: dict[str, frozenset[str]] = {name: spec[0] for name, spec in CLASSIFIER_SPECS.items()}
#: Classifiers that ``selection: per_pair`` accepts.
PER_PAIR_CLASSIFIERS = tuple(name for name, (_, per_pair) in CLASSIFIER_SPECS.items() if per_pair)


def evaluator_label(name: str, k: int = 1) -> str:
    """What a result row's ``classifier`` column says for an evaluator: its name, with k for a k-NN of
    k > 1 (``knn_k5``), so that two k-NN evaluators stay apart."""
    return f"{name}_k{k}" if name == "knn" and k != 1 else name
