"""Where fsbench looks for things: the environment variables of :mod:`fsbench.data`, read in one place.

* ``FSBENCH_DATA_DIR`` — data directories (colon-separated, in order), e.g. the dataset mirror;
* ``FSBENCH_CACHE_DIR`` — the download cache (default ``~/.cache/fsbench``), searched after them;
* ``FSBENCH_CARDS_DIR`` — the dataset cards (default ``<repository>/datasets``).

A card names each data file by a path relative to the search directories (``sonar/sonar.csv``); the
first directory holding it wins. This module imports nothing else from :mod:`fsbench.data`, so every other
data module can import it without creating an import cycle.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The download cache: ``FSBENCH_CACHE_DIR`` or ``~/.cache/fsbench`` (not created here)."""
    env = os.environ.get("FSBENCH_CACHE_DIR", "").strip()
    return Path(env).expanduser() if env else Path("~/.cache/fsbench").expanduser()


def data_search_path() -> list[Path]:
    """Directories searched for data files: ``FSBENCH_DATA_DIR`` entries (colon-separated), then the cache.

    Empty entries are ignored; directories that do not exist are kept (so error messages can list them).
    """
    dirs = [
        Path(p).expanduser() for p in os.environ.get("FSBENCH_DATA_DIR", "").split(os.pathsep) if p.strip()
    ]
    dirs.append(cache_dir())
    out: list[Path] = []
    for d in dirs:
        if d not in out:
            out.append(d)
    return out


def describe_search_path() -> str:
    """One-line description of the search path for error messages."""
    env = os.environ.get("FSBENCH_DATA_DIR", "").strip()
    where = ", ".join(str(d) for d in data_search_path())
    return f"{where} ({'FSBENCH_DATA_DIR=' + env if env else 'FSBENCH_DATA_DIR unset'})"


def locate(relpath: str, dirs: list[Path] | None = None) -> Path | None:
    """First ``dir / relpath`` that is a file, over the search path (or ``dirs``); None if absent."""
    for d in data_search_path() if dirs is None else dirs:
        cand = d / relpath
        if cand.is_file():
            return cand
    return None


def cards_dir() -> Path:
    """Directory of the dataset cards: ``FSBENCH_CARDS_DIR`` or ``<repository>/datasets``."""
    env = os.environ.get("FSBENCH_CARDS_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / "datasets"
