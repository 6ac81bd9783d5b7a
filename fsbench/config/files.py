"""Config files as YAML: one file read strictly, the ``base:`` chain, and the merge.

A config may name a ``base:`` config (a path relative to it) and state only what it changes, e.g. a
reading of a paper that differs from the paper's default experiment in one key::

    base: fig1b_weston_nonlinear.yaml
    name: fig1b_weston_nonlinear_gamma_n_features
    kernel: {gamma: n_features}

The file's keys are deep-merged over the base's (:func:`merge_config`: mappings merge key by key, lists
and scalars replace), recursively down the chain; ``base`` is not part of the result. The merged
mapping (:func:`read_config`) is what :mod:`fsbench.config.experiment` validates, hashes and writes to
``run.json``, so a config rewritten as an override of another keeps its config hash.

This module imports no algorithm, so that readers of configs that need no validation (the paper
comparison, :mod:`fsbench.papers.values`) read them the same way.
"""

from __future__ import annotations

import copy
import math
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import yaml

#: Top-level key naming the config a file overrides (a path relative to that file).
BASE_KEY = "base"


def fraction_size(fraction: float, n_features: int) -> int:
    r"""S of a fraction of D (``protocol.n_features: {fraction_of_D: [...]}``):
    :math:`\max(1, \lfloor fD + \tfrac12\rfloor)`, rounded half-up, at most D.

    Here rather than in :mod:`fsbench.config.experiment` so that the analyses of result tables, which may not
    import the validated config, resolve a fraction to the same S as the run did.
    """
    return max(1, min(n_features, math.floor(fraction * n_features + 0.5)))


class ConfigError(ValueError):
    """A config problem: ``file: key.path: what was expected``."""

    def __init__(self, file: str | Path, key: str, message: str):
        self.file, self.key, self.message = str(file), key, message
        super().__init__(f"{file}: {key or '<top>'}: {message}")


def type_name(x: Any) -> str:
    """How a config message names the type of ``x`` (``a mapping``, ``nothing (null)``, ...)."""
    if x is None:
        return "nothing (null)"
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
    }.get(type(x), type(x).__name__)


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key repeated in one mapping (merge keys ``<<`` aside)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                ident = (key_node.tag, key_node.value)
                if ident in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value!r}", key_node.start_mark
                    )
                seen.add(ident)
        return super().construct_mapping(node, deep=deep)


def _read_yaml(path: Path) -> dict[str, Any]:
    """The YAML mapping of one file (UTF-8, no repeated key), ``base`` included; ConfigError otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(path, "", f"cannot read config file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "", f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise ConfigError(path, "", f"invalid YAML{where}: {problem}") from None
    if not isinstance(raw, dict):
        raise ConfigError(path, "", f"expected a mapping of config keys, got {type_name(raw)}")
    return raw


def config_layers(path: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """A config file and the chain of ``base:`` files under it, deepest base first.

    Parameters
    ----------
    path : str or Path
        The config file.

    Returns
    -------
    list of (Path, dict)
        Each file with its own YAML mapping (``base`` removed); ``path`` is the last one.

    Raises
    ------
    ConfigError
        One line naming the file and ``base`` when a base is not a relative path or does not exist,
        ``path`` and ``base`` when the chain closes a cycle; a problem inside a base file names that file
        and the file whose base it is.
    """
    layers: list[tuple[Path, dict[str, Any]]] = []
    seen: list[Path] = []
    current = Path(path)
    while True:
        try:
            raw = _read_yaml(current)
        except ConfigError as exc:
            if not layers:
                raise
            # a broken base: its own file and key, and which file named it
            raise ConfigError(exc.file, exc.key, f"{exc.message} (the base of {layers[-1][0]})") from None
        seen.append(current.resolve())
        has_base = BASE_KEY in raw
        ref = raw.pop(BASE_KEY, None)
        layers.append((current, raw))
        if not has_base:
            return layers[::-1]
        if not isinstance(ref, str) or not ref.strip() or Path(ref).is_absolute():
            raise ConfigError(
                current, BASE_KEY, f"expected a config file path relative to this file, got {ref!r}"
            )
        nxt = current.parent / ref
        if nxt.resolve() in seen:  # named on the file given, as the cycle runs through it
            chain = " -> ".join(p.name for p in [*seen, nxt.resolve()])
            raise ConfigError(path, BASE_KEY, f"base cycle: {chain}")
        if not nxt.is_file():
            raise ConfigError(current, BASE_KEY, f"base file {ref!r} not found (looked for {nxt})")
        current = nxt


def merge_config(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` deep-merged over ``base`` (neither is modified).

    Mappings merge key by key, recursively; any other value (a list, a scalar, ``null``) replaces the
    base's. Keys keep the base's order; keys new in ``over`` follow.

    Parameters
    ----------
    base, over : dict
        The base config's mapping and the overriding file's.

    Returns
    -------
    dict

    Examples
    --------
    >>> merge_config({"kernel": {"name": "rbf", "gamma": "median"}, "selectors": ["sas", "scss"]},
    ...              {"kernel": {"gamma": "n_features"}, "selectors": ["sas"]})
    {'kernel': {'name': 'rbf', 'gamma': 'n_features'}, 'selectors': ['sas']}
    """
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_config(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_config(path: str | Path) -> dict[str, Any]:
    """The effective YAML mapping of a config file: its keys merged over its ``base:`` chain, if any.

    Parameters
    ----------
    path : str or Path
        The config file. Every file of the chain must be UTF-8 YAML with no repeated key.

    Returns
    -------
    dict
        The merged mapping, without ``base``.

    Raises
    ------
    ConfigError
        One line naming the file and key of the problem (:func:`config_layers`).
    """
    layers = config_layers(path)
    merged = layers[0][1]
    for _, raw in layers[1:]:
        merged = merge_config(merged, raw)
    return merged


def did_you_mean(name: str, choices) -> str:
    """``did you mean 'x'?`` (or ``'x', 'y'``) for the choices close to a mistyped ``name``; ``""`` if none
    (one-line error messages: the CLI's unknown selector, dataset or command)."""
    close = get_close_matches(str(name), [str(c) for c in choices], n=3, cutoff=0.6)
    return f"did you mean {', '.join(repr(c) for c in close)}?" if close else ""
