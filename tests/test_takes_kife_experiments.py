"""Smoke tests of the Xu 2011 (TAKES) and Liu 2011 (KIFE) experiment scripts on tiny synthetic sizes.

Every script runs end to end on the Weston toys (no dataset mirror needed) in well under a second or two;
the committed configs and paper values are checked for consistency (no data needed either).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from fsbench.algorithms import kernel_space
from fsbench.algorithms.kernels import resolve_gamma
from fsbench.config import load_experiment
from fsbench.experiments import (
    common,
    kife_projection,
    paper_report,
    scaled_gamma,
    takes_figures,
    takes_table2,
    takes_timing,
)
from fsbench.protocol import Task, draw_split, standardize
from fsbench.runner import run_experiment

REPO = Path(__file__).resolve().parents[1]
TAKES_CFG = REPO / "configs" / "takes2011"
KIFE_CFG = REPO / "configs" / "kife2011"


def _write(path: Path, cfg: dict) -> Path:
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _script_cfg(tmp_path: Path, settings: dict, **protocol) -> Path:
    prot = {"n_train": 30, "n_test": 20, "repeats": 2, **protocol}
    return _write(
        tmp_path / "script.yaml",
        {
            "name": "tiny_script",
            "seed": 3,
            "dataset": "weston_nonlinear",
            "kernel": {"name": "rbf", "gamma": "median"},
            "protocol": prot,
            "settings": settings,
        },
    )


# ------------------------------------------------------------------------------------------ scaled gamma
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("median", ("median", 1.0)),
        ("median/4", ("median", 0.25)),
        ("scale*2", ("scale", 2.0)),
        (0.5, (0.5, 1.0)),
    ],
)
def test_parse_gamma(spec, expected):
    assert scaled_gamma.parse_gamma(spec) == expected


@pytest.mark.parametrize("spec", ["mean/4", "median/0", "median/-1", "median^2", -1.0, None])
def test_parse_gamma_refuses(spec):
    with pytest.raises(ValueError):
        scaled_gamma.parse_gamma(spec)


def test_scaled_takes_equals_base_with_the_resolved_number():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    g = resolve_gamma("median", X) / 4
    est = scaled_gamma.TAKES(gamma="median/4").fit(X, y)
    ref = kernel_space.TAKES(gamma=g).fit(X, y)
    assert est.gamma == "median/4" and est.gamma_ == pytest.approx(g)
    assert est.basis_.kernel_.gamma == pytest.approx(g)
    np.testing.assert_allclose(est.transform(X), ref.transform(X))
    kda = scaled_gamma.KDA(gamma="median/4", complete=True).fit(X, y)
    assert kda.n_components_ == kernel_space.KOBL(gamma=g).fit(X).n_components_


# ------------------------------------------------------------------------------------------ splits
def test_script_splits_equal_fsbench_run_splits(tmp_path):
    cfg = common.load_script_config(_script_cfg(tmp_path, {}))
    entry = cfg.experiment.datasets[0]
    sp = common.draw(entry, cfg.experiment.seed, 30, 1)
    task = Task(
        experiment="x",
        dataset=entry.label,
        spec=entry.spec,
        kernel=entry.kernels[0],
        selector=cfg.experiment.selectors[0],
        n_train=30,
        repeat=1,
        protocol=entry.protocol,
        seed=cfg.experiment.seed,
    )
    from fsbench.data import open_dataset

    rng = np.random.default_rng(task.split_seed)
    X_tr, y_tr, X_te, _, _ = draw_split(open_dataset(entry.spec), entry.protocol, 30, rng)
    X_tr, X_te = standardize(X_tr, X_te)
    assert sp.split_seed == task.split_seed
    np.testing.assert_array_equal(sp.X_train, X_tr)
    np.testing.assert_array_equal(sp.y_train, y_tr)
    np.testing.assert_array_equal(sp.X_test, X_te)


def test_script_config_overrides_and_refusals(tmp_path):
    cfg = common.load_script_config(_script_cfg(tmp_path, {"a": 1}), repeats=5, seed=9)
    assert cfg.experiment.datasets[0].protocol.repeats == 5 and cfg.experiment.seed == 9
    assert cfg.settings == {"a": 1} and cfg.effective["settings"] == {"a": 1}
    bad = _write(
        tmp_path / "bad.yaml", {"name": "b", "dataset": "weston_nonlinear", "protocol": {"n_train": 0}}
    )
    with pytest.raises(common.ConfigError):
        common.load_script_config(bad)


# ------------------------------------------------------------------------------------------ scripts
def test_takes_table2_tiny(tmp_path):
    cfg = _script_cfg(
        tmp_path, {"gammas": ["median/4", 0.05], "paper_values": str(TAKES_CFG / "paper_values.yaml")}
    )
    df = takes_table2.run(cfg, tmp_path / "t2", jobs=1)
    assert len(df) == 2 * 2 * len(takes_table2.LEARNERS)
    kgs = df[df["learner"] == "kgs"]
    assert (kgs["E_train"] < 1e-6).all() and (kgs["dim"] <= 30).all()
    kobl = df[df["learner"] == "kobl"]
    assert (kobl["E_train"] <= kobl["kobl_bound"] + 1e-12).all()  # Theorem 1
    # span(KGS) contains span(KOBL): KGS reconstructs any point at least as well
    m = df.pivot_table(index=["repeat", "gamma_rule"], columns="learner", values="E_test")
    assert (m["kgs"] <= m["kobl"] + 1e-9).all()
    kda = df[df["learner"] == "kda"]
    assert (kda["dim_requested"].to_numpy() == kobl["dim"].to_numpy()).all()  # KDA asks for KOBL's Dim
    assert (kda["dim"].to_numpy() <= kobl["dim"].to_numpy()).all()  # (capped at the centred rank N - 1)
    for f in ("results.csv", "summary.csv", "table2.md", "table2_E.png", "run.json"):
        assert (tmp_path / "t2" / f).exists()


def test_takes_timing_tiny(tmp_path):
    cfg = _script_cfg(
        tmp_path, {"learners": ["kobl", "kgs", "takes"], "slope_from": 10}, n_train=[20, 40], repeats=1
    )
    df = takes_timing.run(cfg, tmp_path / "tt")
    assert set(df["learner"]) == {"kobl", "kgs", "takes"} and len(df) == 6
    assert (df["fit_cpu_s"] >= 0).all()
    sl = takes_timing.slopes(df, 10)
    assert set(sl["learner"]) == {"kobl", "kgs", "takes"}
    assert (tmp_path / "tt" / "timing.png").exists() and "slope" in (
        tmp_path / "tt" / "timing.md"
    ).read_text()


def test_kife_projection_tiny(tmp_path):
    methods = {
        "GDA": {"name": "gda", "params": {}},
        "MMI": {"name": "mmi", "params": {"n_components": 2, "max_iter": 2}},
        "KIFE": {"name": "kife", "params": {"n_components": 2, "max_iter": 2, "validation_fraction": None}},
    }
    cfg = _script_cfg(tmp_path, {"methods": methods, "class_names": {"-1": "minus", "1": "plus"}}, repeats=1)
    acc = kife_projection.run(cfg, tmp_path / "kp")
    assert list(acc["method"]) == ["GDA", "MMI", "KIFE"]
    assert acc["accuracy_2d"].between(0, 1).all()
    coords = pd.read_csv(tmp_path / "kp" / "projections.csv")
    assert len(coords) == 3 * (30 + 20)
    assert (tmp_path / "kp" / "projection.png").exists() and (
        tmp_path / "kp" / "projection_kife.png"
    ).exists()


def test_takes_figures_and_report_from_a_tiny_run(tmp_path, pinned_commit):
    g = "median/4"
    run_cfg = _write(
        tmp_path / "fig.yaml",
        {
            "name": "tiny_fig23",
            "seed": 1,
            "dataset": "weston_nonlinear",
            "kernel": {"name": "rbf", "gamma": "median"},
            "selectors": [
                {"name": "all", "label": "KNNC"},
                {"name": "fsbench.experiments.scaled_gamma:TAKES", "label": "TAKES", "params": {"gamma": g}},
                {
                    "name": "fsbench.experiments.scaled_gamma:KGSKFFS",
                    "label": "KGS+KFFS",
                    "params": {"gamma": g},
                },
                {"name": "fsbench.experiments.scaled_gamma:FSKGS", "label": "FSKGS", "params": {"gamma": g}},
                {
                    "name": "fsbench.experiments.scaled_gamma:KDA",
                    "label": "KDA",
                    "params": {"gamma": g, "complete": True},
                },
            ],
            "protocol": {
                "n_train": 30,
                "n_test": 30,
                "repeats": 2,
                "classifier": "knn",
                "k": 1,
                "n_features": [1, 2, 5, 10],
            },
        },
    )
    results = tmp_path / "results"
    run_experiment(load_experiment(run_cfg), results / "fig23_gamma_quarter")
    s = takes_figures.run(results / "fig23_gamma_quarter")
    assert set(s["method"]) == {"KNNC", "TAKES", "KGS+KFFS", "FSKGS", "KDA"}
    knnc = s[s["method"] == "KNNC"].iloc[0]
    assert knnc["dim_min"] == 52 and np.isnan(knnc["acc_best_mean"])
    assert (results / "fig23_gamma_quarter" / "figures" / "fig3.png").exists()
    text = paper_report.takes_report(results, TAKES_CFG, tmp_path)
    assert "Figs. 2–3" in text and "Fig. 3 'Compared with KNNC" in text
    defaults = text.split("## Choices where the paper is silent")[1]
    assert "median/4" in defaults and "table2_reconstruction.yaml" in defaults


# ------------------------------------------------------------------------------------------ committed configs
def test_committed_run_configs_load_and_selectors_resolve():
    from fsbench.protocol import build_selector

    names = []
    for d in (TAKES_CFG, KIFE_CFG):
        for f in sorted(d.glob("*.yaml")):
            raw = yaml.safe_load(f.read_text())
            if f.name == "paper_values.yaml":
                continue
            if "script" in raw:
                cfg = common.load_script_config(f)
                assert cfg.script and cfg.script.startswith("fsbench.experiments.")
                names.append(cfg.name)
                continue
            exp = load_experiment(f)
            names.append(exp.name)
            for sel in exp.selectors:
                est = build_selector(sel, exp.datasets[0].kernels[0], 0)
                assert hasattr(est, "fit")
            assert exp.datasets[0].protocol.classifier == "knn"
    assert len(names) == len(set(names))
    assert {"takes2011_table2", "takes2011_timing", "kife2011_fig2_projection"} <= set(names)


def test_paper_values_layout():
    tpv = common.load_paper_values(TAKES_CFG / "paper_values.yaml")
    t2 = common.paper_cells(tpv, "table2")
    assert len(t2) == 24 and set(t2["method"]) == {"kobl", "kgs", "kpca", "kda"}
    sizes = {d["card"]: d["n_train"] for d in tpv["datasets"]}
    for _, c in t2[t2["method"].isin(["kgs", "kpca"])].iterrows():
        assert c["dim"] == sizes[c["dataset"]]  # KGS/KPCA Dim = training size (§4.1)
    kobl = t2[t2["method"] == "kobl"].set_index("dataset")
    kda = t2[t2["method"] == "kda"].set_index("dataset")
    assert (kobl["dim"] == kda["dim"]).all()  # KDA has KOBL's Dim
    assert (kobl["value"] <= kobl["dim"] / pd.Series(sizes)).all()  # Theorem 1 with f(t) = t, r11 = 1
    kpv = common.load_paper_values(KIFE_CFG / "paper_values.yaml")
    for tid in ("table2_accuracy", "table2_time"):
        cells = common.paper_cells(kpv, tid)
        assert len(cells) == 12 and set(cells["method"]) == {"gda", "mmi", "kife"}
