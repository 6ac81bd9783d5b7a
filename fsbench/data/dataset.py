"""Opening datasets: source choice, checksum checks, parsing, class mapping, missing values, shape checks.

A card lists sources in order of preference. :func:`open_dataset` uses the first source whose files are
all found on the search path (an ``openml`` source counts if its files are in the openml cache); every
file is hashed first, and a mismatch is an error (never silently skipped). After parsing:

1. labels go through ``class_map`` (rows with a missing label are dropped and counted in ``notes``);
2. inf in X is refused; NaN is handled by the card's ``missing`` policy: ``drop`` removes incomplete
   rows, ``keep`` keeps NaN, ``none`` (default) refuses NaN;
3. the shape and class counts must equal the card's ``expected`` block (for every source alike).

Loaded datasets are cached per process (keyed by card file and data-file identity); their arrays are
read-only so that a caller cannot corrupt the cached copy — copy before modifying in place.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fsbench.data import paths, store
from fsbench.data.cards import DatasetCard, Source, get_card, list_cards
from fsbench.data.download import fetch, load_openml
from fsbench.data.errors import DatasetError
from fsbench.data.parsers import PARSERS, RawTable, canonical_label
from fsbench.data.sources import CORRUPT, availability, find_local_source, how_to_get, openml_cached
from fsbench.data.synthetic import SyntheticDataset, make_synthetic


@dataclass(frozen=True, eq=False)
class TableDataset:
    """A fixed data table loaded from a card.

    Attributes
    ----------
    name : str
    X : ndarray (n, D), float64, read-only
        Categorical columns hold integer codes (as floats); missing values are NaN (``missing: keep``).
    y : ndarray (n,)
        Labels after the card's class mapping (int or str).
    feature_names : list of str
    categorical : ndarray (D,), bool
    classes : ndarray
        Sorted distinct labels of ``y``.
    X_test, y_test : ndarray or None
        The official test split, if the card has one.
    source : str
        ``"<source id> (<kind>): <files>"`` — which copy was used.
    notes : str
        Card notes plus what happened while loading (rows dropped, substitutions).
    categories : dict
        For string-coded categorical columns: the level behind each code (code = list index).
    groups, groups_test : ndarray or None
        Group ids (e.g. subject or molecule) when the card declares ``group_column``.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    categorical: np.ndarray
    classes: np.ndarray
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    source: str = ""
    notes: str = ""
    categories: dict[str, list[Any]] = field(default_factory=dict)
    groups: np.ndarray | None = None
    groups_test: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        test = f", test={len(self.y_test)}" if self.y_test is not None else ""
        shape = f"n={self.n_samples}, D={self.n_features}{test}"
        return f"TableDataset({self.name!r}, {shape}, source={self.source!r})"


# --------------------------------------------------------------------------------------- missing data


def _missing_message(card: DatasetCard, source_id: str | None) -> str:
    files: dict[str, list[str]] = {}  # relative path -> source ids (mirror and github share paths)
    openml_ids = []
    for s in card.sources:
        if source_id is not None and source_id not in (s.id, s.kind):
            continue
        if s.kind == "openml":
            openml_ids.append(f"openml id {s.openml_id} (source '{s.id}')")
        for e in s.files:
            if paths.locate(e.path) is None:
                files.setdefault(e.path, []).append(s.id)
    looked = [f"{path} (source {', '.join(ids)})" for path, ids in files.items()]
    if card.unavailable:
        return (
            f"dataset '{card.name}' is not available: {card.unavailable}; to use it anyway, "
            f"{how_to_get(card)} (see {card.path})"
        )
    msg = f"dataset '{card.name}': data not found locally; looked for {'; '.join(looked) or 'nothing'} "
    msg += f"in {paths.describe_search_path()}"
    if openml_ids:
        msg += f", and for {', '.join(openml_ids)} in {paths.cache_dir() / 'openml'}"
    return f"{msg}. To get it, {how_to_get(card)}"


# ----------------------------------------------------------------------------------------- processing


