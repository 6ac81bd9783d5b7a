"""The one pipeline: every config under ``configs/`` is an ``fsbench run`` experiment, an ``fsbench diagnose``
diagnostic or a paper-values file; the protocol's new options (fraction ``n_train``, ``folds``,
``positive``, the classifier mapping, subset searches fitted per S, ``jobs``); ``fsbench diagnose``.

Tests that need a card's data file skip when it is not in ``FSBENCH_DATA_DIR``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from conftest import REPO, cli, result_dicts

from fsbench.config.experiment import (
    ConfigError,
    ProtocolConfig,
    config_kind,
    load_experiment,
    parse_experiment,
    read_config,
)
from fsbench.data import DatasetError, get_card, open_dataset
from fsbench.diagnostics.registry import get_diagnostic
from fsbench.evaluation.protocol import build_selector, load_task_data
from fsbench.evaluation.resampling import draw_split, kfold_parts, train_size
from fsbench.run.plan import expand, validate

CONFIG_FILES = sorted((REPO / "configs").rglob("*.yaml"))
CONFIG_IDS = [p.relative_to(REPO / "configs").as_posix() for p in CONFIG_FILES]
KINDS = {"experiment", "diagnostic", "paper_values"}
COMMAND = {"experiment": "fsbench run", "diagnostic": "fsbench diagnose", "paper_values": "fsbench report"}
UNAVAILABLE_MARK = "DATASET NOT AVAILABLE"


def _kind(path: Path) -> str:
    return config_kind(read_config(path))


def _need(*cards: str) -> None:
    """Skip unless every named card's data are available (FSBENCH_DATA_DIR)."""
    missing = [c for c in cards if not get_card(c).available()]
    if missing:
        pytest.skip(f"dataset(s) {missing} not found (set FSBENCH_DATA_DIR to the mirror)")


def _protocol(**protocol) -> ProtocolConfig:
    """A validated ProtocolConfig (parsing does not open the dataset)."""
    cfg = {"name": "p", "dataset": "any", "selectors": ["fisher"], "protocol": protocol}
    return parse_experiment(cfg).datasets[0].protocol


def _write(path: Path, cfg: dict) -> Path:
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _refusal(cfg: dict, kind: str = "experiment") -> ConfigError:
    """The ConfigError that parsing + validating ``cfg`` raises."""
    with pytest.raises(ConfigError) as err:
        validate(parse_experiment(cfg, "c.yaml", kind=kind))
    return err.value


# ============================================================================ (a) every config under configs/
@pytest.mark.parametrize("path", CONFIG_FILES, ids=CONFIG_IDS)
def test_config_is_exactly_one_kind_and_loads_as_that_kind_only(path):
    raw = read_config(path)
    kind = config_kind(raw)
    assert kind in KINDS, f"{path}: not an experiment, diagnostic or paper values file"
    assert (kind == "paper_values") == (path.name == "paper_values.yaml")
    assert (kind == "diagnostic") == ("diagnostic" in raw)
    for other in ("experiment", "diagnostic"):
        if other == kind:
            continue
        with pytest.raises(ConfigError) as err:
            load_experiment(path, kind=other)
        assert COMMAND[kind] in str(err.value) and "\n" not in str(err.value)
    if kind == "paper_values":
        assert raw["paper"] == path.parent.name
        return
    exp = load_experiment(path, kind=kind)
    assert raw.get("paper", path.parent.name) == path.parent.name
    if kind == "diagnostic":
        # a paper's own diagnostic: module:Class in the paper's folder (its plugins), a Diagnostic subclass
        assert ":" in exp.diagnostic and exp.plugins == (str(path.parent.resolve()),)
        get_diagnostic(exp.diagnostic, exp.plugins).check(exp)  # settings known
    else:
        assert exp.selectors
    for entry in exp.datasets:  # every selector resolves and builds with each kernel (no data needed)
        for kernel in entry.kernels:
            for sel in exp.selectors:
                est = build_selector(sel, kernel, seed=0)
                assert hasattr(est, "fit"), sel


