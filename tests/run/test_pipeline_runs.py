"""End-to-end runs of the one pipeline on the Paul 2015 and Ring 2015 configs.

* a user selector (a module in a temporary directory, named ``mymod:MySelector`` in copies of
  ``configs/paul2015/clinical_bcr.yaml`` and ``configs/ring2015/uci.yaml``) runs beside the built-in
  selectors on the same splits and receives the card's categorical mask;
* a Paul-style run (clinical-kernel SVM, fraction ``n_train``, ``test: rest``) is byte-identical (timing
  columns aside) with ``--jobs 1``, ``--jobs 2`` and dask-local, and after SIGKILLs and resumes;
* ``jobs:`` in a config caps the parallelism and stays out of the config hash;
* ``fsbench report --paper ring2015 / paul2015`` on those runs.

The runs need the dataset mirror (hepatitis, liver_bupa): they skip without it.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from math import comb
from pathlib import Path

import numpy as np
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
)
from test_reliability import _kill_group, _n_task_files

import fsbench.run.engine
from fsbench.config.experiment import load_experiment
from fsbench.data import get_card, open_dataset
from fsbench.evaluation.resampling import train_size

PAUL = REPO / "configs" / "paul2015" / "clinical_bcr.yaml"
RING_UCI = REPO / "configs" / "ring2015" / "uci.yaml"
RING_FIG1 = REPO / "configs" / "ring2015" / "fig1_toy.yaml"

#: A user's selector module, written to a temporary directory (not part of fsbench, not in tests/).
USER_MODULE = '''
import os

import numpy as np
from sklearn.base import BaseEstimator


class MySelector(BaseEstimator):
    """Ranks the features by training variance; reports the categorical mask it was given."""

    def __init__(self, categorical=None):
        self.categorical = categorical

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        mask = np.zeros(X.shape[1], bool) if self.categorical is None else np.asarray(self.categorical, bool)
        self.categorical_seen_ = mask
        self.scores_ = mask.astype(float)  # -> rankings.csv `scores`, in the original column order
        self.n_iter_ = int(mask.sum())  # -> results.csv `n_iter`
        order = np.argsort(-np.nan_to_num(np.nanvar(X, axis=0)), kind="stable")
        self.ranking_ = np.empty(X.shape[1], dtype=int)
        self.ranking_[order] = np.arange(1, X.shape[1] + 1)
        return self


class PidProbe(BaseEstimator):
    """Records the pid of the process that fits it as n_iter_."""

    def fit(self, X, y):
        self.n_iter_ = os.getpid()
        self.ranking_ = np.arange(1, X.shape[1] + 1)
        return self
'''

MINE = {"name": "mymod:MySelector", "label": "mine"}


def _need(*cards: str) -> None:
    missing = [c for c in cards if not get_card(c).available()]
    if missing:
        pytest.skip(f"dataset(s) {missing} not found (set FSBENCH_DATA_DIR to the mirror)")


def _write(path: Path, cfg: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _copy(config: Path, datasets: list[str], entry: dict | None = None, **changes) -> dict:
    """The committed config with its dataset list cut to ``datasets`` (their protocol updated by ``entry``),
    ``changes`` to its protocol and the user selector appended."""
    cfg = yaml.safe_load(config.read_text())
    cfg["dataset"] = [e for e in cfg["dataset"] if e["name"] in datasets]
    assert [e["name"] for e in cfg["dataset"]] == datasets, f"{config} lost {datasets}"
    for e in cfg["dataset"]:
        e["protocol"] = {**e.get("protocol", {}), **(entry or {})}
    cfg["selectors"] = [*cfg["selectors"], MINE]
    cfg["protocol"] = {**cfg["protocol"], **changes}
    return cfg


def _hepatitis_protocol() -> tuple[list[int], int, int]:
    """The committed Paul config's k grid for hepatitis and its training / test sizes (155 rows)."""
    entry = next(e for e in load_experiment(PAUL).datasets if e.label == "hepatitis")
    n_train = train_size(entry.protocol.n_train[0], 155)
    return list(entry.protocol.n_features), n_train, 155 - n_train


def _rankings(out: Path) -> list[list[str]]:
    with open(out / "rankings.csv", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def pinned():
    mp = pytest.MonkeyPatch()
    mp.setattr(fsbench.run.engine, "git_commit", lambda: (PINNED_COMMIT, False))
    yield PINNED_COMMIT
    mp.undo()


@pytest.fixture(scope="module")
def user_module(tmp_path_factory):
    """``mymod`` in a temporary directory, importable here and in subprocesses (PYTHONPATH)."""
    d = tmp_path_factory.mktemp("user")
    (d / "mymod.py").write_text(USER_MODULE)
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(d))
    mp.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(d), os.environ.get("PYTHONPATH", "")) if p))
    yield d
    mp.undo()
    sys.modules.pop("mymod", None)