def _map_labels(raw: np.ndarray, cmap: dict[Any, Any] | None, what: str, part: str) -> np.ndarray:
    """Apply ``class_map`` (keys compared as canonical strings); returns an int or str array."""
    if cmap is not None:
        lookup = {canonical_label(k): v for k, v in cmap.items()}
        unknown = sorted({v for v in raw if v not in lookup})
        if unknown:
            raise DatasetError(
                f"{what}: {part} label(s) {unknown[:5]} not in parse.class_map (keys: {sorted(lookup)[:12]})"
            )
        mapped = [lookup[v] for v in raw]
    else:
        mapped = list(raw)
    if all(isinstance(v, (int, np.integer)) or (isinstance(v, str) and _is_int(v)) for v in mapped):
        return np.array([int(v) for v in mapped], dtype=np.int64)
    return np.array([str(v) for v in mapped])


def _is_int(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def _counts(y: np.ndarray) -> dict[str, int]:
    labels, counts = np.unique(y, return_counts=True)
    return {canonical_label(lbl): int(c) for lbl, c in zip(labels, counts, strict=True)}


def _check_expected(card: DatasetCard, X: np.ndarray, y: np.ndarray, part: str, what: str) -> None:
    if part == "test":
        n_exp, counts_exp, d_exp = card.n_test_official, card.test_class_counts, card.n_features
    else:
        n_exp, counts_exp, d_exp = card.n_samples, card.class_counts, card.n_features
    got = (X.shape[0], X.shape[1])
    if got != (n_exp, d_exp):
        raise DatasetError(
            f"{what}: {part} shape {got[0]} x {got[1]} differs from the card's expected "
            f"{n_exp} x {d_exp} ({card.path})"
        )
    expected = {canonical_label(k): v for k, v in counts_exp.items()}
    actual = _counts(y)
    if actual != expected:
        raise DatasetError(
            f"{what}: {part} class counts {actual} differ from the card's expected {expected} ({card.path})"
        )


def _finish_part(
    card: DatasetCard,
    X: np.ndarray,
    y_raw: np.ndarray,
    groups: np.ndarray | None,
    cmap: Any,
    what: str,
    part: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, list[str]]:
    notes = []
    has_label = y_raw != ""
    if not has_label.all():
        notes.append(f"{part}: dropped {int((~has_label).sum())} row(s) with a missing label")
        X, y_raw = X[has_label], y_raw[has_label]
        groups = None if groups is None else groups[has_label]
    y = _map_labels(y_raw, cmap, what, part)
    if np.isinf(X).any():
        rows, cols = np.nonzero(np.isinf(X))
        raise DatasetError(
            f"{what}: {part} X has {len(rows)} infinite value(s) (first at row {rows[0]}, column {cols[0]}); "
            "inf is never accepted — fix the file or the parse spec"
        )
    nan_rows = np.isnan(X).any(axis=1)
    if nan_rows.any():
        if card.missing == "drop":
            notes.append(f"{part}: dropped {int(nan_rows.sum())} row(s) with missing values (missing: drop)")
            X, y = X[~nan_rows], y[~nan_rows]
            groups = None if groups is None else groups[~nan_rows]
        elif card.missing == "keep":
            notes.append(
                f"{part}: {int(np.isnan(X).sum())} missing value(s) in {int(nan_rows.sum())} row(s) "
                "kept as NaN"
            )
        else:
            raise DatasetError(
                f"{what}: {part} X has {int(np.isnan(X).sum())} missing value(s) but the card declares none; "
                f"set 'missing: drop' or 'missing: keep' in {card.path}"
            )
    return X, y, groups, notes


def _readonly(a: np.ndarray | None) -> np.ndarray | None:
    if a is not None:
        a.flags.writeable = False
    return a


def _parse_source(card: DatasetCard, source: Source, files: dict[str, Path]) -> RawTable:
    what = f"dataset '{card.name}' (source '{source.id}')"
    if source.kind == "openml":
        return load_openml(source, what)
    fmt = source.parse["format"]
    return PARSERS[fmt](files, source.parse, what)


def _build(card: DatasetCard, source: Source, files: dict[str, Path]) -> TableDataset:
    what = f"dataset '{card.name}' (source '{source.id}')"
    raw = _parse_source(card, source, files)
    cmap = source.parse.get("class_map")
    X, y, groups, notes = _finish_part(
        card, raw.X, raw.y, raw.groups, cmap, what, "train" if raw.X_test is not None else "data"
    )
    X_test = y_test = groups_test = None
    if raw.X_test is not None:
        if not card.has_official_test:
            raise DatasetError(
                f"{what}: the source yields a test split but the card has no expected.test ({card.path})"
            )
        X_test, y_test, groups_test, test_notes = _finish_part(
            card, raw.X_test, raw.y_test, raw.groups_test, cmap, what, "test"
        )
        notes += test_notes
        _check_expected(card, X_test, y_test, "test", what)
    elif card.has_official_test:
        raise DatasetError(
            f"{what}: the card expects an official test split but the source gives none ({card.path})"
        )
    _check_expected(card, X, y, "train" if X_test is not None else "data", what)
    if y_test is not None and y.dtype.kind != y_test.dtype.kind:
        y_test = y_test.astype(y.dtype)
    used = ", ".join(str(p) for p in files.values()) if files else f"openml id {source.openml_id}"
    return TableDataset(
        name=card.name,
        X=_readonly(np.ascontiguousarray(X)),
        y=_readonly(y),
        feature_names=list(raw.feature_names),
        categorical=_readonly(raw.categorical.copy()),
        classes=_readonly(np.unique(y)),
        X_test=_readonly(None if X_test is None else np.ascontiguousarray(X_test)),
        y_test=_readonly(y_test),
        source=f"{source.id} ({source.kind}): {used}",
        notes="\n".join([card.notes, *([source.notes] if source.notes else []), *notes]).strip(),
        categories=dict(raw.categories),
        groups=_readonly(groups),
        groups_test=_readonly(groups_test),
    )


_LOADED: OrderedDict[tuple, TableDataset] = OrderedDict()
_MAX_LOADED = 16
_LOADED_LOCK = threading.Lock()


def _file_key(files: dict[str, Path]) -> tuple:
    out = []
    for role, p in sorted(files.items()):
        st = p.stat()
        out.append((role, str(p.resolve()), st.st_size, st.st_mtime_ns))
    return tuple(out)


def _open_card(card: DatasetCard, source_id: str | None, download: bool) -> TableDataset | SyntheticDataset:
    if card.kind == "synthetic":
        src = card.sources[0]
        return make_synthetic(card.name, src.generator, src.params, card.notes)
    found = find_local_source(card, source_id)
    if found is None and download:
        fetch(card.name, source_id=source_id)
        found = find_local_source(card, source_id)
    if found is None:
        raise DatasetError(_missing_message(card, source_id))
    source, files = found
    st = card.path.stat()
    key = (str(card.path.resolve()), st.st_mtime_ns, source.id, _file_key(files))
    with _LOADED_LOCK:  # the runner may load from several threads
        hit = _LOADED.get(key)
        if hit is not None:
            _LOADED.move_to_end(key)
            return hit
    ds = _build(card, source, files)
    with _LOADED_LOCK:
        _LOADED[key] = ds
        while len(_LOADED) > _MAX_LOADED:
            _LOADED.popitem(last=False)
    return ds


def open_dataset(
    spec: str | Mapping[str, Any], *, source: str | None = None, download: bool = False
) -> TableDataset | SyntheticDataset:
    """Open a dataset by card name, or an inline synthetic spec.

    Parameters
    ----------
    spec : str or mapping
        A card name (``"sonar"``), or ``{"generator": "weston_linear", "params": {...}}`` with an optional
        ``"name"``.
    source : str, optional
        Force one source of the card (by id or kind), e.g. ``"libsvm"`` for USPS.
    download : bool, default False
        If no local copy exists, download the card's url/openml sources into the cache first (needs a
        network connection).

    Returns
    -------
    TableDataset or SyntheticDataset
    """
    if isinstance(spec, str):
        return _open_card(get_card(spec), source, download)
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"generator", "params", "name"}
        if unknown or "generator" not in spec:
            raise DatasetError(
                f"inline dataset spec {dict(spec)!r}: expected keys 'generator' (required), 'params', 'name'"
                + (f"; unknown: {', '.join(sorted(map(str, unknown)))}" if unknown else "")
            )
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            raise DatasetError(f"inline dataset spec: 'params' must be a mapping, got {params!r}")
        name = spec.get("name")
        if name is None:
            args = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
            name = f"{spec['generator']}({args})" if args else str(spec["generator"])
        return make_synthetic(str(name), spec["generator"], dict(params), "inline synthetic spec")
    raise DatasetError(f"dataset spec must be a card name or a mapping, got {type(spec).__name__}")


