"""A researcher's own selector class (``package.module:Class`` in a config): where it is imported from,
the contract it must meet, and the hash of its source.

* :func:`activate` prepends a config's ``plugins`` directories to ``sys.path``, in the parent and in
  every worker (each task carries them), so a class outside any installed package can be named.
* :func:`check_contract` is run by :func:`fsbench.run.plan.validate` for every *user class* (one whose
  module is not part of fsbench, :func:`fsbench.evaluation.protocol.is_user_class`) before a run starts, in a
  worker process (:func:`fsbench.run.workers.check_contracts`: a class that crashes it is refused too): the
  class must be a scikit-learn estimator (``get_params``/``set_params``/``fit``, constructible with its
  defaults and with the config's params, clonable), and fitted on a tiny seeded problem
  (:func:`check_problem`: 20 x 4, two classes, ``y`` = class indices 0/1, built exactly as a task builds the
  selector) it must set a valid ``ranking_`` (a permutation of 1..D, 1 = best) or be a transformer (``kind =
  "transform"``, or ``transform`` and no ``ranking_``) whose output has one row per sample. A failure is one
  line (:class:`ContractError`) naming what failed; fsbench's own selectors are tested by the test suite
  instead, and are not fitted here.
* :func:`source_of` gives the file and sha256 of a user class's module, recorded in ``run.json``
  (``plugin_sources``) and in each task file (``code_hash``), so that resuming with changed code is
  caught like a changed fsbench commit.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.base import clone

from fsbench.algorithms.registry import resolve
from fsbench.config.experiment import KernelConfig
from fsbench.evaluation.protocol import build_selector, is_transform

#: Size of the check problem (samples, features): small enough to cost nothing for any sane selector.
CHECK_SHAPE = (20, 4)


class ContractError(ValueError):
    """A user class that does not meet the selector contract (one line)."""

    #: the config entry (fsbench.config.SelectorConfig) that failed, when known
    selector: Any = None


def activate(dirs: Iterable[str]) -> None:
    """Prepend the plugin directories ``dirs`` to ``sys.path`` (each once, first one first).

    Parameters
    ----------
    dirs : iterable of str
        Absolute directory paths (:attr:`fsbench.config.Experiment.plugins`).
    """
    for d in reversed(list(dirs)):
        if d not in sys.path:
            sys.path.insert(0, d)


def source_of(cls: type) -> dict[str, str | None]:
    """``{"path": ..., "sha256": ...}`` of the file that defines ``cls``'s module.

    Only that file is hashed, not the modules it imports. A module without a file (e.g. defined in
    an interactive session) gives ``None`` for both.
    """
    module = sys.modules.get(cls.__module__)
    path = None
    try:
        path = inspect.getsourcefile(module) or inspect.getfile(module)  # type: ignore[arg-type]
    except TypeError:  # a built-in module, or no module at all
        pass
    if not path:
        return {"path": None, "sha256": None}
    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return {"path": str(path), "sha256": None}
    return {"path": str(path), "sha256": digest}


def check_problem() -> tuple[np.ndarray, np.ndarray]:
    """The seeded check problem: 20 x 4, two balanced classes (``y`` = 0/1), feature 0 informative."""
    rng = np.random.default_rng(20240616)
    y = np.repeat(np.arange(2), CHECK_SHAPE[0] // 2)
    X = rng.normal(size=CHECK_SHAPE)
    X[:, 0] += 2.0 * y
    return X, y


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def contract_key(sel, kernels: Iterable[Any]) -> str:
    """What the contract check of ``sel`` depends on: its name, params, the experiment kernels and the
    sha256 of its source file (a cache key for :func:`fsbench.run.workers.check_contracts`)."""
    kernels = list(dict.fromkeys(kernels))
    return json.dumps(
        [sel.name, sel.params, [repr(k) for k in kernels], source_of(resolve(sel.name))["sha256"]],
        sort_keys=True,
        default=repr,
    )


def check_contract(sel, kernels: Iterable[Any]) -> None:
    """Check the user class ``sel.name`` against the selector contract in this process; raise
    :class:`ContractError`.

    ``fsbench run`` calls it in a worker process (:func:`fsbench.run.workers.check_contracts`), where a
    class that crashes its process cannot take the run down.

    Parameters
    ----------
    sel : fsbench.config.SelectorConfig
        The config entry (name, params, label).
    kernels : iterable of fsbench.config.KernelConfig
        The experiment kernels it will run under: the class is built once per kernel, exactly as a task
        builds it (:func:`fsbench.evaluation.protocol.build_selector`: inherited kernel parameters, numeric
        gamma).
    """
    _check(sel, resolve(sel.name), list(dict.fromkeys(kernels)))  # distinct kernels, in config order


def contract_failure(sel, kernels: Iterable[Any]) -> str | None:
    """The one-line failure of :func:`check_contract` (None: the class passed); never raises, so that
    ``SystemExit`` or ``KeyboardInterrupt`` raised by the user's code is a failure too."""
    try:
        check_contract(sel, kernels)
    except ContractError as exc:
        return str(exc)
    except BaseException as exc:  # what _check lets through: sys.exit() in fit, an unexpected error
        return f"{sel.name}: the contract check raised {_first_line(exc)}"
    return None


