"""The papers' report hooks (``configs/<paper>/hooks.py``), diagnostics and helpers on tiny inputs.

Paul 2015 (Kuncheva index, k grid, clinical-kernel SVM), Ring 2015 (Fig. 1 toy, subset searches, report
helpers), Xu 2011 (TAKES Table 2 reconstruction, timing, Figs. 2–3 and the report), Liu 2011 (KIFE
projection), the Ramona Table II pixel bound, and the TAKES/KIFE paper values. The hooks are loaded by file
path, as ``fsbench report`` loads them. Everything runs on synthetic data (no dataset mirror needed).
"""

from __future__ import annotations

import importlib
from math import comb
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from fsbench.algorithms.branch_bound import BranchAndBound, ExhaustiveWrapper
from fsbench.config.experiment import ConfigError, load_experiment, parse_experiment
from fsbench.data import open_dataset
from fsbench.diagnostics.registry import get_diagnostic
from fsbench.evaluation.classifiers import fit_predict
from fsbench.evaluation.plugins import activate
from fsbench.evaluation.protocol import _metrics
from fsbench.report import write_report
from fsbench.results.loading import Results, read_results, read_run
from fsbench.results.paper_values import paper_cells, read_paper_values
from fsbench.results.producers.metric_vs_k import kuncheva_vs_k
from fsbench.results.producers.own_dimension import draw_figures
from fsbench.results.producers.subsets import choice_summary, search_summary, speedups
from fsbench.results.producers.timing import load_timing, plot_timing, slopes, timing_table
from fsbench.run.engine import run_experiment

TAKES_CFG = REPO / "configs" / "takes2011"
KIFE_CFG = REPO / "configs" / "kife2011"
RAMONA_CFG = REPO / "configs" / "ramona2012"


def declared(paper: Path, kind: str) -> dict:
    """The first producer of ``kind`` a paper folder declares (its ``report.producers``)."""
    pv = read_paper_values(paper / "paper_values.yaml")
    return next(p for p in pv["report"]["producers"] if p["kind"] == kind)


RING_CFG = REPO / "configs" / "ring2015"
#: The papers' own diagnostics, in their folders: named module:Class with the folder as plugins.
TAKES_DIAG = {"diagnostic": "takes_reconstruction:TakesReconstruction", "plugins": [str(TAKES_CFG)]}
KIFE_DIAG = {"diagnostic": "kife_projection:KifeProjection", "plugins": [str(KIFE_CFG)]}
USPS_DIAG = {"diagnostic": "usps_pixel_bound:UspsPixelBound", "plugins": [str(RAMONA_CFG)]}
activate([str(RAMONA_CFG)])
_usps = importlib.import_module("usps_pixel_bound")
multiclass_error, pairwise_error, paper_table2, render = (
    _usps.multiclass_error,
    _usps.pairwise_error,
    _usps.paper_table2,
    _usps.render,
)


