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
"""

from fsbench.data.cards import DatasetCard, get_card, list_cards
from fsbench.data.dataset import TableDataset, describe, open_dataset, verify
from fsbench.data.errors import DatasetError, DatasetWarning
from fsbench.data.paths import data_search_path
from fsbench.data.synthetic import SyntheticDataset, generator_names, register_generator

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
