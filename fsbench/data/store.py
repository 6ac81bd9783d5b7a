"""sha256 checks of data files (where they are looked for: :mod:`fsbench.data.paths`).

Every file is hashed before use. Hashes are cached per process by ``(path, size, mtime_ns)``, so a file
is read once per process unless it changes.

Files whose card entry has ``sha256: null`` (upstream hashes that could not be computed offline) follow
a trust-on-first-use rule: the first time such a file is seen (normally right after its download), its
hash is written next to it as ``<file>.sha256`` and a :class:`DatasetWarning` is issued; later uses
verify against that record. The expected shape and class counts of the card are checked in every case.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from pathlib import Path

from fsbench.data.errors import DatasetWarning

_HASH_CACHE: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()
SIDECAR_SUFFIX = ".sha256"


def sha256_file(path: Path) -> str:
    """sha256 of a file, cached per process by (resolved path, size, mtime_ns)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    with _HASH_LOCK:
        hit = _HASH_CACHE.get(key)
    if hit is not None:
        return hit
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _HASH_LOCK:
        _HASH_CACHE[key] = digest
    return digest


def sidecar(path: Path) -> Path:
    """Where the trust-on-first-use hash of ``path`` is recorded."""
    return path.with_name(path.name + SIDECAR_SUFFIX)


def read_sidecar(path: Path) -> str | None:
    """The recorded hash of ``path`` (first token of its sidecar file), or None."""
    side = sidecar(path)
    if not side.is_file():
        return None
    text = side.read_text(encoding="ascii", errors="replace").split()
    return text[0].lower() if text else None


def write_sidecar(path: Path, digest: str) -> bool:
    """Record ``digest`` next to ``path`` (``sha256sum`` format); False if the directory is read-only."""
    try:
        tmp = sidecar(path).with_name(f".{path.name}{SIDECAR_SUFFIX}.{os.getpid()}.tmp")
        tmp.write_text(f"{digest}  {path.name}\n", encoding="ascii")
        os.replace(tmp, sidecar(path))
        return True
    except OSError:
        return False


def check_file(path: Path, expected: str | None, what: str) -> tuple[str, str]:
    """Check ``path`` against its expected sha256 (or its trust-on-first-use record).

    Returns ``(status, message)``, status ``ok`` or ``mismatch``; never raises for a mismatch, so
    :func:`fsbench.data.verify` can report it. ``what`` names the card for messages.
    """
    actual = sha256_file(path)
    if expected is not None:
        if actual == expected.lower():
            return "ok", "sha256 ok"
        return "mismatch", f"{what}: sha256 mismatch for {path}: expected {expected.lower()}, got {actual}"
    recorded = read_sidecar(path)
    if recorded is None:
        stored = write_sidecar(path, actual)
        warnings.warn(
            f"{what}: no known sha256 for {path}; trusting it on first use (sha256 {actual}"
            + (f", recorded in {sidecar(path)})" if stored else ", not recorded: directory is read-only)"),
            DatasetWarning,
            stacklevel=3,
        )
        return "ok", f"sha256 unknown upstream; first use, {actual}"
    if recorded == actual:
        return "ok", f"sha256 matches the hash recorded on first use ({sidecar(path).name})"
    return (
        "mismatch",
        f"{what}: sha256 mismatch for {path}: expected {recorded} (recorded on first use in "
        f"{sidecar(path)}), got {actual}",
    )