def _write(path: Path, cfg: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _run(cfg: dict, path: Path, out: Path, kind: str = "experiment") -> pd.DataFrame:
    """Run a config dict in-process (one job) into ``out``; return its results.csv."""
    exp = load_experiment(_write(path, cfg), kind=kind)
    summary = run_experiment(exp, out)
    assert summary.n_failed == 0, pd.read_csv(out / "results.csv")["message"].dropna().tolist()
    return pd.read_csv(out / "results.csv")


# ------------------------------------------------------------------------------------------ Paul 2015
def test_paul_stability_is_kuncheva_below_D_without_the_baseline(tmp_path):
    # two resamples of one selector over D = 4 features, and the all-features baseline
    res, ranks = [], []
    for rep, order in enumerate(["0 1 2 3", "0 2 1 3"]):
        for sel, o in (("s", order), ("all", "0 1 2 3")):
            tid = f"{sel}{rep}"
            ks = [1, 2, 4] if sel == "s" else [4]
            res += [
                {
                    "experiment": "e",
                    "dataset": "a",
                    "kernel": "linear",
                    "selector": sel,
                    "selector_name": sel,
                    "n_train": 10,
                    "repeat": rep,
                    "n_features": k,
                    "error": 0.1,
                    "status": "ok",
                    "task_id": tid,
                }
                for k in ks
            ]
            ranks.append(
                {
                    "task_id": tid,
                    "experiment": "e",
                    "dataset": "a",
                    "kernel": "linear",
                    "selector": sel,
                    "n_train": 10,
                    "repeat": rep,
                    "fold": "",
                    "order": o,
                    "scores": "",
                }
            )
    pd.DataFrame(res).to_csv(tmp_path / "results.csv", index=False)
    pd.DataFrame(ranks).to_csv(tmp_path / "rankings.csv", index=False)
    st = kuncheva_vs_k(Results(tmp_path), tmp_path)
    assert set(st["selector"]) == {"s"} and list(st["k"]) == [1, 2]  # no baseline, no k = D
    assert st.set_index("k").loc[1, "kuncheva"] == pytest.approx(1.0)
    assert st.set_index("k").loc[2, "kuncheva"] == pytest.approx((1 * 4 - 4) / (2 * 2))  # r = 1 of k = 2
    assert (st["n_resamples"] == 2).all()


def test_bcr_is_one_minus_balanced_error():
    y = np.array([0, 0, 0, 1])
    m = _metrics(np.array([0, 0, 0, 0]), y)
    assert m["error"] == pytest.approx(0.25) and 1 - m["balanced_error"] == pytest.approx(0.5)


def test_clinical_svm_classifier_with_missing_values():
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    X = np.column_stack([y + rng.normal(0, 0.3, n), rng.integers(0, 3, n), rng.normal(size=n)])
    X[::7, 0] = np.nan
    cat = np.array([False, True, False])
    proto = SimpleNamespace(classifier="clinical_svm", C=1.0, class_weight="balanced")
    cols = np.array([0])
    fitted = fit_predict(X[:40][:, cols], y[:40], X[40:][:, cols], None, proto, categorical=cat[cols])
    assert fitted.C == 1.0
    assert 1 - _metrics(fitted.predictions, y[40:])["balanced_error"] >= 0.7
    noise = fit_predict(X[:40][:, [2]], y[:40], X[40:][:, [2]], None, proto, categorical=cat[[2]])
    assert _metrics(noise.predictions, y[40:])["balanced_error"] > 0.2  # the noise column does not


# ------------------------------------------------------------------------------------------ Ring 2015
def _ring_sample(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = open_dataset("ring_fig1").sample(n, np.random.default_rng(seed))
    return X, (y > 0).astype(int)


def test_ring_fig1_generator():
    X, y = open_dataset("ring_fig1").sample(120, np.random.default_rng(0))
    assert X.shape == (120, 4) and set(np.unique(y)) == {-1, 1}
    r = np.hypot(X[:, 0], X[:, 1])
    assert r[y < 0].max() <= 1.0 < 1.5 <= r[y > 0].min()


def test_ring_fig1_criteria_disagree_as_the_paper_says():
    X, y = _ring_sample(80)
    rkhs = BranchAndBound(d=2, criterion="bhattacharyya", search="exhaustive", kernel="poly").fit(X, y)
    assert list(rkhs.subset_) == [0, 1]  # the RKHS criterion finds the non-linearly separable pair
    assert rkhs.n_evaluations_ == comb(4, 2)
    gauss = BranchAndBound(d=2, criterion="gaussian_bhattacharyya")
    J = gauss.criterion_function(X, y)
    assert J(np.array([2, 3])) > J(np.array([0, 1]))  # the Gaussian one prefers the shifted Gaussians


def test_wrapper_and_bnb_on_a_small_problem():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 4))
    y = np.array([0, 1] * 20)
    X[:, 1] += (y == 0) * 2.0
    wrapper = ExhaustiveWrapper(d=2, cv=3).fit(X, y)
    assert wrapper.n_evaluations_ == comb(4, 2) and 1 in wrapper.subset_
    assert 0.5 < wrapper.criterion_value_ <= 1.0  # a CV accuracy
    bnb = BranchAndBound(d=2, criterion="mean_distance").fit(X, y)
    assert 1 in bnb.subset_ and bnb.n_evaluations_ <= comb(4, 2) + 4


