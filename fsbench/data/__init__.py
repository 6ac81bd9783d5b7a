"""Datasets: cards (``datasets/*.yaml``), loaders, checksums, the search path and synthetic generators.

Typical use::

    from fsbench.data import open_dataset
    ds = open_dataset("sonar")                  # TableDataset (X, y, feature_names, ...)
    toy = open_dataset("weston_linear")         # SyntheticDataset
    X, y = toy.sample(100, np.random.default_rng(0))

Data files are looked up in ``FSBENCH_DATA_DIR`` (colon-separated) and then in the download cache
``FSBENCH_CACHE_DIR`` (default ``~/.cache/fsbench``); cards live in ``<repo>/datasets`` (installed as
``fsbench._cards``) unless ``FSBENCH_CARDS_DIR`` is set: :func:`fsbench.data.cards.cards_dir`. Problems
a user can fix are raised as :class:`DatasetError` with a one-line message.

The names below are imported from their submodules on first use (PEP 562), so that ``from fsbench.data
import DatasetError`` or ``list_cards`` does not import the table parsers (pandas) — ``fsbench datasets
list`` and a config error stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsbench.data.cards import DatasetCard, get_card, list_cards
    from fsbench.data.dataset import TableDataset, describe, open_dataset, verify
    from fsbench.data.errors import DatasetError, DatasetWarning
    from fsbench.data.paths import data_search_path
    from fsbench.data.synthetic import SyntheticDataset, generator_names, register_generator

#: public name -> the submodule that defines it
_EXPORTS: dict[str, str] = {
    "DatasetCard": "cards",
    "get_card": "cards",
    "list_cards": "cards",
    "TableDataset": "dataset",
    "describe": "dataset",
    "open_dataset": "dataset",
    "verify": "dataset",
    "DatasetError": "errors",
    "DatasetWarning": "errors",
    "data_search_path": "paths",
    "SyntheticDataset": "synthetic",
    "generator_names": "synthetic",
    "register_generator": "synthetic",
}

__all__ = [
    "DatasetCard",
    "DatasetError",
    "DatasetWarning",
    "SyntheticDataset",
    "TableDataset",
    "data_search_path",
    "describe",
    "generator_names",
    "get_card",
    "list_cards",
    "open_dataset",
    "register_generator",
    "verify",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:  # AttributeError also lets `from fsbench.data import paths` find the submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
