"""Issue 3 guarantees of the runner: kill/resume, task-file integrity, the run lock, refusals on resume,
per-task failures and ``--dry-run``.

The kill/resume test SIGKILLs a real ``fsbench run --jobs 2`` process group at several points of the
run and resumes it with the same command each time; the final ``results.csv`` must equal that of an
uninterrupted run (timing columns aside).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import (
    PINNED_COMMIT,
    REPO,
    TINY,
    cli,
    fsbench_argv,
    result_dicts,
    result_rows,
    subprocess_env,
    wait_for,
    write_config,
)

from fsbench.evaluation.resampling import derive_seed
from fsbench.run.provenance import git_commit
from fsbench.run.store import TaskStore

#: 3 n_train x 6 repeats x 3 selectors = 54 tasks, ~3 s serially; SAS always does 150 iterations.
KILL_CONFIG = {
    **TINY,
    "name": "killresume",
    "seed": 3,
    "selectors": ["all", "fisher", {"name": "sas", "params": {"max_iter": 150, "tol": 0.0}}],
    "protocol": {"n_train": [40, 80, 120], "n_test": 200, "repeats": 6, "n_features": [2, 4]},
}


def _n_task_files(out: Path) -> int:
    d = out / "tasks"
    return sum(1 for _ in d.glob("*.json")) if d.is_dir() else 0


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the run and its loky workers (its own process group) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


# --------------------------------------------------------------------------- kill / resume
@pytest.mark.slow
def test_sigkill_at_many_points_then_resume_equals_uninterrupted(tmp_path, pinned_commit):
    cfg = write_config(tmp_path / "kill.yaml", KILL_CONFIG)
    ref, out = tmp_path / "ref", tmp_path / "out"
    assert cli("run", cfg, "--out", ref, "--no-progress").exit_code == 0
    n_tasks = 3 * 6 * 3
    assert _n_task_files(ref) == n_tasks

    argv = fsbench_argv("run", cfg, "--out", out, "--jobs", 2, "--no-progress", pinned=True)
    env = subprocess_env()
    # Kill points: 0 = lock taken but no task finished (workers starting), then spread over the run.
    targets = [0, 18, 40]
    killed_at = []
    for k in targets:
        t_seg = time.perf_counter()
        proc = subprocess.Popen(
            argv, env=env, cwd=REPO, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            if k == 0:
                reached = wait_for(lambda: (out / "run.lock").exists(), proc=proc)
            else:
                reached = wait_for(lambda k=k: _n_task_files(out) >= k, proc=proc)
            alive = proc.poll() is None
        finally:
            _kill_group(proc)
        assert reached and alive, f"run ended before kill point {k}: {proc.stderr.read().decode()}"
        killed_at.append(_n_task_files(out))
        print(f"kill point {k}: {killed_at[-1]} files after {time.perf_counter() - t_seg:.1f} s")
        assert (out / "run.lock").exists()  # left behind by the killed run: stale, taken over next time
    assert len(set(killed_at)) == len(targets) and killed_at == sorted(killed_at), killed_at
    assert killed_at[-1] < n_tasks, killed_at

    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert f"{n_tasks} tasks (" in done.stdout and " 0 failed" in done.stdout
    assert result_rows(out) == result_rows(ref)
    assert (out / "rankings.csv").read_text() == (ref / "rankings.csv").read_text()
    assert not (out / "run.lock").exists()
    assert not list((out / "tasks").glob(".*.tmp"))
    info = json.loads((out / "run.json").read_text())
    assert info["finished"] and info["n_done"] == n_tasks
    print(f"killed at task counts {killed_at} of {n_tasks}")


def test_corrupt_truncated_and_tmp_task_files_are_discarded(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    assert cli("run", tiny_config, "--out", out, "--no-progress").exit_code == 0
    before = result_rows(out)
    files = sorted((out / "tasks").glob("*.json"))
    n = len(files)
    # 1. truncated (a write cut short), 2. valid JSON whose payload no longer matches its checksum,
    # 3. a checksummed file stored under another task's name, 4. empty.
    text = files[0].read_text()
    files[0].write_text(text[: len(text) // 2])
    doc = json.loads(files[1].read_text())
    doc["payload"]["rows"][0]["error"] = 0.0
    files[1].write_text(json.dumps(doc))
    files[2].write_text(files[3].read_text())
    files[4].write_text("")
    # A complete-looking temp file (killed between fsync and rename) and garbage temp files.
    good_tmp = out / "tasks" / f".{files[5].name}.4242.tmp"
    good_tmp.write_text(files[5].read_text())
    files[5].unlink()
    (out / "tasks" / ".junk.json.99.tmp").write_text("{")
    (out / "results.csv").unlink()

    store = TaskStore(out)
    assert store.get(files[0].stem) is None and not files[0].exists()
    assert store.get(files[1].stem) is None and not files[1].exists()

    res = cli("run", tiny_config, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert f"({n - 5} resumed, 5 run, 0 failed)" in res.stdout
    assert result_rows(out) == before
    assert not list((out / "tasks").glob(".*"))


# --------------------------------------------------------------------------- lock
def test_second_run_on_busy_output_is_refused_then_stale_lock_is_taken_over(tmp_path, pinned_commit):
    gate = tmp_path / "gate"
    gate.write_text("held")
    cfg = write_config(
        tmp_path / "gate.yaml",
        selectors=[{"name": "conftest:Gate", "params": {"gate": str(gate), "timeout": 60.0}}],
        protocol={"n_train": [20], "repeats": 1, "n_features": [2]},
    )
    out = tmp_path / "out"
    first = subprocess.Popen(
        fsbench_argv("run", cfg, "--out", out, "--no-progress", pinned=True),
        env=subprocess_env(),
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: (out / "run.json").exists(), timeout=60, proc=first), first.stderr.read()
        lock_before = (out / "run.lock").read_text()
        second = cli("run", cfg, "--out", out, "--no-progress")
        assert first.poll() is None
    finally:
        _kill_group(first)
    assert second.exit_code == 2
    assert len(second.stderr_lines) == 1, second.stderr
    msg = second.stderr_lines[0]
    assert f"pid {first.pid}" in msg and socket.gethostname() in msg and str(out / "run.lock") in msg
    assert "Traceback" not in second.stderr + second.stdout
    assert (out / "run.lock").read_text() == lock_before  # the refused run did not touch the lock

    # The first run is dead now; its lock is stale and the same command takes it over and finishes.
    gate.unlink()
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "(0 resumed, 1 run, 0 failed)" in res.stdout
    assert not (out / "run.lock").exists()


def test_lock_of_another_host_is_reported_not_broken(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    out.mkdir()
    lock = out / "run.lock"
    lock.write_text(json.dumps({"host": "elsewhere.example", "pid": 4242, "since": "2024-01-01T00:00:00"}))
    res = cli("run", tiny_config, "--out", out, "--no-progress")
    assert res.exit_code == 2
    assert len(res.stderr_lines) == 1
    assert "elsewhere.example" in res.stderr and "4242" in res.stderr and "delete the lock" in res.stderr
    assert json.loads(lock.read_text())["host"] == "elsewhere.example"
    assert sorted(p.name for p in out.iterdir()) == ["run.lock"]


@pytest.mark.parametrize("content", ["", "{not json", json.dumps({"host": socket.gethostname(), "pid": 0})])
def test_unreadable_or_dead_local_lock_is_taken_over(tmp_path, content, pinned_commit):
    cfg = write_config(tmp_path / "c.yaml", protocol={"n_train": [20], "repeats": 1})
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.lock").write_text(content)
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert not (out / "run.lock").exists()


def test_lock_of_a_finished_local_process_is_stale(tmp_path, pinned_commit):
    dead = subprocess.Popen(["true"])
    dead.wait()
    cfg = write_config(tmp_path / "c.yaml", protocol={"n_train": [20], "repeats": 1})
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.lock").write_text(json.dumps({"host": socket.gethostname(), "pid": dead.pid, "since": "x"}))
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0


# --------------------------------------------------------------------------- config change / mixed code
def test_changed_effective_config_is_refused_and_fresh_starts_over(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    assert cli("run", tiny_config, "--out", out, "--no-progress").exit_code == 0
    n_first = len(result_dicts(out))

    for args, edit in [
        (["--repeats", "2"], None),
        ([], {"protocol": {"n_test": 50}}),
        (["--seed", "8"], None),
    ]:
        cfg = tiny_config if edit is None else write_config(tmp_path / "edited.yaml", **edit)
        res = cli("run", cfg, "--out", out, "--no-progress", *args)
        assert res.exit_code == 2, (args, res.stdout)
        assert len(res.stderr_lines) == 1
        assert "different effective config" in res.stderr
        assert "--fresh" in res.stderr and "--out" in res.stderr
        assert len(result_dicts(out)) == n_first  # nothing lost

    # The same effective config written differently (key order, comments, seed given as override) resumes.
    raw = yaml.safe_load(tiny_config.read_text())
    del raw["seed"]
    same = tmp_path / "same.yaml"
    same.write_text("# comment\n" + yaml.safe_dump(dict(reversed(list(raw.items()))), sort_keys=False))
    assert cli("run", same, "--out", out, "--no-progress", "--seed", "7").exit_code == 0

    res = cli("run", tiny_config, "--out", out, "--no-progress", "--repeats", "2", "--fresh")
    assert res.exit_code == 0, res.stderr
    assert "(0 resumed" in res.stdout
    rows = result_dicts(out)
    assert {r["repeat"] for r in rows} == {"0", "1"} and len(rows) == n_first // 2


def test_selectors_added_to_a_finished_store_run_only_their_tasks(tmp_path, pinned_commit):
    out = tmp_path / "out"
    small = {"protocol": {"n_train": [20], "repeats": 2}}
    first = write_config(tmp_path / "a.yaml", selectors=["all", "fisher"], **small)
    assert cli("run", first, "--out", out, "--no-progress").exit_code == 0
    before = {(r["selector"], r["repeat"], r["n_features"], r["error"]) for r in result_dicts(out)}

    # a new selector and a new description: only the new selector's 2 tasks run, the old rows are kept
    more = write_config(
        tmp_path / "b.yaml", selectors=["all", "fisher", "anova_f"], description="now with ANOVA F", **small
    )
    res = cli("run", more, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "(4 resumed, 2 run" in res.stdout
    assert "added to this store: anova_f" in res.stdout + res.stderr
    rows = result_dicts(out)
    assert before <= {(r["selector"], r["repeat"], r["n_features"], r["error"]) for r in rows}
    assert {r["selector"] for r in rows} == {"all", "fisher", "anova_f"}

    # a changed entry, a removed one, or any other change is still refused
    for sel, extra in [
        (["all", {"name": "fisher", "label": "F"}, "anova_f"], {}),
        (["all", "anova_f"], {}),
        (["all", "fisher", "anova_f", "mutual_info"], {"seed": 8}),
    ]:
        cfg = write_config(tmp_path / "c.yaml", selectors=sel, **small, **extra)
        res = cli("run", cfg, "--out", out, "--no-progress")
        assert res.exit_code == 2 and "different effective config" in res.stderr, sel


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_task_files_without_readable_run_json_are_not_trusted(tiny_config, tmp_path, pinned_commit, damage):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 1})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    if damage == "missing":
        (out / "run.json").unlink()
    else:
        (out / "run.json").write_text("{")
    # another config (another seed) whose task ids coincide: its old tasks must not be reused
    edited = write_config(tmp_path / "c.yaml", protocol={"repeats": 1}, seed=99)
    res = cli("run", edited, "--out", out, "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert "no readable run.json" in res.stderr and "--fresh" in res.stderr
    res = cli("run", edited, "--out", out, "--no-progress", "--fresh")
    assert res.exit_code == 0 and "(0 resumed" in res.stdout


def _rows_of_commit(out: Path, other: str, drop: int = 1, code: dict | None = None) -> None:
    """Make ``out`` look like a fresh clone of a run computed by commit ``other``: no task files, the
    tables' rows recording ``other``, ``drop`` task(s) lost from the tables (left to compute), and
    ``run.json``'s ``code`` record set to ``code``."""
    info = json.loads((out / "run.json").read_text())
    info["git_commit"], info["commits"] = other, [other]
    info.pop("code", None)
    if code is not None:
        info["code"] = code
    (out / "run.json").write_text(json.dumps(info))
    for f in (out / "tasks").glob("*.json"):
        f.unlink()
    res = pd.read_csv(out / "results.csv", dtype=str, keep_default_na=False)
    res["git_commit"] = other
    lost = sorted(res["task_id"].unique())[:drop]
    res[~res["task_id"].isin(lost)].to_csv(out / "results.csv", index=False)


