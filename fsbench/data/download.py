"""Downloads for connected machines: url sources into the cache, openml sources through ``openml``.

:func:`download_url` streams into a temporary file in the destination directory, hashes while writing,
checks the byte count against ``Content-Length`` and the sha256 against the expected value, and only
then renames the file into place (``os.replace``, atomic on one filesystem). Any failure removes the
temporary file, so a partial or wrong download never appears as a valid file.

When the card gives ``sha256: null`` (upstream hash unknown offline), the hash of the first successful
download is recorded next to the file (``<file>.sha256``) with a :class:`DatasetWarning`; later loads
verify against that record (see :mod:`fsbench.data.store`). The card's expected shape and class counts
are checked on every load in any case.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
import warnings
from pathlib import Path

from fsbench.data import paths, store
from fsbench.data.cards import Source, get_card
from fsbench.data.errors import DatasetError, DatasetWarning
from fsbench.data.parsers import RawTable, parse_openml_frame

_CHUNK = 1 << 16


def download_url(
    url: str, dest: Path, sha256: str | None, *, timeout: float = 60.0, what: str = "download"
) -> Path:
    """Download ``url`` to ``dest`` atomically, verifying its size and sha256.

    Parameters
    ----------
    url : str
        http(s) address.
    dest : Path
        Final location; its directory is created if needed.
    sha256 : str or None
        Expected hex digest; None records the digest next to the file (trust on first use).
    timeout : float
        Socket timeout in seconds.
    what : str
        Prefix for error messages (card name).

    Returns
    -------
    Path
        ``dest``.
    """
    if not url.startswith(("http://", "https://")):
        raise DatasetError(f"{what}: refusing to download {url!r}: only http(s) addresses are allowed")
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        received = 0
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310
                length = resp.headers.get("Content-Length")
                while True:
                    block = resp.read(_CHUNK)
                    if not block:
                        break
                    out.write(block)
                    h.update(block)
                    received += len(block)
                out.flush()
                os.fsync(out.fileno())
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            msg = " ".join(str(exc).split())
            raise DatasetError(f"{what}: download of {url} failed after {received} bytes: {msg}") from None
        if length is not None and received != int(length):
            raise DatasetError(
                f"{what}: download of {url} truncated: got {received} of {length} bytes; nothing saved"
            )
        actual = h.hexdigest()
        if sha256 is not None and actual != sha256.lower():
            raise DatasetError(
                f"{what}: sha256 mismatch for download {url}: expected {sha256.lower()}, got {actual}; "
                "nothing saved"
            )
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sha256 is None:
        recorded = store.write_sidecar(dest, actual)
        warnings.warn(
            f"{what}: no known sha256 for {url}; recorded {actual} "
            + (
                f"in {store.sidecar(dest)} (trust on first use)"
                if recorded
                else "nowhere (read-only directory)"
            ),
            DatasetWarning,
            stacklevel=2,
        )
    return dest


def fetch(name: str, *, source_id: str | None = None, timeout: float = 60.0) -> list[Path]:
    """Download the card's first url (or openml) source into the cache; returns the local paths.

    Files already present on the search path are not downloaded again. ``source_id`` picks a source.
    """
    card = get_card(name)
    candidates = [s for s in card.sources if s.kind in ("url", "openml")]
    if source_id is not None:
        candidates = [s for s in candidates if source_id in (s.id, s.kind)]
    if not candidates:
        raise DatasetError(
            f"dataset '{name}': no downloadable (url/openml) source"
            + (f" named {source_id!r}" if source_id else "")
            + f"; sources: {', '.join(s.id for s in card.sources)} ({card.path})"
        )
    src = candidates[0]
    what = f"dataset '{name}'"
    if src.kind == "openml":
        load_openml(src, what)
        return [paths.cache_dir() / "openml"]
    got = []
    for entry in src.files:
        have = paths.locate(entry.path)
        if have is not None:
            got.append(have)
            continue
        got.append(
            download_url(entry.url, paths.cache_dir() / entry.path, entry.sha256, timeout=timeout, what=what)
        )
    return got


def load_openml(source: Source, what: str) -> RawTable:
    """Get an OpenML dataset (downloading into ``<cache>/openml`` if needed) as a RawTable.

    Note: this sets the ``openml`` package's cache root for the process.
    """
    try:
        import openml  # heavy (requests, xmltodict, ...): loaded only to fetch an OpenML dataset
    except ImportError:
        raise DatasetError(f"{what}: the openml package is needed for openml id {source.openml_id}") from None
    openml.config.set_root_cache_directory(str(paths.cache_dir() / "openml"))
    target = source.parse.get("label")
    try:
        ds = openml.datasets.get_dataset(
            source.openml_id, download_data=True, download_qualities=False, download_features_meta_data=False
        )
        X, y, categorical, _names = ds.get_data(target=target or ds.default_target_attribute)
    except Exception as exc:  # openml raises many types (network, server, parsing)
        msg = " ".join(str(exc).split())
        raise DatasetError(
            f"{what}: openml id {source.openml_id} could not be loaded: {type(exc).__name__}: {msg}"
        ) from None
    return parse_openml_frame(X, y, list(categorical), source.parse, what)
