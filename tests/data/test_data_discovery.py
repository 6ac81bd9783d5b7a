"""A missing or corrupt data file says how to get a good copy; ``datasets verify/list/info`` tell them apart.

The repository's ``iris`` card (mirror file, a url source with the same path, the UCI url) is pointed at a
temporary ``FSBENCH_DATA_DIR`` holding a tampered copy of its file.
"""

from __future__ import annotations

import hashlib
import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import cli

from fsbench.data import DatasetError, get_card, list_cards, open_dataset
from fsbench.data.sources import CORRUPT, availability

MIRROR_IRIS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "iris" / "iris.csv"
TABLE = "1.0,2.0,P\n3.0,4.0,N\n5.0,6.0,P\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory as the whole search path; the repository's cards."""
    monkeypatch.delenv("FSBENCH_CARDS_DIR", raising=False)
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "data").mkdir()
    return tmp_path / "data"


def _tampered_iris(data: Path) -> Path:
    """The mirror's iris.csv with one value changed (or, without the mirror, a stand-in with a wrong hash)."""
    target = data / "iris" / "iris.csv"
    target.parent.mkdir(parents=True)
    if MIRROR_IRIS.is_file():
        text = MIRROR_IRIS.read_text()
        target.write_text(text.replace("5.1,", "5.2,", 1))
        assert target.read_text() != text
    else:
        target.write_text("5.2,3.5,1.4,0.2,Iris-setosa\n")
    return target


def test_tampered_file_is_corrupt_everywhere(data: Path) -> None:
    bad = _tampered_iris(data)
    assert availability(get_card("iris")).state == "corrupt"

    with pytest.raises(DatasetError) as exc:
        open_dataset("iris")
    msg = str(exc.value)
    assert "sha256 mismatch" in msg and CORRUPT in msg and str(bad) in msg and "\n" not in msg
    assert "`fsbench datasets download iris`" in msg and "FSBENCH_DATA_DIR=/path/to/mirror" in msg
    assert "fetch(" not in msg

    res = cli("datasets", "verify", "iris")
    assert res.exit_code == 2
    assert "corrupt  iris" in res.stdout and f"{bad}  source 'mirror': {CORRUPT}: " in res.stdout
    assert "mismatch " not in res.stdout.replace("sha256 mismatch", "")  # the status word is "corrupt"
    assert "0 ok, 1 corrupt, 0 missing (1 dataset;" in res.stdout
    assert res.stderr_lines == [
        f"error: dataset 'iris' has no valid copy ({CORRUPT}); to get it, "
        "set FSBENCH_DATA_DIR=/path/to/mirror (a directory holding iris/iris.csv or iris/uci/iris.data), "
        "or on a connected machine run "
        "`fsbench datasets download iris`"
    ]

    res = cli("datasets", "verify")
    assert res.exit_code == 1
    n_synthetic = sum(c.kind == "synthetic" for c in list_cards())
    n_missing = len(list_cards()) - n_synthetic - 1
    assert f"{n_synthetic} ok, 1 corrupt, {n_missing} missing" in res.stdout

    res = cli("datasets", "list")
    assert res.exit_code == 0
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("iris "))
    assert f"available: {CORRUPT}" in line and "available: no" not in line
    sonar = next(ln for ln in res.stdout.splitlines() if ln.startswith("sonar "))
    assert "available: no " in sonar

    res = cli("datasets", "info", "iris")
    assert res.exit_code == 0
    assert f"  available: {CORRUPT}\n" in res.stdout
    assert f"data: iris/iris.csv  [{CORRUPT}: {bad}]" in res.stdout
    assert "to get it: set FSBENCH_DATA_DIR=/path/to/mirror" in res.stdout
    assert "`fsbench datasets download iris`" in res.stdout


