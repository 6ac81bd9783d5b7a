"""End to end through the CLI: run a tiny config with --jobs 2, plot it, resume an interrupted run."""

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from fsbench.cli import app
from fsbench.results.schema import TIMING_COLUMNS

TINY = """
name: tiny
seed: 7
dataset: weston_nonlinear
kernel: {name: rbf, gamma: median}
selectors: [all, fisher, {name: sas, params: {max_iter: 30}}]
protocol:
  n_train: [20, 40]
  n_test: 100
  repeats: 3
  n_features: [2, 4]
"""


def _run(args):
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    return result


@pytest.fixture
def tiny(tmp_path):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(TINY)
    return cfg


def _table(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv").drop(columns=TIMING_COLUMNS)


def test_run_then_plot(tiny, tmp_path):
    out = tmp_path / "out"
    res = _run(["run", str(tiny), "--out", str(out), "--jobs", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    df = pd.read_csv(out / "results.csv")
    # 2 n_train x 3 repeats x (all: 1 row, fisher: 2 S, sas: 2 S)
    assert len(df) == 2 * 3 * (1 + 2 + 2)
    assert set(df["status"]) == {"ok"}
    assert (df.loc[df.selector == "all", "n_features"] == 52).all()
    assert df["error"].between(0, 1).all()
    # paired design: every selector sees the same split for a (n_train, repeat)
    assert df.groupby(["n_train", "repeat"])["split_seed"].nunique().eq(1).all()
    ranks = pd.read_csv(out / "rankings.csv")
    assert len(ranks) == 2 * 3 * 3
    assert all(sorted(map(int, o.split())) == list(range(52)) for o in ranks["order"])
    res = _run(["plot", str(out)])
    assert res.exit_code == 0, res.output
    plots = out / "plots"
    for name in (
        "error_vs_n_weston_nonlinear_rbf_S2.png",
        "error_vs_n_weston_nonlinear_rbf_S2.pdf",
        "error_vs_S_weston_nonlinear_rbf_n20.png",
        "cpu_time.md",
        "cpu_time.csv",
    ):
        assert (plots / name).stat().st_size > 0, name
    cpu = pd.read_csv(plots / "cpu_time.csv")
    assert set(cpu["selector"]) == {"fisher", "sas"} and (cpu["normalised"] >= 1).all()
    res = _run(["report", str(out)])
    assert res.exit_code == 0, res.output
    text = (out / "REPORT.md").read_text()
    assert "| S | all | fisher | sas |" in text and "## Ranks over all cells" in text
    assert "](plots/error_vs_n_weston_nonlinear_rbf_S2.png)" in text


def test_interrupted_run_resumes_to_same_results(tiny, tmp_path):
    full, part = tmp_path / "full", tmp_path / "part"
    assert _run(["run", str(tiny), "--out", str(full), "--no-progress"]).exit_code == 0
    assert _run(["run", str(tiny), "--out", str(part), "--jobs", "2", "--no-progress"]).exit_code == 0
    # Simulate an interruption: lose half of the finished tasks and the derived tables.
    task_files = sorted((part / "tasks").glob("*.json"))
    for f in task_files[::2]:
        f.unlink()
    (part / "results.csv").unlink()
    res = _run(["run", str(tiny), "--out", str(part), "--jobs", "2", "--no-progress"])
    assert res.exit_code == 0
    assert f"{len(task_files) - len(task_files[::2])} resumed" in res.output
    pd.testing.assert_frame_equal(_table(full), _table(part))


def test_selectors_and_datasets_commands():
    res = _run(["selectors", "list"])
    assert res.exit_code == 0 and "sas" in res.output and "fisher" in res.output
    res = _run(["datasets", "list"])
    assert res.exit_code == 0 and "weston_linear" in res.output
    res = _run(["datasets", "info", "weston_nonlinear"])
    assert res.exit_code == 0 and "52" in res.output
    res = _run(["datasets", "info", "no_such_dataset"])
    assert res.exit_code == 2 and "no_such_dataset" in res.output


@pytest.mark.parametrize(
    ("patch", "key"),
    [
        ("bogus: 1\n", "bogus"),
        ("protocol:\n  n_train: ten\n  n_test: 5\n", "protocol.n_train"),
        ("selectors: [nope]\n", "selectors[0].name"),
        ("dataset: no_such_dataset\n", "dataset"),
    ],
)
def test_config_errors_are_one_line_exit_2(tmp_path, patch, key):
    base = {
        "name": "x",
        "dataset": "weston_linear",
        "selectors": "[fisher]",
        "protocol": "{n_train: 10, n_test: 5}",
    }
    text = "\n".join(f"{k}: {v}" for k, v in base.items() if not patch.startswith(k)) + "\n" + patch
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    res = CliRunner().invoke(app, ["run", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.strip().splitlines() if ln]
    assert len(lines) == 1 and str(cfg) in lines[0] and key in lines[0], res.output
    assert "Traceback" not in res.output
