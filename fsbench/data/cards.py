"""Dataset cards: the YAML files in the top-level ``datasets/`` directory, validated as :class:`DatasetCard`.

Where they are read from: :func:`cards_dir` (``FSBENCH_CARDS_DIR``, the checkout, or the copy installed
with fsbench as ``fsbench._cards``).

Card schema (every key is checked; an unknown key or a wrong type is a :class:`DatasetError` naming the
file and the key)::

    name: sonar                       # must equal the file stem
    description: one line
    citation: free text
    kind: table                       # table | synthetic
    missing: none                     # none (default: NaN in X is an error) | drop (drop incomplete rows)
                                      # | keep (NaN kept in X)
    expected:                         # after parsing, class mapping and `missing` (table cards only)
      n_samples: 208
      n_features: 60
      class_counts: {M: 111, R: 97}
      test: {n_samples: 2000, class_counts: {...}}   # only with an official test split
    notes: free text
    parse: {...}                      # parse defaults shared by the sources (see below)
    sources:                          # in order of preference
      - id: mirror                    # optional; default = kind
        kind: file                    # file | url | openml | synthetic
        files:                        # file/url: role -> entry; roles: data, test
          data: {path: sonar/sonar.csv, sha256: <hex> | null, url: https://...}   # url only for kind url
        parse: {...}                  # overrides of the card-level parse keys
        openml_id: 40                 # openml only
        generator: weston_linear      # synthetic only
        params: {}                    # synthetic only

Parse keys (merged card-level then source-level; openml sources use only their own): see
:data:`PARSE_KEYS` and :mod:`fsbench.data.parsers`. Upstream downloads go to ``<name>/uci/<file>`` so they
never collide with a mirror file of the same name but different bytes.
Column references (``label``, ``drop``, ``categorical``, ``group_column``) are 0-based positions in the
raw table (negative counts from the end) or column names (needs ``header: true`` or ``column_names``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fsbench.data.errors import DatasetError
from fsbench.data.paths import cards_dir
from fsbench.data.sources import availability
from fsbench.data.synthetic import resolve_generator

_ColRef = (int, str)

#: parse key -> accepted types (None means null is accepted)
PARSE_KEYS: dict[str, tuple] = {
    "format": (str,),  # csv | whitespace | libsvm | mat | hdf5 | openml
    "delimiter": (str,),  # csv only; default ","
    "skiprows": (int,),  # physical lines skipped before the header/data
    "header": (bool,),  # first (non-skipped) line holds column names
    "column_names": (list,),
    "comment": (str, type(None)),
    "skipinitialspace": (bool,),
    "na_values": (list,),  # tokens read as missing; default ["?", ""]
    "label": _ColRef,  # label column (text formats); target attribute name for openml
    "drop": (list,),
    "categorical": (list,),
    "class_map": (dict,),
    "group_column": _ColRef,  # optional: column giving groups (e.g. subject, molecule)
    "group_pattern": (str,),  # regex; its first group is taken from the group column
    "test_rows_from": (int,),  # rows from this 0-based index on form the official test split
    "n_features": (int,),  # libsvm
    "zero_based": (bool,),  # libsvm
    "x_key": (str,),  # mat / hdf5
    "y_key": (str,),
    "x_test_key": (str,),  # hdf5
    "y_test_key": (str,),
}
FORMATS = ("csv", "whitespace", "libsvm", "mat", "hdf5", "openml")
SOURCE_KINDS = ("file", "url", "openml", "synthetic")
FILE_ROLES = ("data", "test")
_CARD_KEYS: dict[str, tuple] = {
    "name": (str,),
    "description": (str,),
    "citation": (str,),
    "kind": (str,),
    "missing": (str,),
    "expected": (dict,),
    "notes": (str,),
    "unavailable": (str,),
    "substitution": (str,),
    "parse": (dict,),
    "sources": (list,),
}
_REQUIRED_CARD_KEYS = ("name", "description", "citation", "kind", "sources")
_SOURCE_KEYS: dict[str, tuple] = {
    "id": (str,),
    "kind": (str,),
    "files": (dict,),
    "parse": (dict,),
    "openml_id": (int,),
    "generator": (str,),
    "params": (dict,),
    "notes": (str,),
}
_FILE_KEYS: dict[str, tuple] = {"path": (str,), "sha256": (str, type(None)), "url": (str,)}
_EXPECTED_KEYS: dict[str, tuple] = {
    "n_samples": (int,),
    "n_features": (int,),
    "class_counts": (dict,),
    "test": (dict,),
}
_TEST_KEYS: dict[str, tuple] = {"n_samples": (int,), "class_counts": (dict,)}


@dataclass(frozen=True)
class FileEntry:
    """One file of a source: where it lives relative to the search path, its hash and (url) origin."""

    role: str
    path: str
    sha256: str | None
    url: str | None = None


@dataclass(frozen=True)
class Source:
    """One way of obtaining a card's data."""

    id: str
    kind: str
    files: tuple[FileEntry, ...] = ()
    parse: dict[str, Any] = field(default_factory=dict)
    openml_id: int | None = None
    generator: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    notes: str = ""

    def file(self, role: str) -> FileEntry | None:
        """The entry with this role, if any."""
        return next((f for f in self.files if f.role == role), None)


