"""Local copies of a card's sources: which source can be used here, and whether its files are intact.

Kept apart from :mod:`fsbench.data.cards` (the card schema) and :mod:`fsbench.data.dataset` (loading) so
that ``DatasetCard.available()`` can ask it without an import cycle: this module needs only the search
path (:mod:`fsbench.data.paths`) and the hash checks (:mod:`fsbench.data.store`), and knows cards by
their attributes alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fsbench.data import paths, store
from fsbench.data.errors import DatasetError

if TYPE_CHECKING:  # annotations only: cards imports this module
    from fsbench.data.cards import DatasetCard, Source


def openml_cached(openml_id: int) -> bool:
    """True if the openml dataset's data file is in ``<cache>/openml`` (where fsbench points openml)."""
    d = paths.cache_dir() / "openml" / "org" / "openml" / "www" / "datasets" / str(openml_id)
    return d.is_dir() and any(d.glob("dataset*"))


def source_files(source: Source) -> dict[str, Path] | None:
    """Role -> found path for every file of ``source``; None if one of them is not on the search path."""
    found = {}
    for entry in source.files:
        path = paths.locate(entry.path)
        if path is None:
            return None
        found[entry.role] = path
    return found


def find_local_source(
    card: DatasetCard, source_id: str | None = None, raise_on_mismatch: bool = True
) -> tuple[Source, dict[str, Path]] | None:
    """First source (or the one named ``source_id``) whose files are all present and pass their hash check.

    A present file with a wrong hash raises :class:`DatasetError` (or, with ``raise_on_mismatch=False``,
    makes that source unusable).
    """
    sources = card.sources
    if source_id is not None:
        sources = tuple(s for s in sources if s.id == source_id or s.kind == source_id)
        if not sources:
            raise DatasetError(
                f"dataset '{card.name}': no source {source_id!r}; "
                f"sources: {', '.join(s.id for s in card.sources)}"
            )
    for source in sources:
        if source.kind == "synthetic":
            return source, {}
        if source.kind == "openml":
            if openml_cached(source.openml_id):
                return source, {}
            continue
        files = source_files(source)
        if files is None:
            continue
        statuses = [store.check_file(files[e.role], e.sha256, f"dataset '{card.name}'") for e in source.files]
        bad = [msg for status, msg in statuses if status != "ok"]
        if bad:
            if raise_on_mismatch:
                raise DatasetError(bad[0])
            continue
        return source, files
    return None