def check_class(name: str, cls: type) -> None:
    """The structural part of the contract (no fit): raise :class:`ContractError` unless ``cls`` has
    ``get_params``, ``set_params`` and ``fit`` and can be created without arguments (fsbench reads
    a selector's defaults from ``cls().get_params()``)."""
    for attr in ("get_params", "set_params", "fit"):
        if not callable(getattr(cls, attr, None)):
            raise ContractError(
                f"{name} is not a scikit-learn estimator: it has no {attr}() (subclass "
                "sklearn.base.BaseEstimator, or fsbench.algorithms.base.BaseSelector)"
            )
    try:
        cls()
    except Exception as exc:
        raise ContractError(
            f"{name}() cannot be created with its defaults ({_first_line(exc)}); a scikit-learn estimator "
            "gives every constructor parameter a default"
        ) from None


def _check(sel, cls: type, kernels: list) -> None:
    name = sel.name
    check_class(name, cls)
    X, y = check_problem()
    n, d = X.shape
    where = f"on the {n} x {d} check problem (two classes, y = class indices 0/1)"
    for kernel in kernels or [KernelConfig()]:
        under = "" if len(kernels) < 2 else f" (experiment kernel {kernel.name})"
        try:
            est = build_selector(sel, kernel, 0, {"categorical": np.zeros(d, dtype=bool)}, X=X)
            clone(est)
        except Exception as exc:
            raise ContractError(
                f"{name} with params {sel.params} is not a valid scikit-learn estimator{under}: "
                f"{_first_line(exc)}"
            ) from None
        size_param = getattr(cls, "subset_size_param", None)
        if size_param is not None and size_param not in sel.params:
            est.set_params(**{size_param: 2})  # a subset search is fitted once per S (here S = 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. convergence warnings on 20 samples
            try:
                est.fit(X.copy(), y.copy())
            except Exception as exc:
                raise ContractError(f"{name}: fit(X, y) failed {where}{under}: {_first_line(exc)}") from None
            if is_transform(est):
                try:
                    Z = np.asarray(est.transform(X.copy()), dtype=float)
                except Exception as exc:
                    raise ContractError(
                        f"{name} is a transformer but transform(X) failed {where}{under}: {_first_line(exc)}"
                    ) from None
                if Z.ndim != 2 or Z.shape[0] != n or Z.shape[1] < 1:
                    raise ContractError(
                        f"{name}: transform(X) of {n} samples must return an array of shape ({n}, k >= 1), "
                        f"got shape {Z.shape}{under}"
                    )
                continue
        rank = getattr(est, "ranking_", None)
        if rank is None:
            raise ContractError(
                f"{name} is not a feature selector: after fit(X, y) {where} it has no ranking_ (a "
                "permutation of 1..D, 1 = best) and it is not a transformer (no transform(), or kind = "
                '"transform")'
            )
        rank = np.asarray(rank)
        if rank.shape != (d,) or sorted(rank.ravel().tolist()) != list(range(1, d + 1)):
            shown = np.array2string(rank.ravel()[:10], separator=", ")
            raise ContractError(
                f"{name}: ranking_ after fit(X, y) {where} must be a permutation of 1..{d} (1 = best), "
                f"got {shown} (shape {rank.shape}){under}"
            )