def test_experiment_and_diagnostic_names_are_unique():
    names = {}
    for path in CONFIG_FILES:
        kind = _kind(path)
        if kind in ("experiment", "diagnostic"):
            name = load_experiment(path, kind=kind).name
            assert name not in names, f"{path} and {names.get(name)} share the name {name!r}"
            names[name] = path
    assert len(names) >= 30


def test_paper_reports_find_their_configs():
    """The report modules read results/<paper>/<config stem>/ (the Makefile's output directories)."""
    expected = {
        "paul2015/clinical_bcr": "experiment",
        "ring2015/fig1_toy": "experiment",
        "ring2015/uci": "experiment",
        "takes2011/table2_reconstruction": "diagnostic",
        "takes2011/timing_vs_n": "experiment",
        "takes2011/fig23_gamma_median": "experiment",
        "takes2011/fig23_gamma_quarter": "experiment",
        "kife2011/fig2_projection": "diagnostic",
        "ramona2012/tab2_pixel_bound": "diagnostic",
    }
    for stem, kind in expected.items():
        path = REPO / "configs" / f"{stem}.yaml"
        assert path.exists(), path
        assert _kind(path) == kind, stem
    assert load_experiment(REPO / "configs/takes2011/timing_vs_n.yaml").jobs == 1  # a CPU-time table


RUNNABLE = [p for p in CONFIG_FILES if _kind(p) in ("experiment", "diagnostic")]


@pytest.mark.parametrize("path", RUNNABLE, ids=[p.relative_to(REPO / "configs").as_posix() for p in RUNNABLE])
def test_runnable_config_validates_where_its_data_exist(path):
    kind = _kind(path)
    exp = load_experiment(path, kind=kind)
    if UNAVAILABLE_MARK in path.read_text():
        with pytest.raises((ConfigError, DatasetError)):  # its Makefile target refuses in one line
            validate(exp)
        pytest.skip(f"marked {UNAVAILABLE_MARK}")
    cards = [e.spec for e in exp.datasets if isinstance(e.spec, str)]
    _need(*cards)
    validate(exp)
    tasks = expand(exp)
    assert tasks and len({t.task_id for t in tasks}) == len(tasks)


def test_dry_run_on_a_new_pipeline_config(tmp_path):
    out = tmp_path / "out"
    res = cli("run", REPO / "configs/ring2015/fig1_toy.yaml", "--estimate", "--repeats", 1, "--out", out)
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == (
        f"ring2015_fig1_toy: 5 tasks: 0 done, 5 to run (output {out}; dry run: nothing run or written)"
    )
    timed = [ln for ln in lines if "tasks x" in ln]
    assert len(timed) == 5 and all(ln.endswith("(ok)") for ln in timed)
    assert "B&B Gaussian KL" in res.stdout and "estimate:" in lines[-1]
    assert not out.exists()


# ============================================================================ (d) protocol units
@pytest.mark.parametrize(
    ("fraction", "n", "expected"),
    [
        (0.5, 5, 3),
        (0.25, 10, 3),
        (0.9, 155, 140),
        (0.7, 15, 11),
        (0.9, 452, 407),
        (0.7, 351, 246),
        (0.3, 10, 3),
    ],
)
def test_fraction_train_size_rounds_half_up(fraction, n, expected):
    assert train_size(fraction, n) == expected
    assert train_size(expected, n) == expected  # a count is kept


def test_fraction_train_size_rounds_exact_halves_up_despite_float_error():
    assert train_size(0.7, 345) == 242


def _rows(y: np.ndarray) -> SimpleNamespace:
    """A card-like dataset: X = the row index, so that splits can be read back."""
    return SimpleNamespace(X=np.arange(y.size, dtype=float)[:, None], y=y)


