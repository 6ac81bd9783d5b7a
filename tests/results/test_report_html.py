"""``fsbench report --html``: one self-contained HTML file with the report, comparisons, stability,
ground truth and provenance; every embedded image decodes as a PNG."""

import json

import pytest
from results_helpers import read_self_contained_page
from typer.testing import CliRunner

from fsbench.cli import app

CONFIG = """
name: {name}
seed: 3
dataset: {dataset}
kernel: {{name: rbf, gamma: median}}
selectors: [all, fisher, rfe]
protocol: {{n_train: [20, 30], n_test: 30, repeats: 3, n_features: [2, 4], stratify: false}}
"""


@pytest.mark.slow  # > 10 s on 2 cores
def test_report_html_is_self_contained_with_all_sections(tmp_path):
    runner = CliRunner()
    for name, ds in (("toy_a", "weston_nonlinear"), ("toy_b", "weston_linear")):
        cfg = tmp_path / f"{name}.yaml"
        cfg.write_text(CONFIG.format(name=name, dataset=ds))
        res = runner.invoke(app, ["run", str(cfg), "--out", str(tmp_path / "res" / name), "--no-progress"])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(tmp_path / "res"), "--html"])
    assert res.exit_code == 0, res.output
    page = read_self_contained_page(tmp_path / "res" / "REPORT.html")
    stability, truth = "Stability of the selected subsets", "Ground truth: recovery of the relevant features"
    for section in ("Selectors across datasets", stability, truth, "Provenance"):
        assert page.headings.count(section) == 1, page.headings
    # stability and ground truth once each: REPORT.md's tables with the figures of the same analyses
    assert not {"Stability", "Ground truth (synthetic data)"} & set(page.headings), page.headings
    assert page.images_under.get(stability) == 1  # error vs stability
    assert page.images_under.get(truth, 0) >= 1  # recovery curves of the Weston toys
    assert len(page.images) >= 3
    run = json.loads((tmp_path / "res" / "toy_a" / "run.json").read_text())
    assert run["config_hash"][:12] in (tmp_path / "res" / "REPORT.html").read_text(encoding="utf-8")


def test_report_refuses_an_unfinished_run_and_writes_nothing(tmp_path):
    runner = CliRunner()
    cfg = tmp_path / "toy.yaml"
    cfg.write_text(CONFIG.format(name="toy", dataset="weston_nonlinear"))
    out = tmp_path / "res" / "toy"
    assert runner.invoke(app, ["run", str(cfg), "--out", str(out), "--no-progress"]).exit_code == 0
    info = json.loads((out / "run.json").read_text())
    info["n_done"] = info["n_tasks"] - 1  # as left by an interrupted run
    (out / "run.json").write_text(json.dumps(info))
    res = runner.invoke(app, ["report", str(tmp_path / "res")])
    assert res.exit_code == 2
    assert "has not finished" in res.output and "--allow-incomplete" in res.output
    assert not (tmp_path / "res" / "REPORT.md").exists()
    res = runner.invoke(app, ["report", str(tmp_path / "res"), "--allow-incomplete"])
    assert res.exit_code == 0 and (tmp_path / "res" / "REPORT.md").exists()
