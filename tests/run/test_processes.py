"""Issue 22, items 7 and 9: the processes of a run.

* The contract check of a user class runs in a worker process: a class whose ``fit`` kills its process
  (segfault, SIGKILL, ``os._exit``) is refused in one line naming it, its file and the cause (exit code 2,
  nothing created) instead of taking ``fsbench run`` down; that worker is then reused by the run.
* No orphans: after ``kill -9``, SIGINT or SIGTERM of ``fsbench run``, none of its child processes (loky
  workers, resource trackers) outlives it by more than a few seconds.

User selectors live in a module written into ``tmp_path`` under a name unique to the test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml
from conftest import REPO, cli, fsbench_argv, process_alive, subprocess_env, wait_for

USER_MODULE = '''
"""Test selectors (written by tests/run/test_processes.py)."""
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator


class Dies(BaseEstimator):
    """fit kills its own process the way ``how`` says."""

    def __init__(self, how="string_at"):
        self.how = how

    def fit(self, X, y):
        if self.how == "string_at":
            ctypes.string_at(0)
        elif self.how == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif self.how == "exit":
            os._exit(3)
        elif self.how == "sys.exit":
            sys.exit(4)
        self.ranking_ = np.arange(1, X.shape[1] + 1)
        return self


class Sleeps(BaseEstimator):
    """On a task (more than the check problem's 4 features): appends its pid to ``record``, then sleeps."""

    def __init__(self, record="", seconds=0.0):
        self.record = record
        self.seconds = seconds

    def fit(self, X, y):
        with open(self.record, "a") as fh:
            fh.write(f"{os.getpid()} {X.shape[1]}\\n")
        if X.shape[1] > 4:
            time.sleep(self.seconds)
        self.ranking_ = np.arange(1, X.shape[1] + 1)
        return self
'''


@pytest.fixture
def plug(tmp_path: Path) -> tuple[Path, str]:
    """(plugin directory, module name) of the test's user-selector module."""
    name = f"procsel_{uuid.uuid4().hex[:10]}"
    d = tmp_path / "plug"
    d.mkdir()
    (d / f"{name}.py").write_text(USER_MODULE)
    return d, name


def write(path: Path, plug_dir: Path, selectors: list, repeats: int = 3) -> Path:
    cfg = {
        "name": "procs",
        "seed": 3,
        "dataset": "weston_nonlinear",
        "kernel": {"name": "linear"},
        "plugins": [str(plug_dir)],
        "selectors": selectors,
        "protocol": {"n_train": [20], "n_test": 20, "repeats": repeats, "n_features": [2]},
    }
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


# --------------------------------------------------------------------------- 7. the contract check
def test_a_class_that_segfaults_in_the_contract_check_is_refused_in_one_line(tmp_path, plug):
    """A real ``fsbench run`` process (before: exit 139, no message): exit 2, one line, nothing created."""
    d, mod = plug
    cfg = write(tmp_path / "c.yaml", d, ["fisher", {"name": f"{mod}:Dies", "params": {"how": "string_at"}}])
    out = tmp_path / "out"
    res = subprocess.run(
        fsbench_argv("run", cfg, "--out", out, "--no-progress"),
        env=subprocess_env(),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr  # no fault-handler dump, no traceback
    line = lines[0]
    assert line.startswith(f"error: {cfg}: selectors[1].name: {mod}:Dies ({d / mod}.py): "), line
    assert "the process checking it (a fit on the 20 x 4 check problem) died: SIGSEGV (exit code -11)" in line
    assert f"in fit ({mod}.py, line " in line  # where, from the fault handler
    assert "Traceback" not in res.stdout + res.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("sigkill", "check problem) died: SIGKILL (exit code -9), killed (out of memory?)"),
        ("exit", "check problem) died: exit code 3"),
        ("sys.exit", "the contract check raised SystemExit: 4"),  # an exception, not a death
    ],
)
def test_other_deaths_in_the_contract_check_name_their_cause(tmp_path, plug, how, expected):
    d, mod = plug
    cfg = write(tmp_path / "c.yaml", d, [{"name": f"{mod}:Dies", "label": "dies", "params": {"how": how}}])
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 2, res.stderr
    assert len(res.stderr_lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert f"{cfg}: selectors[0].name: {mod}:Dies" in res.stderr_lines[0]
    assert expected in res.stderr_lines[0], res.stderr_lines[0]
    assert not out.exists()


def test_the_contract_check_worker_is_reused_by_the_run(tmp_path, plug, pinned_commit):
    """The check (4 features) and the tasks (52 features) of a --jobs 1 run are fitted in one process,
    which is not this one: the check costs no extra process start."""
    d, mod = plug
    record = tmp_path / "fits.txt"
    cfg = write(tmp_path / "c.yaml", d, [{"name": f"{mod}:Sleeps", "params": {"record": str(record)}}])
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 0, res.stderr
    fits = [line.split() for line in record.read_text().splitlines()]
    assert [n for _, n in fits] == ["4", "52", "52", "52"]  # the check first, then the 3 tasks
    assert len({pid for pid, _ in fits}) == 1 and int(fits[0][0]) != os.getpid()


# --------------------------------------------------------------------------- 9. no orphans
def _children(pid: int) -> set[int]:
    """Child processes of ``pid`` (every thread's list: loky starts workers from a helper thread)."""
    kids: set[int] = set()
    for f in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids.update(int(k) for k in f.read_text().split())
        except OSError:  # the thread ended meanwhile
            pass
    return kids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow  # a real run to start and kill three times: > 10 s on 2 cores
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_no_child_process_outlives_a_killed_run(tmp_path, plug, sig):
    d, mod = plug
    record = tmp_path / "fits.txt"
    cfg = write(
        tmp_path / "c.yaml",
        d,
        [{"name": f"{mod}:Sleeps", "params": {"record": str(record), "seconds": 120.0}}],
        repeats=4,
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        fsbench_argv("run", cfg, "--out", out, "--jobs", 2, "--no-progress"),
        env=subprocess_env(),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def two_tasks_in_flight() -> bool:
            return record.exists() and record.read_text().count(" 52\n") >= 2

        assert wait_for(two_tasks_in_flight, timeout=240, interval=0.1, proc=proc), proc.communicate()
        kids = _children(proc.pid)
        workers = {int(line.split()[0]) for line in record.read_text().splitlines()}
        assert workers <= kids and len(workers) == 2  # the check's worker and one more
        t0 = time.monotonic()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
        assert wait_for(lambda: not any(process_alive(k) for k in kids), timeout=10, interval=0.1), [
            k for k in kids if process_alive(k)
        ]
        gone = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"{sig.name}: the {len(kids)} child processes were gone {gone:.1f} s after the signal")
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:  # Ctrl-C, and SIGTERM handled like it: one line, exit 130, the lock released
        assert proc.returncode == 130, stderr
        assert stderr.strip() == "interrupted: finished tasks are saved; run the same command again to resume"
        assert not (out / "run.lock").exists()