def test_ring_report_helpers():
    fig1 = pd.DataFrame(
        {
            "selector": ["a", "a", "b", "b"],
            "repeat": [0, 1, 0, 1],
            "subset": ["0 1", "0 1", "2 3", "0 1"],
            "error": [0.0, 0.1, 0.3, 0.2],
            "criterion_value": [1.0, 3.0, 2.0, 2.0],
            "n_evaluations": [6, 6, 4, 5],
        }
    )
    s = choice_summary(fig1, declared(RING_CFG, "subset_choice")["subsets"]).set_index("selector")
    assert s.loc["a", ["draws", "picks_x1x2", "picks_x3x4"]].tolist() == [2, 2, 0]
    assert s.loc["b", ["picks_x1x2", "picks_x3x4"]].tolist() == [1, 1]
    assert s.loc["a", "acc_chosen"] == pytest.approx(0.95) and s.loc["b", "evals"] == pytest.approx(4.5)
    uci = pd.DataFrame(
        {
            "dataset": ["d"] * 6,
            "selector": ["B&B x", "wrapper", "all"] * 2,
            "n_features": [2, 2, 5] * 2,
            "repeat": [0, 0, 0, 1, 1, 1],
            "error": [0.2, 0.1, 0.3, 0.4, 0.3, 0.3],
            "fit_wall_s": [1.0, 4.0, 0.0, 4.0, 16.0, 0.0],
            "n_evaluations": [3, 10, np.nan, 4, 10, np.nan],
        }
    )
    u = search_summary(uci)
    row = u[(u["selector"] == "wrapper")].iloc[0]
    assert (row["D"], row["d"], row["n_subsets"], row["splits"]) == (5, 2, comb(5, 2), 2)
    assert row["accuracy"] == pytest.approx(0.8)
    ref = u[u["selector"] == "all features"].iloc[0]
    assert ref["accuracy"] == pytest.approx(0.7) and ref["d"] == 5
    # geometric mean of the wrapper/B&B wall-time ratios 4 and 4
    assert speedups(uci[uci["selector"] != "all"], "wrapper") == {"B&B x": pytest.approx(4.0)}


def test_ring_speedups_ignore_the_all_features_baseline():
    uci = pd.DataFrame(
        {
            "dataset": ["d"] * 6,
            "selector": ["B&B x", "wrapper", "all"] * 2,
            "n_features": [2, 2, 5] * 2,
            "repeat": [0, 0, 0, 1, 1, 1],
            "fit_wall_s": [1.0, 4.0, 0.001, 4.0, 16.0, 0.001],
        }
    )
    assert speedups(uci, "wrapper") == {"B&B x": pytest.approx(4.0)}


# ------------------------------------------------------------------------------------------ USPS pixel bound
def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), 60)
    X = np.column_stack([4.0 * y + rng.normal(size=y.size), rng.normal(size=y.size)])  # col 0 informative
    return X[::2], y[::2], X[1::2], y[1::2]


def test_errors_separate_informative_from_noise_columns():
    X_tr, y_tr, X_te, y_te = _blobs()
    assert multiclass_error(X_tr, y_tr, X_te, y_te, [0]) < 0.05
    assert multiclass_error(X_tr, y_tr, X_te, y_te, [1]) > 0.4  # chance is 2/3
    assert pairwise_error(X_tr, y_tr, X_te, y_te, [0]) < 0.05
    assert pairwise_error(X_tr, y_tr, X_te, y_te, [1]) > 0.3  # chance is 1/2


def test_pairwise_error_is_below_the_multiclass_error_on_weak_features():
    # the hypothesis the diagnostic tests: a mean two-class error is much lower than a 10-class one
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(6), 50)
    X = (y[:, None] == np.arange(6)) * 1.0 + 0.9 * rng.normal(size=(y.size, 6))
    X_tr, y_tr, X_te, y_te = X[::2], y[::2], X[1::2], y[1::2]
    cols = [0, 1, 2]
    assert pairwise_error(X_tr, y_tr, X_te, y_te, cols) < multiclass_error(X_tr, y_tr, X_te, y_te, cols)


