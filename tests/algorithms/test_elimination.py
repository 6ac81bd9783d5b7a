"""The one backward-elimination loop and the one parameter declaration of every selector.

The selectors that eliminate through :func:`fsbench.algorithms.elimination.backward_elimination` (with their
kernel downdates) are compared with naive loops written here: every iteration recomputes the kernel of the
survivors from scratch and drops the lowest scores with the documented tie rule.
"""

import dataclasses

import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from fsbench.algorithms.base import ranking_from_order, ranking_from_scores
from fsbench.algorithms.clinical import (
    ClinicalSVMRFE,
    OneHotLinearSVMRFE,
    machine_targets,
    one_hot_encode,
    svm_duals,
)
from fsbench.algorithms.clinical_kernel import ClinicalKernel, SubkernelBank, categorical_mask
from fsbench.algorithms.elimination import (
    backward_elimination,
    elimination_schedule,
    least_important,
    n_to_drop,
    resolve_batch_order,
)
from fsbench.algorithms.kernels import KERNEL_CONSTRAINTS, KERNEL_PARAMS, Kernel, joachims_C, make_kernel
from fsbench.algorithms.registry import available, get_selector, resolve
from fsbench.algorithms.rfe import SVMRFE
from fsbench.algorithms.sensitivity import FSPP
from fsbench.config import experiment as config
from fsbench.data.synthetic import weston_linear, weston_nonlinear
from fsbench.evaluation.classifiers import CLASSIFIERS

STEPS = [(1, 0), (3, 0), (0.2, 0), (0.5, 0), ("halving", 0), ("halving", 4), (0.3, 5)]


def naive_elimination(n_features, scores_of, step, step_threshold=0, batch_order="auto"):
    """Backward elimination written out: score the survivors, drop the lowest.

    Best-first: ties drop the higher index first, a batch ranks by descending score. Spider's order
    (``step="halving"`` by default): ties drop the lower index first, a batch ranks by ascending score.
    """
    spider = resolve_batch_order(step, batch_order) == "spider"
    remaining = list(range(n_features))
    worst_first = []
    while len(remaining) > 1:
        m = n_to_drop(step, len(remaining), step_threshold)
        keys = scores_of(np.array(remaining))
        keys = keys if isinstance(keys, tuple) else (keys,)
        order = sorted(
            range(len(remaining)),
            key=lambda i: (*(float(k[i]) for k in keys if k is not None), i if spider else -i),
        )
        dropped = [remaining[i] for i in order[:m]]
        batch = sorted(dropped, key=lambda f: order.index(remaining.index(f)))
        worst_first += batch[::-1] if spider else batch
        remaining = [f for f in remaining if f not in dropped]
    return ranking_from_order(np.array((worst_first + remaining)[::-1]))


def spider_rank(scores, speed=0, feat=1):
    """Spider's ``@rfe/training.m`` loop, line by line, for fixed scores ``Ct`` (0-based feature ids).

    Returns ``a.rank``: best first, ``a.rank[:feat]`` the selected features.
    """
    gi = list(range(len(scores)))
    rank: list[int] = []
    v_dim = len(gi)
    while True:
        if v_dim <= feat:
            break
        gid = sorted(set(gi))  # gid = unique(gi)
        ct = [scores[g] for g in gid]
        index = sorted(range(len(ct)), key=lambda i: ct[i])  # [val,index] = sort(Ct): stable
        ordered_gid = [gid[i] for i in index]
        n_to_remove = v_dim // 2 if v_dim > speed else 1
        if v_dim - n_to_remove < feat:
            n_to_remove = v_dim - feat
        rank = ordered_gid[:n_to_remove] + rank  # rank = [ordered_gid(1:nToRemove) rank]
        gi = [g for g in gi if g not in ordered_gid[:n_to_remove]]
        v_dim -= n_to_remove
    return sorted(set(gi)) + rank  # rank = [unique(gi) rank]