@dataclass(frozen=True, eq=False)
class DatasetCard:
    """A validated dataset card (see the module docstring for the YAML schema)."""

    name: str
    description: str
    citation: str
    kind: str
    sources: tuple[Source, ...]
    path: Path
    missing: str = "none"
    notes: str = ""
    n_samples: int | None = None
    n_features: int | None = None
    class_counts: dict[Any, int] = field(default_factory=dict)
    n_test_official: int | None = None
    test_class_counts: dict[Any, int] = field(default_factory=dict)
    #: Why no copy can be obtained (e.g. the paper's own data, never published as a file); None if it can.
    unavailable: str | None = None
    #: How this copy differs from the data the papers used (reports name it next to the affected cells).
    substitution: str | None = None

    @property
    def has_official_test(self) -> bool:
        """True if the card defines an official train/test split."""
        return self.n_test_official is not None

    def available(self) -> bool:
        """True for synthetic cards, or if some source's files are all found locally with a valid hash."""
        return availability(self).state == "ok"

    def __repr__(self) -> str:
        return f"DatasetCard({self.name!r}, kind={self.kind!r}, path={str(self.path)!r})"


def _where(file: Path, key: str) -> str:
    return f"dataset card {file}: key '{key}'"


def _check_mapping(obj: Any, allowed: dict[str, tuple], file: Path, prefix: str) -> dict:
    if not isinstance(obj, dict):
        raise DatasetError(f"{_where(file, prefix or '<top>')} must be a mapping, got {type(obj).__name__}")
    for key, value in obj.items():
        full = f"{prefix}.{key}" if prefix else str(key)
        if key not in allowed:
            raise DatasetError(f"{_where(file, full)} is unknown; allowed: {', '.join(sorted(allowed))}")
        types = allowed[key]
        # bool is an int in Python; do not accept true/false where a number is expected
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            names = "/".join("null" if t is type(None) else t.__name__ for t in types)
            raise DatasetError(f"{_where(file, full)} must be {names}, got {type(value).__name__} {value!r}")
    return obj


def _check_counts(counts: dict, file: Path, key: str) -> dict:
    for label, count in counts.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise DatasetError(f"{_where(file, f'{key}.{label}')} must be a non-negative int, got {count!r}")
    return dict(counts)


def _check_parse(parse: dict, file: Path, prefix: str) -> dict:
    _check_mapping(parse, PARSE_KEYS, file, prefix)
    fmt = parse.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise DatasetError(
            f"{_where(file, prefix + '.format')} must be one of {', '.join(FORMATS)}, got {fmt!r}"
        )
    for key in ("drop", "categorical"):
        for ref in parse.get(key, []):
            if not isinstance(ref, _ColRef) or isinstance(ref, bool):
                raise DatasetError(
                    f"{_where(file, f'{prefix}.{key}')} entries must be int or str, got {ref!r}"
                )
    for key in ("column_names", "na_values"):
        for v in parse.get(key, []):
            if not isinstance(v, str):
                raise DatasetError(f"{_where(file, f'{prefix}.{key}')} entries must be strings, got {v!r}")
    cmap = parse.get("class_map")
    if cmap is not None:
        kinds = {isinstance(v, str) for v in cmap.values()}
        if len(kinds) > 1 or any(isinstance(v, (bool, float)) or v is None for v in cmap.values()):
            raise DatasetError(
                f"{_where(file, prefix + '.class_map')} values must be all int or all str, "
                f"got {list(cmap.values())}"
            )
    return dict(parse)


