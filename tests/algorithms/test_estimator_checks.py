"""scikit-learn's estimator checks for every registered selector.

Selectors are built with small iteration budgets so the ~50 checks stay fast. Checks that cannot
apply are listed in ``EXPECTED_FAILED`` with the reason (sklearn reports them as xfail).
"""

import importlib.util

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsbench.algorithms.registry import available, get_selector, resolve

#: Small budgets so that the checks run quickly; keys are registry names.
FAST_PARAMS: dict[str, dict] = {
    "sas": {"max_iter": 5},
    "sas_rff": {"max_iter": 5, "n_components": 50},
    "rfe_mkl_clinical": {"max_iter": 5},
    "random_forest": {"n_estimators": 10},
    "stability_selection": {"n_subsamples": 10},
    "exhaustive_wrapper": {"d": 1, "cv": 3},
    "r2w2": {"max_iter": 3},
    "scss": {"max_iter": 5},
    "sfs": {"max_iter": 5},
    "kfds": {"max_iter": 3},
    "arom": {"max_iter": 3},
    "boruta": {"n_estimators": 5, "max_iter": 3},
    "rf_permutation": {"n_estimators": 10, "n_repeats": 2},
    "l1_svm": {"n_Cs": 5},
}

#: Checks that cannot apply, with the reason (documented, not hidden).
EXPECTED_FAILED: dict[str, dict[str, str]] = {}


def _installed(name: str) -> bool:
    """False for an adapter whose optional library (``fsbench[baselines]``) is not installed."""
    module = getattr(resolve(name), "library", ("",))[0]
    return not module or importlib.util.find_spec(module) is not None


def _instances():
    out = []
    for name in filter(_installed, available()):
        est = get_selector(name, **FAST_PARAMS.get(name, {}))
        out.append(est)
    return out


def _expected_failed(est):
    for name in available():
        if type(est) is resolve(name):
            return EXPECTED_FAILED.get(name, {})
    return {}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", available())
def test_registry_metadata(name):
    from fsbench.algorithms.registry import info

    meta = info(name)
    assert meta.description and "\n" not in meta.description
    assert meta.citation
