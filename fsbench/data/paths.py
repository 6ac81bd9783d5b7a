"""Where fsbench looks for things: the environment variables of :mod:`fsbench.data`, read in one place.

* ``FSBENCH_DATA_DIR`` — data directories (colon-separated, in order), e.g. the dataset mirror;
* ``FSBENCH_CACHE_DIR`` — the download cache (default ``~/.cache/fsbench``), searched after them;
* ``FSBENCH_CARDS_DIR`` — the dataset cards (default: the checkout's ``datasets/``, or the cards installed
  with fsbench; see :func:`cards_dir`).

A card names each data file by a path relative to the search directories (``sonar/sonar.csv``); the
first directory holding it wins. This module imports nothing else from :mod:`fsbench.data`, so every other
data module can import it without creating an import cycle.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

#: The package the cards are installed as: ``pyproject.toml`` maps ``datasets/`` onto it.
CARDS_PACKAGE = "fsbench._cards"


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
    """Directory of the dataset cards (``*.yaml``).

    The first of:

    1. ``FSBENCH_CARDS_DIR``, if set;
    2. ``<checkout>/datasets`` when fsbench runs from a source checkout (editable install, or the checkout
       on ``PYTHONPATH``), so that every worktree uses its own cards;
    3. the cards installed with fsbench (package ``fsbench._cards``, a copy of ``datasets/`` in the
       wheel), found through :mod:`importlib.resources`.

    If none exists, the checkout path is returned (so that error messages name a place).
    """
    env = os.environ.get("FSBENCH_CARDS_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    root = Path(__file__).resolve().parents[2]
    checkout = root / "datasets"
    # pyproject.toml tells a checkout from site-packages, where a "datasets" directory may be another
    # distribution's package
    if checkout.is_dir() and (root / "pyproject.toml").is_file():
        return checkout
    installed = _installed_cards()
    return installed if installed is not None else checkout


def _installed_cards() -> Path | None:
    try:
        found = importlib.resources.files(CARDS_PACKAGE)
    except ModuleNotFoundError:
        return None
    # a regular package on a file system gives a Path; anything else (e.g. a zip import) is not supported
    return found if isinstance(found, Path) and found.is_dir() else None