@pytest.mark.parametrize("step, threshold", STEPS)
def test_fixed_scores_give_the_score_ranking_for_every_step_rule(step, threshold):
    """With scores that do not change and best-first batches, any step rule gives the score order."""
    w = np.random.default_rng(0).integers(0, 6, size=23).astype(float)  # many ties
    sizes, drops = [], []

    def record(dropped, remaining):
        sizes.append(remaining.size)
        drops.append(dropped.size)

    res = backward_elimination(w.size, lambda r, m: w[r], step, threshold, record, batch_order="best_first")
    np.testing.assert_array_equal(res.ranking, ranking_from_scores(w))
    assert sizes == elimination_schedule(step, w.size, threshold) and res.n_iter == len(sizes)
    assert drops == [n_to_drop(step, n, threshold) for n in sizes]


@pytest.mark.parametrize("step, threshold", [s for s in STEPS if s[0] != "halving"])
def test_non_halving_steps_keep_the_best_first_order_by_default(step, threshold):
    """Only ``"halving"`` switches to Spider's order: the other step rules are unchanged."""
    w = np.random.default_rng(1).integers(0, 6, size=23).astype(float)
    default = backward_elimination(w.size, lambda r, m: w[r], step, threshold)
    np.testing.assert_array_equal(default.ranking, ranking_from_scores(w))
    assert resolve_batch_order(step) == "best_first"


def test_halving_ranks_each_batch_as_spider_does_hand_computed():
    """D = 7, fixed scores. Spider removes {0, 2, 4}, then {1, 6}, then {5}; 3 survives.

    ``a.rank = [3 5 1 6 0 2 4]`` (each batch ascending in score); best-first: [3 5 6 1 4 2 0].
    """
    w = np.array([0.5, 3.0, 1.0, 6.0, 2.0, 5.0, 4.0])
    assert spider_rank(w) == [3, 5, 1, 6, 0, 2, 4]
    spider = backward_elimination(7, lambda r, m: w[r], "halving")
    np.testing.assert_array_equal(spider.ranking, [5, 3, 6, 1, 7, 2, 4])
    best = backward_elimination(7, lambda r, m: w[r], "halving", batch_order="best_first")
    np.testing.assert_array_equal(best.ranking, [7, 4, 6, 1, 5, 2, 3])
    # the top 5 differ: S = 5 falls inside the first batch (7 -> 4)
    assert set(np.flatnonzero(spider.ranking <= 5)) == {0, 1, 3, 5, 6}
    assert set(np.flatnonzero(best.ranking <= 5)) == {1, 3, 4, 5, 6}


def test_halving_ties_follow_matlabs_stable_sort():
    """D = 5, scores 1 1 1 1 2: Spider removes {0, 1}, then {2}, then {3}: a.rank = [4 3 2 0 1]."""
    w = np.array([1.0, 1.0, 1.0, 1.0, 2.0])
    assert spider_rank(w) == [4, 3, 2, 0, 1]
    spider = backward_elimination(5, lambda r, m: w[r], "halving")
    np.testing.assert_array_equal(spider.ranking, [4, 5, 3, 2, 1])
    # best-first keeps fsbench's tie rule (higher index eliminated first): the score ranking
    best = backward_elimination(5, lambda r, m: w[r], "halving", batch_order="best_first")
    np.testing.assert_array_equal(best.ranking, ranking_from_scores(w))


@pytest.mark.parametrize("n_features", [2, 5, 7, 20, 33])
@pytest.mark.parametrize("speed", [0, 4])
def test_halving_equals_spiders_loop(n_features, speed):
    """Spider's loop with feat = 1 gives our ranking (ties included); with feat = S, its S survivors are
    the top S of the best-first order."""
    rng = np.random.default_rng(n_features + speed)
    w = rng.integers(0, 8, size=n_features).astype(float)  # ties
    ours = backward_elimination(n_features, lambda r, m: w[r], "halving", speed)
    np.testing.assert_array_equal(ours.ranking, ranking_from_order(np.array(spider_rank(w, speed))))
    w_distinct = rng.permutation(n_features).astype(float)  # feat = S: a set, compared without ties
    best = backward_elimination(
        n_features, lambda r, m: w_distinct[r], "halving", speed, batch_order="best_first"
    )
    for S in range(1, n_features + 1):
        assert set(spider_rank(w_distinct, speed, feat=S)[:S]) == set(np.flatnonzero(best.ranking <= S))