@pytest.fixture(scope="module")
def user_runs(tmp_path_factory, user_module, pinned) -> dict[str, Path]:
    """Copies of the Paul and Ring UCI configs with the user selector, 2 repeats each, run with one job
    (in-process) into ``paul/clinical_bcr`` and ``ring/uci`` — the layout the paper reports read."""
    _need("hepatitis", "liver_bupa")
    tmp = tmp_path_factory.mktemp("runs")
    runs = {
        "paul": (_copy(PAUL, ["hepatitis"], repeats=2), tmp / "paul" / "clinical_bcr"),
        # d = 2, 3 only: the exhaustive wrapper (10-fold CV per subset) dominates the cost
        "ring": (_copy(RING_UCI, ["liver_bupa"], {"n_features": [2, 3]}, repeats=2), tmp / "ring" / "uci"),
    }
    for key, (cfg, out) in runs.items():
        res = cli("run", _write(tmp / f"{key}.yaml", cfg), "--out", out, "--no-progress")
        assert res.exit_code == 0, res.stderr + res.stdout
    return {key: out for key, (_, out) in runs.items()}


# ============================================================================ (b) a user selector
def _blocks(rows: list[dict[str, str]]) -> dict[tuple[str, str], list[dict[str, str]]]:
    out: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in rows:
        out.setdefault((r["dataset"], r["repeat"]), []).append(r)
    return out


def _check_paired(rows: list[dict[str, str]], config: Path) -> None:
    """Every (dataset, repeat) holds every selector, in config order with mine last, on one split."""
    labels = [
        s["label"] if isinstance(s, dict) else s for s in yaml.safe_load(config.read_text())["selectors"]
    ]
    blocks = _blocks(rows)
    assert len(blocks) == 2  # one dataset x 2 repeats
    for block in blocks.values():
        assert list(dict.fromkeys(r["selector"] for r in block)) == [*labels, "mine"]
        assert len({r["split_seed"] for r in block}) == 1
        assert len({(r["n_train"], r["n_test"]) for r in block}) == 1
    assert len({b[0]["split_seed"] for b in blocks.values()}) == 2
    assert {r["status"] for r in rows} == {"ok"}


def test_user_selector_beside_paul2015_selectors_gets_the_categorical_mask(user_runs):
    out = user_runs["paul"]
    rows = result_dicts(out)
    _check_paired(rows, PAUL)
    ks, n_train, n_test = _hepatitis_protocol()  # 0.9 x 155 = 139.5 -> 140 training rows
    assert {(r["n_train"], r["n_test"]) for r in rows} == {(str(n_train), str(n_test))}
    assert {r["classifier"] for r in rows} == {"clinical_svm"}
    mask = np.asarray(open_dataset("hepatitis").categorical, dtype=bool)
    assert mask.sum() == 13
    mine = [r for r in rows if r["selector"] == "mine"]
    assert {r["selector_name"] for r in mine} == {"mymod:MySelector"}
    assert [int(r["n_features"]) for r in mine] == ks * 2  # the entry's k grid
    assert {json.loads(r["params"])["categorical"] for r in mine} == {"<from dataset>"}
    assert {int(r["n_iter"]) for r in mine} == {13}
    ranks = [r for r in csv.DictReader(open(out / "rankings.csv", newline="")) if r["selector"] == "mine"]
    assert len(ranks) == 2
    for r in ranks:  # the mask the selector saw, mapped back through the column permutation
        assert np.array_equal(np.array(r["scores"].split(), dtype=float).astype(bool), mask)
        assert sorted(map(int, r["order"].split())) == list(range(19))


def test_user_selector_beside_ring2015_subset_searches(user_runs):
    rows = result_dicts(user_runs["ring"])
    _check_paired(rows, RING_UCI)
    assert {(r["n_train"], r["n_test"]) for r in rows} == {("242", "103")}  # 0.7 x 345 = 241.5, half up
    S = [2, 3]
    mine = [r for r in rows if r["selector"] == "mine"]
    assert [int(r["n_features"]) for r in mine] == S * 2
    assert {int(r["n_iter"]) for r in mine} == {0} and {r["subset"] for r in mine} == {""}
    wrapper = [r for r in rows if r["selector"] == "wrapper"]
    assert [int(r["n_evaluations"]) for r in wrapper] == [comb(6, s) for s in S] * 2
    assert all(len(r["subset"].split()) == int(r["n_features"]) for r in wrapper)
    assert [int(r["n_features"]) for r in rows if r["selector"] == "all"] == [6, 6]


