"""Issue 16: a researcher's own selector, and every failure around it.

* the user-selector contract, checked when the config is read (``fsbench.evaluation.plugins``), the
  ``plugins:`` key, class-index labels and numeric ``gamma`` for user classes;
* a failed task keeps its full traceback in its task file; a worker process that dies (segfault,
  SIGKILL) costs its task only, with ``--jobs 1`` too, and the culprit is found with ``--jobs 2``;
* ``--exclude-selector`` on an existing output directory; the source hash of user classes and the
  refusal to mix tasks computed from two versions of it;
* environment errors (output directory, backend options, unreachable scheduler): one line, exit 2,
  nothing created.

User selectors live in a module written into ``tmp_path`` under a name unique to the test (a module
cached by an earlier test must not stand in for it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import yaml
from conftest import REPO, cli, fsbench_argv, result_dicts, result_rows, subprocess_env

from fsbench.evaluation.resampling import derive_seed

SEED = 11
#: 1 n_train x 3 repeats x 2 selectors = 6 tasks of ~10 ms each.
BASE = {
    "name": "robust",
    "seed": SEED,
    "dataset": "weston_nonlinear",
    "kernel": {"name": "rbf", "gamma": "median"},
    "protocol": {"n_train": [20], "n_test": 50, "repeats": 3, "n_features": [2]},
}

USER_MODULE = '''
"""Test selectors of a researcher (written by tests/run/test_robustness.py)."""
import ctypes
import json
import os
import signal

import numpy as np
from sklearn.base import BaseEstimator

from fsbench.algorithms.base import BaseSelector, ranking_from_scores
from fsbench.algorithms.kernels import resolve_gamma


def _deep_failure(X):
    raise ValueError(f"deliberate failure on {X.shape[0]} samples")


class Scores(BaseSelector):
    """Mean-difference scores; when random_state == crash_seed, fails the way `how` says."""

    def __init__(self, crash_seed=-1, how="segv", random_state=None, n_features_to_select=None):
        self.crash_seed = crash_seed
        self.how = how
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        if self.random_state == self.crash_seed:
            if self.how == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif self.how == "string_at":
                ctypes.string_at(0)
            elif self.how == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif self.how == "raise":
                _deep_failure(X)
        self.scores_ = np.abs(X[y == 0].mean(axis=0) - X[y == 1].mean(axis=0))
        self.ranking_ = ranking_from_scores(self.scores_)


class Recorder(BaseEstimator):
    """A plain scikit-learn estimator: appends what fit(X, y) received to the file `record`."""

    def __init__(self, record="", kernel="linear", gamma=1.0):
        self.record = record
        self.kernel = kernel
        self.gamma = gamma

    def fit(self, X, y):
        if self.record and X.shape[1] > 4:  # the run's tasks, not the 20 x 4 contract check
            entry = {
                "dtype": str(np.asarray(y).dtype),
                "values": sorted(set(np.asarray(y).tolist())),
                "gamma": self.gamma,
                "kernel": self.kernel,
                "expected_gamma": resolve_gamma("median/4", X),
            }
            with open(self.record, "a") as fh:
                fh.write(json.dumps(entry) + "\\n")
        self.ranking_ = np.arange(1, X.shape[1] + 1)
        return self


class NoGetParams:
    def fit(self, X, y):
        return self


class NeedsArgument(BaseEstimator):
    def __init__(self, alpha):
        self.alpha = alpha

    def fit(self, X, y):
        return self


class FitRaises(BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("cannot fit")


class BadRanking(BaseEstimator):
    def fit(self, X, y):
        self.ranking_ = np.ones(X.shape[1], dtype=int)
        return self
'''


@pytest.fixture
def plug(tmp_path: Path) -> tuple[Path, str]:
    """(plugin directory, module name) of the test's user-selector module."""
    name = f"usersel_{uuid.uuid4().hex[:10]}"
    d = tmp_path / "plug"
    d.mkdir()
    (d / f"{name}.py").write_text(USER_MODULE)
    return d, name