def test_render_lists_both_errors_and_the_paper_range():
    df = pd.DataFrame(
        [
            {"source": s, "k": k, "pixel": k, "test_error": 0.5 / k, "pairwise_error": 0.1 / k}
            for s in ("usps", "usps_libsvm_test")
            for k in (5, 10)
        ]
    )
    paper = paper_table2(SimpleNamespace(source=str(RAMONA_CFG / "tab2_pixel_bound.yaml")))
    assert paper["arom"][5] == 8.5 and paper["sas"][5] == 10.6  # Table II as printed (module docstring)
    text = render(df, paper)
    assert "| usps | 10.0 | 5.0 |" in text and "| usps | 2.0 | 1.0 |" in text
    assert "8.5–13.8" in text and "6.3–12.4" in text


TINY_SPLIT = {
    "seed": 3,
    "dataset": "weston_nonlinear",
    "kernel": {"name": "rbf", "gamma": "median"},
    "protocol": {"n_train": 30, "n_test": 20, "repeats": 2},
}


def test_takes_reconstruction_diagnostic_tiny(tmp_path, pinned_commit):
    cfg = {
        **TINY_SPLIT,
        "name": "tiny_table2",
        **TAKES_DIAG,
        "settings": {"gammas": ["median/4", 0.05], "paper_values": str(TAKES_CFG / "paper_values.yaml")},
    }
    df = _run(cfg, tmp_path / "t2.yaml", tmp_path / "t2", kind="diagnostic")
    learners = get_diagnostic(TAKES_DIAG["diagnostic"], TAKES_DIAG["plugins"]).defaults["learners"]
    assert len(df) == 2 * 2 * len(learners) and set(df["learner"]) == set(learners)
    kgs = df[df["learner"] == "kgs"]
    assert (kgs["E_train"] < 1e-6).all() and (kgs["dim"] <= 30).all()  # full-rank basis of 30 points
    kobl = df[df["learner"] == "kobl"]
    assert (kobl["E_train"] <= kobl["kobl_bound"] + 1e-12).all()  # Theorem 1
    # span(KGS) contains span(KOBL): KGS reconstructs any point at least as well
    m = df.pivot_table(index=["repeat", "gamma_rule"], columns="learner", values="E_test")
    assert (m["kgs"] <= m["kobl"] + 1e-9).all()
    kda = df[df["learner"] == "kda"]
    assert (kda["dim_requested"].to_numpy() == kobl["dim"].to_numpy()).all()  # KDA asks for KOBL's Dim
    assert (kda["dim"].to_numpy() <= kobl["dim"].to_numpy()).all()  # (capped at the centred rank N - 1)
    # render: the derived outputs, with the paper's cells merged in
    exp = load_experiment(tmp_path / "t2.yaml", kind="diagnostic")
    written = get_diagnostic(TAKES_DIAG["diagnostic"], TAKES_DIAG["plugins"]).render(tmp_path / "t2", exp)
    assert {p.name for p in written} >= {"summary.csv", "table2.md", "table2_E.png"}
    summ = pd.read_csv(tmp_path / "t2" / "summary.csv")
    assert {"paper_E", "paper_dim"} <= set(summ.columns) and (summ["repeats"] == 2).all()
    assert "RBF γ = median/4" in (tmp_path / "t2" / "table2.md").read_text()