# ---------------------------------------------------------------------------------- verify / describe


def verify(name: str | None = None) -> list[tuple[str, str, str, str]]:
    """Check the files of one card (or all) against their hashes.

    Returns
    -------
    list of (card_name, file_path, status, message)
        status is ``ok``, ``missing``, ``mismatch`` (the file is corrupt: its sha256 differs from the card's
        or from the one recorded on first use) or ``n/a`` (synthetic / openml sources, checked by shape
        and class counts when loaded). ``file_path`` is the found path, or the relative path if missing.
    """
    cards = [get_card(name)] if name is not None else list_cards()
    out: list[tuple[str, str, str, str]] = []
    for card in cards:
        seen: set[tuple[str, str | None]] = set()  # a github source shares the mirror's path and hash
        for src in card.sources:
            if src.kind == "synthetic":
                out.append((card.name, "", "n/a", f"synthetic generator '{src.generator}'"))
                continue
            if src.kind == "openml":
                where = "in the cache" if openml_cached(src.openml_id) else "not in the cache"
                out.append(
                    (card.name, f"openml:{src.openml_id}", "n/a", f"source '{src.id}': openml id {where}")
                )
                continue
            for entry in src.files:
                if (entry.path, entry.sha256) in seen:
                    continue
                seen.add((entry.path, entry.sha256))
                path = paths.locate(entry.path)
                if path is None:
                    out.append(
                        (
                            card.name,
                            entry.path,
                            "missing",
                            f"source '{src.id}': not in {paths.describe_search_path()}",
                        )
                    )
                    continue
                status, message = store.check_file(path, entry.sha256, f"dataset '{card.name}'")
                if status == "mismatch":  # the row names the card and the path already
                    detail = message.removeprefix(f"dataset '{card.name}': sha256 mismatch for {path}: ")
                    message = f"{CORRUPT}: {detail}"
                out.append((card.name, str(path), status, f"source '{src.id}': {message}"))
    return out


