"""The information-theoretic filters (fsbench/algorithms/information.py): JMI, CMIM, DISR, CFS, FCBF.

Three kinds of check: the discretisation rule by hand; each selector against ``skfeature``
(``skfeature-chappers``, the ``dev`` extra) on the same discretised input — the library's own functions
where they compute the published method (CMIM, CFS; FCBF given SU-sorted columns), the original
scikit-feature loops run with the library's estimators where the fork broke them (JMI, DISR); and small
cases against the definitions, computed here from counts. The library's defects are pinned, so that a
release that fixes them shows up. Small data: the file runs in a few seconds.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from typer.testing import CliRunner

from fsbench.algorithms import information
from fsbench.algorithms.information import (
    CFS,
    CMIM,
    DISR,
    FCBF,
    JMI,
    EntropyTables,
    cfs_selection,
    discretize,
    fcbf_selection,
    greedy_order,
)
from fsbench.algorithms.registry import get_selector, info
from fsbench.cli import app

NAMES = ["jmi", "cmim", "disr", "cfs", "fcbf"]
#: Seeds of :func:`_problem` whose criteria have no exact ties at any step: on an exact tie the library's
#: choice depends on its summation order (seed 13: features 0 and 5 have the same joint counts with y,
#: and the library's I(X;Y) differ in the 16th digit), fsbench's goes to the lower index.
SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]


def _skfeature():
    return pytest.importorskip("skfeature", reason="the reference library: pip install 'fsbench[dev]'")


def _problem(seed: int, n: int = 60, D: int = 12):
    """Features 0 and 1 carry the class (0 and 2 for three classes), 5 is a noisy copy of 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = ((X[:, 0] + X[:, 1] + 0.7 * rng.normal(size=n)) > 0).astype(int)
    if seed % 3 == 0:
        y = np.digitize(X[:, 0] + X[:, 2], [-0.8, 0.8])
    if D > 5:
        X[:, 5] = X[:, 0] + 0.1 * rng.normal(size=n)
    return X, y


# ----------------------------------------------------------------------- definitions, from counts
def _H(*columns) -> float:
    """Plug-in joint entropy (bits) of integer columns."""
    _, n = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    p = n / n.sum()
    return float(-(p * np.log2(p)).sum())


def _I(a, b, given=None) -> float:
    if given is None:
        return _H(a) + _H(b) - _H(a, b)
    return _H(a, given) + _H(b, given) - _H(a, b, given) - _H(given)


def _su(a, b) -> float:
    return 2 * _I(a, b) / (_H(a) + _H(b))


def _best(candidates, key) -> int:
    """The candidate of largest key; keys equal to 10 decimals (bits) are ties, to the lowest index."""
    return min(candidates, key=lambda k: (-round(key(k), 10), k))


