"""Feature selectors, each a scikit-learn estimator; :mod:`.registry` maps config names to classes.

No selector module is imported here: ``fsbench.algorithms.registry.get_selector`` imports a selector's
module only when it is asked for, and so does attribute access on this package (PEP 562):
``from fsbench.algorithms import SAS`` imports :mod:`fsbench.algorithms.alignment` then, through the
registry's ``module:Class`` entries. ``dir(fsbench.algorithms)`` lists every registered class.
"""

from __future__ import annotations

import importlib

from fsbench.algorithms.registry import _SELECTORS

#: class name -> module of every registered selector (``SAS`` -> ``fsbench.algorithms.alignment``)
_CLASSES: dict[str, str] = {path.partition(":")[2]: path.partition(":")[0] for path in _SELECTORS.values()}


def __getattr__(name: str):
    module = _CLASSES.get(name)
    if module is None:  # AttributeError also lets `from fsbench.algorithms import svm` find the submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_CLASSES))
