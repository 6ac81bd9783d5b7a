"""Issue 22 items 5, 6 and 10: ``--dry-run`` plans and counts without running anything, ``--estimate``
times a sample; a user selector whose file changed after a *finished* run is refused (or kept with
``--allow-mixed-code``, which says so); a resume that keeps failed tasks points at ``--retry-failed``;
every ``--backend`` choice is documented; "an experiment".

User selectors live in a module written into ``tmp_path`` under a name unique to the test (a module
cached by an earlier test must not stand in for it).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path

import pytest
import typer
from conftest import REPO, cli, result_rows, write_config

import fsbench.evaluation.protocol
import fsbench.run.backends
import fsbench.run.engine
import fsbench.run.kinds
from fsbench.cli import app
from fsbench.evaluation.resampling import derive_seed
from fsbench.run.checks import BACKENDS

#: 2 n_train x 3 repeats x 2 selectors = 12 tasks of ~10 ms each.
SMALL = {"n_train": [20, 30], "n_test": 50, "repeats": 3, "n_features": [2]}

USER_MODULE = '''
"""A researcher's selector (written by tests/run/test_dry_run_and_code.py)."""
import numpy as np

from fsbench.algorithms.base import BaseSelector, ranking_from_scores


class MeanDiff(BaseSelector):
    """Mean-difference scores; with `record`, appends the shape of every fit on real data to that file
    (not the 20 x 4 contract check); fails when random_state == fail_seed."""

    def __init__(self, record="", fail_seed=-1, random_state=None, n_features_to_select=None):
        self.record = record
        self.fail_seed = fail_seed
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        if self.record and X.shape != (20, 4):
            with open(self.record, "a") as fh:
                fh.write(f"{X.shape}\\n")
        if self.random_state == self.fail_seed:
            raise RuntimeError("deliberate failure")
        self.scores_ = np.abs(X[y == 0].mean(axis=0) - X[y == 1].mean(axis=0))
        self.ranking_ = ranking_from_scores(self.scores_)
