"""The baseline selectors: each adapter against its library called directly on the same data.

Library adapters (``fsbench[baselines]``, fsbench/algorithms/baselines.py): HSIC Lasso, mRMR, ReliefF,
MultiSURF, Boruta; scikit-learn ones: ANOVA F, mutual information, the L1-SVM path, random-forest
permutation importance; and the random ranking. Small data, few trees: the whole file runs in seconds.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import f_classif, mutual_info_classif
from sklearn.inspection import permutation_importance
from sklearn.svm import LinearSVC, l1_min_c
from sklearn.utils import check_random_state
from typer.testing import CliRunner

from fsbench.algorithms import baselines
from fsbench.algorithms.baselines import INSTALL_HINT, MissingExtraError, hsic_lasso_order
from fsbench.algorithms.forests import holdout_split
from fsbench.algorithms.l1_path import entry_order
from fsbench.algorithms.registry import get_selector, info, resolve
from fsbench.cli import app

#: registry name -> (import name of its optional library, fast parameters)
LIBRARY_ADAPTERS = {
    "hsic_lasso": ("pyHSICLasso", {}),
    "mrmr": ("mrmr", {}),
    "relieff": ("skrebate", {}),
    "multisurf": ("skrebate", {}),
    "boruta": ("boruta", {"n_estimators": 10, "max_iter": 6}),
}
SKLEARN_ADAPTERS = {
    "anova_f": {},
    "mutual_info": {},
    "l1_svm": {"n_Cs": 10},
    "rf_permutation": {"n_estimators": 20, "n_repeats": 3},
    "random_ranking": {},
}


def _needs(module: str):
    return pytest.importorskip(module, reason=f"optional library of {INSTALL_HINT}")


def _problem(n: int = 60, D: int = 8, seed: int = 0, classes: int = 2):
    """Features 0 and 1 carry the class (1 only jointly with 0 for two classes), the rest is noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    if classes == 2:
        y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    else:
        y = np.digitize(X[:, 0] + 0.5 * X[:, 1], np.quantile(X[:, 0], np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


def _top(ranking: np.ndarray, s: int) -> set[int]:
    return set(np.flatnonzero(ranking <= s).tolist())


# ------------------------------------------------------------------------------- every adapter
@pytest.mark.parametrize("name", [*LIBRARY_ADAPTERS, *SKLEARN_ADAPTERS])
def test_ranking_is_a_complete_permutation_with_a_constant_feature_and_three_classes(name):
    if name in LIBRARY_ADAPTERS:
        _needs(LIBRARY_ADAPTERS[name][0])
    params = {**LIBRARY_ADAPTERS.get(name, (None, {}))[1], **SKLEARN_ADAPTERS.get(name, {})}
    if "random_state" in get_selector(name).get_params():
        params["random_state"] = 0
    X, y = _problem(n=60, D=7, classes=3)
    X[:, 3] = 2.0
    est = get_selector(name, **params).fit(X, y)
    assert sorted(est.ranking_.tolist()) == list(range(1, 8))
    if name != "random_ranking":  # the chance baseline reads nothing; every other one puts it last
        assert est.ranking_[3] == 7
        assert est.ranking_[0] <= 2, est.ranking_  # the strongest feature is found by every method
    assert est.get_support().sum() == 7


def test_selectors_list_shows_kind_and_citation():
    res = CliRunner().invoke(app, ["selectors", "list"])
    lines = {ln.split()[0]: ln for ln in res.stdout.splitlines()}
    for name in [*LIBRARY_ADAPTERS, *SKLEARN_ADAPTERS, "random_forest"]:
        assert lines[name].split()[1] == "rank", name
        assert info(name).citation and f"[{info(name).citation}]" in lines[name], name


# ------------------------------------------------------------------------------- missing library
@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_missing_library_is_one_line_naming_the_extra(monkeypatch, name):
    module = LIBRARY_ADAPTERS[name][0]
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now fails, find_spec finds nothing
    est = get_selector(name)
    with pytest.raises(MissingExtraError, match=r"pip install 'fsbench\[baselines\]'") as exc:
        est._validate_params()
    assert "\n" not in str(exc.value) and type(est).__name__ in str(exc.value)
    X, y = _problem(n=20, D=3)
    with pytest.raises(MissingExtraError, match="not installed"):
        est.fit(X, y)
    # listing and describing the selector need no library
    assert info(name).kind == "rank" and resolve(name) is type(est)


def test_missing_library_stops_fsbench_run_before_it_starts(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "skrebate", None)
    cfg = tmp_path / "relief.yaml"
    cfg.write_text(
        "name: relief\ndataset: weston_linear\nselectors: [fisher, relieff]\n"
        "protocol: {n_train: 10, n_test: 5, repeats: 1, n_features: [2]}\n"
    )
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["run", str(cfg), "--out", str(out)])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.strip().splitlines() if ln]
    assert len(lines) == 1 and INSTALL_HINT in lines[0] and "selectors[1]" in lines[0], res.output
    assert "skrebate" in lines[0] and "Traceback" not in res.output
    assert not out.exists()  # nothing started: no lock, no run.json, no task


