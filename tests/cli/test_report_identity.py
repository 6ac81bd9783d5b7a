"""``fsbench report`` knows what a result directory is: a project's paper folder gets what the build makes
(never a generic page over its comparison), and a ``--paper`` that contradicts the runs is refused."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fsbench.cli import app

CONFIG = """
name: mini_toy
paper: mini
description: "Table I — a linear toy, error at S = 2"
seed: 7
dataset: weston_linear
kernel: linear
selectors: [all, fisher]
protocol:
  n_train: [40]
  n_test: 200
  repeats: 2
  n_features: [2, 4]
"""

VALUES = """
paper: mini
title: "A mini paper"
citation: "A. Author, Journal of Made-up Results 7:1-7, 2026"
schema_version: 1
tables:
  - id: table1
    number: I
    caption: "Error rates on the linear toy"
    experiment: mini_toy
    metric: error
    unit: "%"
    statistic: mean ± std over 2 draws
    cells:
      - {dataset: weston_linear, kernel: linear, S: 2, method: fisher, value: 15.0, std: 5.0}
figures: []
claims: []
"""


def _invoke(args: list[str]):
    return CliRunner().invoke(app, [str(a) for a in args])


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project with one paper folder (configs/mini beside results/mini), run and built once."""
    root = tmp_path_factory.mktemp("project")
    folder = root / "configs" / "mini"
    folder.mkdir(parents=True)
    (folder / "toy.yaml").write_text(CONFIG)
    (folder / "paper_values.yaml").write_text(VALUES)
    res = _invoke(["run", folder / "toy.yaml", "--out", root / "results" / "mini" / "toy", "--no-progress"])
    assert res.exit_code == 0, res.output
    res = _invoke(["build", root / "results", "--configs", root / "configs", "--docs", root / "none.md"])
    assert res.exit_code == 0, res.output
    return root


def test_report_on_a_paper_folder_is_its_build(project):
    built = _tree(project / "results")
    report = (project / "results" / "mini" / "REPORT.md").read_text()
    assert "## Paper vs ours: mini" in report
    # no --paper: the runs' paper: key says which paper; the build's files come out byte-identical
    res = _invoke(["report", project / "results" / "mini"])
    assert res.exit_code == 0, res.output
    assert "built as `fsbench build --paper mini`" in res.output
    assert _tree(project / "results") == built


def test_a_contradicting_paper_is_refused_and_nothing_is_written(project):
    before = _tree(project / "results")
    for args in (
        ["report", project / "results" / "mini", "--paper", "ramona2012"],  # not the runs' paper
        ["report", project / "results" / "mini" / "toy"],  # a report file inside the paper folder
        ["report", project / "results"],  # the results root: one report per paper folder
    ):
        res = _invoke(args)
        assert res.exit_code == 2, (args, res.output)
        assert len(res.output.strip().splitlines()) == 1, res.output
    assert "belong to mini" in _invoke(["report", project / "results" / "mini", "--paper", "x"]).output
    assert _tree(project / "results") == before


def test_elsewhere_the_runs_paper_key_brings_the_comparison(project, tmp_path):
    out = tmp_path / "R.md"
    res = _invoke(["report", project / "results" / "mini" / "toy", "--out", out])
    assert res.exit_code == 0, res.output
    # the paper folder is found from the config file that ran it: no --paper needed
    assert "## Paper vs ours: mini" in out.read_text()