# ============================================================================ (c) determinism, kill/resume
#: Paul-style: clinical-kernel SVM, a fraction n_train, the rest as test set, raw (mixed-type) data.
PAUL_STYLE = {
    "name": "paul_style",
    "seed": 11,
    "dataset": [{"name": "hepatitis", "protocol": {"n_features": [1, 3]}}],
    "kernel": "linear",
    "protocol": {
        "n_train": 0.7,
        "test": "rest",
        "repeats": 4,
        "standardize": False,
        "classifier": {"name": "clinical_svm", "C": 1, "class_weight": "balanced"},
    },
    "selectors": [
        {"name": "rfe_svm_clinical", "label": "RFE-SVM clinical"},
        {"name": "rfe_linear_onehot", "label": "RFE one-hot"},
        {"name": "random_forest", "label": "RF", "params": {"n_estimators": 25}},
        {"name": "all", "label": "all"},
    ],
}
N_PAUL_TASKS = 4 * 4


@pytest.fixture(scope="module")
def paul_ref(tmp_path_factory, pinned) -> Path:
    """The reference: ``--jobs 1`` (in-process, sequential)."""
    _need("hepatitis")
    tmp = tmp_path_factory.mktemp("paul_style")
    cfg = _write(tmp / "paul_style.yaml", PAUL_STYLE)
    res = cli("run", cfg, "--out", tmp / "jobs1", "--jobs", 1, "--no-progress")
    assert res.exit_code == 0, res.stderr
    return tmp / "jobs1"


def test_paul_style_reference_run(paul_ref):
    rows = result_dicts(paul_ref)
    assert len(rows) == 4 * (3 * 2 + 1) and {r["status"] for r in rows} == {"ok"}
    assert {(r["n_train"], r["n_test"], r["C"]) for r in rows} == {("109", "46", "1.0")}  # 108.5 -> 109
    errors = [float(r["balanced_error"]) for r in rows]
    assert 0 <= min(errors) and max(errors) <= 1 and len(set(errors)) > 1


