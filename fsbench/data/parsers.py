"""File parsers: turn one source's files into a :class:`RawTable` (features, raw labels, metadata).

Formats (``parse.format``):

* ``csv`` / ``whitespace``: text tables read with pandas (``delimiter``, ``skiprows``, ``header``,
  ``column_names``, ``comment``, ``skipinitialspace``, ``na_values``); ``label`` names the label column,
  ``drop`` columns to discard, ``categorical`` the categorical ones. ``test_rows_from`` splits off an
  official test part by row index. A ``test`` file, if the source has one, is parsed the same way.
* ``libsvm``: ``sklearn.datasets.load_svmlight_file`` (``.bz2``/``.gz`` by extension); ``n_features``,
  ``zero_based``.
* ``mat``: ``scipy.io.loadmat``; ``x_key``, ``y_key``.
* ``hdf5``: h5py (optional extra ``fsbench[hdf5]``); ``x_key``, ``y_key``, ``x_test_key``, ``y_test_key``.
* ``openml``: the ``openml`` package; ``label`` is the target attribute (default: the dataset's default).

Categorical columns become float codes: numeric categories keep their values (e.g. chest-pain type 1–4),
string categories get codes 0..k−1 in sorted order of the levels (listed in ``RawTable.categories``).
Missing entries are NaN. Labels are kept raw here (as canonical strings); class mapping, the missing-value
policy and the expected-counts check happen in :mod:`fsbench.data.dataset`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fsbench.data.errors import DatasetError


@dataclass
class RawTable:
    """Parsed features with raw labels (before class mapping and the missing-value policy)."""

    X: np.ndarray
    y: np.ndarray  # canonical label strings (see canonical_label)
    feature_names: list[str]
    categorical: np.ndarray
    categories: dict[str, list[Any]] = field(default_factory=dict)
    groups: np.ndarray | None = None
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    groups_test: np.ndarray | None = None


def canonical_label(value: Any) -> str:
    """Label as a comparable string: integral numbers lose their decimals (``1.`` and ``1.0`` → ``"1"``)."""
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    text = str(value).strip()
    try:
        num = float(text)
    except ValueError:
        return text
    if np.isfinite(num) and num.is_integer():
        return str(int(num))
    return text


def _col_index(ref: Any, columns: list[str], what: str, key: str) -> int:
    if isinstance(ref, int):
        if -len(columns) <= ref < len(columns):
            return ref % len(columns)
        raise DatasetError(
            f"{what}: parse key '{key}' refers to column {ref}, but the file has {len(columns)} columns"
        )
    if ref in columns:
        return columns.index(ref)
    raise DatasetError(f"{what}: parse key '{key}' refers to column {ref!r}, not among the column names")


def _numeric_column(values: pd.Series, name: str, what: str, path: Path) -> np.ndarray:
    num = pd.to_numeric(values, errors="coerce")
    bad = values.notna() & num.isna()
    if bad.any():
        first = values[bad].iloc[0]
        raise DatasetError(
            f"{what}: non-numeric value {first!r} in column '{name}' of {path} "
            f"({int(bad.sum())} such values); "
            "declare it in parse.categorical or parse.na_values"
        )
    return num.to_numpy(dtype=np.float64)


def _categorical_column(values: pd.Series, levels: list[Any] | None) -> tuple[np.ndarray, list[Any]]:
    """Float codes for one categorical column; ``levels`` (from the training part) fixes string codes."""
    num = pd.to_numeric(values, errors="coerce")
    if not (values.notna() & num.isna()).any():
        codes = num.to_numpy(dtype=np.float64)
        return codes, sorted(np.unique(codes[~np.isnan(codes)]).tolist())
    strings = values.astype("string").str.strip()
    if levels is None:
        levels = sorted(strings.dropna().unique().tolist())
    lookup = {lvl: float(i) for i, lvl in enumerate(levels)}
    # a level seen only in the test part gets a fresh code after the training levels
    for lvl in sorted(set(strings.dropna().unique().tolist()) - set(lookup)):
        lookup[lvl] = float(len(lookup))
        levels = [*levels, lvl]
    codes = np.array([np.nan if pd.isna(v) else lookup[v] for v in strings], dtype=np.float64)
    return codes, levels


def _read_text(path: Path, parse: dict[str, Any], what: str) -> pd.DataFrame:
    fmt = parse["format"]
    kwargs: dict[str, Any] = {
        "sep": r"\s+" if fmt == "whitespace" else parse.get("delimiter", ","),
        "header": 0 if parse.get("header", False) else None,
        "skiprows": parse.get("skiprows", 0),
        "dtype": str,
        "na_values": parse.get("na_values", ["?", ""]),
        "keep_default_na": False,
        "comment": parse.get("comment"),
        "skipinitialspace": parse.get("skipinitialspace", False),
        "skip_blank_lines": True,
    }
    try:
        df = pd.read_csv(path, **kwargs)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        msg = " ".join(str(exc).split())
        raise DatasetError(f"{what}: cannot parse {path} as {fmt}: {msg}") from None
    names = parse.get("column_names")
    if names is not None:
        if len(names) != df.shape[1]:
            raise DatasetError(
                f"{what}: parse key 'column_names' lists {len(names)} names "
                f"but {path} has {df.shape[1]} columns"
            )
        df.columns = list(names)
    elif parse.get("header", False):
        df.columns = [str(c).strip() for c in df.columns]
    else:
        df.columns = [f"a{j + 1}" for j in range(df.shape[1])]
    # whitespace-only cells (e.g. "  ?") are normalised before the missing-value tokens are applied
    na = list(parse.get("na_values", ["?", ""]))
    return df.apply(lambda col: _strip_na(col, na))


def _strip_na(col: pd.Series, na: list[str]) -> pd.Series:
    stripped = col.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v)
    return stripped.where(~stripped.isin(na) & stripped.notna(), np.nan)


def _table_from_frame(
    df: pd.DataFrame, parse: dict[str, Any], what: str, path: Path, levels: dict[str, list[Any]] | None = None
) -> RawTable:
    columns = list(df.columns)
    label_idx = _col_index(parse["label"], columns, what, "label")
    drop_idx = {_col_index(r, columns, what, "drop") for r in parse.get("drop", [])}
    cat_idx = {_col_index(r, columns, what, "categorical") for r in parse.get("categorical", [])}
    group_idx = (
        _col_index(parse["group_column"], columns, what, "group_column") if "group_column" in parse else None
    )
    if label_idx in cat_idx | drop_idx:
        raise DatasetError(
            f"{what}: the label column {columns[label_idx]!r} is also listed in drop/categorical"
        )
    keep = [j for j in range(len(columns)) if j != label_idx and j not in drop_idx and j != group_idx]
    n = len(df)
    X = np.empty((n, len(keep)), dtype=np.float64)
    categorical = np.zeros(len(keep), dtype=bool)
    categories: dict[str, list[Any]] = {}
    for out, j in enumerate(keep):
        name = str(columns[j])
        if j in cat_idx:
            X[:, out], categories[name] = _categorical_column(df.iloc[:, j], (levels or {}).get(name))
            categorical[out] = True
        else:
            X[:, out] = _numeric_column(df.iloc[:, j], name, what, path)
    y = np.array([canonical_label(v) if not pd.isna(v) else "" for v in df.iloc[:, label_idx]], dtype=object)
    groups = None
    if group_idx is not None:
        raw_groups = df.iloc[:, group_idx].astype(str).to_numpy()
        pattern = parse.get("group_pattern")
        if pattern is not None:
            rx = re.compile(pattern)
            matched = [rx.search(g) for g in raw_groups]
            if not all(matched):
                bad = raw_groups[[m is None for m in matched].index(True)]
                raise DatasetError(
                    f"{what}: parse key 'group_pattern' {pattern!r} does not match {bad!r} in {path}"
                )
            raw_groups = np.array([m.group(1) if m.groups() else m.group(0) for m in matched], dtype=object)
        groups = raw_groups
    return RawTable(X, y, [str(columns[j]) for j in keep], categorical, categories, groups)


def _split_rows(table: RawTable, start: int, what: str) -> RawTable:
    n = len(table.y)
    if not 0 < start < n:
        raise DatasetError(f"{what}: parse key 'test_rows_from' = {start} must lie inside the {n} rows")
    return RawTable(
        table.X[:start],
        table.y[:start],
        table.feature_names,
        table.categorical,
        table.categories,
        None if table.groups is None else table.groups[:start],
        table.X[start:],
        table.y[start:],
        None if table.groups is None else table.groups[start:],
    )


def parse_text(files: dict[str, Path], parse: dict[str, Any], what: str) -> RawTable:
    """csv / whitespace tables."""
    table = _table_from_frame(_read_text(files["data"], parse, what), parse, what, files["data"])
    if "test" in files:
        test = _table_from_frame(
            _read_text(files["test"], parse, what), parse, what, files["test"], table.categories
        )
        if test.feature_names != table.feature_names:
            raise DatasetError(f"{what}: the columns of {files['test']} differ from those of {files['data']}")
        table.X_test, table.y_test, table.groups_test = test.X, test.y, test.groups
        table.categories = {**table.categories, **test.categories}
    elif "test_rows_from" in parse:
        table = _split_rows(table, parse["test_rows_from"], what)
    return table


def _dense_features(n_features: int, prefix: str = "x") -> tuple[list[str], np.ndarray]:
    return [f"{prefix}{j + 1}" for j in range(n_features)], np.zeros(n_features, dtype=bool)


def _decompressed(path: Path) -> io.BytesIO | str:
    """Whole-file decompression: sklearn reads a .bz2 path several times slower than a memory buffer."""
    opener = {".bz2": bz2.open, ".gz": gzip.open}.get(path.suffix)
    if opener is None:
        return str(path)
    with opener(path, "rb") as f:
        return io.BytesIO(f.read())


def parse_libsvm(files: dict[str, Path], parse: dict[str, Any], what: str) -> RawTable:
    """LibSVM/svmlight sparse text (optionally .bz2/.gz), densified."""
    # heavy (scikit-learn, scipy): loaded only to parse, so that `fsbench data list/info` start fast
    from sklearn.datasets import load_svmlight_file

    kwargs: dict[str, Any] = {"zero_based": parse.get("zero_based", "auto")}
    if "n_features" in parse:
        kwargs["n_features"] = parse["n_features"]
    parts = []
    for role in ("data", "test"):
        if role not in files:
            continue
        try:
            Xs, ys = load_svmlight_file(_decompressed(files[role]), **kwargs)
        except (ValueError, OSError, EOFError) as exc:
            msg = " ".join(str(exc).split())
            raise DatasetError(f"{what}: cannot parse {files[role]} as libsvm: {msg}") from None
        parts.append(
            (
                np.asarray(Xs.toarray(), dtype=np.float64),
                np.array([canonical_label(v) for v in ys], dtype=object),
            )
        )
    names, cat = _dense_features(parts[0][0].shape[1])
    table = RawTable(parts[0][0], parts[0][1], names, cat)
    if len(parts) > 1:
        if parts[1][0].shape[1] != parts[0][0].shape[1]:
            raise DatasetError(
                f"{what}: {files['test']} has {parts[1][0].shape[1]} features, "
                f"{files['data']} has {parts[0][0].shape[1]}; set parse.n_features"
            )
        table.X_test, table.y_test = parts[1]
    return table


def parse_mat(files: dict[str, Path], parse: dict[str, Any], what: str) -> RawTable:
    """MATLAB .mat (v5) with a feature matrix and a label vector."""
    from scipy.io import loadmat  # heavy (scipy): loaded only to parse, as load_svmlight_file above

    path = files["data"]
    try:
        mat = loadmat(str(path))
    except (ValueError, OSError, NotImplementedError) as exc:
        msg = " ".join(str(exc).split())
        raise DatasetError(f"{what}: cannot read {path} as a MATLAB file: {msg}") from None
    xk, yk = parse.get("x_key", "X"), parse.get("y_key", "Y")
    for key in (xk, yk):
        if key not in mat:
            found = ", ".join(k for k in mat if not k.startswith("__"))
            raise DatasetError(
                f"{what}: variable {key!r} not in {path} (has: {found}); set parse.x_key/y_key"
            )
    X = np.asarray(mat[xk], dtype=np.float64)
    y = np.asarray(mat[yk]).ravel()
    names, cat = _dense_features(X.shape[1])
    return RawTable(X, np.array([canonical_label(v) for v in y], dtype=object), names, cat)


def parse_hdf5(files: dict[str, Path], parse: dict[str, Any], what: str) -> RawTable:
    """HDF5 with train (and optionally test) arrays; needs h5py."""
    try:
        import h5py  # optional dependency (fsbench[hdf5])
    except ImportError:
        raise DatasetError(
            f"{what}: reading {files['data']} needs h5py, which is not installed; "
            "run: pip install 'fsbench[hdf5]'"
        ) from None
    path = files["data"]
    keys = {k: parse.get(k) for k in ("x_key", "y_key", "x_test_key", "y_test_key")}
    if keys["x_key"] is None or keys["y_key"] is None:
        raise DatasetError(f"{what}: parse keys 'x_key' and 'y_key' are required for format hdf5")
    arrays: dict[str, np.ndarray] = {}
    try:
        with h5py.File(path, "r") as h5:
            for k, v in keys.items():
                if v is None:
                    continue
                if v not in h5:
                    raise DatasetError(f"{what}: dataset {v!r} (parse key '{k}') not in {path}")
                arrays[k] = np.asarray(h5[v][()])
    except OSError as exc:
        msg = " ".join(str(exc).split())
        raise DatasetError(f"{what}: cannot read {path} as HDF5: {msg}") from None
    X = arrays["x_key"].astype(np.float64).reshape(len(arrays["x_key"]), -1)
    names, cat = _dense_features(X.shape[1])
    table = RawTable(
        X, np.array([canonical_label(v) for v in arrays["y_key"].ravel()], dtype=object), names, cat
    )
    if "x_test_key" in arrays:
        table.X_test = arrays["x_test_key"].astype(np.float64).reshape(len(arrays["x_test_key"]), -1)
        table.y_test = np.array([canonical_label(v) for v in arrays["y_test_key"].ravel()], dtype=object)
    return table


def parse_openml_frame(
    X: pd.DataFrame, y: pd.Series, categorical_indicator: list[bool], parse: dict[str, Any], what: str
) -> RawTable:
    """Turn the pandas output of ``OpenMLDataset.get_data`` into a RawTable (drop/categorical from parse)."""
    label_name = "__label__"
    df = pd.concat([X, y.rename(label_name)], axis=1)
    # everything as strings (NaN for missing), so the text-table path does the numeric/categorical coding
    df = df.apply(lambda col: col.astype(object).map(lambda v: np.nan if pd.isna(v) else str(v)))
    spec = dict(parse)
    spec["label"] = label_name
    spec.setdefault(
        "categorical", [c for c, is_cat in zip(X.columns, categorical_indicator, strict=True) if is_cat]
    )
    return _table_from_frame(df, spec, what, Path(f"openml:{what}"))


PARSERS = {
    "csv": parse_text,
    "whitespace": parse_text,
    "libsvm": parse_libsvm,
    "mat": parse_mat,
    "hdf5": parse_hdf5,
}
