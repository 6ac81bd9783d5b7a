"""Config name → selector class.

Entries are import paths, imported only when asked for, so adding a selector is one line here.
A config may also name any class by import path, ``package.module:Class``, to plug in a user's own
selector without touching fsbench: it must be a scikit-learn estimator whose ``fit(X, y)`` sets
``ranking_`` (1 = best, complete).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

#: name -> "module:Class"
_SELECTORS: dict[str, str] = {
    "all": "fsbench.algorithms.filters:AllFeatures",
    "fisher": "fsbench.algorithms.filters:FisherScore",
    "sas": "fsbench.algorithms.alignment:SAS",
    "r2w2": "fsbench.algorithms.radius_margin:R2W2",
    "rfe": "fsbench.algorithms.rfe:SVMRFE",
    "fspp": "fsbench.algorithms.sensitivity:FSPP",
    "rfe_svm_clinical": "fsbench.algorithms.clinical:ClinicalSVMRFE",
    "rfe_mkl_clinical": "fsbench.algorithms.clinical:ClinicalMKLRFE",
    "rfe_linear_onehot": "fsbench.algorithms.clinical:OneHotLinearSVMRFE",
    "random_forest": "fsbench.algorithms.forests:RandomForestImportance",
    "branch_and_bound": "fsbench.algorithms.branch_bound:BranchAndBound",
    "exhaustive_wrapper": "fsbench.algorithms.branch_bound:ExhaustiveWrapper",
    "scss": "fsbench.algorithms.separability:SCSS",
    "sfs": "fsbench.algorithms.alignment:SFS",
    "kfds": "fsbench.algorithms.multiplicative:KFDS",
    "arom": "fsbench.algorithms.multiplicative:AROM",
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


@dataclass(frozen=True)
class SelectorInfo:
    name: str
    path: str
    description: str
    citation: str


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
        raise UnknownSelectorError(
            f"cannot import selector module {module_name!r}: {type(exc).__name__}: {msg}"
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


def info(name: str) -> SelectorInfo:
    cls = resolve(name)
    return SelectorInfo(
        name=name,
        path=_SELECTORS.get(name, name),
        description=getattr(cls, "description", "") or (cls.__doc__ or "").strip().splitlines()[0],
        citation=getattr(cls, "citation", ""),
    )
