"""Shared plumbing of the experiment scripts: script configs, the protocol's splits, provenance, output.

A *script config* is an ``fsbench run`` config (``name``, ``paper``, ``description``, ``notes``, ``seed``,
``dataset``, ``kernel``, ``protocol``) with two more keys:

``script``
    the module that runs it (``fsbench.experiments.takes_table2``), for the reader;
``settings``
    a mapping of the script's own parameters (documented by each script).

The run part is validated by :func:`fsbench.config.parse_experiment` (with ``selectors: [all]``), so a
wrong dataset name, size or protocol key is refused exactly as by ``fsbench run``. The splits drawn by
:func:`iter_splits` are those of ``fsbench run`` for the same seed, dataset label, ``n_train`` and repeat
(:class:`fsbench.protocol.Task` seeds, :func:`fsbench.protocol.draw_split`,
:func:`fsbench.protocol.standardize`).
"""

from __future__ import annotations

import copy
import json
import platform
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from fsbench.config import ConfigError, DatasetEntry, Experiment, parse_experiment
from fsbench.data import open_dataset
from fsbench.protocol import derive_seed, draw_split, standardize
from fsbench.runner import git_commit, package_versions

SCRIPT_KEYS = ("script", "settings")


@dataclass
class ScriptConfig:
    """A parsed script config.

    Attributes
    ----------
    experiment : the run part, as parsed by :func:`fsbench.config.parse_experiment`.
    settings : the script's own parameters.
    script : the ``script`` key (module name) or None.
    source : the file it was read from.
    effective : the whole effective config (after overrides), as written to ``run.json``.
    """

    experiment: Experiment
    settings: dict[str, Any]
    script: str | None
    source: str
    effective: dict[str, Any]

    @property
    def name(self) -> str:
        return self.experiment.name