# ------------------------------------------------------------------------------- HSIC Lasso
def _pyhsiclasso(X, y, num_feat, B=20, M=3):
    lib = _needs("pyHSICLasso")
    model = lib.HSICLasso()
    model.input(X, y.astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.classification(num_feat=num_feat, B=B, M=M, n_jobs=1)
    return model


def test_hsic_lasso_top_s_is_the_library_selection_of_s_features(capsys):
    X, y = _problem(n=60, D=8)
    est = get_selector("hsic_lasso").fit(X, y)
    full = _pyhsiclasso(X, y, num_feat=7)
    np.testing.assert_allclose(est.scores_, full.Xty.ravel())
    assert np.all(
        np.diff((full.path > 0).astype(int), axis=1) >= 0
    )  # no feature left this path: the rule is exact
    for s in (1, 2, 3, 4):
        assert _top(est.ranking_, s) == set(_pyhsiclasso(X, y, num_feat=s).get_index()), s
    capsys.readouterr()
    get_selector("hsic_lasso").fit(X, y)
    assert capsys.readouterr().out == ""  # the library's prints are silenced


def test_hsic_lasso_order_rule():
    """Entry order along the path, then the last entrant, then the rest by HSIC, then by index."""
    path = np.array(
        [
            [0, 0.5, 0.6, 0.7],  # enters first
            [0, 0.0, 0.0, 0.2],  # third
            [0, 0.0, 0.1, 0.1],  # second
            [0, 0.0, 0.0, 0.0],  # in the final active set, coefficient still 0: fourth
            [0, 0.0, 0.0, 0.0],  # never: by HSIC
            [0, 0.0, 0.0, 0.0],
        ]
    )
    hsic = np.array([0.9, 0.1, 0.2, 0.3, 0.05, 0.07])
    assert hsic_lasso_order(path, [0, 2, 1, 3], hsic).tolist() == [0, 2, 1, 3, 5, 4]


def test_hsic_lasso_survives_a_singular_active_set_and_keeps_the_global_random_state(monkeypatch):
    """Two identical features make pyHSICLasso's LARS hit its singular fallback (``np.linalg.linalg``,
    gone in numpy 2): the adapter's shim lets it run. Its np.random.seed calls are undone."""
    X, y = _problem(n=60, D=6)
    X[:, 3] = X[:, 0]
    if not hasattr(np.linalg, "linalg"):  # numpy >= 2: the library alone fails on these data
        get_selector("hsic_lasso").fit(X[:, :2], y)  # installs the shim, which is then taken away
        nlars = sys.modules["pyHSICLasso.nlars"]
        monkeypatch.setattr(nlars, "np", np)
        with pytest.raises(AttributeError, match="linalg"):
            _pyhsiclasso(X, y, num_feat=5)
        monkeypatch.undo()
    np.random.seed(123)  # noqa: NPY002 - the global state is what the library reseeds
    expected = np.random.rand(3)  # noqa: NPY002
    np.random.seed(123)  # noqa: NPY002
    est = get_selector("hsic_lasso").fit(X, y)
    np.testing.assert_array_equal(np.random.rand(3), expected)  # noqa: NPY002
    assert sorted(est.ranking_.tolist()) == list(range(1, 7))
    assert {est.ranking_[0], est.ranking_[3]} & {1, 2}


# ------------------------------------------------------------------------------- mRMR
def test_mrmr_is_the_library_order_with_zero_relevance_last(monkeypatch):
    _needs("mrmr")
    X, y = _problem(n=60, D=8)
    X[:, 6] = 1.0  # F = 0 (NaN): mrmr_classif leaves it out
    for mod in [m for m in sys.modules if m == "mrmr" or m.startswith("mrmr.")]:
        monkeypatch.delitem(sys.modules, mod)  # imported afresh by the adapter, below
    before = list(warnings.filters)
    est = get_selector("mrmr").fit(X, y)
    assert warnings.filters == before  # the library's import-time filterwarnings("ignore") is undone
    from mrmr import mrmr_classif

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = [
            int(j) for j in mrmr_classif(pd.DataFrame(X), pd.Series(y), K=8, n_jobs=1, show_progress=False)
        ]
    assert 6 not in direct and len(direct) == 7
    np.testing.assert_array_equal(est.order_, [*direct, 6])


# ------------------------------------------------------------------------------- skrebate
@pytest.mark.parametrize(
    ("name", "cls", "params"), [("relieff", "ReliefF", {"n_neighbors": 10}), ("multisurf", "MultiSURF", {})]
)
def test_relief_scores_are_skrebate_importances(name, cls, params):
    skrebate = _needs("skrebate")
    X, y = _problem(n=60, D=8)
    est = get_selector(name).fit(X, y)
    lib = getattr(skrebate, cls)(n_features_to_select=8, **params).fit(X, y)
    np.testing.assert_allclose(est.scores_, lib.feature_importances_)
    # a constant feature: left out of the library's input, ranked last, the others' scores unchanged
    Xc = np.insert(X, 2, 5.0, axis=1)
    est_c = get_selector(name).fit(Xc, y)
    assert est_c.ranking_[2] == 9 and np.isnan(est_c.scores_[2])
    np.testing.assert_allclose(np.delete(est_c.scores_, 2), lib.feature_importances_)


def test_relieff_many_classes_are_classes_not_a_continuous_target():
    """skrebate takes more than 10 labels for regression; the adapter states the label type."""
    skrebate = _needs("skrebate")
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(12), 6)
    X = rng.normal(size=(72, 5))
    X[:, 1] += y
    est = get_selector("relieff", n_neighbors=3).fit(X, y)
    lib = skrebate.ReliefF(n_features_to_select=5, n_neighbors=3, label_type="multiclass").fit(X, y)
    np.testing.assert_allclose(est.scores_, lib.feature_importances_)
    assert est.ranking_[1] == 1