def test_missing_file_says_how_to_get_it(data: Path) -> None:
    with pytest.raises(DatasetError) as exc:
        open_dataset("iris")
    msg = str(exc.value)
    assert "data not found locally" in msg and "iris/iris.csv" in msg
    assert "To get it, set FSBENCH_DATA_DIR=/path/to/mirror" in msg
    assert msg.endswith("or on a connected machine run `fsbench datasets download iris`")

    res = cli("datasets", "verify", "iris")
    assert res.exit_code == 2 and "0 ok, 0 corrupt, 1 missing (1 dataset;" in res.stdout
    assert res.stderr_lines[0].startswith("error: dataset 'iris' has no valid copy (missing); to get it, set")

    # missing files alone are no failure of the whole check
    res = cli("datasets", "verify")
    assert res.exit_code == 0 and " 0 corrupt, " in res.stdout
    assert "to get a missing dataset: set FSBENCH_DATA_DIR=/path/to/mirror" in res.stderr
    assert "`fsbench datasets download NAME` for " in res.stderr and "iris" in res.stderr

    res = cli("datasets", "info", "iris")
    assert "  available: no\n" in res.stdout and "to get it: set FSBENCH_DATA_DIR" in res.stdout


@pytest.mark.skipif(not MIRROR_IRIS.is_file(), reason="needs the dataset mirror's iris.csv")
def test_valid_copy_verifies(data: Path) -> None:
    (data / "iris").mkdir()
    shutil.copy(MIRROR_IRIS, data / "iris" / "iris.csv")
    res = cli("datasets", "verify", "iris")
    assert res.exit_code == 0 and "1 ok, 0 corrupt, 0 missing (1 dataset;" in res.stdout
    assert not res.stderr_lines


def _two_source_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good: bool) -> Path:
    """Card ``two``: a preferred file source (tampered) and a second file source (good or missing)."""
    cards, data = tmp_path / "cards", tmp_path / "data"
    (data / "two").mkdir(parents=True)
    cards.mkdir()
    sha = hashlib.sha256(TABLE.encode()).hexdigest()
    (data / "two" / "a.csv").write_text(TABLE.replace("5.0", "9.0"))
    if good:
        (data / "two" / "b.csv").write_text(TABLE)
    (cards / "two.yaml").write_text(
        textwrap.dedent(
            f"""
            name: two
            description: two file sources
            citation: none
            kind: table
            expected: {{n_samples: 3, n_features: 2, class_counts: {{P: 2, N: 1}}}}
            parse: {{format: csv, label: -1}}
            sources:
              - {{id: first, kind: file, files: {{data: {{path: two/a.csv, sha256: {sha}}}}}}}
              - {{id: second, kind: file, files: {{data: {{path: two/b.csv, sha256: {sha}}}}}}}
            """
        )
    )
    monkeypatch.setenv("FSBENCH_CARDS_DIR", str(cards))
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(data))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return data


def test_corrupt_file_beside_a_valid_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """NAME has a valid copy (exit not 2) but a corrupt file was found (exit 1); list says yes."""
    _two_source_card(tmp_path, monkeypatch, good=True)
    res = cli("datasets", "verify", "two")
    assert res.exit_code == 1 and "0 ok, 1 corrupt, 0 missing (1 dataset;" in res.stdout
    assert "corrupt  two" in res.stdout and "ok       two" in res.stdout
    assert "available: yes" in cli("datasets", "list").stdout
    info = cli("datasets", "info", "two").stdout
    assert "available: yes, source 'second'" in info and f"[{CORRUPT}: " in info


def test_file_only_card_does_not_offer_a_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_source_card(tmp_path, monkeypatch, good=False)
    with pytest.raises(DatasetError) as exc:
        open_dataset("two")
    msg = str(exc.value)
    assert CORRUPT in msg and "FSBENCH_DATA_DIR=/path/to/mirror" in msg and "datasets download" not in msg
    res = cli("datasets", "verify", "two")
    assert res.exit_code == 2 and "datasets download" not in res.stderr