def load_script_config(path: str | Path, repeats: int | None = None, seed: int | None = None) -> ScriptConfig:
    """Read and validate a script config; ``repeats``/``seed`` override the file (as ``fsbench run``).

    Parameters
    ----------
    path : the YAML file.
    repeats, seed : optional overrides.

    Returns
    -------
    ScriptConfig

    Raises
    ------
    fsbench.config.ConfigError
        On unreadable YAML or an invalid run part.
    """
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(path, "", f"cannot read the config: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(path, "", "expected a mapping of config keys")
    raw = copy.deepcopy(raw)
    settings = raw.pop("settings", None) or {}
    if not isinstance(settings, dict):
        raise ConfigError(path, "settings", "expected a mapping")
    script = raw.pop("script", None)
    if repeats is not None:
        raw.setdefault("protocol", {})["repeats"] = int(repeats)
        for entry in raw.get("dataset", []) if isinstance(raw.get("dataset"), list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("protocol"), dict):
                entry["protocol"].pop("repeats", None)
    if seed is not None:
        raw["seed"] = int(seed)
    run_part = dict(raw)
    run_part["selectors"] = ["all"]
    exp = parse_experiment(run_part, path)
    effective = dict(exp.effective)
    effective.pop("selectors", None)
    effective["script"] = script
    effective["settings"] = settings
    return ScriptConfig(exp, settings, script, str(path), effective)


@dataclass
class Split:
    """One (dataset entry, repeat) split, z-scored with the training statistics if the protocol says so."""

    entry: DatasetEntry
    repeat: int
    split_seed: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray

    @property
    def dataset(self) -> str:
        return self.entry.label


def split_seed(seed: int, dataset: str, n_train: int, repeat: int) -> int:
    """The split seed of ``fsbench run`` (:attr:`fsbench.protocol.Task.split_seed`)."""
    return derive_seed(seed, "split", dataset, n_train, repeat)


def draw(entry: DatasetEntry, seed: int, n_train: int, repeat: int) -> Split:
    """Draw one split exactly as :func:`fsbench.protocol.run_task` does (before its column permutation)."""
    ds = open_dataset(entry.spec)
    s = split_seed(seed, entry.label, n_train, repeat)
    rng = np.random.default_rng(s)
    X_tr, y_tr, X_te, y_te, _ = draw_split(ds, entry.protocol, n_train, rng)
    if entry.protocol.standardize:
        X_tr, X_te = standardize(X_tr, X_te)
    return Split(entry, repeat, s, X_tr, y_tr, X_te, y_te)


def iter_splits(cfg: ScriptConfig) -> Iterator[Split]:
    """Every (dataset entry, n_train, repeat) split of the config, in config order."""
    exp = cfg.experiment
    for entry in exp.datasets:
        for n_train in entry.protocol.n_train:
            for r in range(entry.protocol.repeats):
                yield draw(entry, exp.seed, n_train, r)


def split_keys(cfg: ScriptConfig) -> list[tuple[int, int, int]]:
    """(entry index, n_train, repeat) of every split, in :func:`iter_splits` order (for parallel maps)."""
    return [
        (i, n, r)
        for i, entry in enumerate(cfg.experiment.datasets)
        for n in entry.protocol.n_train
        for r in range(entry.protocol.repeats)
    ]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunRecord:
    """``run.json`` of a script run: config, hash, commit, versions, host, start/end, wall time."""

    def __init__(self, cfg: ScriptConfig, module: str, argv: dict[str, Any] | None = None):
        commit, dirty = git_commit()
        self.info: dict[str, Any] = {
            "experiment": cfg.name,
            "script": module,
            "config_file": cfg.source,
            "config_hash": _hash(cfg.effective),
            "effective_config": cfg.effective,
            "arguments": argv or {},
            "git_commit": commit,
            "git_dirty_fsbench": dirty,
            "versions": package_versions(),
            "host": socket.gethostname(),
            "platform": platform.platform(),
            "started": _now(),
            "finished": None,
        }
        self._t0 = time.perf_counter()

    def finish(self, out: Path, **extra: Any) -> Path:
        """Write ``out/run.json`` with the end time, wall time and ``extra`` fields."""
        self.info.update(extra)
        self.info["finished"] = _now()
        self.info["wall_s"] = round(time.perf_counter() - self._t0, 2)
        out.mkdir(parents=True, exist_ok=True)
        p = out / "run.json"
        p.write_text(json.dumps(self.info, indent=2, sort_keys=True, default=str) + "\n")
        return p


def _hash(obj: Any) -> str:
    import hashlib

    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def mean_std(values: pd.Series, fmt: str = "{:.3f}") -> str:
    """``mean ± std`` (sample std) of a series, or the mean alone for one value; "–" if empty."""
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return "–"
    if v.size == 1:
        return fmt.format(float(v.iloc[0]))
    return f"{fmt.format(float(v.mean()))} ± {fmt.format(float(v.std(ddof=1)))}"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def load_paper_values(path: str | Path) -> dict[str, Any]:
    """``configs/<paper>/paper_values.yaml`` as a mapping."""
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def paper_cells(pv: dict[str, Any], table_id: str) -> pd.DataFrame:
    """The ``cells`` of one table of a paper-values file as a DataFrame."""
    for t in pv.get("tables", []):
        if t.get("id") == table_id:
            return pd.DataFrame(t.get("cells", []))
    raise KeyError(f"no table {table_id!r} in the paper values")


# ------------------------------------------------------------------------------------ resumable tasks
def _one_thread(fn, args: tuple) -> Any:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # one BLAS thread per task, as in fsbench run
        return fn(*args)


def run_task_files(pending: list[tuple[Path, Any, tuple]], jobs: int = 1) -> int:
    """Run ``fn(*args)`` for every ``(path, fn, args)`` whose JSON file is missing; write it atomically.

    Tasks run in ``jobs`` joblib worker processes, one BLAS thread each, and every result is stored
    as soon as it arrives (unordered), so a killed run resumes where it stopped and a task's
    result never depends on the worker count (each task draws its seeds from names).

    Returns
    -------
    int : number of tasks run.
    """
    from joblib import Parallel, delayed

    todo = [(p, fn, a) for p, fn, a in pending if not Path(p).exists()]
    if not todo:
        return 0
    par = Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    for path, res in par(delayed(_tagged)(p, fn, a) for p, fn, a in todo):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(res, default=lambda o: o.item() if hasattr(o, "item") else str(o)))
        tmp.replace(path)
    return len(todo)


def _tagged(path: Path, fn, args: tuple) -> tuple[Path, Any]:
    return path, _one_thread(fn, args)