def write(path: Path, **changes) -> Path:
    cfg = {**BASE, **changes}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def sel_seed(label: str, repeat: int, n_train: int = 20) -> int:
    """The random_state fsbench gives selector ``label`` in the task (n_train, repeat)."""
    return derive_seed(SEED, "selector", "weston_nonlinear", n_train, repeat, label)


def one_line_exit_2(res) -> str:
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert len(res.stderr_lines) == 1, res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    return res.stderr_lines[0]


def payloads(out: Path) -> list[dict]:
    return [json.loads(p.read_text())["payload"] for p in sorted((out / "tasks").glob("*.json"))]


# --------------------------------------------------------------------------- A. the contract
@pytest.mark.parametrize(
    ("cls", "params", "key", "expected"),
    [
        ("sklearn.svm:SVC", {}, "selectors[1].name", "has no ranking_"),
        (
            "{mod}:NoGetParams",
            {},
            "selectors[1].name",
            "not a scikit-learn estimator: it has no get_params()",
        ),
        ("{mod}:NeedsArgument", {"alpha": 1}, "selectors[1].name", "cannot be created with its defaults"),
        ("{mod}:FitRaises", {}, "selectors[1].name", "fit(X, y) failed on the 20 x 4 check problem"),
        ("{mod}:BadRanking", {}, "selectors[1].name", "must be a permutation of 1..4"),
        ("{mod}:Scores", {"no_such": 1}, "selectors[1].params", "has no parameter(s) no_such"),
    ],
)
def test_user_class_that_breaks_the_contract_is_refused_before_anything(
    tmp_path, plug, cls, params, key, expected
):
    d, mod = plug
    cfg = write(
        tmp_path / "c.yaml",
        plugins=[str(d)],
        selectors=["fisher", {"name": cls.format(mod=mod), "params": params}],
    )
    out = tmp_path / "out"
    line = one_line_exit_2(cli("run", cfg, "--out", out, "--no-progress"))
    assert f"{cfg}: {key}: " in line and expected in line, line
    assert not out.exists()


def test_unimportable_user_class_says_how_to_make_it_importable(tmp_path):
    cfg = write(tmp_path / "c.yaml", selectors=["fisher", "nosuchpkg_xyz.selectors:Mine"])
    line = one_line_exit_2(cli("run", cfg, "--out", tmp_path / "out", "--no-progress"))
    assert "selectors[1].name" in line and "No module named 'nosuchpkg_xyz'" in line
    assert "PYTHONPATH" in line and "plugins:" in line
    assert not (tmp_path / "out").exists()


def test_plugins_must_be_directories_and_enter_the_config_hash(tmp_path, plug):
    from fsbench.config.experiment import load_experiment

    d, mod = plug
    line = one_line_exit_2(
        cli(
            "run",
            write(tmp_path / "c.yaml", plugins=["missing"], selectors=["fisher"]),
            "--out",
            tmp_path / "o",
        )
    )
    assert "plugins[0]: expected a directory" in line and str(tmp_path / "missing") in line
    rel = load_experiment(write(tmp_path / "rel.yaml", plugins=["plug"], selectors=["fisher"]))
    assert rel.plugins == (str(d),)  # relative to the config file, not to the working directory
    plain = load_experiment(write(tmp_path / "plain.yaml", selectors=["fisher"]))
    assert rel.config_hash != plain.config_hash


def test_user_classes_get_class_indices_numeric_gamma_and_transformers_run(tmp_path, plug, pinned_commit):
    """y as class indices 0/1 (the toy's labels are -1/+1), the kernel's "median/4" resolved on the
    training data for a user class, and a plain transformer (PCA: transform, no ranking_) accepted."""
    d, mod = plug
    record = tmp_path / "seen.jsonl"
    cfg = write(
        tmp_path / "c.yaml",
        kernel={"name": "rbf", "gamma": "median/4"},
        plugins=["plug"],  # relative to the config file; the worker processes import from it too
        selectors=[
            {"name": f"{mod}:Recorder", "label": "rec", "params": {"record": str(record)}},
            {"name": "sklearn.decomposition:PCA", "label": "pca", "params": {"n_components": 3}},
        ],
    )
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    seen = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(seen) == 3  # one per repeat
    for s in seen:
        assert s["dtype"].startswith("int") and s["values"] == [0, 1]
        assert s["kernel"] == "rbf" and isinstance(s["gamma"], float)
        assert s["gamma"] == pytest.approx(s["expected_gamma"], rel=1e-12)
    rows = result_dicts(out)
    assert {r["selector"] for r in rows} == {"rec", "pca"} and all(r["status"] == "ok" for r in rows)
    rec = [json.loads(r["params"]) for r in rows if r["selector"] == "rec"]
    assert sorted(p["gamma"] for p in rec) == sorted(s["gamma"] for s in seen)  # the number is recorded
    assert {r["n_features"] for r in rows if r["selector"] == "pca"} == {"2", "3"}