def test_paul_style_jobs2_is_byte_identical_to_jobs1(paul_ref, pinned):
    out = paul_ref.parent / "jobs2"
    res = cli("run", paul_ref.parent / "paul_style.yaml", "--out", out, "--jobs", 2, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert result_rows(out) == result_rows(paul_ref)
    assert _rankings(out) == _rankings(paul_ref)


@pytest.mark.slow
def test_paul_style_dask_local_is_byte_identical_to_jobs1(paul_ref, pinned):
    pytest.importorskip("dask.distributed")
    out = paul_ref.parent / "dask"
    cfg = paul_ref.parent / "paul_style.yaml"
    res = cli("run", cfg, "--out", out, "--backend", "dask-local", "--workers", 2, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert result_rows(out) == result_rows(paul_ref)
    assert _rankings(out) == _rankings(paul_ref)


@pytest.mark.slow
def test_paul_style_sigkill_then_resume_equals_uninterrupted(paul_ref):
    out = paul_ref.parent / "killed"
    # one job: a single process to kill and restart (test_reliability kills --jobs 2 runs at 5 points)
    argv = fsbench_argv(
        "run", paul_ref.parent / "paul_style.yaml", "--out", out, "--no-progress", pinned=True
    )
    env = subprocess_env()
    proc = subprocess.Popen(
        argv, env=env, cwd=REPO, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:  # SIGKILL mid-run
        reached = wait_for(lambda: _n_task_files(out) >= N_PAUL_TASKS // 2, proc=proc)
        alive = proc.poll() is None
    finally:
        _kill_group(proc)
    assert reached and alive, f"run ended before the kill point: {proc.stderr.read().decode()}"
    n_done = _n_task_files(out)
    assert n_done < N_PAUL_TASKS and (out / "run.lock").exists()
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert f"({n_done} resumed, {N_PAUL_TASKS - n_done} run, 0 failed)" in done.stdout
    assert result_rows(out) == result_rows(paul_ref)
    assert _rankings(out) == _rankings(paul_ref)
    assert not (out / "run.lock").exists()


# ============================================================================ jobs: in a config
def test_jobs_in_the_config_caps_parallelism_and_is_not_hashed(tmp_path, user_module, pinned):
    base = {
        **TINY,
        "name": "capped",
        "selectors": [{"name": "mymod:PidProbe", "label": "pid"}],
        "protocol": {"n_train": [20], "n_test": 20, "repeats": 4, "n_features": [2]},
    }
    free = _write(tmp_path / "free.yaml", base)
    capped = _write(tmp_path / "capped.yaml", {**base, "jobs": 1})
    a, b = load_experiment(free), load_experiment(capped)
    assert (a.jobs, b.jobs) == (None, 1) and a.config_hash == b.config_hash
    assert b.effective["jobs"] == 1  # recorded in run.json's effective config, not hashed

    out = tmp_path / "out"
    res = cli("run", capped, "--out", out, "--jobs", 2, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert json.loads((out / "run.json").read_text())["jobs"] == 1
    # capped to one worker process (tasks run in a worker even with --jobs 1): a single pid for all four
    assert len({int(r["n_iter"]) for r in result_dicts(out)}) == 1
    res = cli("run", free, "--out", out, "--jobs", 1, "--no-progress")  # same hash: resumes
    assert res.exit_code == 0 and "4 tasks (4 resumed, 0 run, 0 failed)" in res.stdout


# ============================================================================ (f) paper reports
@pytest.fixture(scope="module")
def fig1_run(tmp_path_factory, pinned) -> Path:
    """configs/ring2015/fig1_toy.yaml with 2 repeats (synthetic: no mirror needed)."""
    out = tmp_path_factory.mktemp("fig1") / "fig1_toy"
    res = cli("run", RING_FIG1, "--repeats", 2, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    return out


def test_ring2015_report_on_the_fig1_toy_run(fig1_run, tmp_path):
    results = tmp_path / "ring2015"
    shutil.copytree(fig1_run, results / "fig1_toy")
    res = cli("report", results, "--paper", "ring2015")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == str(results / "REPORT.md")
    text = (results / "REPORT.md").read_text()
    assert text.startswith("# Ring & Eskofier 2015")
    assert "## Fig. 1 problem (ring_fig1): which pair does B&B choose (d = 2)?" in text
    assert "## UCI" not in text  # no uci run here
    fig1 = pd.read_csv(results / "fig1_summary.csv")
    assert list(fig1["selector"]) == [
        "B&B mean distance",
        "B&B Bhattacharyya",
        "B&B KL",
        "B&B Gaussian Bhattacharyya",
        "B&B Gaussian KL",
    ]
    assert (fig1["draws"] == 2).all() and (fig1["picks_x1x2"] + fig1["picks_x3x4"] <= 2).all()
    assert fig1["acc_chosen"].between(0, 1).all() and (fig1["evals"] >= 1).all()
    assert (results / "plots" / "fig1_data.png").exists()


def test_ring2015_report_with_the_uci_run(user_runs, fig1_run):
    results = user_runs["ring"].parent
    shutil.copytree(fig1_run, results / "fig1_toy", dirs_exist_ok=True)
    res = cli("report", results, "--paper", "ring2015")
    assert res.exit_code == 0, res.stderr
    text = (results / "REPORT.md").read_text()
    assert "## UCI: test accuracy (%), selection time and criterion evaluations" in text
    uci = pd.read_csv(results / "uci_summary.csv")
    assert set(uci["selector"]) == {
        "B&B mean distance",
        "B&B Bhattacharyya",
        "B&B KL",
        "wrapper",
        "mine",
        "all features",
    }
    sel = uci[uci["selector"] != "all features"]
    assert (sel["splits"] == 2).all() and sorted(set(sel["d"])) == [2, 3]
    assert (sel["n_subsets"] == [comb(6, d) for d in sel["d"]]).all()
    assert sel["accuracy"].between(0, 1).all()
    for f in ("fig1_data.png", "uci_accuracy.png", "uci_runtime.png"):
        assert (results / "plots" / f).exists(), f


def test_paul2015_report_on_a_tiny_run(user_runs):
    results = user_runs["paul"].parent
    res = cli("report", results, "--paper", "paul2015")
    assert res.exit_code == 0, res.stderr
    text = (results / "REPORT.md").read_text()
    assert text.startswith("# Paul et al. 2015 — paul2015_clinical_bcr\n")
    assert "**The agreement rule**" in text  # the one rule, stated in every paper report
    ks, n_train, n_test = _hepatitis_protocol()
    assert f"## hepatitis: D = 19, 2 resamples, n_train = {n_train}, n_test = {n_test}" in text
    assert "BCR (mean ± sd over resamples)" in text and "Kuncheva index of the top-k sets" in text
    assert "| mine |" in text and "Mean fit wall time" in text
    summ = pd.read_csv(results / "summary.csv")
    assert (summ["count"] == 2).all() and summ["mean"].between(0, 1).all()
    assert set(summ.loc[summ["selector"] == "mine", "k"]) == set(ks)
    assert summ.loc[summ["selector"] == "all", "k"].tolist() == [19]
    stab = pd.read_csv(results / "stability.csv")
    assert "all" not in set(stab["selector"]) and "mine" in set(stab["selector"])
    assert stab["kuncheva"].between(-1, 1).all() and (stab["n_resamples"] == 2).all()
    for f in ("bcr_vs_k.png", "kuncheva_vs_k.png"):
        assert (results / "plots" / f).exists(), f