def test_tie_breaks_then_higher_index_first():
    imp = np.array([1.0, 0.0, 0.0, 0.0, 2.0])
    tie = np.array([0.0, 5.0, 3.0, 5.0, 0.0])
    assert least_important((imp, tie), 3).tolist() == [2, 3, 1]
    assert least_important(imp, 3).tolist() == [3, 2, 1]
    assert least_important((imp, None), 2).tolist() == [3, 2]
    assert least_important(imp, 3, stable=True).tolist() == [1, 2, 3]


def _problems():
    yield weston_linear(30, np.random.default_rng(1), n_features=12)
    yield weston_nonlinear(30, np.random.default_rng(2), n_features=9)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(36, 8))
    y = np.arange(36) % 3
    X[:, 2] += y
    yield X, y


def _svmrfe_scores(est, X, y):
    """SVM-RFE's criterion on the survivors from a fresh Gram matrix, K^(-f) recomputed per feature."""
    base = make_kernel(est.kernel, gamma=est.gamma, degree=est.degree)

    def scores(remaining):
        Xr = X[:, remaining]
        kern = base.resolved(Xr)
        K = kern.gram(Xr)
        C = joachims_C(kern, Xr) if est.C is None else est.C
        crit = np.zeros(remaining.size)
        for yb in machine_targets(y):
            svc = SVC(kernel="precomputed", C=C).fit(K, yb)
            a = np.zeros(yb.size)
            a[svc.support_] = svc.dual_coef_[0]
            for j in range(remaining.size):
                Kj = kern.gram(np.delete(Xr, j, axis=1))
                crit[j] += 0.5 * (a @ K @ a - a @ Kj @ a)
        return crit

    return scores


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"kernel": "rbf"},
        {"step": 0.3},
        {"kernel": "rbf", "step": "halving"},
        {"step": "halving", "batch_order": "best_first"},
        {"step": 3, "batch_order": "spider"},
        {"kernel": "poly"},
    ],
)
def test_svmrfe_equals_naive_loop(params):
    for X, y in _problems():
        est = SVMRFE(**params).fit(X, y)
        ref = naive_elimination(X.shape[1], _svmrfe_scores(est, X, y), est.step, batch_order=est.batch_order)
        np.testing.assert_array_equal(est.ranking_, ref)