def _parse_source(obj: Any, i: int, card_parse: dict, file: Path) -> Source:
    prefix = f"sources[{i}]"
    _check_mapping(obj, _SOURCE_KEYS, file, prefix)
    kind = obj.get("kind")
    if kind not in SOURCE_KINDS:
        raise DatasetError(
            f"{_where(file, prefix + '.kind')} must be one of {', '.join(SOURCE_KINDS)}, got {kind!r}"
        )
    files: list[FileEntry] = []
    for role, entry in obj.get("files", {}).items():
        fprefix = f"{prefix}.files.{role}"
        if role not in FILE_ROLES:
            raise DatasetError(f"{_where(file, fprefix)} is unknown; allowed roles: {', '.join(FILE_ROLES)}")
        _check_mapping(entry, _FILE_KEYS, file, fprefix)
        if "path" not in entry or "sha256" not in entry:
            raise DatasetError(f"{_where(file, fprefix)} needs 'path' and 'sha256' (null if unknown)")
        sha = entry["sha256"]
        if sha is not None and (len(sha) != 64 or any(c not in "0123456789abcdefABCDEF" for c in sha)):
            raise DatasetError(
                f"{_where(file, fprefix + '.sha256')} must be 64 hex digits or null, got {sha!r}"
            )
        if kind == "url" and "url" not in entry:
            raise DatasetError(f"{_where(file, fprefix + '.url')} is required for a url source")
        if kind == "url" and not entry["url"].startswith(("http://", "https://")):
            raise DatasetError(
                f"{_where(file, fprefix + '.url')} must be an http(s) address, got {entry['url']!r}"
            )
        files.append(FileEntry(role, entry["path"], sha.lower() if sha else None, entry.get("url")))
    if kind in ("file", "url") and not any(f.role == "data" for f in files):
        raise DatasetError(f"{_where(file, prefix + '.files.data')} is required for a {kind} source")
    if kind == "openml" and "openml_id" not in obj:
        raise DatasetError(f"{_where(file, prefix + '.openml_id')} is required for an openml source")
    if kind == "synthetic" and "generator" not in obj:
        raise DatasetError(f"{_where(file, prefix + '.generator')} is required for a synthetic source")
    # openml data come with their own column names and coding: such a source does not inherit card-level
    # parse keys (column positions/names of the text files would be wrong there)
    parse = {} if kind == "openml" else dict(card_parse)
    parse.update(_check_parse(obj.get("parse", {}), file, prefix + ".parse"))
    if kind == "openml":
        parse["format"] = "openml"
    if kind in ("file", "url", "openml"):
        if "format" not in parse:
            raise DatasetError(f"{_where(file, prefix + '.parse.format')} is required (card or source level)")
        if parse["format"] in ("csv", "whitespace") and "label" not in parse:
            raise DatasetError(
                f"{_where(file, prefix + '.parse.label')} is required for format {parse['format']}"
            )
    return Source(
        id=obj.get("id", kind),
        kind=kind,
        files=tuple(files),
        parse=parse,
        openml_id=obj.get("openml_id"),
        generator=obj.get("generator"),
        params=dict(obj.get("params", {})),
        notes=obj.get("notes", ""),
    )


