"""Protocol details: feature-order shuffling, stratified splits, seeds."""

import numpy as np

from fsbench.algorithms.base import BaseSelector, ranking_from_scores
from fsbench.config.experiment import KernelConfig, ProtocolConfig, SelectorConfig
from fsbench.evaluation.protocol import Task, run_task
from fsbench.evaluation.resampling import _stratified_take, derive_seed


class ConstantScores(BaseSelector):
    """Every feature ties: a ranking by index would favour the toys' relevant features."""

    def _fit(self, X, y):
        self.scores_ = np.zeros(X.shape[1])
        self.ranking_ = ranking_from_scores(self.scores_)


class FirstColumnInformative(BaseSelector):
    def _fit(self, X, y):
        # score = |correlation| with the label: must be mapped back to the original indices
        yc = y - y.mean()
        Xc = X - X.mean(axis=0)
        self.scores_ = np.abs(Xc.T @ yc) / (np.linalg.norm(Xc, axis=0) * np.linalg.norm(yc) + 1e-12)
        self.ranking_ = ranking_from_scores(self.scores_)


def _task(selector: str, repeat=0):
    proto = ProtocolConfig(
        n_train=(60,),
        n_test=100,
        test=None,
        repeats=20,
        stratify=False,
        standardize=True,
        n_features=(2,),
        C="joachims",
        n_select=None,
        classifier="svm",
    )
    return Task(
        experiment="t",
        dataset="weston_nonlinear",
        spec="weston_nonlinear",
        kernel=KernelConfig("rbf"),
        selector=SelectorConfig(label="s", name=selector),
        n_train=60,
        repeat=repeat,
        protocol=proto,
        seed=5,
    )


def test_ties_are_not_broken_in_favour_of_low_indices():
    hits = 0
    for r in range(20):
        res = run_task(_task("test_protocol:ConstantScores", r))
        assert res.status == "ok", res.rows[0]["message"]
        order = list(map(int, res.ranking["order"].split()))
        hits += set(order[:2]) == {0, 1}
    assert hits <= 2  # by chance: 20 x 2/(52*51) expected ~0.015


def test_rankings_and_scores_are_mapped_back_to_original_indices():
    res = run_task(_task("test_protocol:FirstColumnInformative"))
    order = list(map(int, res.ranking["order"].split()))
    scores = np.array(list(map(float, res.ranking["scores"].split())))
    assert sorted(order) == list(range(52))
    assert np.all(np.diff(scores[order]) <= 1e-12)  # scores, read at the original indices, follow the order


def test_stratified_take_keeps_proportions():
    rng = np.random.default_rng(0)
    y = np.array([0] * 70 + [1] * 30)
    idx = _stratified_take(y, np.arange(100), 20, rng)
    assert len(set(idx)) == 20 and np.sum(y[idx] == 1) == 6


def test_seed_derivation_is_stable_and_name_dependent():
    assert derive_seed(1, "split", "sonar", 100, 0) == derive_seed(1, "split", "sonar", 100, 0)
    seeds = {derive_seed(1, "split", "sonar", 100, r) for r in range(50)}
    assert len(seeds) == 50
    assert derive_seed(1, "split", "sonar", 100, 0) != derive_seed(2, "split", "sonar", 100, 0)


def test_transformers_are_evaluated_on_their_output_dimensions():
    proto = ProtocolConfig(
        n_train=(80,),
        n_test=60,
        test=None,
        repeats=1,
        stratify=True,
        standardize=True,
        n_features=(1, 2, 500),
        C="joachims",
        n_select=None,
        classifier="knn",
        k=1,
    )
    task = Task(
        experiment="t",
        dataset="weston_nonlinear",
        spec="weston_nonlinear",
        kernel=KernelConfig("rbf"),
        selector=SelectorConfig(label="kpca", name="kpca"),
        n_train=80,
        repeat=0,
        protocol=proto,
        seed=1,
    )
    res = run_task(task)
    assert res.status == "ok", res.rows[0]["message"]
    S = [r["n_features"] for r in res.rows]
    # requested S <= output dimension, plus the transformer's own dimension; 500 > dim is skipped
    assert S[:2] == [1, 2] and 2 < S[-1] < 500 and len(S) == 3
    assert all(np.isnan(r["C"]) for r in res.rows) and res.ranking["order"] == ""


def test_balanced_take_gives_equal_counts_per_class():
    from fsbench.evaluation.resampling import _take

    rng = np.random.default_rng(1)
    y = np.array([0] * 70 + [1] * 20 + [2] * 10)
    idx = _take(y, np.arange(100), 21, rng, "balanced")
    assert np.bincount(y[idx]).tolist() == [7, 7, 7]
    import pytest

    with pytest.raises(ValueError, match="balanced sampling needs 11"):
        _take(y, np.arange(100), 33, rng, "balanced")
