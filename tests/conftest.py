"""Shared fixtures and helpers of the test suite.

* ``FSBENCH_DATA_DIR`` falls back to the dataset mirror beside the checkout
  (``<checkout>/../shared/datasets``) when it is not set, so ``pytest`` works without ``make``.
* :func:`write_config` writes a tiny, fast experiment config (Weston nonlinear toy); :func:`cli` runs
  ``fsbench`` in-process (typer's CliRunner, stderr kept apart), :func:`cli_subprocess` as a real
  process (``python -m fsbench.cli``), both returning :class:`CliResult`.
* ``pinned_commit`` pins the git commit the runner records, so that a commit made by someone else
  while a test runs cannot turn a resume into a "mixed code" refusal.
* Test-only selectors, given to configs by import path (``conftest:ThreadProbe``): subprocesses get
  ``tests/`` on ``PYTHONPATH`` through :func:`subprocess_env`.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from fsbench.algorithms.base import BaseSelector, ranking_from_order, ranking_from_scores
from fsbench.results.schema import TIMING_COLUMNS


def pytest_configure(config: pytest.Config) -> None:
    """Each pytest-xdist worker gets the machine's cores divided among the workers as BLAS/OpenMP threads
    (as scikit-learn's own conftest does): ``make test`` runs 2 workers on 2 cores, and 2 BLAS threads
    each would put 4 spinning threads on 2 cores. A limit, not a pool size: a test may still raise it
    (``threadpool_limits(2)`` in ``tests/run/test_determinism.py``)."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        from threadpoolctl import threadpool_limits

        threadpool_limits(max(1, (os.cpu_count() or 1) // int(workers)))


TESTS_DIR = Path(__file__).resolve().parent
REPO = TESTS_DIR.parent
_MIRROR_FALLBACK = Path(__file__).resolve().parents[2] / "shared" / "datasets"
if not os.environ.get("FSBENCH_DATA_DIR", "").strip() and _MIRROR_FALLBACK.is_dir():
    os.environ["FSBENCH_DATA_DIR"] = str(_MIRROR_FALLBACK)
os.environ.setdefault("MPLBACKEND", "Agg")

#: The commit the ``pinned_commit`` fixture makes the runner record.
PINNED_COMMIT = "c0ffee" + "0" * 34

#: A small but not trivial experiment: 3 n_train x 4 repeats x 3 selectors = 36 tasks, ~1 s serially.
TINY: dict[str, Any] = {
    "name": "tiny",
    "seed": 7,
    "dataset": "weston_nonlinear",
    "kernel": {"name": "rbf", "gamma": "median"},
    "selectors": ["all", "fisher", {"name": "sas", "params": {"max_iter": 30}}],
    "protocol": {"n_train": [20, 30, 40], "n_test": 100, "repeats": 4, "n_features": [2, 4]},
}


def write_config(path: Path, base: dict[str, Any] | None = None, **changes: Any) -> Path:
    """Write ``base`` (default :data:`TINY`) with top-level ``changes`` (``protocol`` is merged) as YAML."""
    cfg = yaml.safe_load(yaml.safe_dump(base if base is not None else TINY))
    for key, value in changes.items():
        if key == "protocol":
            cfg["protocol"] = {**cfg["protocol"], **value}
        else:
            cfg[key] = value
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.fixture
def tiny_config(tmp_path: Path) -> Path:
    """The :data:`TINY` config written to ``tmp_path/tiny.yaml``."""
    return write_config(tmp_path / "tiny.yaml")


@pytest.fixture
def pinned_commit(monkeypatch: pytest.MonkeyPatch) -> str:
    """Make in-process runs record :data:`PINNED_COMMIT` (clean tree) instead of the live git HEAD."""
    import fsbench.run.engine

    monkeypatch.setattr(fsbench.run.engine, "git_commit", lambda: (PINNED_COMMIT, False))
    return PINNED_COMMIT


# --------------------------------------------------------------------------- running the CLI
@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.strip()]


def cli(*args: Any) -> CliResult:
    """Run ``fsbench ARGS`` in-process; exceptions are left to propagate (a traceback fails the test)."""
    from typer.testing import CliRunner

    from fsbench.cli import app

    res = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return CliResult(res.exit_code, res.stdout, res.stderr)


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment of ``fsbench`` subprocesses: one BLAS thread, the mirror, ``tests/`` importable."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS_DIR), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


#: ``python -c`` prefix that runs the real CLI with the runner's git commit pinned (see pinned_commit).
PINNED_CLI = (
    "import sys, fsbench.run.engine as r; "
    f"r.git_commit = lambda: ({PINNED_COMMIT!r}, False); "
    "from fsbench.cli import app; sys.argv[0] = 'fsbench'; app()"
)


def fsbench_argv(*args: Any, pinned: bool = False) -> list[str]:
    """argv of a real ``fsbench`` process (``python -m fsbench.cli``, or the pinned-commit wrapper)."""
    head = [sys.executable, "-c", PINNED_CLI] if pinned else [sys.executable, "-m", "fsbench.cli"]
    return [*head, *map(str, args)]


def cli_subprocess(*args: Any, env: dict[str, str] | None = None, timeout: float = 120) -> CliResult:
    """Run ``fsbench ARGS`` as a real process and wait for it."""
    proc = subprocess.run(
        fsbench_argv(*args),
        capture_output=True,
        text=True,
        env=env or subprocess_env(),
        cwd=REPO,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def process_alive(pid: int) -> bool:
    """Running, i.e. neither gone nor a zombie (an orphan's zombie waits for init to reap it; reads /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.002, proc=None) -> bool:
    """Poll ``predicate`` until true (True) or the timeout / the end of ``proc`` (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return bool(predicate())
        time.sleep(interval)
    return False


# --------------------------------------------------------------------------- reading results
def result_rows(out: Path, drop: tuple[str, ...] = tuple(TIMING_COLUMNS)) -> list[list[str]]:
    """``results.csv`` as raw strings (header first), the ``drop`` columns removed: byte-level comparison."""
    with open(Path(out) / "results.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    keep = [i for i, c in enumerate(rows[0]) if c not in drop]
    return [[r[i] for i in keep] for r in rows]


def result_dicts(out: Path) -> list[dict[str, str]]:
    with open(Path(out) / "results.csv", newline="") as fh:
        return list(csv.DictReader(fh))


# --------------------------------------------------------------------------- test-only selectors
class ThreadProbe(BaseSelector):
    """Records the largest BLAS/OpenMP thread count seen inside ``fit`` as ``n_iter_`` (and ``scores_``)."""

    description = "test probe: records threadpool_info() num_threads"
    citation = "-"

    def _fit(self, X, y):
        from threadpoolctl import threadpool_info

        n = max((int(p["num_threads"]) for p in threadpool_info()), default=0)
        self.n_iter_ = n
        self.scores_ = np.full(X.shape[1], float(n))
        self.ranking_ = ranking_from_order(np.arange(X.shape[1])[::-1])


class FailOnSeed(BaseSelector):
    """Fisher-like scores; raises in ``fit`` when ``random_state == fail_seed`` (one chosen task fails)."""

    description = "test selector: fails for one seed"
    citation = "-"

    def __init__(self, fail_seed: int = -1, random_state: int | None = None, n_features_to_select=None):
        self.fail_seed = fail_seed
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        if self.random_state == self.fail_seed:
            raise RuntimeError(f"deliberate failure for seed {self.fail_seed}")
        self.scores_ = np.abs(X[y == 0].mean(axis=0) - X[y == 1].mean(axis=0))
        self.ranking_ = ranking_from_scores(self.scores_)


class Gate(BaseSelector):
    """Waits in ``fit`` while the file ``gate`` exists (at most ``timeout`` seconds): a run held open.

    Not on the 4-feature problem on which fsbench checks a user class before the run starts
    (:func:`fsbench.evaluation.plugins.check_contract`): only the run's tasks are held."""

    description = "test selector: blocks while a file exists"
    citation = "-"

    def __init__(self, gate: str = "", timeout: float = 60.0, n_features_to_select=None):
        self.gate = gate
        self.timeout = timeout
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, y):
        end = time.monotonic() + self.timeout
        while X.shape[1] > 4 and self.gate and Path(self.gate).exists() and time.monotonic() < end:
            time.sleep(0.05)
        self.ranking_ = ranking_from_order(np.arange(X.shape[1]))


def cell_rows(
    experiment: str,
    selector: str,
    mean: float,
    dataset: str = "toy",
    n: int = 10,
    spread: float = 0.005,
    name: str | None = None,
    **extra: Any,
) -> pd.DataFrame:
    """Result rows of one selector in one (dataset, S = 5) cell: ``n`` repeats whose errors lie evenly in
    ``mean ± spread`` (deterministic, no RNG); ``name`` = the registry name (default: the label); ``extra``
    are more constant columns (e.g. ``fit_cpu_s``)."""
    return pd.DataFrame(
        {
            "experiment": experiment,
            "dataset": dataset,
            "kernel": "rbf",
            "n_train": 100,
            "n_features": 5,
            "selector": selector,
            "selector_name": name or selector,
            "repeat": np.arange(n),
            "split_seed": np.arange(n) + 1000,
            "error": mean + np.linspace(-spread, spread, n),
            **extra,
            "status": "ok",
            "task_id": [f"{experiment}-{selector}-{dataset}-{i}" for i in range(n)],
        }
    )