def test_takes_reconstruction_calibrated_width_and_eq19_line2(tmp_path, pinned_commit):
    cfg = {
        **TINY_SPLIT,
        "name": "tiny_table2_calibrated",
        **TAKES_DIAG,
        "settings": {
            "gammas": ["kobl_dim"],
            "calibrate_dim": {"weston_nonlinear": 7},
            "learners": ["kobl", "kgs", "kda"],
        },
    }
    df = _run(cfg, tmp_path / "c.yaml", tmp_path / "c", kind="diagnostic")
    kobl = df[df["learner"] == "kobl"]
    assert (kobl["dim"] == 7).all() and (kobl["gamma_rule"] == "kobl_dim").all()  # calibrated on Dim
    kda = df[df["learner"] == "kda"]
    assert (kda["E_train_eq19b"] >= kda["E_train"] - 1e-9).all()  # line 2 is a point of the span
    assert df.loc[df["learner"] != "kda", "E_train_eq19b"].isna().all()
    bad = {**cfg, "settings": {"gammas": ["kobl_dim"]}}
    with pytest.raises(ConfigError, match="calibrate_dim"):
        get_diagnostic(TAKES_DIAG["diagnostic"], TAKES_DIAG["plugins"]).check(
            load_experiment(_write(tmp_path / "bad.yaml", bad), kind="diagnostic")
        )


def test_takes_timing_from_a_tiny_run(tmp_path, pinned_commit):
    cfg = {
        **TINY_SPLIT,
        "name": "tiny_timing",
        "jobs": 1,
        "protocol": {"n_train": [20, 40], "n_test": 20, "repeats": 1, "classifier": "knn"},
        "selectors": [{"name": n, "label": n.upper()} for n in ("kobl", "kgs", "takes")],
    }
    _run(cfg, tmp_path / "tt.yaml", tmp_path / "tt")
    df = load_timing(tmp_path / "tt")
    assert set(df["learner"]) == {"kobl", "kgs", "takes"} and len(df) == 6  # one row per task
    assert (df["fit_cpu_s"] >= 0).all() and (df["basis_dim"] >= 1).all()
    kgs = df[df["learner"] == "kgs"].set_index("n_train")["basis_dim"]
    assert kgs.to_dict() == {20: 20, 40: 40}  # KGS: one basis vector per training point
    spec = declared(TAKES_CFG, "timing_vs_n")
    med, md = timing_table(df, 10, spec["labels"], spec["stated"])
    assert len(med) == 6 and "slope (N ≥ 10)" in md and "| KGS | O(N³) |" in md
    written = plot_timing(df, tmp_path / "tt" / "timing", spec["labels"])
    assert all(p.exists() for p in written) and {p.suffix for p in written} == {".png", ".pdf"}


def test_takes_timing_slopes_are_the_log_log_exponents():
    n = np.array([100, 200, 400, 800])
    df = pd.DataFrame(
        {
            "learner": ["kobl"] * 4 + ["kgs"] * 4,
            "n_train": np.concatenate([n, n]),
            "fit_cpu_s": np.concatenate([1e-6 * n**2, 1e-9 * n**3]),
        }
    )
    sl = slopes(df, 200).set_index("learner")
    assert sl.loc["kobl", "slope"] == pytest.approx(2.0) and sl.loc["kgs", "slope"] == pytest.approx(3.0)
    assert (sl["n_points"] == 3).all()  # N >= 200 only


def test_kife_projection_diagnostic_tiny(tmp_path, pinned_commit):
    cfg = {
        **TINY_SPLIT,
        "name": "tiny_projection",
        **KIFE_DIAG,
        "protocol": {**TINY_SPLIT["protocol"], "repeats": 1},
        "settings": {"class_names": ["minus", "plus"]},
        "selectors": [
            {"name": "gda", "label": "GDA"},
            {"name": "mmi", "label": "MMI", "params": {"n_components": 2, "max_iter": 2}},
            {
                "name": "kife",
                "label": "KIFE",
                "params": {"n_components": 2, "max_iter": 2, "validation_fraction": None},
            },
        ],
    }
    df = _run(cfg, tmp_path / "kp.yaml", tmp_path / "kp", kind="diagnostic")
    assert list(dict.fromkeys(df["selector"])) == ["GDA", "MMI", "KIFE"]
    assert len(df) == 3 * (30 + 20)  # every training and test point of the split, per method
    assert df.groupby("selector")["set"].value_counts().unstack().eq([20, 30]).all().all()
    exp = load_experiment(tmp_path / "kp.yaml", kind="diagnostic")
    get_diagnostic(KIFE_DIAG["diagnostic"], KIFE_DIAG["plugins"]).render(tmp_path / "kp", exp)
    acc = pd.read_csv(tmp_path / "kp" / "accuracy.csv")
    assert list(acc["method"]) == ["GDA", "MMI", "KIFE"] and acc["accuracy_2d"].between(0, 1).all()
    for f in ("projection.png", "projection.pdf", "projection_kife.png", "projection_gda.png"):
        assert (tmp_path / "kp" / f).exists(), f


