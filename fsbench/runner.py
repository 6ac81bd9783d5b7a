"""Config → tasks → parallel execution → durable, resumable result store. Knows no algorithm.

Output directory layout (schema version :data:`fsbench.protocol.SCHEMA_VERSION`, see README):

``run.json``
    effective config (after command-line overrides), its sha256, fsbench git commit, package
    versions, host, start/end time, task counts.
``tasks/<task_id>.json``
    one file per finished task, written atomically (temp file + fsync + rename) the moment the
    task's result reaches the parent process. It carries a sha256 of its own payload: a file that
    does not parse or does not match is discarded and the task is run again.
``results.csv`` / ``rankings.csv``
    derived from the task files, in canonical order (config order of datasets, kernels, n_train,
    repeats, selectors; then S), rewritten atomically at the end of every run and periodically.
``run.lock``
    owner host and pid while a run is active. A second run on the directory is refused (exit 2) with
    that host and pid; a lock whose pid is dead on this host is taken over; a lock from another host is
    reported, never broken.

Resuming (the default) skips every task whose file is valid, so a run killed at any point and
started again with the same command ends with the same ``results.csv`` as an uninterrupted run.
A resume is refused when the effective config differs from ``run.json`` (or ``run.json`` is missing
or unreadable while task files exist), and when ``run.json`` names another git commit while tasks
are both finished and still to compute, unless ``--allow-mixed-code`` (a finished run is only
re-tabulated, whatever the commit); ``--fresh`` discards the task files and starts over.

:func:`validate` opens every dataset (hashing and parsing card files), checks every selector's
parameters and fits every user selector class on a tiny problem (:mod:`fsbench.plugins`), so bad
input stops the run before the lock, ``run.json`` or any task; :func:`check_backend_options` and
:func:`check_output` do the same for the environment.

Tasks run in worker processes (loky, also for ``--jobs 1``; or dask futures), one task per future: an
exception inside a task is recorded by :func:`fsbench.protocol.run_task` with its traceback, and a
task whose process dies (segfault, out-of-memory kill) is recorded as failed by
:func:`_local_results` / :func:`_dask_results`; either way the other tasks go on.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import platform
import re
import socket
import subprocess
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from fsbench.algorithms.kernels import parse_gamma
from fsbench.algorithms.registry import UnknownSelectorError, get_selector, resolve
from fsbench.config import ConfigError, Experiment, SelectorConfig
from fsbench.data import DatasetError, SyntheticDataset, get_card, open_dataset
from fsbench.diagnostics.registry import UnknownDiagnosticError, get_diagnostic
from fsbench.plugins import ContractError, check_class, check_contract, is_user_class, source_of
from fsbench.plugins import activate as activate_plugins
from fsbench.protocol import (
    RANKING_COLUMNS,
    RESULT_COLUMNS,
    SCHEMA_VERSION,
    Task,
    TaskResult,
    failed_result,
    run_task,
)
from fsbench.resampling import train_size

BACKENDS = ("loky", "threading", "dask", "dask-local")


class RunError(RuntimeError):
    """A refusal to run (lock held, config changed, mixed code): one line, exit code 2."""


# --------------------------------------------------------------------------- provenance
def git_commit() -> tuple[str, bool]:
    """(commit, dirty) of the fsbench source tree, or ("unknown", False) outside git."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "fsbench"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return commit or "unknown", bool(status)
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def package_versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for name in ("fsbench", "numpy", "scipy", "scikit-learn", "pandas", "joblib", "threadpoolctl"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    return out


# --------------------------------------------------------------------------- planning
def expand(
    exp: Experiment, commit: str = "unknown", code_hashes: dict[str, str | None] | None = None
) -> list[Task]:
    """All tasks of an experiment, in canonical order (datasets, kernels, n_train, repeats, folds,
    selectors); excluded selectors have none. ``code_hashes`` maps a user class's name to the sha256
    of its source (:func:`plugin_sources`), recorded in its tasks' files."""
    code_hashes = code_hashes or {}
    tasks = []
    selectors = exp.selectors
    if exp.diagnostic is not None and not get_diagnostic(exp.diagnostic).per_selector:
        selectors = (SelectorConfig(label=f"<{exp.diagnostic}>", name=exp.diagnostic),)
    for entry in exp.datasets:
        folds = range(entry.protocol.folds) if entry.protocol.folds else [None]
        for kernel in entry.kernels:
            for n_train in entry.protocol.n_train:
                for repeat in range(entry.protocol.repeats):
                    for fold in folds:
                        for sel in selectors:
                            tasks.append(
                                Task(
                                    experiment=exp.name,
                                    dataset=entry.label,
                                    spec=entry.spec,
                                    kernel=kernel,
                                    selector=sel,
                                    n_train=n_train,
                                    repeat=repeat,
                                    protocol=entry.protocol,
                                    seed=exp.seed,
                                    git_commit=commit,
                                    fold=fold,
                                    positive=entry.positive,
                                    diagnostic=exp.diagnostic,
                                    settings=exp.settings,
                                    plugins=exp.plugins,
                                    code_hash=code_hashes.get(sel.name),
                                )
                            )
    return tasks


def validate(exp: Experiment) -> None:
    """Everything that can be checked before any work starts; raises ConfigError / DatasetError."""
    src = exp.source
    if exp.diagnostic is not None:
        try:
            get_diagnostic(exp.diagnostic).check(exp)
        except UnknownDiagnosticError as exc:
            raise ConfigError(src, "diagnostic", str(exc)) from None
    rankers = []
    activate_plugins(exp.plugins)
    keys = _selector_keys(exp)
    kernels = [k for entry in exp.datasets for k in entry.kernels]
    for i, sel in enumerate(exp.selectors):
        kp = keys.get(sel.label, f"selectors[{i}]")
        try:
            cls = resolve(sel.name)
            if is_user_class(cls):
                check_class(sel.name, cls)  # before its params are tried: it must be constructible
        except (UnknownSelectorError, ContractError) as exc:
            raise ConfigError(src, f"{kp}.name", str(exc)) from None
        gamma = sel.params.get("gamma")
        if isinstance(gamma, str):
            try:
                parse_gamma(gamma)
            except ValueError as exc:
                raise ConfigError(src, f"{kp}.params.gamma", str(exc)) from None
        try:
            est = get_selector(sel.name, **sel.params)
            if hasattr(est, "_parameter_constraints"):
                est._validate_params()
            if hasattr(est, "_check_params"):
                est._check_params()
        except (TypeError, ValueError) as exc:
            raise ConfigError(src, f"{kp}.params", str(exc).replace("\n", " ")) from None
        supported = getattr(type(est), "supported_kernels", None)
        if "kernel" in sel.params and supported and sel.params["kernel"] not in supported:
            raise ConfigError(
                src,
                f"{kp}.params.kernel",
                f"{sel.name} supports kernels {', '.join(supported)}, not {sel.params['kernel']!r}",
            )
        if is_user_class(cls):
            # fit on a tiny problem now, so that a class that cannot work stops the run before it starts
            try:
                check_contract(sel, kernels)
            except ContractError as exc:
                raise ConfigError(src, f"{kp}.name", str(exc)) from None
        if getattr(type(est), "kind", "rank") != "transform" and not getattr(est, "baseline_all", False):
            rankers.append(sel.label)
    for entry in exp.datasets:
        kp = entry.key
        p = entry.protocol
        try:
            card = get_card(entry.spec) if isinstance(entry.spec, str) else None
            # Opening a card dataset hashes and parses its files: a missing or altered file, or NaN/inf
            # values the card does not allow, stop the run here (exit 2), not in every task.
            ds = open_dataset(entry.spec)
            synthetic, n_samples, D = (
                isinstance(ds, SyntheticDataset),
                getattr(ds, "n_samples", None),
                ds.n_features,
            )
        except DatasetError as exc:
            raise ConfigError(src, kp, str(exc)) from None
        if entry.positive is not None:
            # a generator's labels from a small seeded sample (they are fixed by the generator)
            y_any = ds.sample(200, np.random.default_rng(0))[1] if synthetic else ds.y
            labels = {str(v) for v in y_any}
            if str(entry.positive) not in labels:
                raise ConfigError(
                    src,
                    f"{kp}.positive",
                    f"label {entry.positive!r} is not a class of {entry.label!r} "
                    f"(classes: {', '.join(sorted(labels)[:20])})",
                )
        if synthetic:
            if p.folds is not None or any(isinstance(n, float) for n in p.n_train):
                raise ConfigError(
                    src,
                    entry.protocol_key("folds" if p.folds is not None else "n_train"),
                    f"synthetic dataset {entry.label!r} draws fresh samples: give n_train as a count",
                )
            if p.test is not None:
                raise ConfigError(
                    src,
                    entry.protocol_key("test"),
                    f"synthetic dataset {entry.label!r} draws a fresh test set: give n_test, "
                    f"not test: {p.test}",
                )
        elif p.folds is not None:
            if n_samples is not None and p.folds > n_samples:
                raise ConfigError(
                    src,
                    entry.protocol_key("folds"),
                    f"{p.folds} folds exceed the {n_samples} samples of {entry.label!r}",
                )
        else:
            sizes = [train_size(n, n_samples) if n_samples is not None else n for n in p.n_train]
            if any(isinstance(n, float) for n in p.n_train) and n_samples is not None and min(sizes) < 2:
                raise ConfigError(
                    src,
                    entry.protocol_key("n_train"),
                    f"the fraction leaves fewer than 2 of the {n_samples} samples of {entry.label!r} "
                    "for training",
                )
            if p.test == "official":
                if card is None or not card.has_official_test:
                    raise ConfigError(
                        src,
                        entry.protocol_key("test"),
                        f"dataset {entry.label!r} has no official test split; use n_test or test: rest",
                    )
                need = max(sizes)
            elif p.test == "rest":
                need = max(sizes) + 1
            else:
                need = max(sizes) + p.n_test
            if n_samples is not None and need > n_samples:
                # Blame n_train if it alone leaves no room for a test set, else the test size.
                alone = max(sizes) + (0 if p.test == "official" else 1)
                blamed = "n_train" if alone > n_samples or p.test is not None else "n_test"
                test = "" if p.test == "official" else f" + test ({'1+' if p.test == 'rest' else p.n_test})"
                raise ConfigError(
                    src,
                    entry.protocol_key(blamed),
                    f"n_train ({max(sizes)}){test} exceeds the {n_samples} samples of {entry.label!r}",
                )
        if p.classifier == "knn":
            smallest = _smallest_train(p, n_samples)
            if smallest is not None and p.k > smallest:
                raise ConfigError(
                    src,
                    entry.protocol_key("k"),
                    f"knn with k = {p.k} needs at least k training samples; the smallest training set of "
                    f"{entry.label!r} has {smallest}",
                )
        # Rankers select among the D input features; transformers (kernel-space methods) may output
        # more dimensions than D, and S values beyond their output are skipped (protocol.transform_grid).
        if p.n_features != "all" and max(p.n_features) > D and rankers:
            raise ConfigError(
                src,
                entry.protocol_key("n_features"),
                f"S = {max(p.n_features)} exceeds the {D} features of {entry.label!r}",
            )


def _selector_keys(exp: Experiment) -> dict[str, str]:
    """Selector label -> key path of its entry in the config file (``selectors[3]``), counting the
    entries that ``--exclude-selector`` left out, so that messages point at the right line."""
    keys = {}
    for i, entry in enumerate(exp.effective.get("selectors") or []):
        label = entry.get("label", entry.get("name")) if isinstance(entry, dict) else entry
        keys[str(label)] = f"selectors[{i}]"
    return keys


def plugin_sources(exp: Experiment) -> dict[str, dict[str, str | None]]:
    """``{selector name: {"path", "sha256"}}`` of every user class the experiment runs (``run.json``)."""
    activate_plugins(exp.plugins)
    out = {}
    for sel in exp.selectors:
        try:
            cls = resolve(sel.name)
        except UnknownSelectorError:
            continue  # validate() reports it
        if is_user_class(cls):
            out[sel.name] = source_of(cls)
    return out


def _smallest_train(p, n_samples: int | None) -> int | None:
    """The smallest training-set size a protocol draws (None when it cannot be known in advance)."""
    if p.folds is not None:
        return None if n_samples is None else n_samples - -(-n_samples // p.folds)
    sizes = [n for n in p.n_train if isinstance(n, int) or n_samples is not None]
    if not sizes:
        return None
    return min(train_size(n, n_samples) if isinstance(n, float) else int(n) for n in sizes)


# --------------------------------------------------------------------------- storage
def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` via a temp file, fsync and rename (readers never see a partial file)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(tmp, mode) as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):  # directory fsync makes the rename durable (not on every OS)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class TaskStore:
    """One JSON file per finished task, each self-checksummed."""

    def __init__(self, root: Path):
        self.dir = Path(root) / "tasks"
        self.dir.mkdir(parents=True, exist_ok=True)

    def clean_partials(self) -> int:
        """Remove temp files left by a killed run (task files and tables); never read as results."""
        n = 0
        for tmp in [*self.dir.glob(".*.tmp"), *self.dir.parent.glob(".*.tmp")]:
            tmp.unlink(missing_ok=True)
            n += 1
        return n

    def path(self, task_id: str) -> Path:
        """The task file of ``task_id``."""
        return self.dir / f"{task_id}.json"

    def put(self, result: TaskResult) -> None:
        """Write a task's result atomically: rows, ranking, and — not in the tables — the code hash of
        a user selector and, for a failed task, its full traceback."""
        payload = {
            "task_id": result.task_id,
            "status": result.status,
            "rows": result.rows,
            "ranking": result.ranking,
            "code_hash": getattr(result, "code_hash", None),
        }
        tb = getattr(result, "traceback", None)
        if tb is None and result.status != "ok" and result.rows:
            tb = result.rows[0].get("traceback")  # a diagnostic's failed row carries its own
        if tb:
            payload["traceback"] = tb
        body = _canonical(payload)
        doc = {"sha256": hashlib.sha256(body.encode()).hexdigest(), "payload": payload}
        atomic_write(self.dir / f"{result.task_id}.json", _canonical(doc))

    def get(self, task_id: str) -> dict | None:
        path = self.dir / f"{task_id}.json"
        try:
            doc = json.loads(path.read_text())
            payload = doc["payload"]
            if hashlib.sha256(_canonical(payload).encode()).hexdigest() != doc["sha256"]:
                raise ValueError("checksum mismatch")
            if payload["task_id"] != task_id:
                raise ValueError("task id mismatch")
            return payload
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, OSError):
            # Corrupt or truncated: discard; the task will run again.
            path.unlink(missing_ok=True)
            return None

    def restore_from_tables(self, task_ids: Iterable[str], rankings: bool = True) -> int:
        """Rebuild missing task files from ``results.csv`` / ``rankings.csv`` next to ``tasks/``.

        The tables are committed and the task files are not, so a fresh clone has rows but no
        task files; without this, a finished experiment would be recomputed from scratch. A task is
        restored only when both tables hold it (its result rows and its ranking row); values are
        kept as the CSV text, so rewriting the tables reproduces them byte for byte. The caller has
        checked that ``run.json`` holds the same effective config. Returns the number restored.
        """
        root = self.dir.parent
        res_path, rank_path = root / "results.csv", root / "rankings.csv"
        if not res_path.exists() or (rankings and not rank_path.exists()):
            return 0
        wanted = {t for t in task_ids if not (self.dir / f"{t}.json").exists()}
        if not wanted:
            return 0
        rows: dict[str, list[dict]] = {}
        with res_path.open(newline="") as fh:
            for r in csv.DictReader(fh):
                if r.get("task_id") in wanted:
                    if r.get("n_features", "").isdigit():
                        r["n_features"] = int(r["n_features"])  # write_tables sorts on it
                    rows.setdefault(r["task_id"], []).append(r)
        ranks: dict[str, dict] = {}
        if not rankings:  # a diagnostic: its rows are all there is
            ranks = {tid: {"task_id": tid} for tid in rows}
        else:
            with rank_path.open(newline="") as fh:
                for r in csv.DictReader(fh):
                    if r.get("task_id") in wanted:
                        ranks[r["task_id"]] = r
        n = 0
        for tid in sorted(set(rows) & set(ranks)):
            status = rows[tid][0].get("status", "")
            self.put(TaskResult(task_id=tid, status=status, rows=rows[tid], ranking=ranks[tid]))
            n += 1
        return n


def _csv_text(rows: Iterable[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _fmt(r.get(k, "")) for k in columns})
    return buf.getvalue()


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return repr(v)  # shortest round-trip form: byte-identical across runs for identical values
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def write_tables(out: Path, tasks: list[Task], store: TaskStore) -> tuple[int, int]:
    """Rewrite results.csv and rankings.csv (not for a diagnostic) from the task files; return
    (done, failed)."""
    rows, ranks = [], []
    done = failed = 0
    for t in tasks:
        payload = store.get(t.task_id)
        if payload is None:
            continue
        done += 1
        failed += payload["status"] != "ok"
        rows.extend(sorted(payload["rows"], key=lambda r: r.get("n_features", 0)))
        ranks.append(payload["ranking"])
    diagnostic = tasks[0].diagnostic if tasks else None
    if diagnostic is not None:
        atomic_write(out / "results.csv", _csv_text(rows, get_diagnostic(diagnostic).all_columns()))
        return done, failed
    atomic_write(out / "results.csv", _csv_text(rows, RESULT_COLUMNS))
    atomic_write(out / "rankings.csv", _csv_text(ranks, RANKING_COLUMNS))
    return done, failed


# --------------------------------------------------------------------------- lock
class RunLock:
    """``run.lock`` holding owner host and pid; a stale lock of a dead local process is taken over."""

    def __init__(self, out: Path):
        self.path = Path(out) / "run.lock"
        self.held = False

    def acquire(self) -> None:
        me = {"host": socket.gethostname(), "pid": os.getpid(), "since": _now()}
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self._read()
                if owner is None:
                    self.path.unlink(missing_ok=True)  # empty/corrupt lock from a crash while writing it
                    continue
                if owner.get("host") != me["host"]:
                    raise RunError(
                        f"{self.path}: locked by pid {owner.get('pid')} on host {owner.get('host')} "
                        f"since {owner.get('since')}; if that run is dead, delete the lock file"
                    ) from None
                if _pid_alive(int(owner.get("pid", -1))):
                    raise RunError(
                        f"{self.path}: another fsbench run (pid {owner.get('pid')} on host "
                        f"{owner.get('host')}, since {owner.get('since')}) is writing to this output "
                        "directory"
                    ) from None
                self.path.unlink(missing_ok=True)  # stale: its owner is dead
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(me))
                fh.flush()
                os.fsync(fh.fileno())
            self.held = True
            return
        raise RunError(f"{self.path}: could not take the lock")

    def _read(self) -> dict | None:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (killed, not yet reaped) is dead for our purposes.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- environment checks
#: Seconds to wait for a dask scheduler (``--backend dask``) before giving up.
SCHEDULER_TIMEOUT = 5
_SCHEDULER_ADDRESS = re.compile(r"^(?:tcp|tls)://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})/?$")


def check_backend_options(backend: str, scheduler: str | None, workers: int | None) -> None:
    """Refuse backend options that are missing, malformed or do not apply (RunError, one line).

    Checked before anything is created: ``--backend dask`` needs ``--scheduler tcp://HOST:PORT``,
    ``--scheduler`` applies to ``--backend dask`` only and ``--workers`` to ``--backend dask-local``
    only (a silently ignored option would run something else than the user asked for).
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise RunError(f"--scheduler applies to --backend dask only, not --backend {backend}")
    if workers is not None and backend != "dask-local":
        raise RunError(
            f"--workers applies to --backend dask-local only, not --backend {backend}"
            + (" (use --jobs)" if backend in ("loky", "threading") else "")
        )
    if backend == "dask":
        if not scheduler:
            raise RunError("--backend dask needs --scheduler tcp://HOST:PORT (or use --backend dask-local)")
        m = _SCHEDULER_ADDRESS.match(scheduler)
        if m is None or not 1 <= int(m.group(1)) <= 65535:
            raise RunError(f"--scheduler {scheduler!r}: expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786")
    if backend in ("dask", "dask-local"):
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise RunError(f"--backend {backend} needs dask.distributed: pip install fsbench[dask]") from None


def check_output(out: Path) -> None:
    """Refuse an output directory that cannot be used, creating nothing (RunError, one line).

    ``out`` must be a directory, or not exist yet; the directory itself, or the nearest existing
    parent of a new one, must accept a new entry. That is tried, not inferred from permission bits
    (root ignores them; a read-only file system or an immutable directory does not): a temporary
    directory is made there and removed at once.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"output directory {out}: exists and is not a directory")
    probe = out
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise RunError(f"output directory {out}: {probe} is a file, not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".fsbench-write-test-", dir=probe))
    except OSError as exc:
        raise RunError(f"output directory {out}: cannot write in {probe} ({exc.strerror})") from None


# --------------------------------------------------------------------------- execution
#: Environment variables a local worker takes from this process at every task: a reused worker
#: process (loky keeps them between runs of one Python process) would otherwise keep those it
#: started with. None = unset.
WORKER_ENV = ("FSBENCH_DATA_DIR", "FSBENCH_CACHE_DIR", "FSBENCH_CARDS_DIR")


def _worker_env() -> dict[str, str | None]:
    env: dict[str, str | None] = {k: os.environ.get(k) for k in WORKER_ENV}
    env.update({k: v for k, v in os.environ.items() if k.startswith("FSBENCH_")})
    return env


def _run_one(task: Task, env: dict[str, str | None] | None = None, crash_log: str | None = None):
    """Worker entry point: one BLAS thread per task, on every backend; freed N×N temporaries reused.

    ``env`` is applied first (local workers); ``crash_log`` is a file the fault handler writes to if
    the process dies of a fatal signal while running the task (removed when the task returns), so
    the parent can store where it crashed and tell the culprit from the other tasks in flight.
    """
    import faulthandler

    from threadpoolctl import threadpool_limits

    from fsbench._malloc import tune_malloc

    tune_malloc()
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    activate_plugins(task.plugins)
    log = open(crash_log, "w") if crash_log else None  # noqa: SIM115 - closed in finally
    if log is not None:
        faulthandler.enable(file=log)
    try:
        with threadpool_limits(limits=1):
            if task.diagnostic is not None:
                result = get_diagnostic(task.diagnostic).execute(task)
            else:
                result = run_task(task)
    finally:
        if log is not None:
            faulthandler.enable()  # back to stderr, as loky set it up
            log.close()
            Path(crash_log).unlink(missing_ok=True)
    result.code_hash = task.code_hash
    return result


def _crash_log(crash_dir: Path, task: Task) -> Path:
    # ".*.tmp": a log left by a killed run is removed by TaskStore.clean_partials
    return crash_dir / f".{task.task_id}.crash.tmp"


def _read_crash_log(crash_dir: Path, task: Task) -> str:
    path = _crash_log(crash_dir, task)
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        text = ""
    path.unlink(missing_ok=True)
    return text


def _death_cause(exc: BaseException) -> str:
    """``SIGSEGV (exit code -11)`` from loky's TerminatedWorkerError (or what is known of it)."""
    m = re.search(r"exit codes of the workers are \{([^}]*)\}", str(exc))
    codes = re.findall(r"(\w+)\((-?\d+)\)", m.group(1)) if m else []
    if not codes:
        return "the worker process ended abruptly"
    name, code = codes[0]
    if name.startswith("SIG"):
        cause = f"{name} (exit code {code})"
        if name == "SIGKILL":
            cause += ", killed (out of memory?)"
        return cause
    return f"exit code {code}"


def _crashed(task: Task, exc: BaseException, log: str) -> TaskResult:
    cause = _death_cause(exc)
    tb = log or f"worker died: {cause}; no fault-handler output (a SIGKILL, or an exit without a signal)"
    return failed_result(task, f"worker died: {cause}", tb)


def _raised(task: Task, exc: BaseException) -> TaskResult:
    """A task whose worker call raised outside run_task (e.g. a result that could not be sent back)."""
    tb = "".join(traceback.format_exception(exc))
    return failed_result(task, f"running the task: {type(exc).__name__}: {exc}", tb)


def _until_crash(
    queue: deque[Task], jobs: int, env: dict, crash_dir: Path, code: str
) -> Generator[TaskResult, None, tuple[list[Task], BaseException] | None]:
    """Run the queued tasks in a pool of ``jobs`` processes, yielding results, until the queue is empty
    (return None) or a worker dies (return the tasks in flight then, and the error)."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    from joblib.externals.loky import get_reusable_executor

    # One task per future, at most `jobs` in flight: a dead worker then points at a handful of tasks.
    executor = get_reusable_executor(
        max_workers=max(1, min(jobs, len(queue))), timeout=300, env={"FSBENCH_PLUGIN_CODE": code}
    )
    in_flight: dict[Any, Task] = {}
    while queue or in_flight:
        while queue and len(in_flight) < jobs:
            task = queue.popleft()
            try:
                fut = executor.submit(_run_one, task, env, str(_crash_log(crash_dir, task)))
            except (BrokenProcessPool, RuntimeError) as exc:  # the pool broke since the last result
                queue.appendleft(task)
                if not in_flight:
                    return [], exc
                break
            in_flight[fut] = task
        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        for fut in done:
            task = in_flight.pop(fut)
            try:
                result = fut.result()
            except BrokenProcessPool as exc:
                # The pool is gone: the other tasks in flight either finished or fail the same way.
                suspects = [task]
                wait(in_flight)
                for other, t in in_flight.items():
                    try:
                        yield other.result()
                    except BrokenProcessPool:
                        suspects.append(t)
                    except Exception as other_exc:
                        yield _raised(t, other_exc)
                return suspects, exc
            except Exception as exc:
                yield _raised(task, exc)
            else:
                yield result
    return None


def _local_results(todo: list[Task], jobs: int, crash_dir: Path) -> Iterator[TaskResult]:
    """Run ``todo`` in ``jobs`` worker processes (loky), yielding each task's result when it comes.

    With ``jobs`` = 1 too the tasks run in a worker process, not in this one: a selector that kills
    its process (segfault, out-of-memory kill, ``os._exit``) then costs its task, not the run. A dead
    worker breaks the whole pool and every task in flight is a suspect: the culprit is the one whose
    fault-handler log is not empty (a fatal signal Python could report), else each suspect is run
    again alone until the one that dies is found. The culprit gets a failed result ``worker died:
    SIGSEGV (exit code -11)`` with the fault handler's dump as traceback; the others run again in a
    new pool (each crash costs one pool start, about a second).
    """
    queue = deque(todo)
    env = _worker_env()
    # Workers outlive a run (loky reuses them within a Python session, e.g. a notebook) and keep the
    # user modules they imported: a new digest of the user classes' sources gives new workers.
    code = hashlib.sha256(_canonical(sorted({t.code_hash or "" for t in todo})).encode()).hexdigest()
    empty = 0
    while queue:
        crash = yield from _until_crash(queue, jobs, env, crash_dir, code)
        if crash is None:
            return
        suspects, exc = crash
        empty = empty + 1 if not suspects else 0
        if empty >= 3:
            raise RuntimeError(f"worker processes keep breaking before running a task: {exc}")
        logs = {t.task_id: _read_crash_log(crash_dir, t) for t in suspects}
        dumped = [t for t in suspects if logs[t.task_id]]
        if len(suspects) == 1 or len(dumped) == 1:
            culprit = suspects[0] if len(suspects) == 1 else dumped[0]
            yield _crashed(culprit, exc, logs[culprit.task_id])
            queue.extendleft(reversed([t for t in suspects if t is not culprit]))
            continue
        for t in suspects:  # no way to tell: each alone
            again = yield from _until_crash(deque([t]), 1, env, crash_dir, code)
            if again is not None:
                yield _crashed(t, again[1], _read_crash_log(crash_dir, t))


def _threading_results(todo: list[Task], jobs: int) -> Iterator[TaskResult]:
    """Threads of this process (joblib): no protection against a crash."""
    import joblib

    par = joblib.Parallel(n_jobs=jobs, backend="threading", return_as="generator_unordered", batch_size=1)
    yield from par(joblib.delayed(_run_one)(t) for t in todo)


def _dask_results(client, todo: list[Task]) -> Iterator[TaskResult]:
    """One dask future per task. A task whose workers died (distributed gives up after
    ``distributed.scheduler.allowed-failures`` deaths with ``KilledWorker``) or that raised outside
    run_task is recorded as failed; a future the cluster lost stops the run.

    On a cluster with the scheduler's defaults (3 allowed failures, up to 2 tasks per worker thread),
    a task queued behind the culprit on the same worker may be blamed too; ``--retry-failed`` runs
    it again. ``--backend dask-local`` configures its scheduler so that it is not (:func:`_dask_local`).
    """
    from distributed import KilledWorker, as_completed

    futures = client.map(_run_one, todo, pure=False)
    by_key = {f.key: t for f, t in zip(futures, todo)}
    for fut in as_completed(futures):
        task = by_key.pop(fut.key)
        if fut.status == "error":
            exc = fut.exception()
            if isinstance(exc, KilledWorker):
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                yield failed_result(task, "worker died: dask KilledWorker", f"KilledWorker: {first}")
            else:
                yield _raised(task, exc)
            continue
        yield fut.result()  # raises if the cluster lost the task: the run stops (RunError)


def _connect_scheduler(address: str):
    """A dask Client of the scheduler at ``address``, or RunError within :data:`SCHEDULER_TIMEOUT`."""
    from dask.distributed import Client

    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(
            f"--scheduler {address}: cannot reach the dask scheduler within {SCHEDULER_TIMEOUT} s ({first})"
        ) from None


@contextlib.contextmanager
def _dask_local(workers: int | None) -> Iterator[Any]:
    """A LocalCluster of single-threaded worker processes and its client (closed afterwards).

    Its scheduler sends each worker one task at a time (``worker-saturation`` 1.0) and gives up on a
    task at the first death of its worker (``allowed-failures`` 0): the dead worker's task is then the
    culprit for sure, and it is recorded at once instead of killing three more workers (as with the
    defaults, under which a task queued behind it on the same worker is blamed too).
    """
    import logging

    import dask
    from dask.distributed import Client, LocalCluster

    settings = {"distributed.scheduler.worker-saturation": 1.0, "distributed.scheduler.allowed-failures": 0}
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=workers or 2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,  # a worker killed by a task is reported per task, not as log noise
        )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@dataclass
class RunSummary:
    out: Path
    n_tasks: int
    n_skipped: int
    n_run: int
    n_failed: int
    seconds: float
    #: the first failed task in canonical order: (its task file, its one-line message)
    first_failure: tuple[Path, str] | None = None
    #: labels of the selectors left out by --exclude-selector
    excluded: tuple[str, ...] = ()


def prepare_output(exp: Experiment, out: Path, *, fresh: bool, commit: str) -> tuple[dict, dict | None]:
    """Check ``run.json`` of an existing output directory; return (the run.json to write, the old one)."""
    out.mkdir(parents=True, exist_ok=True)
    run_json = out / "run.json"
    previous = None
    if run_json.exists():
        try:
            previous = json.loads(run_json.read_text())
        except ValueError:
            previous = None
    if fresh:
        for f in (out / "tasks").glob("*.json") if (out / "tasks").exists() else []:
            f.unlink()
        for name in ("results.csv", "rankings.csv"):
            (out / name).unlink(missing_ok=True)
        previous = None
    elif previous is None and any((out / "tasks").glob("*.json")):
        raise RunError(
            f"{out}: holds task results but no readable run.json, so their config cannot be checked; "
            "use --out NEWDIR, or --fresh to discard them"
        )
    elif previous is not None:
        if not exp.accepts_hash(previous.get("config_hash")):
            raise RunError(
                f"{out}: holds results of a different effective config (hash "
                f"{str(previous.get('config_hash'))[:12]} vs {exp.config_hash[:12]}); rerun with the same "
                "config and overrides, use --out NEWDIR, or --fresh to discard them"
            )
    info = {
        "schema_version": SCHEMA_VERSION,
        "experiment": exp.name,
        "config_file": exp.source,
        "config_hash": exp.config_hash,
        "effective_config": exp.effective,
        "git_commit": commit,
        "versions": package_versions(),
        "host": socket.gethostname(),
        "started": _now(),
        "finished": None,
    }
    if previous is not None:
        info["first_started"] = previous.get("first_started", previous.get("started"))
        info["commits"] = sorted(
            set(previous.get("commits", [previous.get("git_commit", commit)])) | {commit}
        )
    else:
        info["first_started"] = info["started"]
        info["commits"] = [commit]
    return info, previous


def check_commit(
    out: Path, previous: dict | None, commit: str, n_done: int, n_todo: int, allow: bool
) -> None:
    """Refuse to add rows computed by another commit to rows already there (unless ``allow``).

    Nothing is mixed when no task is left to compute (a finished run is only re-tabulated, e.g. by
    ``make reproduce-all`` after later commits) or when no finished task is on disk (task files that
    are absent from a fresh clone are first restored from the committed tables,
    :meth:`TaskStore.restore_from_tables`).
    """
    if previous is None or allow or n_done == 0 or n_todo == 0:
        return
    prev_commit = previous.get("git_commit", "unknown")
    if prev_commit != commit:
        raise RunError(
            f"{out}: was started by fsbench commit {prev_commit[:12]}, this is {commit[:12]}; "
            "finish it with that commit, pass --allow-mixed-code (each row records its commit), "
            "or --fresh"
        )


def check_plugin_code(
    out: Path,
    previous: dict | None,
    sources: dict[str, dict[str, str | None]],
    done: Iterable[tuple[Task, dict]],
    todo: Iterable[Task],
    allow: bool,
) -> None:
    """Refuse to add tasks of a user selector whose source file changed to its tasks computed from the
    old file (unless ``allow``), as :func:`check_commit` does for fsbench's own code.

    A finished task's source hash is its file's ``code_hash`` or, for a task restored from the tables,
    the one ``run.json`` recorded. A selector with nothing left to compute mixes nothing.
    """
    if allow:
        return
    recorded = (previous or {}).get("plugin_sources") or {}
    pending = {t.selector.name for t in todo}
    for name, src in sources.items():
        if name not in pending or not src.get("sha256"):
            continue
        old = (recorded.get(name) or {}).get("sha256")
        hashes = {p.get("code_hash") or old for t, p in done if t.selector.name == name}
        stale = sorted(h for h in hashes if h and h != src["sha256"])
        if stale:
            raise RunError(
                f"{out}: finished tasks of selector {name} were computed from another version of "
                f"{src['path']} (sha256 {stale[0][:12]}, now {src['sha256'][:12]}); restore that file, "
                "pass --allow-mixed-code (each task file records its code_hash), or --fresh"
            )


def _first_failure(tasks: list[Task], store: TaskStore) -> tuple[Path, str] | None:
    for t in tasks:
        payload = store.get(t.task_id)
        if payload is not None and payload["status"] != "ok":
            rows = payload.get("rows") or [{}]
            return store.path(t.task_id), str(rows[0].get("message", ""))
    return None


def run_experiment(
    exp: Experiment,
    out: Path,
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    workers: int | None = None,
    fresh: bool = False,
    allow_mixed_code: bool = False,
    retry_failed: bool = False,
    progress: Callable[[int, int], None] | None = None,
    flush_seconds: float = 30.0,
) -> RunSummary:
    """Run (or resume) every task of ``exp`` into ``out``.

    Everything that can be refused is refused before ``out`` is touched: backend options, the config
    (:func:`validate`), the output directory (:func:`check_output`) and, for ``--backend dask``, the
    scheduler's reachability. A task that fails — by an exception, or by killing its worker process —
    is recorded as failed and the others go on.
    """
    check_backend_options(backend, scheduler, workers)
    if exp.jobs is not None:  # e.g. CPU-time tables: the config says how many tasks may run at once
        jobs = min(jobs, exp.jobs)
    validate(exp)
    out = Path(out)
    check_output(out)
    with contextlib.ExitStack() as stack:  # the dask client / local cluster, closed at the end
        # connected before the output directory is created: an unreachable scheduler leaves nothing
        client = stack.enter_context(_connect_scheduler(scheduler)) if backend == "dask" else None
        commit, dirty = git_commit()
        sources = plugin_sources(exp)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"output directory {out}: cannot create it ({exc.strerror})") from None
        lock = RunLock(out)
        lock.acquire()
        t0 = time.perf_counter()
        try:
            info, previous = prepare_output(exp, out, fresh=fresh, commit=commit)
            info["git_dirty"] = dirty
            info.update(backend=backend, jobs=jobs)
            if backend == "dask-local":
                info["workers"] = workers or 2
            elif backend == "dask":
                info["scheduler"] = scheduler
            info["excluded_selectors"] = list(exp.excluded)
            info["plugin_sources"] = sources
            store = TaskStore(out)
            store.clean_partials()
            tasks = expand(exp, commit, {name: src["sha256"] for name, src in sources.items()})
            if previous is not None:  # same effective config (checked): rows of a fresh clone count
                store.restore_from_tables((t.task_id for t in tasks), rankings=exp.diagnostic is None)
            todo, done = [], []
            for t in tasks:
                payload = store.get(t.task_id)
                if payload is None or (retry_failed and payload["status"] != "ok"):
                    todo.append(t)
                else:
                    done.append((t, payload))
            skipped = len(tasks) - len(todo)
            check_commit(out, previous, commit, skipped, len(todo), allow_mixed_code)
            check_plugin_code(out, previous, sources, done, todo, allow_mixed_code)

            def summary(n_run: int, n_failed: int) -> RunSummary:
                return RunSummary(
                    out=out,
                    n_tasks=len(tasks),
                    n_skipped=skipped,
                    n_run=n_run,
                    n_failed=n_failed,
                    seconds=time.perf_counter() - t0,
                    first_failure=_first_failure(tasks, store) if n_failed else None,
                    excluded=exp.excluded,
                )

            if not todo and previous is not None:
                # nothing to compute: re-tabulate, and keep run.json's record of who computed the rows
                n_done, n_failed = write_tables(out, tasks, store)
                if progress:
                    progress(skipped, len(tasks))
                previous.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
                previous["excluded_selectors"] = list(exp.excluded)
                previous["config_hash"] = exp.config_hash  # an excluded run of an older fsbench: hash updated
                previous["finished"] = previous.get("finished") or _now()
                atomic_write(out / "run.json", json.dumps(previous, indent=2, default=str))
                return summary(0, n_failed)
            if skipped == 0:
                info["commits"] = [commit]  # no earlier row survives
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            if progress:
                progress(skipped, len(tasks))
            if todo:
                if backend == "loky":
                    results = _local_results(todo, jobs, store.dir)
                elif backend == "threading":
                    results = _threading_results(todo, jobs)
                else:
                    if client is None:  # dask-local: started only when there is work
                        client = stack.enter_context(_dask_local(workers))
                    results = _dask_results(client, todo)
                last_flush = time.monotonic()
                done_count = skipped
                try:
                    for result in results:
                        store.put(result)
                        done_count += 1
                        if progress:
                            progress(done_count, len(tasks))
                        if time.monotonic() - last_flush > flush_seconds:
                            write_tables(out, tasks, store)
                            last_flush = time.monotonic()
                except Exception as exc:
                    # The cluster went away, or worker processes cannot be started: a task's own error or
                    # a dead worker is recorded as that task's failure and never reaches this point.
                    write_tables(out, tasks, store)
                    first = str(exc).splitlines()[0] if str(exc) else ""
                    raise RunError(
                        f"{out}: execution stopped after {done_count - skipped} task(s): "
                        f"{type(exc).__name__}: {first}; finished tasks are saved, run the same command "
                        "to resume"
                    ) from None
            n_done, n_failed = write_tables(out, tasks, store)
            info["finished"] = _now()
            info.update(n_tasks=len(tasks), n_done=n_done, n_failed=n_failed)
            atomic_write(out / "run.json", json.dumps(info, indent=2, default=str))
            return summary(len(todo), n_failed)
        finally:
            lock.release()


def unfinished_runs(root: Path) -> list[tuple[Path, int, int]]:
    """Run directories at or under ``root`` whose ``run.json`` says the run has not finished all its tasks:
    (directory, tasks done, tasks in all). A report built from them would replace complete committed tables
    and reports by partial ones, so ``fsbench report`` refuses them unless told otherwise."""
    out = []
    root = Path(root)
    for rj in sorted([root / "run.json"] if (root / "run.json").exists() else root.rglob("run.json")):
        try:
            info = json.loads(rj.read_text())
        except (OSError, ValueError):
            out.append((rj.parent, 0, -1))
            continue
        if "config_hash" not in info:  # not an fsbench run (e.g. an old script's provenance file)
            continue
        done, total = info.get("n_done"), info.get("n_tasks")
        if info.get("finished") is None or done is None or total is None or done < total:
            out.append((rj.parent, int(done or 0), int(total if total is not None else -1)))
    return out


def dry_run(exp: Experiment, out: Path | None, *, jobs: int = 1, sample: int = 1) -> dict[str, Any]:
    """Validate, count tasks (and those already done in ``out``), time a few tasks, estimate the cost.

    For each (dataset, kernel, selector) the task with the largest n_train is timed ``sample`` time(s)
    serially (one BLAS thread); the estimate scales each timing linearly to that group's task count
    (an over-estimate for sweeps over n_train, since smaller training sets are cheaper).
    """
    validate(exp)
    tasks = expand(exp)
    done = 0
    if out is not None and (Path(out) / "tasks").exists():
        store = TaskStore(Path(out))
        done = sum(store.get(t.task_id) is not None for t in tasks)
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault((t.dataset, t.kernel.name, t.selector.label), []).append(t)
    est_total = 0.0
    per_group = []
    for key, ts in groups.items():
        big = max(ts, key=lambda t: (t.n_train, -t.repeat))
        secs = []
        for _ in range(sample):
            t0 = time.perf_counter()
            res = _run_one(big)
            secs.append(time.perf_counter() - t0)
        sec = sorted(secs)[len(secs) // 2]
        est_total += sec * len(ts)
        per_group.append(
            {
                "dataset": key[0],
                "kernel": key[1],
                "selector": key[2],
                "tasks": len(ts),
                "seconds_per_task": sec,
                "status": res.status,
            }
        )
    return {
        "n_tasks": len(tasks),
        "n_done": done,
        "groups": per_group,
        "estimated_cpu_seconds": est_total,
        "estimated_wall_seconds": est_total * (len(tasks) - done) / max(len(tasks), 1) / max(jobs, 1),
    }