@pytest.mark.parametrize(
    ("counts", "train", "test"), [((30, 10), (27, 9), (3, 1)), ((32, 123), (29, 111), (3, 12))]
)
def test_fraction_split_is_stratified_and_test_rest_is_the_complement(counts, train, test):
    y = np.repeat([0, 1], counts)
    ds, proto = _rows(y), _protocol(n_train=0.9, test="rest")
    X_tr, y_tr, X_te, y_te, redraws = draw_split(ds, proto, 0.9, np.random.default_rng(4))
    assert tuple(np.bincount(y_tr)) == train and tuple(np.bincount(y_te)) == test and redraws == 0
    assert sorted(np.concatenate([X_tr, X_te])[:, 0]) == list(range(y.size))  # disjoint, nothing left out
    again = draw_split(ds, proto, 0.9, np.random.default_rng(4))
    assert np.array_equal(again[0], X_tr)
    other = draw_split(ds, proto, 0.9, np.random.default_rng(5))
    assert not np.array_equal(other[0], X_tr)


def test_official_test_with_n_test_is_a_stratified_subset_of_the_official_split():
    """``test: official`` + ``n_test``: the training draw is the one without ``n_test`` (drawn first), the
    test rows a stratified subset of the official split only (KIFE's Letter: 1500 of the 4000)."""
    y = np.repeat([0, 1, 2], (40, 30, 30))
    y_off = np.repeat([0, 1, 2], (50, 30, 20))
    ds = SimpleNamespace(
        X=np.arange(y.size, dtype=float)[:, None],
        y=y,
        X_test=1000.0 + np.arange(y_off.size, dtype=float)[:, None],
        y_test=y_off,
    )
    whole = draw_split(ds, _protocol(n_train=20, test="official"), 20, np.random.default_rng(3))
    sub = draw_split(ds, _protocol(n_train=20, test="official", n_test=40), 20, np.random.default_rng(3))
    assert np.array_equal(sub[0], whole[0])  # the same training rows
    assert whole[2].shape[0] == 100 and sub[2].shape[0] == 40
    assert (sub[2][:, 0] >= 1000).all() and np.unique(sub[2][:, 0]).size == 40  # official rows, no repeats
    assert np.array_equal(y_off[(sub[2][:, 0] - 1000).astype(int)], sub[3])  # labels travel with the rows
    assert tuple(np.bincount(sub[3])) == (20, 12, 8)  # the official split's proportions
    other = draw_split(ds, _protocol(n_train=20, test="official", n_test=40), 20, np.random.default_rng(4))
    assert not np.array_equal(np.sort(other[2][:, 0]), np.sort(sub[2][:, 0]))


def test_kfold_folds_partition_the_rows_with_the_class_proportions():
    y = np.repeat([0, 1, 2], (20, 13, 7))
    ds, proto = _rows(y), _protocol(folds=4)
    tested = []
    for fold in range(4):
        X_tr, y_tr, X_te, y_te, _ = draw_split(ds, proto, None, np.random.default_rng(11), fold)
        assert sorted(np.concatenate([X_tr, X_te])[:, 0]) == list(range(y.size))
        tested.append(X_te[:, 0].astype(int))
        per_class = np.bincount(y_te, minlength=3)
        assert np.all(np.abs(per_class - np.array([20, 13, 7]) / 4) < 1), per_class
    assert sorted(np.concatenate(tested)) == list(range(y.size))  # every row tested exactly once
    other = draw_split(ds, proto, None, np.random.default_rng(12), 0)[2][:, 0]
    assert not np.array_equal(np.sort(other), np.sort(tested[0]))  # another repeat, another partition


def test_kfold_fold_sizes_differ_by_at_most_one():
    sizes = np.bincount(kfold_parts(np.repeat([0, 1, 2], 50), 3, np.random.default_rng(0)), minlength=3)
    assert sizes.max() - sizes.min() <= 1, sizes