def test_takes_figures_and_report_from_tiny_runs(tmp_path, pinned_commit):
    g = "median"
    results = tmp_path / "results"
    fig = {
        **TINY_SPLIT,
        "name": "takes2011_fig23_gamma_median",  # the paper's experiment names: the engine compares them
        "selectors": [
            {"name": "all", "label": "KNNC"},
            {"name": "takes", "label": "TAKES", "params": {"gamma": g}},
            {"name": "kgs_kffs", "label": "KGS+KFFS", "params": {"gamma": g}},
            {"name": "fskgs", "label": "FSKGS", "params": {"gamma": g}},
            {"name": "kda", "label": "KDA", "params": {"gamma": g, "complete": True}},
        ],
        "protocol": {**TINY_SPLIT["protocol"], "classifier": "knn", "n_features": [1, 2, 5, 10]},
    }
    _run(fig, tmp_path / "fig.yaml", results / "fig23_gamma_median")
    d = results / "fig23_gamma_median"
    spec = declared(TAKES_CFG, "own_dimension_curves")
    keys = ("reference", "baseline", "points", "figures", "metric", "own_text", "ylabel", "xlabel")
    s = draw_figures(read_results(d), read_run(d), d / "figures", **{k: spec[k] for k in keys})
    assert set(s["method"]) == {"KNNC", "TAKES", "KGS+KFFS", "FSKGS", "KDA"}
    knnc = s[s["method"] == "KNNC"].iloc[0]
    assert knnc["dim_min"] == 52 and np.isnan(knnc["acc_best_mean"])  # all 52 inputs, no curve
    assert s[s["method"] == "TAKES"]["p_paired_vs_takes"].isna().all()
    for f in ("fig2.png", "fig3.png", "summary.csv", "summary.md"):
        assert (results / "fig23_gamma_median" / "figures" / f).exists()
    t2 = {**TINY_SPLIT, "name": "takes2011_table2", **TAKES_DIAG}
    _run(t2, tmp_path / "t2.yaml", results / "table2_reconstruction", kind="diagnostic")

    path = write_report(results, TAKES_CFG)
    text = path.read_text()
    assert path == results / "REPORT.md"
    # the engine: the rule and the counts at the top, every claim of paper_values.yaml through the DSL
    assert "**The agreement rule**" in text and "comparable cells agree with the paper" in text
    assert "### Claims (10)" in text
    knnc = next(ln for ln in text.splitlines() if "**f3_takes_vs_knnc**" in ln)
    assert "**holds**" in knnc or "**does not hold**" in knnc  # evaluated on the tiny run
    fskpca = next(ln for ln in text.splitlines() if "**f3_takes_vs_fskgs_fskpca**" in ln)
    assert "**not evaluable**" in fskpca  # no FSKPCA in the tiny run
    subs = text.split("### Substitutions and defaults")[1].split("## ")[0]
    assert "takes2011_table2" in subs and "table2_reconstruction.yaml" in subs
    # the descriptive sections, without verdicts, and the stability notes
    assert "## Table 2 in detail" in text and "Figs. 2–3" in text
    assert (results / "table2_reconstruction" / "summary.csv").exists()  # rendered by the report
    assert "## Stability of the selected subsets" in text and "No ranking: a diagnostic" in text
    assert (results / "fig23_gamma_median" / "stability.md").read_text().count("No ranking") == 1