# --------------------------------------------------------------------------- B. tracebacks
def test_failed_task_keeps_its_full_traceback_and_the_cli_says_where(tmp_path, plug, pinned_commit):
    d, mod = plug
    cfg = write(
        tmp_path / "c.yaml",
        plugins=[str(d)],
        selectors=[
            "fisher",
            {
                "name": f"{mod}:Scores",
                "label": "bad",
                "params": {"crash_seed": sel_seed("bad", 1), "how": "raise"},
            },
        ],
    )
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 1 and "(0 resumed, 6 run, 1 failed)" in res.stdout
    failed = [p for p in payloads(out) if p["status"] != "ok"]
    assert len(failed) == 1
    tb = failed[0]["traceback"]
    assert tb.startswith("Traceback (most recent call last)")
    assert (
        f"{mod}.py" in tb and "_deep_failure" in tb and "ValueError: deliberate failure on 20 samples" in tb
    )
    assert [line.split(": ", 1)[0] for line in res.stderr_lines] == [
        f"1 task(s) failed; tracebacks in {out}/tasks/<task_id>.json; first"
    ]
    task_file = f"{failed[0]['task_id']}.json"
    assert f"first: {task_file}: fitting the selector: ValueError: deliberate failure" in res.stderr_lines[0]
    assert "Traceback" not in result_dicts(out)[0]["message"]  # the tables keep one line


