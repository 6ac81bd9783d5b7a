"""An interrupted run (Ctrl-C / SIGTERM reach run_experiment as KeyboardInterrupt) is reported from its task
store: the tables are rewritten before the exit, run.json records the planned task count at the start, and
``fsbench report`` says "N of M tasks"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import cli, result_dicts, write_config

from fsbench.config.experiment import load_experiment
from fsbench.run.engine import run_experiment, unfinished_runs
from fsbench.run.store import count_task_files, run_state


def _interrupt_after(n: int):
    def progress(done: int, total: int) -> None:
        if done >= n:  # as a Ctrl-C arriving right after the n-th task is saved
            raise KeyboardInterrupt

    return progress


def _interrupted(tmp_path: Path, n: int) -> Path:
    exp = load_experiment(write_config(tmp_path / "tiny.yaml"))
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        # flush_seconds: no periodic flush, so only the interrupt handler can write the tables
        run_experiment(exp, out, progress=_interrupt_after(n), flush_seconds=1e9)
    return out


def test_interrupt_rewrites_tables_and_records_the_plan(tmp_path, pinned_commit):
    out = _interrupted(tmp_path, 7)
    n_files = count_task_files(out)
    assert n_files >= 7
    assert len({r["task_id"] for r in result_dicts(out)}) == n_files  # results.csv matches the store
    assert (out / "rankings.csv").is_file()
    info = json.loads((out / "run.json").read_text())
    assert info["n_tasks"] == 36 and info.get("finished") is None
    state = run_state(out)
    assert (state.n_done, state.n_tasks, state.partial) == (n_files, 36, True)
    [(path, done, total)] = unfinished_runs(out)
    assert (path, done, total) == (out, n_files, 36)
    res = cli("report", out)
    assert res.exit_code == 2
    assert f"({n_files} of 36 tasks)" in res.stderr and "of -1 " not in res.stderr


def test_old_run_json_without_plan_says_unknown_total(tmp_path, pinned_commit):
    out = _interrupted(tmp_path, 5)
    info = json.loads((out / "run.json").read_text())
    del info["n_tasks"]  # as written by a run begun before the plan was recorded
    (out / "run.json").write_text(json.dumps(info))
    res = cli("report", out)
    assert res.exit_code == 2 and "tasks of an unknown total" in res.stderr and "of -1 " not in res.stderr


def test_plot_and_report_mark_a_partial_run(tmp_path, pinned_commit):
    out = _interrupted(tmp_path, 9)
    n = count_task_files(out)
    res = cli("plot", out)
    assert res.exit_code == 0, res.stderr
    assert f"(partial run: {n} of 36 tasks)" in res.stderr
    res = cli("report", out, "--allow-incomplete")
    assert res.exit_code == 0, res.stderr
    text = (out / "REPORT.md").read_text()
    assert "**Partial results**" in text and f"({n} of 36 tasks)" in text


def test_no_tables_yet_says_what_the_store_holds(tmp_path, pinned_commit):
    out = _interrupted(tmp_path, 6)
    n = count_task_files(out)
    # as left by a kill -9 before the first periodic flush: task files, no tables
    (out / "results.csv").unlink()
    (out / "rankings.csv").unlink()
    for args in (("plot", out), ("compare", out), ("plot", tmp_path)):
        res = cli(*args)
        assert res.exit_code == 2, args
        assert f"holds {n} finished task file(s) of an unfinished run ({n} of 36 tasks)" in res.stderr, args
        assert "run the same `fsbench run` command to resume" in res.stderr
