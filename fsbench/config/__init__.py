"""Experiment configs: YAML files and their ``base:`` chains (:mod:`~fsbench.config.files`), the validated
experiment (:mod:`~fsbench.config.experiment`) and the names of the evaluation classifiers it checks
against (:mod:`~fsbench.config.classifier_names`). Imports no algorithm: a config error is found, and said in
one line, before any heavy module is loaded."""