# --------------------------------------------------------------------------- C. dead workers
def _run_real(*args, timeout: float = 180) -> subprocess.CompletedProcess:
    """A real ``fsbench`` process (a worker's fault-handler output would reach its stderr)."""
    return subprocess.run(
        fsbench_argv(*args, "--no-progress", pinned=True),
        env=subprocess_env(),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


@pytest.mark.parametrize(
    ("how", "jobs", "cause"),
    [
        ("segv", 1, "worker died: SIGSEGV (exit code -11)"),
        ("string_at", 2, "worker died: SIGSEGV (exit code -11)"),
        ("sigkill", 2, "worker died: SIGKILL (exit code -9), killed (out of memory?)"),
    ],
)
@pytest.mark.slow  # > 10 s on 2 cores
def test_a_worker_that_dies_costs_its_task_only(tmp_path, plug, how, jobs, cause):
    """--jobs 1 runs tasks in a worker process too; with --jobs 2 the culprit is told from the other
    task in flight by its fault-handler dump (SIGSEGV) or by running the suspects alone (SIGKILL)."""
    d, mod = plug
    crash_seed = sel_seed("crashy", 1)
    cfg = write(
        tmp_path / "c.yaml",
        plugins=[str(d)],
        selectors=[
            "fisher",
            {"name": f"{mod}:Scores", "label": "crashy", "params": {"crash_seed": crash_seed, "how": how}},
        ],
    )
    out = tmp_path / "out"
    t0 = time.perf_counter()
    res = _run_real("run", cfg, "--out", out, "--jobs", jobs)
    elapsed = time.perf_counter() - t0
    assert res.returncode == 1, res.stderr
    assert "robust: 6 tasks (0 resumed, 6 run, 1 failed)" in res.stdout
    assert len(_lines(res.stderr)) == 1, res.stderr  # no fault-handler dump on the terminal
    assert res.stderr.startswith("1 task(s) failed; tracebacks in ") and cause in res.stderr
    rows = result_dicts(out)
    (bad,) = [r for r in rows if r["status"] != "ok"]
    assert (bad["selector"], bad["repeat"], bad["message"]) == ("crashy", "1", cause)
    assert sum(r["status"] == "ok" for r in rows) == 5
    (payload,) = [p for p in payloads(out) if p["status"] != "ok"]
    if how != "sigkill":  # the fault handler's dump: where it crashed
        assert "Fatal Python error: Segmentation fault" in payload["traceback"]
        assert f"{mod}.py" in payload["traceback"] and "_fit" in payload["traceback"]
    assert not (out / "run.lock").exists()
    assert not list((out / "tasks").glob(".*"))  # no crash log left behind
    info = json.loads((out / "run.json").read_text())
    assert info["n_failed"] == 1 and info["finished"]
    print(f"{how}, --jobs {jobs}: {elapsed:.1f} s")

    # Recorded, not repeated: the crashed task is skipped unless --retry-failed.
    again = _run_real("run", cfg, "--out", out, "--jobs", jobs)
    assert again.returncode == 1 and "(6 resumed, 0 run, 1 failed)" in again.stdout
    if how == "segv":
        retry = _run_real("run", cfg, "--out", out, "--retry-failed")
        assert retry.returncode == 1 and "(5 resumed, 1 run, 1 failed)" in retry.stdout
        assert len(_lines(retry.stderr)) == 1 and cause in retry.stderr


def test_dask_worker_death_is_recorded_as_a_failed_task(tmp_path, plug, pinned_commit):
    pytest.importorskip("dask.distributed")
    d, mod = plug
    cfg = write(
        tmp_path / "c.yaml",
        plugins=[str(d)],
        selectors=[
            "fisher",
            {"name": f"{mod}:Scores", "label": "crashy", "params": {"crash_seed": sel_seed("crashy", 0)}},
        ],
        protocol={**BASE["protocol"], "repeats": 2},
    )
    out = tmp_path / "out"
    res = cli("run", cfg, "--out", out, "--backend", "dask-local", "--workers", 1, "--no-progress")
    assert res.exit_code == 1, res.stderr
    assert "(0 resumed, 4 run, 1 failed)" in res.stdout
    (bad,) = [r for r in result_dicts(out) if r["status"] != "ok"]
    assert (bad["selector"], bad["repeat"], bad["message"]) == (
        "crashy",
        "0",
        "worker died: dask KilledWorker",
    )
    info = json.loads((out / "run.json").read_text())
    assert info["backend"] == "dask-local" and info["workers"] == 1  # --workers is recorded
    assert not (out / "run.lock").exists()


# --------------------------------------------------------------------------- exclusion
def test_excluding_a_selector_on_an_existing_output_is_a_subset_of_the_same_run(tmp_path, pinned_commit):
    cfg = write(tmp_path / "c.yaml", selectors=["fisher", {"name": "sas", "params": {"max_iter": 20}}])
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 0
    full = (out / "results.csv").read_text()
    info = json.loads((out / "run.json").read_text())
    sas_files = {p["task_id"] for p in payloads(out) if p["rows"][0]["selector"] == "sas"}

    res = cli("run", cfg, "--out", out, "--no-progress", "--exclude-selector", "sas")
    assert res.exit_code == 0, res.stderr
    assert "robust: 3 tasks (3 resumed, 0 run, 0 failed)" in res.stdout
    # the run's line ends with what was left out; the error table (mean error per S) follows it
    assert res.stdout.splitlines()[0].endswith("results.csv (excluded: sas)")
    assert {r["selector"] for r in result_dicts(out)} == {"fisher"}  # excluded: not tabulated
    assert sas_files <= {p.stem for p in (out / "tasks").glob("*.json")}  # their task files are kept
    after = json.loads((out / "run.json").read_text())
    assert after["config_hash"] == info["config_hash"] and after["excluded_selectors"] == ["sas"]

    res = cli("run", cfg, "--out", out, "--no-progress")  # without the exclusion: the whole table again
    assert res.exit_code == 0 and "(6 resumed, 0 run, 0 failed)" in res.stdout
    assert (out / "results.csv").read_text() == full

    # Started with the exclusion, completed without it: only the excluded selector's tasks run then.
    out2 = tmp_path / "out2"
    assert cli("run", cfg, "--out", out2, "--no-progress", "--exclude-selector", "sas").exit_code == 0
    res = cli("run", cfg, "--out", out2, "--no-progress")
    assert res.exit_code == 0 and "(3 resumed, 3 run, 0 failed)" in res.stdout
    assert result_rows(out2) == result_rows(out)  # timing columns aside


def test_an_excluded_selector_is_not_checked_and_messages_keep_the_file_positions(tmp_path, pinned_commit):
    cfg = write(tmp_path / "c.yaml", selectors=["nosuchpkg_xyz.mod:Broken", "fisher", "sklearn.svm:SVC"])
    args = ("run", cfg, "--no-progress", "--exclude-selector", "nosuchpkg_xyz.mod:Broken")
    line = one_line_exit_2(cli(*args, "--out", tmp_path / "o1"))
    assert f"{cfg}: selectors[2].name: sklearn.svm:SVC is not a feature selector" in line
    res = cli(*args, "--exclude-selector", "sklearn.svm:SVC", "--out", tmp_path / "o2")
    assert res.exit_code == 0 and "(0 resumed, 3 run, 0 failed)" in res.stdout


# --------------------------------------------------------------------------- user code hash
def test_changed_user_source_is_refused_on_resume_unless_allowed(tmp_path, plug, pinned_commit):
    """The researcher fixes their selector and retries its failed task: tasks computed by two versions
    of the file would be mixed, so this is refused like a changed fsbench commit."""
    import hashlib

    d, mod = plug
    src = d / f"{mod}.py"
    name = f"{mod}:Scores"
    params = {"crash_seed": sel_seed("mine", 1), "how": "raise"}
    cfg = write(
        tmp_path / "c.yaml",
        plugins=[str(d)],
        selectors=["fisher", {"name": name, "label": "mine", "params": params}],
    )
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--no-progress").exit_code == 1  # one task of "mine" failed
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    info = json.loads((out / "run.json").read_text())
    assert info["plugin_sources"] == {name: {"path": str(src), "sha256": digest}}
    mine = [p for p in payloads(out) if p["rows"][0]["selector"] == "mine"]
    assert len(mine) == 3 and {p["code_hash"] for p in mine} == {digest}
    assert {p["code_hash"] for p in payloads(out) if p["rows"][0]["selector"] == "fisher"} == {None}

    src.write_text(src.read_text() + "\n# changed\n")
    line = one_line_exit_2(cli("run", cfg, "--out", out, "--no-progress", "--retry-failed"))
    assert line == (
        f"error: {out}: 2 finished task(s) of selector {name} were computed from another version of "
        f"{src} (sha256 {digest[:12]}, now {hashlib.sha256(src.read_bytes()).hexdigest()[:12]}); restore "
        "that file, pass --allow-mixed-code to keep them (each task file records its code_hash), or "
        "--fresh to recompute everything"
    )
    res = cli("run", cfg, "--out", out, "--no-progress", "--retry-failed", "--allow-mixed-code")
    assert res.exit_code == 1 and "(5 resumed, 1 run, 1 failed)" in res.stdout
    new = hashlib.sha256(src.read_bytes()).hexdigest()
    assert json.loads((out / "run.json").read_text())["plugin_sources"][name]["sha256"] == new
    assert sorted(p["code_hash"] for p in payloads(out) if p["rows"][0]["selector"] == "mine") == sorted(
        [digest, digest, new]
    )


# --------------------------------------------------------------------------- D. environment errors
def _immutable(path: Path) -> bool:
    """Make ``path`` a directory nobody (root included) can create entries in; False if impossible."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        return True
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def test_unwritable_output_directory_is_refused_creating_nothing(tmp_path):
    cfg = write(tmp_path / "c.yaml", selectors=["fisher"])
    locked = tmp_path / "locked"
    locked.mkdir()
    if not _immutable(locked):
        pytest.skip("cannot make a read-only directory here")
    try:
        for out in (locked, locked / "new" / "deeper"):
            line = one_line_exit_2(cli("run", cfg, "--out", out, "--no-progress"))
            assert line.startswith(f"error: output directory {out}: cannot write in {locked} ("), line
        assert list(locked.iterdir()) == []
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(locked)], check=False)
        else:
            locked.chmod(0o755)


def test_output_path_that_is_a_file_is_refused(tmp_path):
    cfg = write(tmp_path / "c.yaml", selectors=["fisher"])
    f = tmp_path / "results.txt"
    f.write_text("not a directory")
    line = one_line_exit_2(cli("run", cfg, "--out", f, "--no-progress"))
    assert line == f"error: output directory {f}: exists and is not a directory"
    line = one_line_exit_2(cli("run", cfg, "--out", f / "sub", "--no-progress"))
    assert line == f"error: output directory {f / 'sub'}: {f} is a file, not a directory"
    assert f.read_text() == "not a directory"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--backend", "dask"],
            "error: --backend dask needs --scheduler tcp://HOST:PORT (or use --backend dask-local)",
        ),
        (
            ["--backend", "dask", "--scheduler", "localhost:8786"],
            "error: --scheduler 'localhost:8786': expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786",
        ),
        (
            ["--backend", "dask", "--scheduler", "tcp://host:99999"],
            "error: --scheduler 'tcp://host:99999': expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786",
        ),
        (
            ["--workers", "2"],
            "error: --workers applies to --backend dask-local only, not --backend loky (use --jobs)",
        ),
        (
            ["--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"],
            "error: --workers applies to --backend dask-local only, not --backend dask",
        ),
        (
            ["--scheduler", "tcp://127.0.0.1:8786"],
            "error: --scheduler applies to --backend dask only, not --backend loky",
        ),
        (
            ["--backend", "dask-local", "--scheduler", "tcp://127.0.0.1:8786"],
            "error: --scheduler applies to --backend dask only, not --backend dask-local",
        ),
    ],
)
def test_backend_options_that_are_missing_malformed_or_do_not_apply(tmp_path, args, expected):
    cfg = write(tmp_path / "c.yaml", selectors=["fisher"])
    out = tmp_path / "out"
    assert one_line_exit_2(cli("run", cfg, "--out", out, "--no-progress", *args)) == expected
    assert not out.exists()


def test_unreachable_scheduler_is_refused_within_seconds(tmp_path):
    pytest.importorskip("dask.distributed")
    help_text = " ".join(cli("run", "--help").stdout.split())
    assert "within 5 s" in help_text
    cfg = write(tmp_path / "c.yaml", selectors=["fisher"])
    out = tmp_path / "out"
    t0 = time.perf_counter()
    res = cli(
        "run", cfg, "--out", out, "--no-progress", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"
    )
    elapsed = time.perf_counter() - t0
    line = one_line_exit_2(res)
    assert line.startswith(
        "error: --scheduler tcp://127.0.0.1:1: cannot reach the dask scheduler within 5 s ("
    )
    assert elapsed < 20, elapsed
    assert not out.exists()
    print(f"unreachable scheduler refused after {elapsed:.1f} s: {line}")


def test_plugin_directory_reaches_a_worker_started_before_it(tmp_path, plug, pinned_commit):
    """Loky keeps worker processes between runs of one Python session: a worker started by an earlier
    run (without this plugin directory on its path) still imports the user class."""
    other = write(tmp_path / "warm.yaml", selectors=["fisher"], name="warm")
    assert cli("run", other, "--out", tmp_path / "warm", "--no-progress").exit_code == 0
    d, mod = plug
    cfg = write(tmp_path / "c.yaml", plugins=[str(d)], selectors=[{"name": f"{mod}:Scores", "label": "mine"}])
    res = cli("run", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert all(r["status"] == "ok" for r in result_dicts(tmp_path / "out"))


def test_user_module_source_path_is_the_module_file(plug):
    from fsbench.algorithms.registry import resolve
    from fsbench.evaluation.plugins import activate, source_of

    d, mod = plug
    activate([str(d)])
    src = source_of(resolve(f"{mod}:Scores"))
    assert src["path"] == str(d / f"{mod}.py") and len(src["sha256"]) == 64