'''


@pytest.fixture
def user_selector(tmp_path: Path) -> tuple[Path, str]:
    """(the module file, ``module:MeanDiff``) of the test's user selector."""
    mod = f"meandiff_{uuid.uuid4().hex[:10]}"
    d = tmp_path / "plug"
    d.mkdir()
    src = d / f"{mod}.py"
    src.write_text(USER_MODULE)
    return src, f"{mod}:MeanDiff"


def _config(tmp_path: Path, src: Path, name: str, **params) -> Path:
    return write_config(
        tmp_path / "c.yaml",
        plugins=[str(src.parent)],
        selectors=["fisher", {"name": name, "label": "mine", "params": params}],
        protocol=SMALL,
    )


def _snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _no_task_may_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a dry run ran a task")

    for module, attr in (
        (fsbench.run.engine, "run_one"),
        (fsbench.run.backends, "run_one"),
        (fsbench.run.kinds, "run_task"),
        (fsbench.evaluation.protocol, "run_task"),
    ):
        monkeypatch.setattr(module, attr, refuse)


# --------------------------------------------------------------------------- 5. --dry-run
def test_dry_run_plans_and_counts_but_runs_fits_and_writes_nothing(tmp_path, user_selector, monkeypatch):
    src, name = user_selector
    record = tmp_path / "fits.txt"
    cfg = _config(tmp_path, src, name, record=str(record))
    out = tmp_path / "out"
    _no_task_may_run(monkeypatch)
    res = cli("run", cfg, "--out", out, "--dry-run", "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines()[0] == (
        f"tiny: 12 tasks: 0 done, 12 to run (output {out}; dry run: nothing run or written)"
    )
    assert not out.exists()
    assert not record.exists(), "the selector was fitted on the data"
    assert not list(tmp_path.glob("*.csv"))


def test_dry_run_counts_a_partially_done_store_as_the_run_then_does(tmp_path, user_selector, pinned_commit):
    src, name = user_selector
    # one task of "mine" fails: n_train 30, repeat 1
    fail_seed = derive_seed(7, "selector", "weston_nonlinear", 30, 1, "mine")
    cfg = _config(tmp_path, src, name, fail_seed=fail_seed)
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 1
    files = sorted((out / "tasks").glob("*.json"))
    failed = [p for p in files if json.loads(p.read_text())["payload"]["status"] != "ok"]
    assert len(files) == 12 and len(failed) == 1
    ok = [p for p in files if p not in failed]
    # an interrupted run: three tasks never finished, one task file was cut short by a crash, and the
    # tables were not written yet (else the missing tasks would be restored from them)
    for p in [*ok[:3], out / "results.csv", out / "rankings.csv"]:
        p.unlink()
    ok[3].write_text(ok[3].read_text()[:40])
    before = _snapshot(out)

    res = cli("run", cfg, "--out", out, "--dry-run")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith("tiny: 12 tasks: 8 done, 1 of them failed, 4 to run")
    assert "1 failed task(s) kept from an earlier run; --retry-failed runs them again" in res.stdout
    res = cli("run", cfg, "--out", out, "--dry-run", "--retry-failed")
    assert res.stdout.splitlines()[0].startswith("tiny: 12 tasks: 7 done, 5 to run")
    res = cli("run", cfg, "--out", out, "--dry-run", "--fresh")
    assert res.stdout.splitlines()[0].startswith("tiny: 12 tasks: 0 done, 12 to run")
    assert "--fresh would discard 9 task file(s)" in res.stdout
    assert _snapshot(out) == before  # the cut-short file too: only a real run discards it

    res = cli("run", cfg, "--out", out, "--no-progress")  # the run does what the dry run said
    assert "(8 resumed, 4 run, 1 failed)" in res.stdout


def test_dry_run_counts_a_fresh_clone_from_its_tables_and_refuses_as_a_run_would(
    tmp_path, tiny_config, pinned_commit
):
    out = tmp_path / "out"
    assert cli("run", tiny_config, "--out", out, "--no-progress", "--repeats", "2").exit_code == 0
    for p in (out / "tasks").glob("*.json"):  # a fresh clone: tables and run.json, no task files
        p.unlink()
    (out / "tasks").rmdir()
    before = _snapshot(out)
    res = cli("run", tiny_config, "--out", out, "--repeats", "2", "--dry-run")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("tiny: 18 tasks: 18 done, 0 to run")
    res = cli("run", tiny_config, "--out", out, "--repeats", "3", "--dry-run")  # another effective config
    assert res.exit_code == 2 and "holds results of a different effective config" in res.stderr
    assert _snapshot(out) == before and not (out / "tasks").exists()


def test_estimate_times_a_sample_and_writes_nothing(tmp_path, tiny_config):
    out = tmp_path / "out"
    res = cli("run", tiny_config, "--out", out, "--estimate", "--repeats", "1")
    assert res.exit_code == 0, res.stderr
    timed = [ln for ln in res.stdout.splitlines() if "tasks x" in ln]
    assert len(timed) == 3 and all(ln.endswith("(ok)") for ln in timed)  # one per selector
    assert "estimate:" in res.stdout.splitlines()[-1]
    assert not out.exists()


# --------------------------------------------------------------------------- 6. changed user code
def test_changed_user_selector_after_a_finished_run_is_refused_not_reused(
    tmp_path, user_selector, pinned_commit
):
    src, name = user_selector
    cfg = _config(tmp_path, src, name)
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    old = hashlib.sha256(src.read_bytes()).hexdigest()
    table = result_rows(out)

    src.write_text(src.read_text().replace("np.abs(X[y == 0]", "-np.abs(X[y == 0]"))  # a real change
    new = hashlib.sha256(src.read_bytes()).hexdigest()
    for extra in ([], ["--dry-run"]):
        res = cli("run", cfg, "--out", out, "--no-progress", *extra)
        assert res.exit_code == 2 and len(res.stderr_lines) == 1, res.stderr
        line = res.stderr_lines[0]
        assert f"6 finished task(s) of selector {name}" in line and str(src) in line
        assert f"sha256 {old[:12]}, now {new[:12]}" in line
        assert "--allow-mixed-code" in line and "--fresh" in line
    assert json.loads((out / "run.json").read_text())["plugin_sources"][name]["sha256"] == old

    res = cli("run", cfg, "--out", out, "--no-progress", "--allow-mixed-code")
    assert res.exit_code == 0, res.stderr
    assert "(12 resumed, 0 run, 0 failed)" in res.stdout
    assert res.stderr_lines == [
        f"note: kept 6 finished task(s) of selector {name} computed from another version of {src} "
        f"(sha256 {old[:12]}, now {new[:12]}) (--allow-mixed-code)"
    ]
    assert result_rows(out) == table
    assert json.loads((out / "run.json").read_text())["plugin_sources"][name]["sha256"] == old

    res = cli("run", cfg, "--out", out, "--no-progress", "--fresh")
    assert res.exit_code == 0 and "(0 resumed, 12 run, 0 failed)" in res.stdout
    assert json.loads((out / "run.json").read_text())["plugin_sources"][name]["sha256"] == new
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0  # same file again: resumed


def test_a_resume_that_keeps_failed_tasks_points_at_retry_failed(tmp_path, user_selector, pinned_commit):
    src, name = user_selector
    fail_seed = derive_seed(7, "selector", "weston_nonlinear", 20, 0, "mine")
    cfg = _config(tmp_path, src, name, fail_seed=fail_seed)
    out = tmp_path / "out"
    hint = "1 failed task(s) kept from an earlier run; --retry-failed runs them again"
    first = cli("run", cfg, "--out", out, "--no-progress")
    assert first.exit_code == 1 and hint not in first.stdout  # it was run now, not kept
    again = cli("run", cfg, "--out", out, "--no-progress")
    assert again.exit_code == 1
    summary = [ln for ln in again.stdout.splitlines() if ln.startswith("tiny:")]
    assert len(summary) == 1 and "(12 resumed, 0 run, 1 failed)" in summary[0] and summary[0].endswith(hint)
    retried = cli("run", cfg, "--out", out, "--no-progress", "--retry-failed")
    assert "(11 resumed, 1 run, 1 failed)" in retried.stdout and "--retry-failed runs" not in retried.stdout


# --------------------------------------------------------------------------- 10. small things
def test_every_accepted_backend_is_documented_and_others_are_refused(tmp_path, tiny_config):
    docs = (REPO / "docs/running.md").read_text()
    run_command = typer.main.get_command(app).commands["run"]
    (help_text,) = [p.help for p in run_command.params if p.name == "backend"]
    for backend in BACKENDS:
        assert f"`--backend {backend}`" in docs, backend
        assert re.search(rf"(^|[ (,]){re.escape(backend)}( \(|,|\.| or)", help_text), backend
    res = cli("run", tiny_config, "--out", tmp_path / "out", "--backend", "processes")
    assert res.exit_code == 2 and "unknown backend 'processes'" in res.stderr
    assert not (tmp_path / "out").exists()


def test_threading_backend_gives_the_loky_results(tmp_path, pinned_commit):
    cfg = write_config(tmp_path / "c.yaml", selectors=["fisher", "all"], protocol={"repeats": 2})
    for backend in ("loky", "threading"):
        res = cli("run", cfg, "--out", tmp_path / backend, "--no-progress", "--backend", backend)
        assert res.exit_code == 0, res.stderr
    assert result_rows(tmp_path / "threading") == result_rows(tmp_path / "loky")


@pytest.mark.parametrize(
    ("command", "path", "expected"),
    [
        ("diagnose", "configs/ring2015/fig1_toy.yaml", "this is an experiment file, not a diagnostic config"),
        (
            "run",
            "configs/takes2011/table2_reconstruction.yaml",
            "this is a diagnostic file, not an experiment config",
        ),
    ],
)
def test_kind_refusal_uses_the_right_article(tmp_path, command, path, expected):
    res = cli(command, REPO / path, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 2 and expected in res.stderr
