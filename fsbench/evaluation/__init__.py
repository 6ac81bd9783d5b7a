"""Evaluation of one task: splits and seeds (:mod:`~fsbench.evaluation.resampling`), the protocol that fits a
selector and scores its top-S features (:mod:`~fsbench.evaluation.protocol`), the classifiers that score
them (:mod:`~fsbench.evaluation.classifiers`), per-pair selection (:mod:`~fsbench.evaluation.pairwise`) and
user plug-ins (:mod:`~fsbench.evaluation.plugins`)."""