def test_kfold_every_selector_and_fold_of_a_repeat_share_one_partition(tmp_path, pinned_commit):
    _need("iris")
    cfg = {
        "name": "kfold",
        "seed": 9,
        "dataset": "iris",
        "kernel": "linear",
        "selectors": ["fisher", "all"],
        "protocol": {"folds": 3, "repeats": 2, "standardize": False, "n_features": [2]},
    }
    exp = parse_experiment(cfg)
    validate(exp)
    tasks = expand(exp)
    assert len(tasks) == 2 * 3 * 2 and {t.fold for t in tasks} == {0, 1, 2}
    X = np.asarray(open_dataset("iris").X, dtype=float)
    for repeat in (0, 1):
        test_sets: dict[int, list[np.ndarray]] = {}
        for t in (t for t in tasks if t.repeat == repeat):
            data = load_task_data(t, np.random.default_rng(t.split_seed))
            test_sets.setdefault(t.fold, []).append(data.X_te)
            assert data.X_tr.shape[0] + data.X_te.shape[0] == 150
        for arrays in test_sets.values():  # both selectors see the same test rows
            assert all(np.array_equal(a, arrays[0]) for a in arrays)
        union = np.concatenate([a[0] for a in test_sets.values()])
        assert np.array_equal(union[np.lexsort(union.T)], X[np.lexsort(X.T)])  # the rows, each once

    out = tmp_path / "out"
    res = cli("run", _write(tmp_path / "kfold.yaml", cfg), "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    rows = result_dicts(out)
    assert {r["fold"] for r in rows} == {"0", "1", "2"} and {r["status"] for r in rows} == {"ok"}
    seeds = {r["repeat"]: set() for r in rows}
    for r in rows:
        seeds[r["repeat"]].add(r["split_seed"])
        assert int(r["n_train"]) + int(r["n_test"]) == 150
    assert all(len(s) == 1 for s in seeds.values()) and len(set.union(*seeds.values())) == 2
    for repeat in ("0", "1"):
        for sel in ("fisher", "all"):
            sizes = [int(r["n_test"]) for r in rows if (r["repeat"], r["selector"]) == (repeat, sel)]
            assert sum(sizes) == 150 and all(45 <= n <= 55 for n in sizes)
        folds = {(r["fold"], r["n_test"]) for r in rows if r["repeat"] == repeat}
        assert len(folds) == 3  # both selectors: the same fold sizes


def test_positive_label_gives_two_classes_and_a_foreign_label_is_refused(tmp_path):
    _need("iris")
    cfg = {
        "name": "pos",
        "seed": 1,
        "dataset": [{"name": "iris", "positive": "Iris-setosa"}],
        "selectors": ["fisher"],
        "protocol": {"n_train": 0.5, "test": "rest", "repeats": 1},
    }
    exp = parse_experiment(cfg)
    validate(exp)
    t = expand(exp)[0]
    data = load_task_data(t, np.random.default_rng(t.split_seed))
    assert set(np.unique(data.y_tr)) == {0, 1} and set(np.unique(data.y_te)) == {0, 1}
    assert int(data.y_tr.sum()) == 25 and int(data.y_te.sum()) == 25  # setosa = class 1, stratified

    bad = {**cfg, "dataset": [{"name": "iris", "positive": "Iris-foo"}]}
    err = _refusal(bad)
    assert err.key == "dataset[0].positive" and "Iris-foo" in err.message
    res = cli("run", _write(tmp_path / "bad.yaml", bad), "--out", tmp_path / "out")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1 and "dataset[0].positive" in res.stderr
    assert not (tmp_path / "out").exists()


def test_positive_label_of_a_synthetic_dataset_is_checked():
    cfg = {
        "name": "pos",
        "dataset": [{"name": "weston_nonlinear", "positive": 5}],
        "selectors": ["fisher"],
        "protocol": {"n_train": 20, "n_test": 10, "repeats": 1},
    }
    assert _refusal(cfg).key == "dataset[0].positive"


KNN_TOY = {
    "name": "knn",
    "dataset": "weston_nonlinear",
    "selectors": ["fisher"],
    "protocol": {"n_train": [10, 20], "n_test": 10, "repeats": 1, "classifier": "knn"},
}


def test_knn_k_above_the_smallest_training_set_is_refused_at_config_time():
    err = _refusal({**KNN_TOY, "protocol": {**KNN_TOY["protocol"], "k": 11}})
    assert err.key == "protocol.k" and "k = 11" in err.message and "10" in err.message
    validate(parse_experiment({**KNN_TOY, "protocol": {**KNN_TOY["protocol"], "k": 10}}))


def test_knn_k_with_fractions_and_folds_is_checked_against_the_card():
    _need("iris")
    base = {"name": "knn", "dataset": "iris", "selectors": ["fisher"]}
    frac = {"n_train": 0.05, "test": "rest", "repeats": 1, "classifier": "knn"}  # 7.5 -> 8 rows
    assert _refusal({**base, "protocol": {**frac, "k": 9}}).key == "protocol.k"
    validate(parse_experiment({**base, "protocol": {**frac, "k": 8}}))
    folds = {"folds": 3, "repeats": 1, "classifier": "knn"}  # 100 training rows per fold
    assert "has 100" in _refusal({**base, "protocol": {**folds, "k": 101}}).message
    validate(parse_experiment({**base, "protocol": {**folds, "k": 100}}))


def test_knn_k_refusal_names_the_classifier_mapping_key():
    proto = {**KNN_TOY["protocol"], "classifier": {"name": "knn", "k": 11}}
    assert _refusal({**KNN_TOY, "protocol": proto}).key == "protocol.classifier.k"


@pytest.mark.parametrize(
    ("classifier", "extra", "key", "text"),
    [
        ("clinical_svm", {}, "protocol.C", "fixed C"),
        ({"name": "clinical_svm", "C": "joachims"}, {}, "protocol.classifier.C", "fixed C"),
        ({"name": "knn", "C": 1.0}, {}, "protocol.classifier.C", "does not apply to classifier 'knn'"),
        ({"name": "svm", "k": 3}, {}, "protocol.classifier.k", "does not apply"),
        (
            {"name": "svm_coupling", "class_weight": "balanced"},
            {},
            "protocol.classifier.class_weight",
            "apply",
        ),
        ({"name": "svm", "class_weight": "inverse"}, {}, "protocol.classifier.class_weight", "balanced"),
        ({"name": "svm", "C": 2.0}, {"C": 3.0}, "protocol.C", "both"),
        ({"name": "lda"}, {}, "protocol.classifier.name", "clinical_svm"),
        ({"name": "svm", "gamma": 1}, {}, "protocol.classifier.gamma", "unknown key"),
    ],
)
def test_classifier_options_that_do_not_apply_are_refused(classifier, extra, key, text):
    cfg = {**KNN_TOY, "protocol": {"n_train": 10, "n_test": 10, "classifier": classifier, **extra}}
    with pytest.raises(ConfigError) as err:
        parse_experiment(cfg)
    assert err.value.key == key and text in err.value.message


def test_classifier_mapping_sets_the_protocol():
    p = _protocol(
        n_train=0.7, test="rest", classifier={"name": "clinical_svm", "C": 1, "class_weight": "balanced"}
    )
    assert (p.classifier, p.C, p.class_weight, p.n_train, p.test) == (
        "clinical_svm",
        1.0,
        "balanced",
        (0.7,),
        "rest",
    )
    p = _protocol(n_train=10, n_test=5, classifier={"name": "knn", "k": 3})
    assert (p.classifier, p.k, p.C) == ("knn", 3, "joachims")


@pytest.mark.parametrize(
    ("protocol", "key"),
    [
        ({"folds": 3, "n_train": 10}, "protocol.n_train"),
        ({"folds": 3, "test": "rest"}, "protocol.test"),
        ({"folds": 3, "n_test": 5}, "protocol.n_test"),
        ({"folds": 1}, "protocol.folds"),
        ({"n_train": 1.0, "test": "rest"}, "protocol.n_train"),
        ({"n_train": [0.5, 0.5], "test": "rest"}, "protocol.n_train"),
        ({"n_train": 0.5, "test": "rest", "n_select": 5}, "protocol.n_select"),
    ],
)
def test_resampling_schemes_refuse_keys_that_do_not_apply(protocol, key):
    with pytest.raises(ConfigError) as err:
        _protocol(**protocol)
    assert err.value.key == key


def test_fractions_and_folds_are_refused_on_synthetic_data():
    for proto in ({"n_train": 0.5, "n_test": 10}, {"folds": 3}):
        err = _refusal({**KNN_TOY, "protocol": {**proto, "repeats": 1}})
        assert err.key in ("protocol.n_train", "protocol.folds") and "count" in err.message


BNB = {"criterion": "mean_distance", "search": "chen", "kernel": "poly", "degree": 3, "offset": 1.0}
SUBSET_CFG = {
    "name": "subsets",
    "seed": 5,
    "dataset": "ring_fig1",
    "kernel": {"name": "rbf", "gamma": "n_features"},
    "protocol": {"n_train": 60, "n_test": 50, "repeats": 2, "n_features": [2, 3], "C": 1.0},
    "selectors": [
        {"name": "branch_and_bound", "label": "B&B", "params": BNB},
        {"name": "branch_and_bound", "label": "B&B d=2", "params": {**BNB, "d": 2}},
    ],
}


@pytest.fixture(scope="module")
def subset_rows(tmp_path_factory) -> list[dict[str, str]]:
    from conftest import PINNED_COMMIT

    import fsbench.run.engine

    tmp = tmp_path_factory.mktemp("subsets")
    mp = pytest.MonkeyPatch()
    mp.setattr(fsbench.run.engine, "git_commit", lambda: (PINNED_COMMIT, False))
    try:
        res = cli("run", _write(tmp / "c.yaml", SUBSET_CFG), "--out", tmp / "out", "--no-progress")
    finally:
        mp.undo()
    assert res.exit_code == 0, res.stderr
    return result_dicts(tmp / "out")


def test_subset_search_is_fitted_once_per_S_with_d_equal_S(subset_rows):
    rows = [r for r in subset_rows if r["selector"] == "B&B"]
    assert len(rows) == 2 * 2  # one row per repeat and S
    by = {(r["repeat"], int(r["n_features"])): r for r in rows}
    for (_, S), r in by.items():
        subset = [int(i) for i in r["subset"].split()]
        assert len(subset) == len(set(subset)) == S and set(subset) <= {0, 1, 2, 3}
        assert int(r["n_evaluations"]) >= 1 and np.isfinite(float(r["criterion_value"]))
    for repeat in ("0", "1"):  # mean distance with (1 + x.z)^3 is monotone: J grows with d
        assert float(by[(repeat, 3)]["criterion_value"]) >= float(by[(repeat, 2)]["criterion_value"])
    assert len({r["split_seed"] for r in subset_rows if r["repeat"] == "0"}) == 1


def test_subset_search_with_d_fixed_by_the_config_is_fitted_once(subset_rows):
    rows = [r for r in subset_rows if r["selector"] == "B&B d=2"]
    assert len(rows) == 4
    for repeat in ("0", "1"):
        pair = [r for r in rows if r["repeat"] == repeat]
        assert [int(r["n_features"]) for r in pair] == [2, 3]
        assert len({r["subset"] for r in pair}) == 1 and len(pair[0]["subset"].split()) == 2
        assert len({r["fit_cpu_s"] for r in pair}) == 1  # one fit, one timing
        assert all(json.loads(r["params"])["d"] == 2 for r in pair)


def test_subset_search_rows_record_the_d_they_were_fitted_with(subset_rows):
    rows = [r for r in subset_rows if r["selector"] == "B&B"]
    assert [json.loads(r["params"])["d"] for r in rows] == [int(r["n_features"]) for r in rows]


# ============================================================================ (e) fsbench diagnose
#: takes_reconstruction on the Weston nonlinear toy: synthetic, no mirror needed.
DIAG = {
    "name": "tiny_reconstruction",
    "diagnostic": "takes_reconstruction:TakesReconstruction",  # the paper's own, in its folder
    "plugins": [str(REPO / "configs" / "takes2011")],
    "seed": 3,
    "dataset": "weston_nonlinear",
    "kernel": {"name": "rbf", "gamma": "median"},
    "protocol": {"n_train": 30, "n_test": 20, "repeats": 2},
    "settings": {"gammas": ["median"], "learners": ["kobl", "kgs"]},
}


def test_diagnose_writes_its_columns_with_the_run_splits_resumes_and_refuses_changes(tmp_path, pinned_commit):
    cfg = _write(tmp_path / "diag.yaml", DIAG)
    out = tmp_path / "diag"
    res = cli("diagnose", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0, res.stderr
    assert "tiny_reconstruction: 2 tasks (0 resumed, 2 run, 0 failed)" in res.stdout
    for f in ("summary.csv", "table2.md", "table2_E.png"):
        assert str(out / f) in res.stdout and (out / f).exists()
    with open(out / "results.csv", newline="") as fh:
        header = next(csv.reader(fh))
    assert header == get_diagnostic(DIAG["diagnostic"], DIAG["plugins"]).all_columns()
    rows = result_dicts(out)
    assert len(rows) == 2 * 2 and {r["learner"] for r in rows} == {"kobl", "kgs"}
    assert {(r["n_train"], r["n_test"], r["status"]) for r in rows} == {("30", "20", "ok")}
    assert not (out / "rankings.csv").exists()

    # an fsbench run experiment with the same seed, dataset, n_train and repeats sees the same splits
    exp_cfg = {k: v for k, v in DIAG.items() if k not in ("diagnostic", "settings")}
    exp_cfg.update(name="same_splits", selectors=["fisher"])
    res = cli("run", _write(tmp_path / "exp.yaml", exp_cfg), "--out", tmp_path / "exp", "--no-progress")
    assert res.exit_code == 0, res.stderr
    run_seeds = {r["repeat"]: r["split_seed"] for r in result_dicts(tmp_path / "exp")}
    diag_seeds = {r["repeat"]: r["split_seed"] for r in rows}
    assert diag_seeds == run_seeds and len(set(run_seeds.values())) == 2

    before = (out / "results.csv").read_bytes()
    res = cli("diagnose", cfg, "--out", out, "--no-progress")
    assert res.exit_code == 0 and "2 tasks (2 resumed, 0 run, 0 failed)" in res.stdout
    assert (out / "results.csv").read_bytes() == before

    changed = _write(
        tmp_path / "changed.yaml", {**DIAG, "settings": {**DIAG["settings"], "gammas": ["median/4"]}}
    )
    res = cli("diagnose", changed, "--out", out, "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert "different effective config" in res.stderr and "--fresh" in res.stderr
    assert (out / "results.csv").read_bytes() == before


def test_diagnose_refuses_an_unknown_setting_in_one_line(tmp_path):
    cfg = _write(tmp_path / "diag.yaml", {**DIAG, "settings": {**DIAG["settings"], "gamma": 0.1}})
    res = cli("diagnose", cfg, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert "settings.gamma" in res.stderr and str(cfg) in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("command", "what", "expected"),
    [
        ("run", "diagnostic", "fsbench diagnose"),
        ("diagnose", "experiment", "fsbench run"),
        ("run", "paper_values", "fsbench report"),
        ("diagnose", "paper_values", "fsbench report"),
    ],
)
def test_a_file_of_another_kind_is_refused_naming_the_right_command(tmp_path, command, what, expected):
    path = {
        "diagnostic": _write(tmp_path / "diag.yaml", DIAG),
        "experiment": REPO / "configs/ring2015/fig1_toy.yaml",
        "paper_values": REPO / "configs/takes2011/paper_values.yaml",
    }[what]
    res = cli(command, path, "--out", tmp_path / "out", "--no-progress")
    assert res.exit_code == 2 and len(res.stderr_lines) == 1
    assert expected in res.stderr and str(path) in res.stderr
    assert not (tmp_path / "out").exists()


def test_committed_diagnostic_run_on_the_fsbench_run_splits():
    """table2_reconstruction and the fig23 experiments share seed, datasets and n_train: the same splits."""
    diag = load_experiment(REPO / "configs/takes2011/table2_reconstruction.yaml", kind="diagnostic")
    exp = load_experiment(REPO / "configs/takes2011/fig23_gamma_median.yaml")
    seeds = {(t.dataset, t.n_train, t.repeat): t.split_seed for t in expand(diag)}
    other = {(t.dataset, t.n_train, t.repeat): t.split_seed for t in expand(exp)}
    assert seeds and seeds == other
