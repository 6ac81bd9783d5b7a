"""``fsbench report`` names selectors by their config label in every table, the ranks table included
(#16 item 6): results of ``fsbench run`` on tiny Weston nonlinear configs whose labels differ from the
registry names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import TINY, cli, write_config

SMALL = {**TINY, "protocol": {"n_train": [20, 30], "n_test": 50, "repeats": 3, "n_features": [2, 4]}}


def _run(tmp_path: Path, name: str, selectors: list) -> Path:
    cfg = write_config(tmp_path / f"{name}.yaml", SMALL, name=name, selectors=selectors)
    out = tmp_path / "results" / name
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    return out


def _ranks_methods(report: str) -> list[str]:
    section = report.split("## Ranks over all cells", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ") and not ln.startswith("| method")]
    return [ln.split("|")[1].strip() for ln in rows]


def _table_labels(report: str) -> set[str]:
    """Selector columns of the per-experiment mean ± std tables."""
    labels: set[str] = set()
    for header in re.findall(r"^\| (?:S|n_train) \|(.*)\|$", report, flags=re.M):
        labels |= {c.strip() for c in header.split("|")}
    return labels


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("labels")
    sas = {"name": "sas", "params": {"max_iter": 30}}
    _run(tmp, "labelled", ["all", {"name": "fisher", "label": "Fisher"}, {**sas, "label": "SAS"}])
    _run(tmp, "plain", ["all", "fisher", sas])
    return tmp / "results"


def test_ranks_table_uses_the_labels(results):
    res = cli("report", results / "labelled")
    assert res.exit_code == 0, res.stderr
    text = (results / "labelled" / "REPORT.md").read_text()
    assert _table_labels(text) == {"all", "Fisher", "SAS"}
    # registry names (fisher, sas) were shown here before
    assert sorted(_ranks_methods(text)) == ["Fisher", "SAS"]


def test_pooled_method_shows_each_label(results):
    res = cli("report", results)
    assert res.exit_code == 0, res.stderr
    text = (results / "REPORT.md").read_text()
    labels = _table_labels(text)
    assert labels == {"all", "Fisher", "SAS", "fisher", "sas"}
    methods = _ranks_methods(text)
    # one row per method (pooled by registry name), named by the labels the tables use
    assert len(methods) == 2
    assert {frozenset(m.split(" / ")) for m in methods} == {
        frozenset({"Fisher", "fisher"}),
        frozenset({"SAS", "sas"}),
    }
    assert all(set(m.split(" / ")) <= labels for m in methods)