def _mixed(seed, n=50):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.normal(size=(n, 5)), rng.integers(0, 3, size=(n, 3)).astype(float)])
    y = (X[:, 0] + (X[:, 5] == 1) + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    return X, y


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("importance", ["abs", "signed"])
def test_clinical_svmrfe_equals_naive_loop(importance, seed):
    cat = [5, 6, 7]
    X, y = _mixed(seed)
    est = ClinicalSVMRFE(categorical=cat, importance=importance).fit(X, y)
    bank = SubkernelBank(ClinicalKernel(cat).fit(X), X)
    probe = ClinicalSVMRFE(categorical=cat, importance=importance)
    probe._Cs = []

    def scores(remaining):
        K = bank.weighted_sum(remaining) / remaining.size  # fresh, not downdated
        return probe._importance(bank, K, remaining, machine_targets(y))

    np.testing.assert_array_equal(est.ranking_, naive_elimination(X.shape[1], scores, est.step))


def test_onehot_rfe_equals_naive_loop():
    X, y = _mixed(4)
    cat = [5, 6, 7]
    est = OneHotLinearSVMRFE(categorical=cat).fit(X, y)
    Z, group = one_hot_encode(X, categorical_mask(cat, X.shape[1]))

    def scores(remaining):
        cols = np.flatnonzero(np.isin(group, remaining))
        a, _ = svm_duals(Z[:, cols] @ Z[:, cols].T, np.where(y == 1, 1.0, -1.0), 1.0)
        w2 = np.zeros(Z.shape[1])
        w2[cols] = (Z[:, cols].T @ a) ** 2
        return np.bincount(group, weights=w2, minlength=X.shape[1])[remaining]

    np.testing.assert_array_equal(est.ranking_, naive_elimination(X.shape[1], scores, est.step))


def test_fspp_equals_naive_loop_with_complete_scores():
    """FSPP stops scoring early inside an iteration; the complete scores eliminate the same features."""
    X, y = weston_nonlinear(40, np.random.default_rng(5), n_features=10)
    params = {"random_state": 0, "n_permutations": 2, "n_folds": 3, "step": 0.3, "step_threshold": 4}
    est = FSPP(**params).fit(X, y)
    probe = FSPP(**params)
    rng = np.random.RandomState(0)
    ref = naive_elimination(X.shape[1], lambda r: probe.sensitivities(X[:, r], y, rng), 0.3, 4)
    np.testing.assert_array_equal(est.ranking_, ref)


# ------------------------------------------------------------------------------- one declaration
def _selector_classes():
    """Every registered class: the rankers (BaseSelector) and the kernel-space transformers."""
    return sorted({resolve(n) for n in available()}, key=str)


@pytest.mark.parametrize("cls", _selector_classes(), ids=lambda c: c.__name__)
def test_every_selector_declares_every_parameter_once(cls):
    """scikit-learn's own check: a constraint for each parameter, and fit refuses a value of a bad type."""
    check_param_validation(cls.__name__, cls())


@pytest.mark.parametrize(
    "name, bad",
    [
        ("rfe", {"step": 0}),
        ("rfe", {"step": 1.5}),
        ("rfe", {"step": "thirds"}),
        ("rfe", {"criterion": "square"}),
        ("rfe", {"batch_order": "worst_first"}),
        ("rfe", {"kernel": "sigmoid"}),
        ("fspp", {"step_threshold": -1}),
        ("rfe_svm_clinical", {"importance": "relative"}),
        ("rfe_svm_clinical", {"C": "joachims"}),
        ("rfe_linear_onehot", {"C": "inverse_mean_diag"}),
        ("rfe_mkl_clinical", {"max_iter": -1}),
        ("r2w2", {"radius": "box"}),
        ("kfds", {"reg": 0}),
        ("scss", {"memory_limit": "lots"}),
        ("branch_and_bound", {"d": 0}),
        ("kife", {"counts": "both"}),
    ],
)
def test_bad_parameter_is_refused_by_the_declaration(name, bad):
    est = get_selector(name, **bad)
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(bad))}' parameter of {type(est).__name__}"):
        est._validate_params()


def test_kernel_parameters_are_declared_once():
    """The flat kernel parameters of selectors, the Kernel fields and the config keys are one list."""
    assert [f.name for f in dataclasses.fields(Kernel)] == ["name", *KERNEL_PARAMS]
    assert list(KERNEL_CONSTRAINTS) == ["kernel", *KERNEL_PARAMS]
    assert config.KERNEL_KEYS == {"name", *KERNEL_PARAMS}
    for cls in _selector_classes():
        declared = set(cls._parameter_constraints)
        if "kernel" in declared:
            for k in declared & set(KERNEL_CONSTRAINTS):
                assert cls._parameter_constraints[k] is KERNEL_CONSTRAINTS[k], (cls.__name__, k)


def test_config_reads_the_classifier_list(tmp_path):
    """An option its entry in classifiers.CLASSIFIERS does not list is refused by the config."""
    assert set(CLASSIFIERS) >= {"svm", "knn"}
    assert CLASSIFIERS["knn"].options == {"k"} and not CLASSIFIERS["knn"].per_pair
    path = tmp_path / "c.yaml"
    path.write_text(
        "name: c\ndataset: weston_linear\nselectors: [fisher]\n"
        "protocol: {n_train: [20], n_test: 20, classifier: {name: knn, C: 2}}\n"
    )
    with pytest.raises(config.ConfigError, match=r"C does not apply to classifier 'knn' \(options: k\)"):
        config.load_experiment(path)
