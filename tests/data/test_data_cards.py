"""Cards, search path, checksums and the missing-value policy, on small self-made cards and files."""

from __future__ import annotations

import hashlib
import os
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from fsbench.data import (
    DatasetError,
    DatasetWarning,
    TableDataset,
    data_search_path,
    describe,
    get_card,
    list_cards,
    open_dataset,
    verify,
)

SYN = (
    "name: syn\ndescription: d\ncitation: c\nkind: synthetic\n"
    "sources: [{kind: synthetic, generator: weston_linear}]\n"
)
CSV = "1.0,a,x,P\n2.0,b,y,N\n3.0,a,x,P\n4.0,c,y,N\n5.0,b,x,P\n"


def sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Isolated cards dir, data dir and cache dir."""
    dirs = {k: tmp_path / k for k in ("cards", "data", "cache")}
    for d in dirs.values():
        d.mkdir()
    monkeypatch.setenv("FSBENCH_CARDS_DIR", str(dirs["cards"]))
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(dirs["data"]))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(dirs["cache"]))
    return dirs


def write_card(cards: Path, name: str, body: str) -> Path:
    path = cards / f"{name}.yaml"
    path.write_text(textwrap.dedent(body).lstrip(), encoding="utf-8")
    return path


def toy_card(
    cards: Path,
    data: Path,
    csv: str = CSV,
    *,
    name: str = "toy",
    missing: str = "none",
    n: int = 5,
    counts: str = "{pos: 3, neg: 2}",
    digest: str | None = "auto",
    extra_parse: str = "",
) -> None:
    (data / name).mkdir(exist_ok=True)
    (data / name / "toy.csv").write_text(csv)
    h = sha(csv) if digest == "auto" else digest
    write_card(
        cards,
        name,
        f"""
        name: {name}
        description: tiny test table
        citation: none
        kind: table
        missing: {missing}
        expected: {{n_samples: {n}, n_features: 3, class_counts: {counts}}}
        parse:
          format: csv
          label: -1
          categorical: [1, 2]
          class_map: {{P: pos, N: neg}}
          {extra_parse}
        sources:
          - id: local
            kind: file
            files:
              data: {{path: {name}/toy.csv, sha256: {"null" if h is None else h}}}
        """,
    )


def test_search_path_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FSBENCH_DATA_DIR", f"{tmp_path / 'a'}{os.pathsep}{os.pathsep}{tmp_path / 'b'}")
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "c"))
    assert data_search_path() == [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    monkeypatch.delenv("FSBENCH_DATA_DIR")
    monkeypatch.delenv("FSBENCH_CACHE_DIR")
    assert data_search_path() == [Path("~/.cache/fsbench").expanduser()]


def test_repository_cards_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)
    cards = list_cards()
    names = {c.name for c in cards}
    assert {"weston_linear", "weston_nonlinear", "sonar", "ionosphere", "breast_cancer_wisconsin"} <= names
    for card in cards:
        assert card.path.name == f"{card.name}.yaml"
        assert card.kind in ("table", "synthetic")
        if card.kind == "table" and not card.unavailable:  # an unavailable card may not know its classes
            assert sum(card.class_counts.values()) == card.n_samples, card.name
            if card.has_official_test:
                assert sum(card.test_class_counts.values()) == card.n_test_official, card.name
        assert card.name in describe(card)


def test_unknown_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)
    with pytest.raises(DatasetError, match=r"unknown dataset 'nope'; known: .*sonar") as exc:
        open_dataset("nope")
    assert "\n" not in str(exc.value)


def test_load_table_with_categoricals(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"])
    ds = open_dataset("toy")
    assert isinstance(ds, TableDataset)
    assert ds.X.shape == (5, 3) and ds.n_samples == 5 and ds.n_features == 3
    np.testing.assert_array_equal(ds.categorical, [False, True, True])
    np.testing.assert_array_equal(ds.X[:, 1], [0, 1, 0, 2, 1])  # a, b, c -> sorted codes
    assert ds.categories["a2"] == ["a", "b", "c"]
    assert list(ds.y) == ["pos", "neg", "pos", "neg", "pos"] and list(ds.classes) == ["neg", "pos"]
    assert ds.feature_names == ["a1", "a2", "a3"]
    assert ds.X_test is None and ds.y_test is None
    assert "local" in ds.source and str(env["data"]) in ds.source
    assert not ds.X.flags.writeable  # cached copy protected
    assert open_dataset("toy") is ds  # per-process cache
    card = get_card("toy")
    assert card.available() and not card.has_official_test and card.n_test_official is None


def test_checksum_mismatch_message(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], digest="ab" * 32)
    with pytest.raises(DatasetError) as exc:
        open_dataset("toy")
    msg = str(exc.value)
    assert "sha256 mismatch" in msg and "ab" * 32 in msg and sha(CSV) in msg
    assert str(env["data"] / "toy" / "toy.csv") in msg and "\n" not in msg
    assert not get_card("toy").available()
    rows = verify("toy")
    assert rows[0][2] == "mismatch" and rows[0][1] == str(env["data"] / "toy" / "toy.csv")


def test_altered_file_detected_after_cache(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"])
    open_dataset("toy")
    path = env["data"] / "toy" / "toy.csv"
    path.write_text(CSV.replace("5.0", "6.0"))
    os.utime(path, ns=(1, 1))  # new mtime → re-hash
    with pytest.raises(DatasetError, match="sha256 mismatch"):
        open_dataset("toy")


def test_missing_file_message(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"])
    (env["data"] / "toy" / "toy.csv").unlink()
    assert not get_card("toy").available()
    with pytest.raises(DatasetError) as exc:
        open_dataset("toy")
    msg = str(exc.value)
    assert "toy/toy.csv" in msg and str(env["data"]) in msg and str(env["cache"]) in msg
    assert "FSBENCH_DATA_DIR=/path/to/mirror (a directory holding toy/toy.csv)" in msg and "\n" not in msg
    assert "fetch(" not in msg and "datasets download" not in msg  # a file-only card cannot be downloaded
    assert verify("toy")[0][2] == "missing"


CSV_NAN = "1.0,a,x,P\n?,b,y,N\n3.0,a,?,P\n4.0,c,y,N\n5.0,b,x,P\n"


def test_missing_drop(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], CSV_NAN, missing="drop", n=3, counts="{pos: 2, neg: 1}")
    ds = open_dataset("toy")
    assert ds.X.shape == (3, 3) and not np.isnan(ds.X).any()
    np.testing.assert_array_equal(ds.X[:, 0], [1, 4, 5])
    assert "dropped 2 row(s) with missing values" in ds.notes


def test_missing_keep(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], CSV_NAN, missing="keep")
    ds = open_dataset("toy")
    assert np.isnan(ds.X[1, 0]) and np.isnan(ds.X[2, 2]) and int(np.isnan(ds.X).sum()) == 2
    assert "kept as NaN" in ds.notes


def test_missing_none_refuses_nan(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], CSV_NAN)
    with pytest.raises(DatasetError, match="missing value.*declares none.*missing: drop"):
        open_dataset("toy")


def test_inf_always_refused(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], CSV.replace("2.0", "inf"), missing="keep")
    with pytest.raises(DatasetError, match="infinite value.*row 1, column 0"):
        open_dataset("toy")


def test_expected_counts_checked(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], counts="{pos: 2, neg: 3}")
    with pytest.raises(DatasetError, match=r"class counts .* differ from the card's expected"):
        open_dataset("toy")
    toy_card(env["cards"], env["data"], n=6, counts="{pos: 3, neg: 3}")
    with pytest.raises(DatasetError, match="shape 5 x 3 differs from the card's expected 6 x 3"):
        open_dataset("toy")


def test_unmapped_label_and_non_numeric(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], CSV.replace(",N\n", ",Q\n", 1))
    with pytest.raises(DatasetError, match=r"label\(s\) \['Q'\] not in parse.class_map"):
        open_dataset("toy")
    toy_card(env["cards"], env["data"], CSV.replace("2.0", "two"))
    with pytest.raises(DatasetError, match="non-numeric value 'two' in column 'a1'"):
        open_dataset("toy")


def test_trust_on_first_use(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"], digest=None)
    with pytest.warns(DatasetWarning, match="trusting it on first use"):
        open_dataset("toy")
    side = env["data"] / "toy" / "toy.csv.sha256"
    assert side.read_text().split()[0] == sha(CSV)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verify("toy")[0][2] == "ok"
    path = env["data"] / "toy" / "toy.csv"
    path.write_text(CSV.replace("5.0", "7.0"))
    os.utime(path, ns=(2, 2))
    with pytest.raises(DatasetError, match="recorded on first use"):
        open_dataset("toy")


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("colour: red\n", "key 'colour' is unknown"),
        ("missing: sometimes\n", "key 'missing' must be none, drop or keep"),
        (
            "expected: {n_samples: many, n_features: 3, class_counts: {}}\n",
            "key 'expected.n_samples' must be int",
        ),
        ("parse: {format: csv, label: -1, delimeter: ';'}\n", "key 'parse.delimeter' is unknown"),
        ("parse: {format: excel, label: 0}\n", "key 'parse.format' must be one of"),
    ],
)
def test_malformed_card(env: dict[str, Path], body: str, match: str) -> None:
    base = """
        name: bad
        description: d
        citation: c
        kind: table
        sources:
          - {kind: file, files: {data: {path: bad/x.csv, sha256: null}}, parse: {format: csv, label: 0}}
        expected: {n_samples: 1, n_features: 1, class_counts: {a: 1}}
        """
    lines = [
        ln for ln in textwrap.dedent(base).splitlines() if ln and not ln.startswith(body.split(":")[0] + ":")
    ]
    path = write_card(env["cards"], "bad", "\n".join(lines) + "\n" + body)
    with pytest.raises(DatasetError, match=match) as exc:
        get_card("bad")
    assert str(path) in str(exc.value) and "\n" not in str(exc.value)


def test_card_name_must_match_file(env: dict[str, Path]) -> None:
    write_card(
        env["cards"],
        "wrong",
        SYN.replace("name: syn", "name: other"),
    )
    with pytest.raises(DatasetError, match="key 'name' must equal the file name 'wrong'"):
        get_card("wrong")


def test_synthetic_card_bad_generator(env: dict[str, Path]) -> None:
    write_card(
        env["cards"],
        "syn",
        SYN.replace("weston_linear", "nope"),
    )
    with pytest.raises(DatasetError, match="unknown generator 'nope'"):
        get_card("syn")


def test_test_rows_and_groups(env: dict[str, Path]) -> None:
    csv = "g1_1,1,P\ng1_2,2,N\ng2_1,3,P\ng2_2,4,N\ng3_1,5,P\n"
    (env["data"] / "grp").mkdir()
    (env["data"] / "grp" / "g.csv").write_text(csv)
    write_card(
        env["cards"],
        "grp",
        f"""
        name: grp
        description: d
        citation: c
        kind: table
        expected:
          n_samples: 3
          n_features: 1
          class_counts: {{P: 2, N: 1}}
          test: {{n_samples: 2, class_counts: {{N: 1, P: 1}}}}
        parse: {{format: csv, label: 2, group_column: 0, group_pattern: '^(.*)_\\d+$', test_rows_from: 3}}
        sources: [{{kind: file, files: {{data: {{path: grp/g.csv, sha256: {sha(csv)}}}}}}}]
        """,
    )
    ds = open_dataset("grp")
    assert get_card("grp").has_official_test and get_card("grp").n_test_official == 2
    np.testing.assert_array_equal(ds.X[:, 0], [1, 2, 3])
    np.testing.assert_array_equal(ds.X_test[:, 0], [4, 5])
    assert list(ds.groups) == ["g1", "g1", "g2"] and list(ds.groups_test) == ["g2", "g3"]
    assert list(ds.y_test) == ["N", "P"]


def test_hdf5_without_h5py(env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    (env["data"] / "h").mkdir()
    (env["data"] / "h" / "x.h5").write_bytes(b"not really hdf5")
    write_card(
        env["cards"],
        "h",
        f"""
        name: h
        description: d
        citation: c
        kind: table
        expected: {{n_samples: 1, n_features: 1, class_counts: {{0: 1}}}}
        parse: {{format: hdf5, x_key: X, y_key: y}}
        sources: [{{kind: file, files: {{data: {{path: h/x.h5, sha256: {sha(b"not really hdf5")}}}}}}}]
        """,
    )
    monkeypatch.setitem(sys.modules, "h5py", None)  # makes `import h5py` raise ImportError
    with pytest.raises(DatasetError, match=r"needs h5py.*pip install 'fsbench\[hdf5\]'"):
        open_dataset("h")


def test_forced_unknown_source(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"])
    with pytest.raises(DatasetError, match="no source 'libsvm'; sources: local"):
        open_dataset("toy", source="libsvm")
    assert open_dataset("toy", source="local").n_samples == 5


def test_verify_all_and_bad_spec(env: dict[str, Path]) -> None:
    toy_card(env["cards"], env["data"])
    write_card(
        env["cards"],
        "syn",
        SYN,
    )
    rows = verify()
    assert {(r[0], r[2]) for r in rows} == {("toy", "ok"), ("syn", "n/a")}
    with pytest.raises(DatasetError, match="card name or a mapping"):
        open_dataset(3)  # type: ignore[arg-type]


def test_openml_frame_conversion() -> None:
    """The pandas output of openml's get_data (category dtypes, NaN) becomes codes / floats / raw labels."""
    import pandas as pd

    from fsbench.data.parsers import parse_openml_frame

    X = pd.DataFrame(
        {
            "num": [1.5, np.nan, 3.0],
            "col": pd.Categorical(["red", "blue", None]),
            "idx": [7, 8, 9],
        }
    )
    y = pd.Series(pd.Categorical(["Mine", "Rock", "Mine"]), name="Class")
    table = parse_openml_frame(X, y, [False, True, False], {"drop": ["idx"]}, "t")
    assert table.feature_names == ["num", "col"]
    np.testing.assert_array_equal(table.categorical, [False, True])
    np.testing.assert_array_equal(table.X, [[1.5, 1.0], [np.nan, 0.0], [3.0, np.nan]])
    assert table.categories["col"] == ["blue", "red"]
    assert list(table.y) == ["Mine", "Rock", "Mine"]
