"""Config name → selector class.

Entries are import paths, imported only when asked for, so adding a selector is one line here.
A config may also name any class by import path, ``package.module:Class``, to plug in a user's own
selector without touching fsbench: it must be a scikit-learn estimator whose ``fit(X, y)`` sets
``ranking_`` (1 = best, complete), or a transformer; :mod:`fsbench.evaluation.plugins` checks that contract
when the config is read.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any

#: name -> "module:Class"
_SELECTORS: dict[str, str] = {
    "all": "fsbench.algorithms.filters:AllFeatures",
    "fisher": "fsbench.algorithms.filters:FisherScore",
    "sas": "fsbench.algorithms.alignment:SAS",
    "sas_rff": "fsbench.algorithms.alignment:SASRFF",
    "r2w2": "fsbench.algorithms.radius_margin:R2W2",
    "rfe": "fsbench.algorithms.rfe:SVMRFE",
    "fspp": "fsbench.algorithms.sensitivity:FSPP",
    "rfe_svm_clinical": "fsbench.algorithms.clinical:ClinicalSVMRFE",
    "rfe_mkl_clinical": "fsbench.algorithms.clinical:ClinicalMKLRFE",
    "rfe_linear_onehot": "fsbench.algorithms.clinical:OneHotLinearSVMRFE",
    "random_forest": "fsbench.algorithms.forests:RandomForestImportance",
    "rf_permutation": "fsbench.algorithms.forests:PermutationImportance",
    "random_ranking": "fsbench.algorithms.filters:RandomRanking",
    "anova_f": "fsbench.algorithms.filters:ANOVAF",
    "mutual_info": "fsbench.algorithms.filters:MutualInfo",
    "l1_svm": "fsbench.algorithms.l1_path:L1SVMPath",
    # adapters to optional libraries (pip install 'fsbench[baselines]'), fsbench/algorithms/baselines.py
    "hsic_lasso": "fsbench.algorithms.baselines:HSICLasso",
    "mrmr": "fsbench.algorithms.baselines:MRMR",
    "relieff": "fsbench.algorithms.baselines:ReliefF",
    "multisurf": "fsbench.algorithms.baselines:MultiSURF",
    "boruta": "fsbench.algorithms.baselines:Boruta",
    # information-theoretic filters on discretised features, fsbench/algorithms/information.py
    "jmi": "fsbench.algorithms.information:JMI",
    "cmim": "fsbench.algorithms.information:CMIM",
    "disr": "fsbench.algorithms.information:DISR",
    "cfs": "fsbench.algorithms.information:CFS",
    "fcbf": "fsbench.algorithms.information:FCBF",
    # stability selection (randomised L1 logistic regression on subsamples), fsbench/algorithms/stability.py
    "stability_selection": "fsbench.algorithms.stability:StabilitySelection",
    "branch_and_bound": "fsbench.algorithms.branch_bound:BranchAndBound",
    "exhaustive_wrapper": "fsbench.algorithms.branch_bound:ExhaustiveWrapper",
    "scss": "fsbench.algorithms.separability:SCSS",
    "sfs": "fsbench.algorithms.alignment:SFS",
    "kfds": "fsbench.algorithms.multiplicative:KFDS",
    "arom": "fsbench.algorithms.multiplicative:AROM",
    "bahsic": "fsbench.algorithms.hsic:BAHSIC",
    "fohsic": "fsbench.algorithms.hsic:FOHSIC",
    # kernel-space transformers (kind = "transform", no ranking_): Xu 2011, Cao 2007, Liu 2011
    "kobl": "fsbench.algorithms.kernel_space:KOBL",
    "kgs": "fsbench.algorithms.kernel_space:KGS",
    "kpca": "fsbench.algorithms.kernel_space:KPCA",
    "takes": "fsbench.algorithms.kernel_space:TAKES",
    "kgs_kffs": "fsbench.algorithms.kernel_space:KGSKFFS",
    "fskgs": "fsbench.algorithms.kernel_space:FSKGS",
    "fskpca": "fsbench.algorithms.kernel_space:FSKPCA",
    "gda": "fsbench.algorithms.discriminant:GDA",
    "kda": "fsbench.algorithms.discriminant:KDA",
    "kife": "fsbench.algorithms.discriminant:KIFE",
    "mmi": "fsbench.algorithms.discriminant:MMI",
}


#: What a selector's ``fit`` produces, by kind (``fsbench selectors list`` / ``info``).
KINDS: dict[str, str] = {
    "rank": "ranks the input features (fit sets ranking_); S = the top-S features",
    "subset": "subset search: one best subset of a fixed size d (subset_); ranking_ starts with it",
    "transform": 'transformer (kind = "transform", no ranking_); S = its first S output dimensions',
}


@dataclass(frozen=True)
class SelectorInfo:
    """What ``fsbench selectors list`` / ``info`` print about a selector."""

    name: str
    path: str
    description: str
    citation: str
    #: ``rank``, ``subset`` or ``transform`` (see :data:`KINDS`).
    kind: str = "rank"
    #: ``module.Class`` of the implementation.
    class_path: str = ""
    #: Constructor parameters with their defaults.
    params: dict[str, Any] = field(default_factory=dict)


class UnknownSelectorError(LookupError):
    """A selector name that is neither registered nor an importable ``module:Class`` path."""


def available() -> list[str]:
    """Registered selector names, sorted."""
    return sorted(_SELECTORS)


def resolve(name: str) -> type:
    """The class for a registered name or a ``package.module:Class`` path."""
    path = _SELECTORS.get(name)
    if path is None:
        if ":" not in name:
            raise UnknownSelectorError(
                f"unknown selector {name!r}; expected one of {', '.join(available())} "
                "or an import path 'package.module:Class'"
            )
        path = name
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, but also a syntax error in a user's module
        msg = str(exc).splitlines()[0] if str(exc) else ""
        # A missing module of the user's own is nearly always a path problem: say how to fix it.
        hint = (
            "; put the directory that holds it on PYTHONPATH, or list it under the config's plugins: key"
            if isinstance(exc, ModuleNotFoundError) and name not in _SELECTORS
            else ""
        )
        raise UnknownSelectorError(
            f"cannot import selector module {module_name!r}: {type(exc).__name__}: {msg}{hint}"
        ) from None
    cls = getattr(module, attr, None)
    if cls is None or not isinstance(cls, type):
        raise UnknownSelectorError(f"module {module_name!r} has no class {attr!r}")
    if not hasattr(cls, "fit"):
        raise UnknownSelectorError(f"{path!r} is not an estimator (no fit method)")
    return cls


def get_selector(name: str, **params):
    """Instantiate the selector ``name`` with ``params`` (validated against its signature)."""
    cls = resolve(name)
    valid = cls().get_params(deep=False) if hasattr(cls, "get_params") else {}
    bad = sorted(set(params) - set(valid))
    if bad:
        raise TypeError(
            f"selector {name!r} has no parameter(s) {', '.join(bad)}; "
            f"valid: {', '.join(sorted(valid)) or '(none)'}"
        )
    return cls(**params)


def selector_kind(cls: type) -> str:
    """``transform`` or ``subset`` when the class says so (its ``kind`` attribute), else ``rank``.

    ``rank`` is the contract of any other selector (``fit`` sets a complete ``ranking_``).
    """
    kind = getattr(cls, "kind", None)
    return kind if kind in ("transform", "subset") else "rank"


def _default_params(cls: type) -> dict[str, Any]:
    try:
        return dict(cls().get_params(deep=False))
    except Exception:  # a user's class may need arguments: fall back to the signature's defaults
        sig = inspect.signature(cls.__init__)
        return {
            p.name: p.default
            for p in list(sig.parameters.values())[1:]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }


def info(name: str) -> SelectorInfo:
    """Description, citation, kind, class and default parameters of the selector ``name``.

    Parameters
    ----------
    name : str
        A registered name or a ``package.module:Class`` path.

    Returns
    -------
    SelectorInfo
    """
    cls = resolve(name)
    doc = (cls.__doc__ or "").strip().splitlines()
    return SelectorInfo(
        name=name,
        path=_SELECTORS.get(name, name),
        description=getattr(cls, "description", "") or (doc[0] if doc else ""),
        citation=getattr(cls, "citation", ""),
        kind=selector_kind(cls),
        class_path=f"{cls.__module__}.{cls.__qualname__}",
        params=_default_params(cls),
    )
