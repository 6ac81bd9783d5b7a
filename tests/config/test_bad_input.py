"""Bad input is refused before any work starts: exit code 2, one line on stderr naming the file and the
key path, no traceback, nothing written.

``tests/config/bad_configs/*.yaml`` is the corpus of malformed configs; each names the key path it must be
refused at in a first line ``# expect: KEY`` (``<top>`` for problems of the file as a whole).
Data problems (altered or missing files, NaN/inf values) are refused the same way; a constant feature
and a single-class training draw are handled, not refused.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import cli, cli_subprocess, result_dicts, write_config

from fsbench.algorithms.alignment import SAS
from fsbench.evaluation.resampling import standardize

CORPUS = Path(__file__).resolve().parent / "bad_configs"
BAD_CONFIGS = sorted(CORPUS.glob("*.yaml"))
#: Run as real processes too, to check that the in-process runs behave like the command.
AS_SUBPROCESS = ["yaml_syntax_unclosed_bracket", "selector_max_iter_negative", "S_exceeds_features"]


def _expected_key(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("ascii")
    m = re.fullmatch(r"# expect: (\S+)", first)
    assert m, f"{path.name}: first line must be '# expect: KEY'"
    return m.group(1)


def _assert_refused(res, config: Path, key: str, out: Path) -> str:
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stdout + res.stderr
    assert len(res.stderr_lines) == 1, res.stderr
    line = res.stderr_lines[0]
    assert line.startswith(f"error: {config}: {key}: "), line
    assert not out.exists(), f"{out} was created"
    assert res.stdout == ""
    return line


def test_corpus_is_large_and_varied():
    assert len(BAD_CONFIGS) >= 30
    keys = {_expected_key(p) for p in BAD_CONFIGS}
    assert len(keys) >= 25


@pytest.mark.parametrize("config", BAD_CONFIGS, ids=[p.stem for p in BAD_CONFIGS])
def test_bad_config_is_refused_with_one_line(config, tmp_path):
    out = tmp_path / "out"
    res = cli("run", config, "--out", out, "--no-progress")
    _assert_refused(res, config, _expected_key(config), out)


@pytest.mark.parametrize("name", AS_SUBPROCESS)
def test_bad_config_as_subprocess_matches_in_process(name, tmp_path):
    config = CORPUS / f"{name}.yaml"
    out = tmp_path / "out"
    res = cli_subprocess("run", config, "--out", out, "--no-progress")
    line = _assert_refused(res, config, _expected_key(config), out)
    assert line == cli("run", config, "--out", out, "--no-progress").stderr_lines[0]


def test_dry_run_refuses_bad_config_too(tmp_path):
    config = CORPUS / "S_exceeds_features.yaml"
    _assert_refused(cli("run", config, "--dry-run"), config, "protocol.n_features", tmp_path / "none")


def test_missing_config_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    _assert_refused(cli("run", missing, "--out", tmp_path / "out"), missing, "<top>", tmp_path / "out")


def test_several_configs_all_checked_before_the_first_starts(tmp_path):
    good = write_config(tmp_path / "good.yaml")
    bad = CORPUS / "S_exceeds_features.yaml"
    res = cli("run", good, bad, "--out", tmp_path / "out", "--no-progress")
    _assert_refused(res, bad, "protocol.n_features", tmp_path / "out")


def test_sas_validates_its_parameters_without_fitting():
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = np.random.default_rng(0).normal(size=(10, 3)), np.arange(10) % 2
    for bad in ({"max_iter": -1}, {"target": "diagonal"}, {"gamma": "widest"}, {"step_size": 0}):
        with pytest.raises(InvalidParameterError):
            SAS(**bad)._validate_params()
        with pytest.raises(InvalidParameterError):
            SAS(**bad).fit(X, y)


# --------------------------------------------------------------------------- data problems
def test_altered_data_file_is_refused_with_both_hashes(tmp_path, monkeypatch):
    src = Path(_mirror_dir()) / "sonar" / "sonar.csv"
    copy = tmp_path / "data" / "sonar" / "sonar.csv"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(src, copy)
    blob = bytearray(copy.read_bytes())
    blob[10] = ord("9") if blob[10] != ord("9") else ord("8")
    copy.write_bytes(bytes(blob))
    actual = hashlib.sha256(bytes(blob)).hexdigest()
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(tmp_path / "data"))
    cfg = write_config(tmp_path / "sonar.yaml", dataset="sonar", kernel="linear", protocol={"n_train": [50]})
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    line = _assert_refused(res, cfg, "dataset", tmp_path / "out")
    assert "sha256 mismatch" in line and str(copy) in line and actual in line
    assert "3079c09b5d2789a0f96aff82c28e5164fafe2495c5f8da96c6c256c1bd25763f" in line  # the card's


def test_missing_data_file_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(tmp_path / "cache"))
    cfg = write_config(tmp_path / "sonar.yaml", dataset="sonar", kernel="linear", protocol={"n_train": [50]})
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    line = _assert_refused(res, cfg, "dataset", tmp_path / "out")
    assert "sonar/sonar.csv" in line and str(tmp_path / "empty") in line and "FSBENCH_DATA_DIR" in line


def _mirror_dir() -> str:
    import os

    d = os.environ.get("FSBENCH_DATA_DIR", "").split(os.pathsep)[0]
    if not d or not (Path(d) / "sonar" / "sonar.csv").is_file():
        pytest.skip("dataset mirror not found: set FSBENCH_DATA_DIR")
    return d


def _toy_card(root: Path, X: np.ndarray, y: list[str], monkeypatch, cell=None) -> None:
    """A table card ``toy`` over ``root/data/toy/toy.csv``; ``cell=(i, j, text)`` overwrites one entry."""
    rows = [[repr(float(v)) for v in x] + [lab] for x, lab in zip(X, y, strict=True)]
    if cell is not None:
        rows[cell[0]][cell[1]] = cell[2]
    data = root / "data" / "toy" / "toy.csv"
    data.parent.mkdir(parents=True)
    with open(data, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    sha = hashlib.sha256(data.read_bytes()).hexdigest()
    counts = {c: y.count(c) for c in sorted(set(y))}
    cards = root / "cards"
    cards.mkdir()
    (cards / "toy.yaml").write_text(
        "name: toy\ndescription: test table\ncitation: none\nkind: table\nmissing: none\n"
        f"expected: {{n_samples: {len(y)}, n_features: {X.shape[1]}, class_counts: {counts}}}\n"
        "parse: {format: csv, label: -1, na_values: ['?', '']}\n"
        f"sources:\n  - {{id: local, kind: file, files: {{data: {{path: toy/toy.csv, sha256: {sha}}}}}}}\n"
    )
    monkeypatch.setenv("FSBENCH_CARDS_DIR", str(cards))
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(root / "data"))


def _toy_data(n: int = 60, d: int = 5, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    y = ["a" if i % 2 else "b" for i in range(n)]
    X = rng.normal(size=(n, d))
    X[:, 0] += np.where(np.array(y) == "a", 1.5, -1.5)
    return X, y


def _toy_config(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "toy.yaml",
        dataset="toy",
        kernel="linear",
        selectors=["all", "fisher", {"name": "sas", "params": {"max_iter": 20}}],
        protocol={"n_train": [30], "n_test": 20, "repeats": 3, "n_features": [1, 3]},
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "1 missing value(s) but the card declares none"),
        ("?", "1 missing value(s) but the card declares none"),  # a declared na_value
        ("nan", "non-numeric value 'nan'"),
        ("inf", "1 infinite value(s) (first at row 7, column 2)"),
        ("-inf", "1 infinite value(s) (first at row 7, column 2)"),
    ],
)
def test_nan_or_inf_in_data_is_refused_before_work(tmp_path, monkeypatch, value, message):
    X, y = _toy_data()
    _toy_card(tmp_path, X, y, monkeypatch, cell=(7, 2, value))
    cfg = _toy_config(tmp_path)
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    line = _assert_refused(res, cfg, "dataset", tmp_path / "out")
    assert message in line and "toy" in line, line


def test_constant_feature_is_kept_constant_and_ranked(tmp_path, monkeypatch, pinned_commit):
    X, y = _toy_data()
    X[:, 3] = 4.25
    _toy_card(tmp_path, X, y, monkeypatch)
    out = tmp_path / "out"
    res = cli("run", _toy_config(tmp_path), "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert {r["status"] for r in result_dicts(out)} == {"ok"}
    with open(out / "rankings.csv", newline="") as fh:
        ranks = list(csv.DictReader(fh))
    assert len(ranks) == 3 * 3
    for r in ranks:
        assert sorted(map(int, r["order"].split())) == list(range(5)), r
        if r["selector"] == "fisher":
            assert r["order"].split()[-1] == "3"  # no information: ranked last
            assert r["order"].split()[0] == "0"  # the informative feature first
    # z-scoring with the training statistics keeps a constant column constant (and finite)
    Z_tr, Z_te = standardize(X[:30], X[30:])
    assert np.all(Z_tr[:, 3] == 0) and np.all(Z_te[:, 3] == 0) and np.isfinite(Z_tr).all()


def test_single_class_training_draw_is_redrawn_and_recorded(tmp_path, pinned_commit):
    cfg = write_config(
        tmp_path / "tiny2.yaml",
        selectors=["fisher"],
        protocol={"n_train": [2], "n_test": 20, "repeats": 8, "n_features": [2]},
    )
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    rows = result_dicts(out)
    assert len(rows) == 8 and {r["status"] for r in rows} == {"ok"}
    redraws = [int(r["redraws"]) for r in rows]
    assert any(redraws) and min(redraws) == 0  # both kinds of repeats occur with this seed
    # same seed, same redraws
    again = cli("run", cfg, "--out", tmp_path / "again", "--no-progress")
    assert again.exit_code == 0
    assert [int(r["redraws"]) for r in result_dicts(tmp_path / "again")] == redraws