# ----------------------------------------------------------------------- the discretisation rule
def test_discretize_rule_by_hand():
    X = np.column_stack(
        [
            np.arange(10.0),  # 10 distinct values: 5 equal-frequency bins of 2
            [1, 1, 1, 1, 1, 2, 3, 4, 5, 6.0],  # 6 distinct: binned; the five tied 1s share bin 0
            [0, 1, 0, 1, 0, 1, 0, 1, 1, 1.0],  # 2 distinct: kept
            [6, 5, 4, 3, 2, 1, 0, 6, 5, 4.0],  # 7 levels, categorical: kept as its codes
            [6, 5, 4, 3, 2, 1, 0, 6, 5, 4.0],  # the same values, not categorical: binned
            [-1.5, 7, 7, -1.5, 7, 7, 30, 30, 7, 7],  # 3 distinct: kept, one code per value in order
        ]
    )
    codes = discretize(X, n_bins=5, categorical=[3])
    assert codes[:, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    # ranks (values strictly below) 0,0,0,0,0,5,6,7,8,9 -> floor(5 r / 10)
    assert codes[:, 1].tolist() == [0, 0, 0, 0, 0, 2, 3, 3, 4, 4]
    assert codes[:, 2].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 1, 1]
    assert codes[:, 3].tolist() == [6, 5, 4, 3, 2, 1, 0, 6, 5, 4]
    # 7 distinct values, not categorical: floor(5 r / 10), r = the number of values strictly below
    below = np.array([(X[:, 4] < v).sum() for v in X[:, 4]])
    assert codes[:, 4].tolist() == (below * 5 // 10).tolist()
    assert codes[:, 5].tolist() == [0, 1, 1, 0, 1, 1, 2, 2, 1, 1]
    # a boolean mask is the same as the index list; sample order does not matter (ranks)
    mask = np.zeros(6, bool)
    mask[3] = True
    np.testing.assert_array_equal(discretize(X, 5, mask), codes)
    perm = np.random.default_rng(0).permutation(10)
    np.testing.assert_array_equal(discretize(X[perm], 5, [3]), codes[perm])


def test_equal_frequency_bins_hold_n_over_bins_samples():
    x = np.random.default_rng(1).normal(size=(100, 3))
    for j in range(3):
        assert np.bincount(discretize(x)[:, j]).tolist() == [20] * 5
    assert sorted(np.bincount(discretize(x[:67])[:, 0]).tolist()) == [13, 13, 13, 14, 14]


def test_the_categorical_mask_changes_what_the_selector_sees():
    """y is the parity of an 8-level categorical feature: kept as codes, I(X;Y) = H(Y) = 1 bit;
    binned into 5 equal-frequency bins, levels merge and information is lost."""
    rng = np.random.default_rng(0)
    level = rng.permutation(np.repeat(np.arange(8), 10)).astype(float)
    X = np.column_stack([level, rng.normal(size=80)])
    y = level.astype(int) % 2
    with_mask = JMI(categorical=[0]).fit(X, y)
    without = JMI().fit(X, y)
    assert with_mask.scores_[0] == pytest.approx(1.0)
    assert without.scores_[0] < 0.9
    assert "categorical" in get_selector("jmi").get_params()  # so a run passes the card's mask


def test_a_run_passes_the_card_mask_to_the_selector():
    from fsbench.config.experiment import KernelConfig, SelectorConfig
    from fsbench.evaluation.protocol import build_selector

    mask = np.array([True, False, False])
    for name in NAMES:
        est = build_selector(SelectorConfig(name, name), KernelConfig(), 0, {"categorical": mask})
        assert est.categorical is mask, name


# ----------------------------------------------------------------------- estimators vs the library
def test_entropy_tables_match_the_library_estimators():
    _skfeature()
    from skfeature.utility.entropy_estimators import cmidd, entropyd, midd
    from skfeature.utility.mutual_information import su_calculation

    X, y = _problem(0)
    codes = discretize(X)
    tab = EntropyTables(codes, y)
    Xd = codes.astype(float)
    D = codes.shape[1]
    np.testing.assert_allclose(tab.H, [entropyd(Xd[:, k]) for k in range(D)], atol=1e-12)
    np.testing.assert_allclose(tab.relevance, [midd(Xd[:, k], y) for k in range(D)], atol=1e-12)
    np.testing.assert_allclose(tab.class_su, [su_calculation(Xd[:, k], y) for k in range(D)], atol=1e-12)
    s = 4
    H_ks, H_ksy = tab.joint_with_class(s)
    np.testing.assert_allclose(H_ks, tab.joint(s))
    np.testing.assert_allclose(
        tab.H + tab.H[s] - H_ks, [midd(Xd[:, s], Xd[:, k]) for k in range(D)], atol=1e-12
    )
    np.testing.assert_allclose(
        tab.H_xy + tab.H_xy[s] - H_ksy - tab.H_y, [cmidd(Xd[:, s], Xd[:, k], y) for k in range(D)], atol=1e-12
    )
    # restricted to a subset of columns, the same numbers
    tab.restrict(np.array([1, 7, 9]))
    np.testing.assert_allclose(tab.joint_with_class(s)[1], H_ksy[[1, 7, 9]])


def _jmi_original(Xd, y, K):
    """scikit-feature's LCSI loop with function_name="JMI" (beta = gamma = 1/|S|; jundongl/scikit-feature,
    LCSI.py), run with the fork's estimators."""
    from skfeature.utility.entropy_estimators import cmidd, midd

    D = Xd.shape[1]
    t1 = np.array([midd(Xd[:, i], y) for i in range(D)])
    t2, t3 = np.zeros(D), np.zeros(D)
    F = [int(np.argmax(t1))]
    while len(F) < K:
        beta = gamma = 1.0 / len(F)
        best, idx = -1e12, -1
        for i in range(D):
            if i not in F:
                t2[i] += midd(Xd[:, F[-1]], Xd[:, i])
                t3[i] += cmidd(Xd[:, F[-1]], Xd[:, i], y)
                t = t1[i] - beta * t2[i] + gamma * t3[i]
                if t > best:
                    best, idx = t, i
        F.append(idx)
    return np.array(F)


def _disr_original(Xd, y, K):
    """scikit-feature's DISR loop (sum of I(f,fj;y)/H(f,fj,y); jundongl/scikit-feature, DISR.py), run
    with the fork's estimators."""
    from skfeature.utility.entropy_estimators import cmidd, entropyd, midd
    from skfeature.utility.mutual_information import conditional_entropy

    D = Xd.shape[1]
    acc = np.zeros(D)
    F = [int(np.argmax([midd(Xd[:, i], y) for i in range(D)]))]
    while len(F) < K:
        fs = Xd[:, F[-1]]
        best, idx = -1e12, -1
        for i in range(D):
            if i not in F:
                f = Xd[:, i]
                num = midd(fs, y) + cmidd(f, y, fs)
                # H(f) + H(fs | f) + H(y | f, fs) = H(f, fs, y), summed as in the original
                den = (
                    entropyd(f) + conditional_entropy(fs, f) + (conditional_entropy(y, fs) - cmidd(y, f, fs))
                )
                acc[i] += num / den
                if acc[i] > best:
                    best, idx = acc[i], i
        F.append(idx)
    return np.array(F)


@pytest.mark.parametrize("seed", SEEDS)
def test_cmim_is_the_library_order(seed):
    _skfeature()
    from skfeature.function.information_theoretical_based.CMIM import cmim

    X, y = _problem(seed)
    Xd = discretize(X).astype(float)
    expected = cmim(Xd, y, mode="index", n_selected_features=X.shape[1])
    np.testing.assert_array_equal(CMIM().fit(X, y).order_, expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_jmi_and_disr_are_the_original_scikit_feature_orders(seed):
    _skfeature()
    X, y = _problem(seed)
    Xd = discretize(X).astype(float)
    D = X.shape[1]
    np.testing.assert_array_equal(JMI().fit(X, y).order_, _jmi_original(Xd, y, D))
    np.testing.assert_array_equal(DISR().fit(X, y).order_, _disr_original(Xd, y, D))


def test_jmi_first_two_picks_are_the_library_lcsi_with_beta_gamma_one():
    """With one feature selected JMI is LCSI with beta = gamma = 1: the library called directly."""
    _skfeature()
    from skfeature.function.information_theoretical_based.LCSI import lcsi

    for seed in SEEDS:
        X, y = _problem(seed)
        Xd = discretize(X).astype(float)
        expected = lcsi(Xd, y, mode="index", beta=1.0, gamma=1.0, n_selected_features=2)
        np.testing.assert_array_equal(JMI().fit(X, y).order_[:2], expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_cfs_selection_is_the_library_selection(seed):
    _skfeature()
    from skfeature.function.statistical_based.CFS import cfs

    X, y = _problem(seed)
    Xd = discretize(X).astype(float)
    expected = cfs(Xd, y, mode="index")
    expected = expected[expected >= 0]  # the library appends -1 once every feature is in
    est = CFS().fit(X, y)
    np.testing.assert_array_equal(est.selected_, expected)
    np.testing.assert_array_equal(est.order_[: expected.size], expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_fcbf_selection_is_the_library_selection_on_su_sorted_columns(seed):
    _skfeature()
    from skfeature.function.information_theoretical_based.FCBF import fcbf
    from skfeature.utility.mutual_information import su_calculation

    X, y = _problem(seed)
    Xd = discretize(X).astype(float)
    su = np.array([su_calculation(Xd[:, k], y) for k in range(X.shape[1])])
    perm = np.lexsort((np.arange(su.size), -su))  # decreasing SU, ties by index
    expected = perm[fcbf(Xd[:, perm], y, mode="index")]
    est = FCBF().fit(X, y)
    np.testing.assert_array_equal(est.selected_, expected)
    np.testing.assert_array_equal(est.order_[: expected.size], expected)


# ----------------------------------------------------------------------- the library's defects
def test_library_jmi_returns_ranks_of_a_different_criterion():
    """``JMI.jmi(mode="index")`` is the rank transform of the order of LCSI(beta=0.8, gamma=0.5)."""
    _skfeature()
    from skfeature.function.information_theoretical_based.JMI import jmi
    from skfeature.function.information_theoretical_based.LCSI import lcsi
    from skfeature.utility.util import reverse_argsort

    X, y = _problem(1)
    Xd = discretize(X).astype(float)
    got = jmi(Xd, y, mode="index", n_selected_features=6)
    lcsi_order = lcsi(Xd, y, mode="index", beta=0.8, gamma=0.5, n_selected_features=6)
    np.testing.assert_array_equal(got, reverse_argsort(lcsi_order))
    assert got.max() < 6  # ranks 0..5, not feature indices
    assert not np.array_equal(got, JMI().fit(X, y).order_[:6])


def test_library_fcbf_takes_the_lowest_index_not_the_largest_su():
    _skfeature()
    from skfeature.function.information_theoretical_based.FCBF import fcbf

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    strong = np.where(rng.random(200) < 0.95, y, 1 - y)
    weak = np.where(rng.random(200) < 0.7, y, 1 - y)
    Xd = np.column_stack([weak, strong]).astype(float)  # independent given y: both are kept
    assert fcbf(Xd, y, mode="index").tolist() == [0, 1]  # the library: by index
    assert FCBF().fit(Xd, y).selected_.tolist() == [1, 0]  # FCBF: by SU


def test_library_disr_is_not_disr():
    """The fork divides the DISR sum by sum_j (1 + I(X_k;X_j)): on this seed its order differs."""
    _skfeature()
    from skfeature.function.information_theoretical_based.DISR import disr

    X, y = _problem(2)
    Xd = discretize(X).astype(float)
    D = X.shape[1]
    assert not np.array_equal(disr(Xd, y, mode="index", n_selected_features=D), _disr_original(Xd, y, D))


# ----------------------------------------------------------------------- against the definitions
@pytest.mark.parametrize("seed", [0, 1, 4])
def test_first_picks_follow_the_definitions(seed):
    X, y = _problem(seed, n=80, D=8)
    c = discretize(X)
    D = c.shape[1]
    mi = np.array([_I(c[:, k], y) for k in range(D)])
    first = _best(range(D), lambda k: mi[k])
    orders = {name: get_selector(name).fit(X, y).order_ for name in ("jmi", "cmim", "disr")}
    for order in orders.values():
        assert order[0] == first
    rest = [k for k in range(D) if k != first]
    pair = {k: _I(np.column_stack([c[:, k], c[:, first]]) @ [10, 1], y) for k in rest}  # I(X_k X_s; Y)
    assert orders["jmi"][1] == _best(rest, lambda k: pair[k])
    assert orders["cmim"][1] == _best(rest, lambda k: _I(c[:, k], y, c[:, first]))
    assert orders["disr"][1] == _best(rest, lambda k: pair[k] / _H(c[:, k], c[:, first], y))
    # third picks: JMI sums I(X_k X_j; Y) over both selected, CMIM takes the minimum of I(X_k; Y | X_j)
    S = list(orders["jmi"][:2])
    rest = [k for k in range(D) if k not in S]
    joint = {k: sum(_I(np.column_stack([c[:, k], c[:, j]]) @ [10, 1], y) for j in S) for k in rest}
    assert orders["jmi"][2] == _best(rest, lambda k: joint[k])
    S = list(orders["cmim"][:2])
    rest = [k for k in range(D) if k not in S]
    assert orders["cmim"][2] == _best(rest, lambda k: min(_I(c[:, k], y, c[:, j]) for j in S))


def test_jmi_and_disr_find_the_xor_partner_cmim_cannot():
    """y = a XOR b; x0 = y with a quarter flipped by hidden bits. After x0 and a (a tie at I = I(x0;Y),
    broken by index), b completes y: I(a b; Y) = 1 bit. JMI and DISR take b (index 3) before the noise
    feature c (index 2); CMIM's min_j I(X_k; Y | X_j) is 0 for both and the tie goes to c."""
    rows = np.array(list(itertools.product([0, 1], repeat=5)) * 2)
    a, b, c, e, f = rows.T
    y = a ^ b
    X = np.column_stack([y ^ (e & f), a, c, b]).astype(float)
    assert JMI().fit(X, y).order_.tolist() == [0, 1, 3, 2]
    assert DISR().fit(X, y).order_.tolist() == [0, 1, 3, 2]
    assert CMIM().fit(X, y).order_.tolist() == [0, 1, 2, 3]


def test_fcbf_removes_an_exact_copy_and_ranks_it_after_the_selected():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    x0 = np.where(rng.random(200) < 0.9, y, 1 - y)
    x2 = np.where(rng.random(200) < 0.75, y, 1 - y)
    noise = rng.integers(0, 2, (200, 2))
    X = np.column_stack([x0, x0, x2, noise]).astype(float)
    est = FCBF().fit(X, y)
    assert est.selected_.tolist() == [0, 2]  # 1 is removed: SU(x0, x1) = 1 >= SU(x1, y)
    assert est.order_[:3].tolist() == [0, 2, 1]  # then the rest by SU: the copy has x0's SU
    assert est.scores_[1] == pytest.approx(_su(x0, y))


def test_cfs_merit_is_halls_and_its_first_pick_has_the_largest_su():
    X, y = _problem(4, n=80, D=10)
    c = discretize(X)
    est = CFS().fit(X, y)
    su_c = np.array([_su(c[:, k], y) for k in range(10)])
    assert est.selected_[0] == _best(range(10), lambda k: su_c[k])
    for t in (1, 2, 3):
        S = est.selected_[:t]
        ff = sum(_su(c[:, i], c[:, j]) for i, j in itertools.combinations(S, 2))
        assert est.merits_[t - 1] == pytest.approx(su_c[S].sum() / np.sqrt(t + 2 * ff), abs=1e-9)


@pytest.mark.parametrize("name", ["cfs", "fcbf"])
def test_unselected_features_follow_by_su(name):
    """CFS and FCBF stop early; the others come after, by SU(X;Y), ties by index."""
    X, y = _problem(1, n=80, D=30)
    est = get_selector(name).fit(X, y)
    k = est.selected_.size
    assert 0 < k < 30
    np.testing.assert_array_equal(est.order_[:k], est.selected_)
    rest = est.order_[k:]
    assert set(rest) == set(range(30)) - set(est.selected_.tolist())
    key = np.round(est.scores_[rest], 10)
    pairs = range(rest.size - 1)
    assert all(key[i] > key[i + 1] or (key[i] == key[i + 1] and rest[i] < rest[i + 1]) for i in pairs)


def test_ties_go_to_the_lower_index_whatever_the_summation_order():
    """Two copies of a feature with its codes relabelled have the same entropies up to rounding."""
    X, y = _problem(0, n=60, D=6)
    c = discretize(X)
    X = np.column_stack([c, c[:, 0]]).astype(float)
    X[:, 0] = 4 - X[:, 0]  # feature 0 is feature 6 reversed: the same counts, in another cell order
    for name in ("jmi", "cmim", "disr"):
        order = get_selector(name).fit(X, y).order_.tolist()
        assert order.index(0) < order.index(6), name


@pytest.mark.parametrize("criterion", ["jmi", "cmim", "disr"])
def test_dropping_selected_columns_does_not_change_the_order(monkeypatch, criterion):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 40))
    y = rng.integers(0, 3, 80)
    codes = discretize(X)
    full = greedy_order(codes, y, criterion)
    monkeypatch.setattr(information, "_RESTRICT_MIN", 0)  # restrict at every halving
    restricted = greedy_order(codes, y, criterion)
    np.testing.assert_array_equal(full[0], restricted[0])
    np.testing.assert_allclose(full[1], restricted[1], atol=1e-12)


# ----------------------------------------------------------------------- contract
@pytest.mark.parametrize("name", NAMES)
def test_complete_ranking_with_a_constant_feature_and_three_classes(name):
    X, y = _problem(0, n=60, D=7)
    X[:, 3] = 2.0
    est = get_selector(name).fit(X, y)
    assert sorted(est.ranking_.tolist()) == list(range(1, 8))
    assert est.ranking_[3] == 7
    assert min(est.ranking_[0], est.ranking_[5]) <= 2  # the strongest feature or its noisy copy
    assert get_selector(name, n_features_to_select=2).fit(X, y).transform(X).shape == (60, 2)


def test_cfs_with_fewer_than_six_features_selects_them_all():
    X, y = _problem(2, n=40, D=4)
    assert sorted(cfs_selection(discretize(X), y)[0].tolist()) == [0, 1, 2, 3]
    assert fcbf_selection(discretize(X), y)[0].size >= 1


def test_selectors_list_and_info_show_them():
    res = CliRunner().invoke(app, ["selectors", "list"])
    lines = {ln.split()[0]: ln for ln in res.stdout.splitlines()}
    for name in NAMES:
        assert lines[name].split()[1] == "rank", name
        assert f"[{info(name).citation}]" in lines[name]
    res = CliRunner().invoke(app, ["selectors", "info", "jmi"])
    assert res.exit_code == 0 and "n_bins" in res.stdout and "information.JMI" in res.stdout