def load_card_file(file: Path) -> DatasetCard:
    """Read and validate one card file."""
    try:
        with open(file, encoding="utf-8") as f:
            raw = yaml.safe_load(f)
    except yaml.YAMLError as exc:
        msg = " ".join(str(exc).split())
        raise DatasetError(f"dataset card {file}: invalid YAML: {msg}") from None
    _check_mapping(raw, _CARD_KEYS, file, "")
    for key in _REQUIRED_CARD_KEYS:
        if key not in raw:
            raise DatasetError(f"{_where(file, key)} is required")
    if raw["name"] != file.stem:
        raise DatasetError(
            f"{_where(file, 'name')} must equal the file name '{file.stem}', got {raw['name']!r}"
        )
    kind = raw["kind"]
    if kind not in ("table", "synthetic"):
        raise DatasetError(f"{_where(file, 'kind')} must be 'table' or 'synthetic', got {kind!r}")
    missing = raw.get("missing", "none")
    if missing not in ("none", "drop", "keep"):
        raise DatasetError(f"{_where(file, 'missing')} must be none, drop or keep, got {missing!r}")
    card_parse = _check_parse(raw.get("parse", {}), file, "parse")
    sources = tuple(_parse_source(s, i, card_parse, file) for i, s in enumerate(raw["sources"]))
    if not sources:
        raise DatasetError(f"{_where(file, 'sources')} must list at least one source")
    ids = [s.id for s in sources]
    if len(set(ids)) != len(ids):
        raise DatasetError(f"{_where(file, 'sources')} ids must be unique, got {ids}")
    kinds = {s.kind == "synthetic" for s in sources}
    if kinds != {kind == "synthetic"}:
        raise DatasetError(f"{_where(file, 'sources')}: a {kind} card needs only {kind} sources")
    expected = _check_mapping(raw.get("expected", {}), _EXPECTED_KEYS, file, "expected")
    if kind == "table":
        for key in ("n_samples", "n_features", "class_counts"):
            if key not in expected:
                raise DatasetError(f"{_where(file, 'expected.' + key)} is required for a table card")
    test = _check_mapping(expected.get("test", {}), _TEST_KEYS, file, "expected.test")
    if test and ("n_samples" not in test or "class_counts" not in test):
        raise DatasetError(f"{_where(file, 'expected.test')} needs n_samples and class_counts")
    n_features = expected.get("n_features")
    if kind == "synthetic":
        try:
            n_features = resolve_generator(sources[0].generator, sources[0].params).n_features
        except DatasetError as exc:
            raise DatasetError(f"{_where(file, 'sources[0]')}: {exc}") from None
    return DatasetCard(
        name=raw["name"],
        description=raw["description"].strip(),
        citation=raw["citation"].strip(),
        kind=kind,
        sources=sources,
        path=file,
        missing=missing,
        notes=raw.get("notes", "").strip(),
        n_samples=expected.get("n_samples"),
        n_features=n_features,
        class_counts=_check_counts(expected.get("class_counts", {}), file, "expected.class_counts"),
        n_test_official=test.get("n_samples") if test else None,
        test_class_counts=_check_counts(test.get("class_counts", {}), file, "expected.test.class_counts"),
        unavailable=raw.get("unavailable"),
        substitution=raw.get("substitution"),
    )


_CARD_CACHE: dict[tuple[str, int, int], DatasetCard] = {}


def _cached_card(file: Path) -> DatasetCard:
    st = file.stat()
    key = (str(file.resolve()), st.st_size, st.st_mtime_ns)
    card = _CARD_CACHE.get(key)
    if card is None:
        card = _CARD_CACHE[key] = load_card_file(file)
    return card


def card_names() -> list[str]:
    """Names of all cards in :func:`cards_dir`, sorted."""
    d = cards_dir()
    return sorted(p.stem for p in d.glob("*.yaml")) if d.is_dir() else []


def get_card(name: str) -> DatasetCard:
    """The card ``datasets/<name>.yaml``; :class:`DatasetError` listing the known names if absent."""
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise DatasetError(f"invalid dataset name {name!r}; known: {', '.join(card_names())}")
    file = cards_dir() / f"{name}.yaml"
    if not file.is_file():
        raise DatasetError(
            f"unknown dataset '{name}'; known: {', '.join(card_names()) or '(none)'} (in {cards_dir()})"
        )
    return _cached_card(file)


def list_cards() -> list[DatasetCard]:
    """All cards, sorted by name (a malformed card raises :class:`DatasetError`)."""
    return [get_card(n) for n in card_names()]