def describe(card: DatasetCard) -> str:
    """Multi-line human summary of a card (for ``fsbench datasets info NAME``)."""
    lines = [f"{card.name}: {card.description}", f"  kind:      {card.kind}", f"  card:      {card.path}"]
    if card.kind == "synthetic":
        src = card.sources[0]
        lines.append(f"  generator: {src.generator} {src.params or ''}".rstrip())
        lines.append(f"  features:  {card.n_features}")
    else:
        counts = ", ".join(f"{k}: {v}" for k, v in card.class_counts.items())
        lines.append(f"  shape:     {card.n_samples} x {card.n_features}   classes: {counts}")
        if card.has_official_test:
            tcounts = ", ".join(f"{k}: {v}" for k, v in card.test_class_counts.items())
            lines.append(f"  test:      {card.n_test_official} (official split)   classes: {tcounts}")
        lines.append(f"  missing:   {card.missing}")
        avail = availability(card)
        if avail.state == "ok":
            lines.append(f"  available: yes, source {avail.source.id!r}")
        else:
            why = f" ({card.unavailable})" if card.unavailable and avail.state == "missing" else ""
            lines.append(f"  available: {avail.label}{why}")
            lines.append(f"  to get it: {how_to_get(card)}")
        corrupt = {path for path, _ in avail.corrupt}
        for src in card.sources:
            lines.append(f"  source {src.id!r} ({src.kind}):")
            if src.kind == "openml":
                cached = "in the cache" if openml_cached(src.openml_id) else "not in the cache"
                lines.append(f"    openml id {src.openml_id}  [{cached}]")
            for e in src.files:
                path = paths.locate(e.path)
                where = "not found" if path is None else f"{CORRUPT if path in corrupt else 'found'}: {path}"
                lines.append(f"    {e.role}: {e.path}  [{where}]")
                if e.url:
                    lines.append(f"      url: {e.url}")
                lines.append(f"      sha256: {e.sha256 or 'unknown (recorded on first use)'}")
    lines.append(f"  citation:  {card.citation}")
    if card.notes:
        lines.append("  notes:")
        lines.extend(f"    {ln}" for ln in card.notes.splitlines())
    return "\n".join(lines)
