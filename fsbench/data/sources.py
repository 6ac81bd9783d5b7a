"""Local copies of a card's sources: which source can be used here, and whether its files are intact.

Kept apart from :mod:`fsbench.data.cards` (the card schema) and :mod:`fsbench.data.dataset` (loading) so
that ``DatasetCard.available()`` can ask it without an import cycle: this module needs only the search
path (:mod:`fsbench.data.paths`) and the hash checks (:mod:`fsbench.data.store`), and knows cards by
their attributes alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fsbench.data import paths, store
from fsbench.data.errors import DatasetError

if TYPE_CHECKING:  # annotations only: cards imports this module
    from fsbench.data.cards import DatasetCard, Source

#: How ``datasets list`` / ``info`` / ``verify`` name a found file whose sha256 does not match its card.
CORRUPT = "corrupt (sha256 mismatch)"


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
                raise DatasetError(
                    f"{bad[0]}; this copy is {CORRUPT}: replace or remove it. To get a good copy, "
                    f"{how_to_get(card)}"
                )
            continue
        return source, files
    return None


@dataclass(frozen=True)
class Availability:
    """Whether a card's data can be used here.

    Attributes
    ----------
    state : str
        ``ok`` (a usable copy: synthetic, a cached openml set, or files that pass their hash check),
        ``corrupt`` (no usable copy, and a found file fails its hash check) or ``missing`` (nothing found).
    source : Source or None
        The source that would be loaded (state ``ok``).
    corrupt : tuple of (Path, str)
        Every found file that fails its hash check, with the one-line mismatch message, whatever the state
        (another source may still be usable).
    """

    state: str
    source: Source | None = None
    corrupt: tuple[tuple[Path, str], ...] = ()

    @property
    def label(self) -> str:
        """``yes``, ``no`` or ``corrupt (sha256 mismatch)`` (the ``available`` column)."""
        return {"ok": "yes", "missing": "no"}.get(self.state, CORRUPT)


def availability(card: DatasetCard) -> Availability:
    """Check every local copy of ``card`` (hashing found files; cached per process) without raising.

    Sources are tried in the card's order of preference, as :func:`find_local_source` does; all of them
    are looked at so that a corrupt file is reported even when another source is usable.
    """
    usable: Source | None = None
    corrupt: list[tuple[Path, str]] = []
    seen: set[Path] = set()  # a github source shares the mirror's path and hash
    for source in card.sources:
        if source.kind == "synthetic" or (source.kind == "openml" and openml_cached(source.openml_id)):
            usable = usable or source
            continue
        source_ok = bool(source.files)
        for entry in source.files:
            path = paths.locate(entry.path)
            if path is None:
                source_ok = False
                continue
            status, message = store.check_file(path, entry.sha256, f"dataset '{card.name}'")
            if status != "ok":
                source_ok = False
                if path not in seen:
                    corrupt.append((path, message))
            seen.add(path)
        if source_ok:
            usable = usable or source
    state = "ok" if usable is not None else "corrupt" if corrupt else "missing"
    return Availability(state, usable, tuple(corrupt))


def downloadable(card: DatasetCard) -> bool:
    """True if ``fsbench datasets download`` can fetch the card (it has a url or openml source)."""
    return any(s.kind in ("url", "openml") for s in card.sources)


def how_to_get(card: DatasetCard) -> str:
    """One sentence telling a user how to obtain a card's data (for error messages and the CLI)."""
    files = list(dict.fromkeys(e.path for s in card.sources for e in s.files))
    holding = f"a directory holding {' or '.join(files)}" if files else "a directory holding its files"
    how = f"set FSBENCH_DATA_DIR=/path/to/mirror ({holding})"
    if downloadable(card):
        how += f", or on a connected machine run `fsbench datasets download {card.name}`"
    return how