def test_other_git_commit_is_refused_unless_allow_mixed_code(tiny_config, tmp_path, pinned_commit):
    """Rows of a commit whose code cannot be checked (not in the history, no record) are not mixed."""
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    other = "1234567" + "0" * 33
    _rows_of_commit(out, other)

    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 2
    assert len(res.stderr_lines) == 1
    assert other[:12] in res.stderr and PINNED_COMMIT[:12] in res.stderr
    assert "not in this checkout's git" in res.stderr
    assert "--allow-mixed-code" in res.stderr and "--fresh" in res.stderr
    assert len(list((out / "tasks").glob("*.json"))) == 17  # restored from the tables; nothing computed

    res = cli("run", cfg, "--out", out, "--no-progress", "--allow-mixed-code")
    assert res.exit_code == 0, res.stderr
    assert len(res.stderr_lines) == 1 and res.stderr_lines[0].startswith("note: kept rows of other code")
    assert "--allow-mixed-code" in res.stderr  # and says so
    info = json.loads((out / "run.json").read_text())
    assert info["commits"] == sorted([other, PINNED_COMMIT]) and info["git_commit"] == PINNED_COMMIT


def test_a_resume_across_commits_is_allowed_where_the_code_is_unchanged(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    code = json.loads((out / "run.json").read_text())["code"]
    assert set(code) == {PINNED_COMMIT} and set(code[PINNED_COMMIT]) == {"all", "fisher", "sas"}
    other = "abcdef1" + "0" * 33
    # the other commit's record says: the same code for every selector -> its rows are kept, one task run
    _rows_of_commit(out, other, code={other: code[PINNED_COMMIT]})
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "(17 resumed, 1 run, 0 failed)" in res.stdout and not res.stderr_lines
    info = json.loads((out / "run.json").read_text())
    assert set(info["code"]) == {other, PINNED_COMMIT}

    # a record of other code for one selector: refused, naming it
    changed = {other: {**code[PINNED_COMMIT], "sas": "0" * 64}}
    _rows_of_commit(out, other, code=changed)
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert "sas: " in res.stderr and "other code" in res.stderr and "fisher" not in res.stderr


def test_every_row_records_the_git_commit(tmp_path):
    cfg = write_config(tmp_path / "c.yaml", protocol={"n_train": [20], "repeats": 2})
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    rows = result_dicts(out)
    commits = {r["git_commit"] for r in rows}
    assert len(commits) == 1
    (commit,) = commits
    assert commit == "unknown" or re.fullmatch("[0-9a-f]{40}", commit)
    assert json.loads((out / "run.json").read_text())["git_commit"] == commit
    if commit != "unknown":  # HEAD now, or a commit someone made in the meantime
        log = subprocess.run(["git", "log", "--format=%H", "-20"], cwd=REPO, capture_output=True, text=True)
        assert commit in log.stdout.split() or commit == git_commit()[0]


# --------------------------------------------------------------------------- failures inside tasks
def test_failing_task_is_recorded_and_others_finish(tmp_path, pinned_commit):
    seed, n_train, repeat = 7, 30, 2
    fail_seed = derive_seed(seed, "selector", "weston_nonlinear", n_train, repeat, "flaky")
    cfg = write_config(
        tmp_path / "fail.yaml",
        selectors=[
            "fisher",
            {"name": "conftest:FailOnSeed", "label": "flaky", "params": {"fail_seed": fail_seed}},
        ],
    )
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 1
    assert "1 failed" in res.stdout
    assert len(res.stderr_lines) == 1
    line = res.stderr_lines[0]
    assert line.startswith(f"1 task(s) failed; tracebacks in {out}/tasks/<task_id>.json; first: ")
    assert line.endswith(f"fitting the selector: RuntimeError: deliberate failure for seed {fail_seed}")
    rows = result_dicts(out)
    failed = [r for r in rows if r["status"] != "ok"]
    assert len(failed) == 1
    f = failed[0]
    assert (f["selector"], f["n_train"], f["repeat"], f["status"]) == (
        "flaky",
        str(n_train),
        str(repeat),
        "failed",
    )
    assert "RuntimeError: deliberate failure" in f["message"] and "fitting the selector" in f["message"]
    # every other task finished: 3 n_train x 4 repeats x 2 S for each selector, minus the failed task
    assert sum(r["status"] == "ok" for r in rows) == 2 * (3 * 4 * 2) - 2

    # Resuming keeps the recorded failure (exit 1 again); --retry-failed runs it again.
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 1 and "(24 resumed, 0 run, 1 failed)" in res.stdout
    res = cli("run", cfg, "--out", out, "--no-progress", "--retry-failed")
    assert res.exit_code == 1 and "(23 resumed, 1 run, 1 failed)" in res.stdout


# --------------------------------------------------------------------------- dry run
def test_estimate_prints_count_and_estimate_and_writes_nothing(tiny_config, tmp_path):
    out = tmp_path / "out"
    t0 = time.perf_counter()
    res = cli("run", tiny_config, "--out", out, "--estimate")
    assert res.exit_code == 0, res.stderr
    assert "tiny: 36 tasks: 0 done, 36 to run" in res.stdout
    assert "estimate:" in res.stdout and "CPU-min" in res.stdout
    assert not out.exists()
    assert time.perf_counter() - t0 < 30


def test_dry_run_counts_done_tasks_without_touching_them(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    assert cli("run", tiny_config, "--out", out, "--no-progress", "--repeats", "1").exit_code == 0
    snapshot = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    res = cli("run", tiny_config, "--out", out, "--repeats", "1", "--dry-run")
    assert res.exit_code == 0, res.stderr
    assert "tiny: 9 tasks: 9 done, 0 to run" in res.stdout
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == snapshot


def test_finished_run_under_another_commit_is_retabulated_not_refused(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    run_json = out / "run.json"
    info = json.loads(run_json.read_text())
    other = "89abcde" + "0" * 33
    info["git_commit"], info["commits"] = other, [other]
    run_json.write_text(json.dumps(info))
    before = (out / "results.csv").read_text()
    (out / "results.csv").unlink()

    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert (out / "results.csv").read_text() == before
    info = json.loads(run_json.read_text())
    assert info["git_commit"] == other and info["commits"] == [other]  # nothing was computed by this commit


def test_fresh_clone_restores_task_files_from_the_committed_tables(tiny_config, tmp_path, pinned_commit):
    # a fresh clone: results.csv, rankings.csv and run.json committed, tasks/ not
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    run_json = out / "run.json"
    info = json.loads(run_json.read_text())
    other = "fedcba9" + "0" * 33
    info["git_commit"], info["commits"] = other, [other]
    run_json.write_text(json.dumps(info))
    tables = {n: (out / n).read_bytes() for n in ("results.csv", "rankings.csv")}
    for f in (out / "tasks").glob("*.json"):
        f.unlink()

    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "(18 resumed, 0 run, 0 failed)" in res.stdout  # nothing recomputed
    assert {n: (out / n).read_bytes() for n in tables} == tables  # byte for byte
    assert json.loads(run_json.read_text())["commits"] == [other]  # who computed the rows is kept
    assert len(list((out / "tasks").glob("*.json"))) == 18


def test_fresh_clone_with_missing_rows_is_not_silently_mixed(tiny_config, tmp_path, pinned_commit):
    out = tmp_path / "out"
    cfg = write_config(tmp_path / "c.yaml", protocol={"repeats": 2})
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    other = "fedcba9" + "0" * 33
    _rows_of_commit(out, other)  # one task lost from the tables, 17 rows of an unknown commit

    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 2 and "--allow-mixed-code" in res.stderr  # 17 restored tasks of another commit
    res = cli("run", cfg, "--out", out, "--no-progress", "--allow-mixed-code")
    assert res.exit_code == 0 and "(17 resumed, 1 run, 0 failed)" in res.stdout
    assert json.loads((out / "run.json").read_text())["commits"] == sorted([other, PINNED_COMMIT])