def test_kife_report_with_a_projection_run(tmp_path, pinned_commit):
    results = tmp_path / "results"
    cfg = {
        **TINY_SPLIT,
        "name": "tiny_projection",
        **KIFE_DIAG,
        "protocol": {**TINY_SPLIT["protocol"], "repeats": 1},
        "selectors": [{"name": "gda", "label": "GDA"}],
    }
    _run(cfg, tmp_path / "kp.yaml", results / "fig2_projection", kind="diagnostic")
    text = write_report(results, KIFE_CFG).read_text()
    assert "**The agreement rule**" in text and "## Table II — every run" in text
    assert "not available" in text  # no tab2_* runs here
    assert "## Fig. 2 — 2-D projections" in text and "| GDA |" in text
    assert (results / "fig2_projection" / "accuracy.csv").exists()


# ------------------------------------------------------------------------------------------ paper values
def test_takes_and_kife_paper_values_layout():
    tpv = read_paper_values(TAKES_CFG / "paper_values.yaml")
    t2 = paper_cells(tpv, "table2")
    assert len(t2) == 24 and set(t2["method"]) == {"kobl", "kgs", "kpca", "kda"}
    sizes = {d["card"]: d["n_train"] for d in tpv["datasets"]}
    for _, c in t2[t2["method"].isin(["kgs", "kpca"])].iterrows():
        assert c["dim"] == sizes[c["dataset"]]  # KGS/KPCA Dim = training size (§4.1)
    kobl = t2[t2["method"] == "kobl"].set_index("dataset")
    kda = t2[t2["method"] == "kda"].set_index("dataset")
    assert (kobl["dim"] == kda["dim"]).all()  # KDA has KOBL's Dim
    assert (kobl["value"] <= kobl["dim"] / pd.Series(sizes)).all()  # Theorem 1 with f(t) = t, r11 = 1
    kpv = read_paper_values(KIFE_CFG / "paper_values.yaml")
    for tid in ("table2_accuracy", "table2_time"):
        cells = paper_cells(kpv, tid)
        assert len(cells) == 12 and set(cells["method"]) == {"gda", "mmi", "kife"}
    with pytest.raises(KeyError):
        paper_cells(kpv, "no_such_table")


def test_paper_values_training_sizes_match_the_takes_configs():
    tpv = read_paper_values(TAKES_CFG / "paper_values.yaml")
    sizes = {d["card"]: d["n_train"] for d in tpv["datasets"]}
    for stem, kind in [
        ("table2_reconstruction", "diagnostic"),
        ("fig23_gamma_median", "experiment"),
        ("fig23_gamma_quarter", "experiment"),
    ]:
        exp = load_experiment(TAKES_CFG / f"{stem}.yaml", kind=kind)
        assert {e.label: e.protocol.n_train for e in exp.datasets} == {k: (v,) for k, v in sizes.items()}


def test_kife_table1_cards_have_a_tab2_config():
    kpv = read_paper_values(KIFE_CFG / "paper_values.yaml")
    cards = [
        r["card"] for r in next(t for t in kpv["tables"] if t["id"] == "table1")["rows"] if r.get("card")
    ]
    assert cards
    for card in cards:  # the report reads results/kife2011/tab2_<card>
        exp = load_experiment(KIFE_CFG / f"tab2_{card}.yaml")
        assert [e.label for e in exp.datasets] == [card]


def test_diagnostic_config_parses_with_its_settings():
    exp = parse_experiment({**TINY_SPLIT, "name": "x", **USPS_DIAG}, kind="diagnostic")
    assert exp.diagnostic == USPS_DIAG["diagnostic"] and exp.selectors == () and exp.settings == {}
    get_diagnostic(USPS_DIAG["diagnostic"], USPS_DIAG["plugins"]).check(exp)


def test_takes_report_with_a_subset_of_learners(tmp_path, pinned_commit):
    results = tmp_path / "results"
    t2 = {
        **TINY_SPLIT,
        "name": "tiny_table2",
        **TAKES_DIAG,
        "settings": {"gammas": ["median"], "learners": ["kobl", "kgs"]},
    }
    _run(t2, tmp_path / "t2.yaml", results / "table2_reconstruction", kind="diagnostic")
    text = write_report(results, TAKES_CFG).read_text()
    assert "## Table 2 in detail — reconstruction cost E(M) and Dim" in text
