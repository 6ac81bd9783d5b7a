"""Where a run's tables are on disk, plain or gzip-compressed: the one rule both sides follow.

A run writes two tables, ``results.csv`` and ``rankings.csv`` (docs/results.md). A table whose CSV text
exceeds :data:`GZIP_ABOVE_BYTES` is stored as ``<name>.csv.gz`` instead — a rule fixed in advance, so that
the benchmark's tracks (four evaluators, 10^4 tasks: ~70 MB of CSV) stay small enough to commit. The gzip
stream is written without a timestamp or file name (``mtime=0``), so rewriting the same rows gives the same
bytes, as the plain CSV does, and git and ``fsbench build --check`` see no change.

Exactly one form of a table exists at a time: writing one form removes the other, and finding both is an
error (one line, naming the directory), never a silent choice. Every reader of a table goes through
:func:`table_file` / :func:`open_table`; pandas reads either form by its suffix. Standard library only: the
runner and the command line import it without numeric libraries.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
from pathlib import Path
from typing import TextIO

#: A table whose CSV text is larger than this is stored gzip-compressed (``.csv.gz``). 16 MB: the papers'
#: tables (the largest, a rankings.csv of 9.1 MB) stay plain and diffable; a benchmark track's is compressed.
GZIP_ABOVE_BYTES = 16 * 2**20
#: The tables a run writes (diagnostics write only ``results``).
TABLES = ("results", "rankings")
#: Every file name a table may have.
TABLE_FILE_NAMES = frozenset(f"{t}.csv{z}" for t in TABLES for z in ("", ".gz"))


def table_file(root: Path, name: str = "results") -> Path | None:
    """The file holding table ``name`` (``results`` or ``rankings``) in the run directory ``root``.

    Returns
    -------
    Path or None
        ``root/<name>.csv`` or ``root/<name>.csv.gz``, whichever exists; None when neither does.

    Raises
    ------
    ValueError
        Both forms exist (a table is written in one form only, so one of them is stale).
    """
    plain = Path(root) / f"{name}.csv"
    packed = Path(root) / f"{name}.csv.gz"
    if plain.is_file() and packed.is_file():
        raise ValueError(
            f"{root}: both {plain.name} and {packed.name} exist; a table is kept in one form only — "
            "delete the stale one (the older file)"
        )
    if plain.is_file():
        return plain
    return packed if packed.is_file() else None


def has_table(root: Path, name: str = "results") -> bool:
    """Whether ``root`` holds table ``name`` in either form."""
    return table_file(root, name) is not None


def is_table_file(path: Path, name: str = "results") -> bool:
    """Whether ``path`` names table ``name`` (``results.csv`` or ``results.csv.gz``)."""
    return Path(path).name in (f"{name}.csv", f"{name}.csv.gz")


def open_table(path: Path) -> TextIO:
    """Open a table file for reading as text (CSV newline handling), decompressing a ``.gz``."""
    path = Path(path)
    if path.name.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return path.open(newline="", encoding="utf-8")


def table_bytes(text: str, name: str) -> tuple[str, bytes]:
    """The file name and bytes table ``name`` with CSV ``text`` is stored as (the size rule above)."""
    data = text.encode("utf-8")
    if len(data) > GZIP_ABOVE_BYTES:
        return f"{name}.csv.gz", gzip.compress(data, compresslevel=9, mtime=0)
    return f"{name}.csv", data


def write_table(root: Path, name: str, text: str, write=None) -> Path:
    """Store table ``name`` of ``root`` in the form the size rule picks, and remove the other form.

    ``write(path, bytes)`` writes one file atomically (the runner passes its ``atomic_write``); by
    default a plain write. Returns the path written.
    """
    file_name, data = table_bytes(text, name)
    path = Path(root) / file_name
    if write is None:
        path.write_bytes(data)
    else:
        write(path, data)
    other = Path(root) / (f"{name}.csv" if file_name.endswith(".gz") else f"{name}.csv.gz")
    with contextlib.suppress(FileNotFoundError):
        os.remove(other)
    return path
