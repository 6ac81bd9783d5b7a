"""Smoke tests of the Paul 2015 and Ring 2015 experiment scripts on tiny sizes (no data files needed)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fsbench.algorithms.clinical_kernel import ClinicalKernel
from fsbench.data import open_dataset
from fsbench.experiments import paul2015, ring2015


def test_kuncheva_index():
    D, k = 10, 3
    same = [np.array([0, 1, 2])] * 3
    assert paul2015.kuncheva(same, k, D) == pytest.approx(1.0)
    disjoint = [np.array([0, 1, 2]), np.array([3, 4, 5])]
    assert paul2015.kuncheva(disjoint, k, D) == pytest.approx((0 * D - k * k) / (k * (D - k)))
    assert np.isnan(paul2015.kuncheva(same, D, D))


def test_resolve_ks_and_bcr():
    assert paul2015.resolve_ks([1, 2, 3, 5, 10, 20, "all"], 13) == [1, 2, 3, 5, 10, 13]
    assert paul2015.resolve_ks([1, 20], 19) == [1, 19]
    y = np.array([0, 0, 0, 1])
    assert paul2015.balanced_rate(y, np.array([0, 0, 0, 0])) == pytest.approx(0.5)


def test_paul_split_is_stratified_and_deterministic():
    y = np.array([0] * 30 + [1] * 10)
    tr, te = paul2015.split(y, 1, "toy", 0, 0.9)
    tr2, _ = paul2015.split(y, 1, "toy", 0, 0.9)
    assert np.array_equal(tr, tr2) and tr.size == 36 and te.size == 4
    assert np.bincount(y[tr]).tolist() == [27, 9]


def test_clinical_bcr_with_missing_values():
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    X = np.column_stack([y + rng.normal(0, 0.3, n), rng.integers(0, 3, n), rng.normal(size=n)])
    X[::7, 0] = np.nan
    cat = np.array([False, True, False])
    kern = ClinicalKernel(cat).fit(X[:40])
    Ktr, Kte = kern.subkernels(X[:40]), kern.subkernels(X[40:], X[:40])
    bcr = paul2015.clinical_bcr(Ktr, Kte, np.array([0]), y[:40], y[40:], 1.0)
    assert 0.7 <= bcr <= 1.0


def test_paul_run_split_on_a_fake_dataset(monkeypatch, tmp_path):
    rng = np.random.default_rng(1)
    n = 50
    y = rng.integers(0, 2, n)
    X = np.column_stack([y + rng.normal(0, 0.5, n), rng.integers(0, 2, n), rng.normal(size=(n, 3))])
    X[3, 1] = np.nan
    cat = np.array([False, True, False, False, False])
    monkeypatch.setattr(paul2015, "load_data", lambda entry: (X, y, cat, ["a", "b"]))
    cfg = {
        "name": "t",
        "seed": 3,
        "settings": {
            "datasets": [{"name": "fake", "positive": None}],
            "resamples": 2,
            "train_fraction": 0.8,
            "ks": [1, 2, "all"],
            "C": 1.0,
            "class_weight": "balanced",
            "selectors": [
                {"name": "rfe_svm_clinical", "label": "svm", "params": {}},
                {"name": "rfe_linear_onehot", "label": "lin", "params": {}},
                {"name": "random_forest", "label": "rf", "params": {"n_estimators": 10}},
                {"name": "all", "label": "all", "params": {}},
            ],
        },
    }
    paul2015.run(cfg, tmp_path)
    paul2015.report(cfg, tmp_path)
    res = (tmp_path / "results.csv").read_text()
    assert "svm" in res and (tmp_path / "stability.csv").exists() and (tmp_path / "REPORT.md").exists()
    assert (tmp_path / "plots" / "bcr_vs_k.png").exists()


def test_ring_fig1_generator_and_criteria():
    ds = open_dataset("ring_fig1")
    X, y = ds.sample(120, np.random.default_rng(0))
    assert X.shape == (120, 4) and set(np.unique(y)) == {-1, 1}
    r = np.hypot(X[:, 0], X[:, 1])
    assert r[y < 0].max() <= 1.0 < 1.5 <= r[y > 0].min()
    cfg = ring2015.load_config_dict(
        {
            "seed": 1,
            "settings": {
                "fig1": {
                    "draws": 1,
                    "n_train": 80,
                    "n_test": 50,
                    "criteria": ["bhattacharyya", "gaussian_bhattacharyya"],
                }
            },
        }
    )
    rows = ring2015.run_fig1_draw(cfg, 0)
    by = {row["criterion"]: row for row in rows}
    assert by["gaussian_bhattacharyya"]["J_x3x4"] > by["gaussian_bhattacharyya"]["J_x1x2"]
    assert by["bhattacharyya"]["picks_x1x2"]


def test_ring_uci_task_on_a_fake_dataset(monkeypatch):
    class Fake:
        X = np.random.default_rng(2).normal(size=(40, 4))
        y = np.array(["a", "b"] * 20)

    Fake.X[:, 1] += (Fake.y == "a") * 2.0
    monkeypatch.setattr(ring2015, "open_dataset", lambda name: Fake)
    cfg = ring2015.load_config_dict(
        {"seed": 1, "settings": {"uci": {"splits": 1, "cv": 3, "criteria": ["mean_distance"]}}}
    )
    rows = ring2015.run_uci_task(cfg, "fake", 2, 0)
    methods = {r["method"]: r for r in rows}
    assert set(methods) == {"bnb_mean_distance", "wrapper", "all_features"}
    assert methods["wrapper"]["n_evaluations"] == 6
    assert "1" in methods["bnb_mean_distance"]["subset"].split()


@pytest.mark.parametrize("jobs", [1, 2])
def test_run_task_files_writes_each_result_once_and_resumes(tmp_path, jobs):
    from fsbench.experiments.common import run_task_files

    # a function importable in the worker processes (math.factorial), results JSON-serialisable
    pending = [(tmp_path / "tasks" / f"t{i}.json", math.factorial, (i,)) for i in range(5)]
    assert run_task_files(pending, jobs) == 5
    assert [json.loads(p.read_text()) for p, _, _ in pending] == [math.factorial(i) for i in range(5)]
    pending[2][0].unlink()
    assert run_task_files(pending, jobs) == 1  # only the missing one
    assert not list((tmp_path / "tasks").glob("*.tmp"))