def test_relief_categorical_mask_is_passed_to_skrebate():
    skrebate = _needs("skrebate")
    X, y = _problem(n=60, D=5)
    X[:, 2] = np.round(X[:, 2])  # few values: skrebate would call it categorical by itself
    mask = np.zeros(5, dtype=bool)
    est = get_selector("relieff", categorical=mask).fit(X, y)
    lib = skrebate.ReliefF(n_features_to_select=5, n_neighbors=10, categorical_features=[]).fit(X, y)
    np.testing.assert_allclose(est.scores_, lib.feature_importances_)


# ------------------------------------------------------------------------------- Boruta
def test_boruta_refines_the_library_ranking():
    boruta = _needs("boruta")
    X, y = _problem(n=80, D=8)
    est = get_selector("boruta", n_estimators=10, max_iter=6, random_state=7).fit(X, y)
    forest = RandomForestClassifier(max_depth=5, class_weight="balanced", n_jobs=1)
    lib = boruta.BorutaPy(forest, n_estimators=10, max_iter=6, random_state=np.random.RandomState(7)).fit(
        X, y
    )
    np.testing.assert_array_equal(est.boruta_ranking_, lib.ranking_)
    np.testing.assert_allclose(est.importance_history_, lib.importance_history_[1:])
    # ours sorts by BorutaPy's rank first, then by the mean margin over the best shadow
    assert np.all(np.diff(lib.ranking_[est.order_]) >= 0)
    tied = np.flatnonzero(lib.ranking_ == 1)
    assert np.all(np.diff(est.scores_[est.order_[: tied.size]]) <= 0)
    assert est.shadow_max_history_.shape == (est.importance_history_.shape[0],)
    assert est.ranking_[0] == 1


