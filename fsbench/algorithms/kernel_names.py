"""Kernel names, kernel parameters and the RBF ``gamma`` rules: what a config is checked against.

Defined here, without scikit-learn, so that reading and validating a config (:mod:`fsbench.config.experiment`)
imports no heavy library; :mod:`fsbench.algorithms.kernels` re-exports every name.
"""

from __future__ import annotations

import re
from numbers import Real

import numpy as np

#: The kernel names, declared once: configs, selectors' ``kernel`` parameter and ``supported_kernels``.
KERNELS = ("linear", "rbf", "poly")

#: Parameters of a kernel besides its name (a selector's flat kernel parameters, a config's ``kernel:`` keys).
KERNEL_PARAMS = ("gamma", "degree", "offset", "scale")

#: Named rules for the RBF ``gamma`` that are resolved on the training data.
GAMMA_RULES = ("median", "n_features", "scale")


_GAMMA_SPEC = re.compile(
    r"^\s*(?:([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\*\s*)?([a-z_]+)\s*"
    r"(?:([*/])\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))?\s*$"
)


def parse_gamma(spec: float | str) -> tuple[float | str, float]:
    """Split an RBF width spec into (rule name or number, positive factor).

    Parameters
    ----------
    spec : float or str
        A positive number, a rule of :data:`GAMMA_RULES`, or a multiple of one: ``"RULE/NUMBER"``,
        ``"RULE*NUMBER"`` or ``"NUMBER*RULE"`` (e.g. ``"median/4"`` = ``"0.25*median"``).

    Returns
    -------
    (base, factor) : the rule name (or the number) and the multiplier applied to its value.

    Raises
    ------
    ValueError
        On an unknown rule, a malformed spec or a non-positive factor.

    >>> parse_gamma("median/4")
    ('median', 0.25)
    >>> parse_gamma("0.5*n_features")
    ('n_features', 0.5)
    """
    if isinstance(spec, Real) and not isinstance(spec, bool):
        if not (np.isfinite(spec) and spec > 0):
            raise ValueError(f"gamma must be a positive number, got {spec!r}")
        return float(spec), 1.0
    expected = f"a positive number, one of {', '.join(GAMMA_RULES)}, or RULE/NUMBER, RULE*NUMBER, NUMBER*RULE"
    if not isinstance(spec, str):
        raise ValueError(f"gamma must be {expected}; got {spec!r}")
    m = _GAMMA_SPEC.match(spec)
    if m is None or m.group(2) not in GAMMA_RULES or (m.group(1) and m.group(3)):
        raise ValueError(f"gamma must be {expected}; got {spec!r}")
    pre, rule, op, num = m.groups()
    factor = float(pre) if pre else 1.0
    if op is not None:
        if op == "/" and float(num) == 0:
            raise ValueError(f"gamma {spec!r}: division by zero")
        factor = 1.0 / float(num) if op == "/" else float(num)
    if not (np.isfinite(factor) and factor > 0):
        raise ValueError(f"gamma {spec!r}: the factor must be a positive finite number")
    return rule, factor
