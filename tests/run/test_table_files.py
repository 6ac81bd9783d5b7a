"""A run's tables stored gzip-compressed when large: written by the runner, read by every reader alike.

The size rule (:data:`fsbench.results.table_files.GZIP_ABOVE_BYTES`) is lowered to 0 here so that the tiny
experiment's tables are compressed; the tests check that the compressed store is deterministic (same rows,
same bytes), holds the same rows as the plain one, is read by the reports and the loaders, is resumed from
on a fresh clone (no task files), and that a directory holding both forms is refused in one line.
"""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from conftest import cli, write_config

import fsbench.results.table_files as table_files
from fsbench.results.loading import find_result_dirs, load_result_sets, read_results
from fsbench.results.table_files import table_file, write_table


@pytest.fixture
def compress_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table counts as large."""
    monkeypatch.setattr(table_files, "GZIP_ABOVE_BYTES", 0)


def test_size_rule_picks_the_form_and_removes_the_other(tmp_path, monkeypatch):
    text = "a,b\n1,2\n"
    assert write_table(tmp_path, "results", text).name == "results.csv"
    monkeypatch.setattr(table_files, "GZIP_ABOVE_BYTES", len(text) - 1)
    path = write_table(tmp_path, "results", text)
    assert path.name == "results.csv.gz" and not (tmp_path / "results.csv").exists()
    assert gzip.decompress(path.read_bytes()).decode() == text
    first = path.read_bytes()
    write_table(tmp_path, "results", text)
    assert path.read_bytes() == first  # no timestamp in the stream: same rows, same bytes
    monkeypatch.setattr(table_files, "GZIP_ABOVE_BYTES", len(text))
    assert write_table(tmp_path, "results", text).name == "results.csv"
    assert not path.exists()


def test_both_forms_are_refused_naming_the_directory(tmp_path):
    (tmp_path / "results.csv").write_text("a\n1\n")
    (tmp_path / "results.csv.gz").write_bytes(gzip.compress(b"a\n1\n"))
    with pytest.raises(ValueError, match="both results.csv and results.csv.gz"):
        table_file(tmp_path)


def test_compressed_run_holds_the_same_rows_and_every_reader_reads_it(tmp_path, monkeypatch):
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    assert cli("run", cfg, "--out", packed, "--no-progress").exit_code == 0
    shutil.copytree(packed, plain)
    texts = {name: (packed / f"{name}.csv").read_text() for name in ("results", "rankings")}
    monkeypatch.setattr(table_files, "GZIP_ABOVE_BYTES", 0)
    res = cli("run", cfg, "--out", packed, "--no-progress")  # resumes every task, rewrites the tables
    assert res.exit_code == 0 and "0 run, 0 failed" in res.stdout

    assert sorted(p.name for p in packed.glob("*.csv*")) == ["rankings.csv.gz", "results.csv.gz"]
    for name, text in texts.items():
        assert gzip.decompress((packed / f"{name}.csv.gz").read_bytes()).decode() == text

    assert find_result_dirs([tmp_path]) == [packed, plain]
    assert read_results(packed).equals(read_results(plain))
    (s_packed,) = load_result_sets([packed])
    (s_plain,) = load_result_sets([plain])
    assert s_packed.rankings is not None
    assert s_packed.rankings.drop(columns="source").equals(s_plain.rankings.drop(columns="source"))

    res = cli("report", packed, "--out", tmp_path / "R.md")
    assert res.exit_code == 0, res.stderr
    assert "no results.csv" not in (tmp_path / "R.md").read_text()


def test_fresh_clone_resumes_from_compressed_tables(tmp_path, compress_all):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    tables = {p.name: p.read_bytes() for p in out.glob("*.csv.gz")}
    assert len(tables) == 2
    for f in (out / "tasks").glob("*.json"):
        f.unlink()  # a fresh clone: the tables and run.json are committed, the task files are not

    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "0 run, 0 failed" in res.stdout  # every task restored from the compressed tables
    assert {p.name: p.read_bytes() for p in out.glob("*.csv.gz")} == tables
    assert json.loads((out / "run.json").read_text())["n_failed"] == 0


def test_committed_tables_follow_the_size_rule():
    """Every committed table is in the form the size rule gives it (docs/results.md's statement)."""
    from conftest import REPO

    tables = [p for name in table_files.TABLE_FILE_NAMES for p in (REPO / "results").rglob(name)]
    assert tables
    for path in tables:
        size = len(gzip.decompress(path.read_bytes())) if path.suffix == ".gz" else path.stat().st_size
        assert (size > table_files.GZIP_ABOVE_BYTES) == (path.suffix == ".gz"), path