# ------------------------------------------------------------------------------- scikit-learn
def test_anova_f_is_f_classif():
    X, y = _problem(n=60, D=8, classes=3)
    est = get_selector("anova_f").fit(X, y)
    F, _ = f_classif(X, y)
    np.testing.assert_allclose(est.scores_, F)
    np.testing.assert_array_equal(est.order_, np.argsort(-F, kind="stable"))
    # F = (n - C)/(C - 1) x Fisher's C-class ratio: the same ranking
    np.testing.assert_array_equal(est.ranking_, get_selector("fisher").fit(X, y).ranking_)


def test_mutual_info_is_mutual_info_classif_with_the_same_seed():
    X, y = _problem(n=60, D=8)
    est = get_selector("mutual_info", random_state=4).fit(X, y)
    mi = mutual_info_classif(X, y, discrete_features=False, n_neighbors=3, random_state=4)
    np.testing.assert_allclose(est.scores_, mi)
    np.testing.assert_array_equal(est.order_, np.argsort(-mi, kind="stable"))


def test_l1_svm_ranks_by_entry_into_the_liblinear_path():
    X, y = _problem(n=60, D=8, classes=3)
    est = get_selector("l1_svm", n_Cs=12, C_ratio=100.0, random_state=3).fit(X, y)
    assert est.Cs_[0] == pytest.approx(l1_min_c(X, y))
    entry = np.full(8, 12)
    last = None
    for k, C in enumerate(est.Cs_):
        w = LinearSVC(penalty="l1", dual=False, C=C, random_state=3).fit(X, y).coef_
        newly = np.any(w != 0, axis=0) & (entry == 12)
        entry[newly] = k
        last = w
    np.testing.assert_array_equal(est.entry_, entry)
    assert np.all(est.coef_path_[0] == 0)  # at l1_min_c every weight is zero
    assert np.all(np.diff(entry[est.order_]) >= 0)
    np.testing.assert_array_equal(est.order_, np.lexsort((np.arange(8), -np.abs(last).sum(0), entry)))


def test_entry_order_rule():
    coefs = np.zeros((3, 1, 4))
    coefs[1, 0, 2] = 0.1  # enters at 1
    coefs[2, 0, [0, 2, 3]] = [0.3, 0.2, 0.5]  # 0 and 3 enter at 2: 3 first (larger |w| at the end)
    assert entry_order(coefs).tolist() == [2, 3, 0, 1]


def test_permutation_importance_uses_only_held_out_training_samples():
    X, y = _problem(n=60, D=6)
    est = get_selector("rf_permutation", n_estimators=20, n_repeats=3, random_state=5).fit(X, y)
    s_split, s_forest, s_shuffle = check_random_state(5).randint(2**31 - 1, size=3)
    fit, out = holdout_split(y, 1 / 3, int(s_split))
    np.testing.assert_array_equal(est.holdout_, out)
    assert out.size == 20 and not set(fit) & set(out)
    forest = RandomForestClassifier(n_estimators=20, random_state=int(s_forest)).fit(X[fit], y[fit])
    res = permutation_importance(forest, X[out], y[out], n_repeats=3, random_state=int(s_shuffle))
    np.testing.assert_allclose(est.scores_, res.importances_mean)


def test_holdout_split_without_two_samples_per_class():
    y = np.array([0, 0, 0, 0, 1, 2])
    fit, out = holdout_split(y, 0.5, 0)
    assert sorted([*fit, *out]) == list(range(6)) and fit.size == out.size == 3


def test_random_ranking_is_seeded():
    X, y = _problem(n=20, D=30)
    a = get_selector("random_ranking", random_state=1).fit(X, y).ranking_
    b = get_selector("random_ranking", random_state=1).fit(X, y).ranking_
    c = get_selector("random_ranking", random_state=2).fit(X, y).ranking_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c) and sorted(a.tolist()) == list(range(1, 31))
    np.testing.assert_array_equal(a, np.argsort(check_random_state(1).permutation(30)) + 1)


def test_library_modules_are_not_imported_by_fsbench_itself(monkeypatch):
    """The adapters import their library inside fit: importing their module and listing them load none."""
    for module in ("pyHSICLasso", "skrebate", "mrmr", "boruta"):
        monkeypatch.setitem(sys.modules, module, None)  # any import of them would now fail
    monkeypatch.delitem(sys.modules, "fsbench.algorithms.baselines")
    for name in LIBRARY_ADAPTERS:
        assert info(name).citation and info(name).params
    assert baselines.EXTRA == "baselines"
