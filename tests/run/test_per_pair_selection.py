"""``protocol.selection: per_pair``: one ranking per pair of classes, each pairwise machine on its own subset.

Checked against the global path where the two must agree (two classes; the same columns for every pair),
and on a problem built so that only per-pair subsets can succeed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fsbench.algorithms.kernels import Kernel, origin_sq_distances
from fsbench.algorithms.svm import PairwiseCouplingSVC
from fsbench.config.experiment import KernelConfig, ProtocolConfig, SelectorConfig
from fsbench.evaluation.classifiers import fit_predict, fit_predict_per_pair
from fsbench.evaluation.protocol import Task, run_task


def _protocol(**kw) -> ProtocolConfig:
    base = dict(
        n_train=(60,),
        n_test=200,
        test=None,
        repeats=3,
        stratify=True,
        standardize=True,
        n_features=(1, 2),
        C="joachims",
        n_select=None,
        classifier="svm_coupling",
        selection="per_pair",
    )
    base.update(kw)
    return ProtocolConfig(**base)


def _task(
    dataset: dict, selector: str, protocol: ProtocolConfig, kernel=KernelConfig("rbf"), repeat=0
) -> Task:
    return Task(
        experiment="t",
        dataset="d",
        spec=dataset,
        kernel=kernel,
        selector=SelectorConfig(label=selector, name=selector),
        n_train=protocol.n_train[0],
        repeat=repeat,
        protocol=protocol,
        seed=7,
    )


def _pair_problem(n, rng):
    """Three classes with means (0, 0), (4, 0), (0, 4) in features 0 and 1, plus four noise features:
    feature 0 separates classes 0/1, feature 1 separates 0/2 (either separates 1/2), and no single
    feature separates all three."""
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 6))
    X[:, :2] += np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])[y]
    return X, y


def test_two_classes_per_pair_equals_global():
    # one pair: the same selector fit, the same machine, the same Platt folds -> identical rows
    ds = {"generator": "weston_nonlinear", "params": {}}
    for clf in ("svm_coupling", "svm"):
        glob = run_task(_task(ds, "sas", _protocol(classifier=clf, selection="global")))
        pair = run_task(_task(ds, "sas", _protocol(classifier=clf)))
        assert glob.status == pair.status == "ok", (glob.rows[0]["message"], pair.rows[0]["message"])
        for g, p in zip(glob.rows, pair.rows, strict=True):
            for col in ("n_features", "error", "balanced_error", "C", "n_iter"):
                assert g[col] == pytest.approx(p[col], rel=1e-12), (clf, col)
        assert pair.ranking["order"] == ""  # no single order: the pair's is in pair_orders
        assert " ".join(map(str, pair.ranking["pair_orders"]["0-1"])) == glob.ranking["order"]


def test_same_columns_for_every_pair_equals_the_global_coupled_machine():
    # linear kernel, fixed C: each pair's Gram is the global Gram's block, so the per-pair machines and
    # their Platt folds (one generator taken in pair order) are those of the global classifier
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), [10, 20, 40, 50])  # unequal pair sizes: the coupling weights n_ab matter
    X = rng.normal(size=(y.size, 5))
    X += y[:, None] * 0.7
    X_te = rng.normal(size=(80, 5)) + rng.integers(0, 4, 80)[:, None] * 0.7
    cols = np.array([0, 2, 3])
    proto = _protocol(C=1.0)
    kern = KernelConfig("linear")
    per_pair = fit_predict_per_pair(X, y, X_te, [cols] * 6, kern, proto, random_state=3)
    whole = fit_predict(X[:, cols], y, X_te[:, cols], kern, proto, random_state=3)
    np.testing.assert_array_equal(per_pair.predictions, whole.predictions)
    # and with Joachims' C (per pair on the pair's points in both)
    k = Kernel("linear")
    clf = PairwiseCouplingSVC(random_state=3).fit(
        k.gram(X[:, cols]), y, origin_sq_dist=origin_sq_distances(k, X[:, cols])
    )
    pp = fit_predict_per_pair(X, y, X_te, [cols] * 6, kern, replace(proto, C="joachims"), random_state=3)
    np.testing.assert_array_equal(pp.predictions, clf.predict(k.gram(X_te[:, cols], X[:, cols])))
    assert pp.C == pytest.approx(np.mean(clf.pair_C_))


@pytest.mark.parametrize("classifier", ["svm_coupling", "svm"])
def test_each_pair_uses_its_own_subset(classifier):
    rng = np.random.default_rng(1)
    X, y = _pair_problem(300, rng)
    X_te, y_te = _pair_problem(300, rng)
    right = [np.array([0]), np.array([1]), np.array([1])]  # pairs (0,1), (0,2), (1,2): not a palindrome
    wrong = [np.array([0])] * 3
    proto = _protocol(classifier=classifier, C=1.0)
    kern = KernelConfig("linear")
    good = np.mean(fit_predict_per_pair(X, y, X_te, right, kern, proto, random_state=0).predictions != y_te)
    bad = np.mean(fit_predict_per_pair(X, y, X_te, wrong, kern, proto, random_state=0).predictions != y_te)
    assert good < 0.1 < 0.3 < bad


def test_per_pair_fisher_finds_each_pairs_feature(monkeypatch):
    # the full task: Fisher per pair ranks each pair's own feature first; at S = 1 per-pair selection
    # classifies well, the global Fisher subset (one feature) cannot
    rng = np.random.default_rng(2)
    X, y = _pair_problem(400, rng)
    _in_memory(monkeypatch, X, y)
    proto = _protocol(n_train=(200,), test="rest", n_test=None, n_features=(1,))
    pair = run_task(_task("mem", "fisher", proto, KernelConfig("linear")))
    glob = run_task(_task("mem", "fisher", replace(proto, selection="global"), KernelConfig("linear")))
    assert pair.status == glob.status == "ok", (pair.rows[0]["message"], glob.rows[0]["message"])
    orders = pair.ranking["pair_orders"]
    assert [orders[k][0] for k in ("0-1", "0-2")] == [0, 1]
    assert orders["1-2"][0] in (0, 1)
    assert pair.rows[0]["error"] < 0.1 < 0.25 < glob.rows[0]["error"]
    assert pair.rows[0]["fit_cpu_s"] > 0


def test_transformer_is_refused_per_pair():
    res = run_task(_task({"generator": "weston_nonlinear", "params": {}}, "kpca", _protocol()))
    assert res.status == "failed"
    assert "per-pair selection needs a ranker" in res.rows[0]["message"]


def test_voting_with_all_columns_equals_scikit_learn_one_vs_one():
    # numeric gamma, fixed C, overlapping classes (ties occur): the per-pair vote is SVC's one-vs-one vote
    from sklearn.svm import SVC

    rng = np.random.default_rng(5)
    y = rng.integers(0, 5, 200)
    X = rng.normal(size=(200, 3)) + 0.6 * y[:, None]
    X_te = rng.normal(size=(300, 3)) + 0.6 * rng.integers(0, 5, 300)[:, None]
    proto = _protocol(classifier="svm", C=1.0)
    pp = fit_predict_per_pair(X, y, X_te, [np.arange(3)] * 10, KernelConfig("rbf", gamma=0.5), proto)
    ref = SVC(kernel="rbf", gamma=0.5, C=1.0).fit(X, y).predict(X_te)
    np.testing.assert_array_equal(pp.predictions, ref)


def _in_memory(monkeypatch, X, y):
    class _DS:  # an in-memory "card" as draw_split reads it
        pass

    ds = _DS()
    ds.X, ds.y = X, y
    monkeypatch.setattr("fsbench.evaluation.protocol.open_dataset", lambda spec: ds)


def test_pair_orders_are_keyed_by_class_index_and_all_baseline_runs_once(monkeypatch):
    rng = np.random.default_rng(6)
    X, y = _pair_problem(300, rng)
    _in_memory(monkeypatch, X, y)
    proto = _protocol(n_train=(150,), test="rest", n_test=None, n_features=(1, 2))
    res = run_task(_task("mem", "fisher", proto, KernelConfig("linear")))
    assert res.status == "ok", res.rows[0]["message"]
    assert sorted(res.ranking["pair_orders"]) == ["0-1", "0-2", "1-2"]
    base = run_task(_task("mem", "all", proto, KernelConfig("linear")))
    assert base.status == "ok" and [r["n_features"] for r in base.rows] == [6]
    assert "pair_orders" not in base.ranking


def test_selection_subset_missing_a_class_is_refused_per_pair(monkeypatch):
    rng = np.random.default_rng(7)
    X, y = _pair_problem(300, rng)
    _in_memory(monkeypatch, X, y)
    proto = _protocol(n_train=(150,), test="rest", n_test=None, n_select=2, stratify=False)
    res = run_task(_task("mem", "fisher", proto, KernelConfig("linear")))
    assert res.status == "failed"
    assert "n_select = 2" in res.rows[0]["message"] and "every class" in res.rows[0]["message"]
    ok = run_task(_task("mem", "fisher", replace(proto, n_select=60, stratify=True), KernelConfig("linear")))
    assert ok.status == "ok", ok.rows[0]["message"]


def test_subset_search_refused_unless_its_size_is_fixed():
    ds = {"generator": "weston_nonlinear", "params": {"n_features": 6}}
    proto = _protocol(n_features=(2,))
    res = run_task(_task(ds, "branch_and_bound", proto))
    assert res.status == "failed" and "needs a ranker" in res.rows[0]["message"]


def test_all_columns_with_one_numeric_width_equals_the_global_rbf_machine():
    # RBF with a number for gamma: every pair's Gram is the global Gram's block, so the per-pair path with
    # all columns is the global svm_coupling classifier, Platt folds included
    rng = np.random.default_rng(4)
    y = np.repeat(np.arange(3), 25)
    X = rng.normal(size=(75, 4)) + y[:, None]
    X_te = rng.normal(size=(40, 4)) + rng.integers(0, 3, 40)[:, None]
    kern = KernelConfig("rbf", gamma=0.3)
    proto = _protocol()
    per_pair = fit_predict_per_pair(X, y, X_te, [np.arange(4)] * 3, kern, proto, random_state=11)
    whole = fit_predict(X, y, X_te, kern, proto, random_state=11)
    np.testing.assert_array_equal(per_pair.predictions, whole.predictions)
