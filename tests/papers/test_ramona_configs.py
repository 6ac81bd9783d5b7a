"""Every Ramona 2012 experiment config: parses, validates where its data exist, refuses absent datasets
with a message naming them, and follows the paper's protocol numbers (Table I, §V, ALGORITHMS.md §13).

The protocol numbers below are written from the paper, independently of the configs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fsbench.cli import app
from fsbench.config.experiment import ConfigError, config_kind, load_experiment
from fsbench.config.files import config_layers, read_config
from fsbench.data import DatasetError, get_card
from fsbench.run.plan import validate

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "configs" / "ramona2012"
VALUES = CONFIG_DIR / "paper_values.yaml"
#: experiment configs (diagnostics such as tab2_pixel_bound are run by `fsbench diagnose`); a reading
#: that names a `base:` is classified by its merged config
CONFIGS = sorted(
    p for p in CONFIG_DIR.glob("*.yaml") if p != VALUES and config_kind(read_config(p)) == "experiment"
)
IDS = [p.stem for p in CONFIGS]

#: Datasets of the paper that have no copy anywhere (shared/datasets/INDEX.md) and hence no card.
ABSENT = {"speech_music", "yeast_brown"}
#: The configs this file expects (one per figure panel / table of the paper).
EXPECTED = {
    "fig1a_weston_linear", "fig1b_weston_nonlinear", "fig2a_spambase_linear", "fig2b_spambase_rbf",
    "fig3a_ionosphere_linear", "fig3b_ionosphere_rbf", "fig4_lymphoma_linear", "fig5a_speech_music_linear",
    "fig5b_speech_music_rbf", "fig6_parkinsons_poly", "tab2_usps", "tab3_yeast", "tab4_neumann",
    "tab5_usps_binary", "tab6_gmkl", "tab8_cpu_vs_n", "tab9_cpu_vs_d",
}  # fmt: skip

#: Table I: card -> (n_train, n_test, samples in all).
TABLE1 = {
    "spambase": (500, 1000, 4601),
    "ionosphere": (250, 101, 351),
    "lymphoma": (60, 36, 96),
    "speech_music": (500, 500, 20000),
    "usps": (1000, 2007, None),  # 10 x 100 train, the official 2007-sample test set
    "yeast_brown": (182, 26, 208),
    "parkinsons": (136, 59, 195),
    "breast_cancer_wisconsin": (340, 343, 683),
    "heart_disease_cleveland": (150, 147, 297),
    "liver_bupa": (240, 105, 345),
    "musk1": (300, 176, 476),
    "pima": (500, 268, 768),
    "sonar": (145, 63, 208),
}


def _card_status(name) -> str:
    """'absent' (no card, or a card saying no copy can be had), 'missing' (no local file) or 'ok'."""
    if not isinstance(name, str):
        return "ok"  # inline synthetic
    try:
        card = get_card(name)
    except DatasetError:
        return "absent"
    if card.unavailable and not card.available():
        return "absent"
    return "ok" if card.available() else "missing"


@pytest.fixture(scope="module")
def exps() -> dict:
    return {p.stem: load_experiment(p) for p in CONFIGS}


def test_one_config_per_experiment_of_the_paper():
    assert EXPECTED <= set(IDS)


@pytest.mark.parametrize("path", CONFIGS, ids=IDS)
def test_config_parses(path):
    exp = load_experiment(path)
    assert exp.name == path.stem, "file name = experiment name"
    raw = read_config(path)  # merged over its base: chain, if any
    assert raw["paper"] == "ramona2012" and raw.get("description")
    assert exp.seed == 2012
    text = path.read_text()
    assert text.startswith("# Ramona et al. 2012"), "header comment citing the paper"
    chain = "".join(f.read_text() for f, _ in config_layers(path))
    assert "[D]" in chain, "choices the paper leaves open are marked [D] (in the file or its base)"


def test_experiment_names_unique_across_all_configs():
    names: dict[str, Path] = {}
    for p in sorted((ROOT / "configs").rglob("*.yaml")):
        raw = read_config(p)
        if "name" not in raw or "protocol" not in raw:
            continue  # not an experiment config (e.g. paper_values.yaml)
        assert raw["name"] not in names, f"{p} and {names.get(raw['name'])} share the name {raw['name']!r}"
        names[raw["name"]] = p


@pytest.mark.parametrize("path", CONFIGS, ids=IDS)
def test_config_validates_or_names_the_absent_dataset(path):
    exp = load_experiment(path)
    status = {e.label: _card_status(e.spec) for e in exp.datasets}
    absent = sorted(d for d, s in status.items() if s == "absent")
    if absent:
        assert set(absent) <= ABSENT, f"unexpected dataset without a card: {absent}"
        with pytest.raises((ConfigError, DatasetError)) as err:
            validate(exp)
        assert absent[0] in str(err.value)
        assert "is not available" in str(err.value)
        return
    if "missing" in status.values():
        pytest.skip(f"dataset file(s) not found locally: {status} (set FSBENCH_DATA_DIR)")
    validate(exp)  # selectors resolve, params valid, sizes fit the cards


@pytest.mark.parametrize("stem", ["fig5a_speech_music_linear", "tab3_yeast"])
def test_cli_refuses_absent_dataset_in_one_line(stem, tmp_path):
    from typer.testing import CliRunner

    res = CliRunner().invoke(
        app, ["run", str(CONFIG_DIR / f"{stem}.yaml"), "--dry-run", "--out", str(tmp_path)]
    )
    assert res.exit_code == 2
    name = "speech_music" if "speech" in stem else "yeast_brown"
    assert f"dataset '{name}' is not available" in res.output
    assert not any(tmp_path.iterdir()), "nothing started"


# --------------------------------------------------------------------------- protocol numbers
FIG_TABLE_I = [
    "fig2a_spambase_linear", "fig2b_spambase_rbf", "fig3a_ionosphere_linear", "fig3b_ionosphere_rbf",
    "fig4_lymphoma_linear", "fig5a_speech_music_linear", "fig5b_speech_music_rbf", "fig6_parkinsons_poly",
    "tab2_usps", "tab3_yeast", "tab4_neumann",
]  # fmt: skip


@pytest.mark.parametrize("stem", FIG_TABLE_I)
def test_splits_follow_table_I(exps, stem):
    for e in exps[stem].datasets:
        n_train, n_test, _ = TABLE1[e.label]
        p = e.protocol
        assert p.n_train == (n_train,), e.label
        if e.label == "usps":
            assert p.test == "official" and p.n_test is None
        else:
            assert p.n_test == n_test and p.test is None, e.label
        assert p.repeats == 30 and p.C == "joachims" and p.n_select is None


def test_kernels_and_selectors_of_the_figures(exps):
    kern = {k: [x.name for x in exps[k].datasets[0].kernels] for k in exps}
    for stem in exps:
        if stem.startswith("fig"):
            expected = "poly" if stem.startswith("fig6") else ("linear" if stem[4] == "a" else "rbf")
            if stem.startswith("fig4_lymphoma_linear"):
                expected = "linear"
            assert kern[stem] == [expected], stem
    k6 = exps["fig6_parkinsons_poly"].datasets[0].kernels[0]
    assert (k6.degree, k6.offset) == (3, 1.0)  # (1 + c <w∘x, w∘y>)^3, §III-D3
    sel = {k: {s.name for s in exps[k].selectors} for k in exps}
    assert "rfe" not in sel["fig4_lymphoma_linear"]  # excluded as in the paper (cost)
    for stem in exps:  # SFS only with nonlinear kernels; KFDS absent from Fig. 6 (the paper's panels)
        if stem.startswith("fig") and stem in EXPECTED:
            assert ("sfs" in sel[stem]) == (kern[stem] == ["rbf"]), stem
    assert "kfds" not in sel["fig6_parkinsons_poly"]


def test_s_grids_cover_the_figure_axes(exps):
    axes = {  # printed x-axis range of each figure (S)
        "fig2": (10, 50, 57), "fig3": (5, 30, 34), "fig4": (500, 4000, 4026), "fig5": (50, 300, 321),
        "fig6": (4, 22, 22),
    }  # fmt: skip
    for stem, exp in exps.items():
        if stem[:4] in axes:
            lo, hi, D = axes[stem[:4]]
            grid = exp.datasets[0].protocol.n_features
            assert min(grid) <= lo and hi <= max(grid) <= D, stem
            assert list(grid) == sorted(set(grid)), stem


def test_multiclass_tables(exps):
    t2, t3 = exps["tab2_usps"], exps["tab3_yeast"]
    assert t2.datasets[0].protocol.n_features == (200, 150, 100, 50, 30, 10, 5)
    assert t3.datasets[0].protocol.n_features == (79, 40, 30, 20, 10, 5)
    for exp in (t2, t3):
        assert exp.datasets[0].protocol.classifier == "svm_coupling"
        assert [k.name for k in exp.datasets[0].kernels] == ["rbf"]
    assert [s.name for s in t2.selectors] == ["fisher", "fspp", "arom", "sas", "scss"]
    assert [s.name for s in t3.selectors] == ["fspp", "arom", "sas", "scss"]


#: §V-B4, the Table II protocol as printed: "Over 30 iterations, a subset of 100 samples per class is used
#: for selection and SVM training, and the rest for testing. A pairwise scheme is used for classification
#: (45 SVMs trained), combined with the pairwise coupling algorithm [41]". Under "4) Multiclass Selection"
#: and "the previous protocol" (§V-B: one ranking, "the S best ranked among the D features").
TABLE_II_TEXT = {"test": "rest", "selection": "global", "n_train": (1000,), "stratify": "balanced"}


def test_table_II_default_is_the_texts_reading(exps):
    """Issue 37, item 1: the experiment paper_values.yaml names for Table II tests on "the rest" with one
    multiclass selection and pairwise-coupled SVMs; Table I's official test set and the per-pair selection
    are readings of that table, not its default."""
    values = read_config(VALUES)
    (table2,) = [t for t in values["tables"] if t["id"] == "table2"]
    (e,) = exps[table2["experiment"]].datasets
    p = e.protocol
    got = {"test": p.test, "selection": p.selection, "n_train": p.n_train, "stratify": p.stratify}
    assert got == TABLE_II_TEXT
    assert e.label == "usps" and p.classifier == "svm_coupling" and p.repeats == 30
    assert p.n_features == (200, 150, 100, 50, 30, 10, 5)
    readings = {r["id"]: r for r in values["readings"] if r.get("table") == "table2"}
    official, per_pair = readings["tab2_official_test"], readings["tab2_per_pair_test_rest"]
    assert exps[official["experiment"]].datasets[0].protocol.test == "official"  # Table I's 2007 digits
    q = exps[per_pair["experiment"]].datasets[0].protocol
    assert (q.selection, q.test) == ("per_pair", "rest")  # the one point it changes
    # Table VII ranks Table II's default, not a reading of it
    (table7,) = [t for t in values["tables"] if t["id"] == "table7"]
    tab2_experiments = {table2["experiment"], *(r.get("experiment") for r in readings.values())}
    assert set(table7["sections"]["V-B"]) & tab2_experiments == {table2["experiment"]}


def test_table_IV_neumann(exps):
    exp = exps["tab4_neumann"]
    dims = {  # Neumann's printed average numbers of selected features
        "linear": {"liver_bupa": 6.0, "heart_disease_cleveland": 9.9, "ionosphere": 25, "pima": 6.6,
                   "breast_cancer_wisconsin": 8.7, "sonar": 50, "musk1": 125},
        "rbf": {"liver_bupa": 2.5, "heart_disease_cleveland": 3.2, "ionosphere": 6.6, "pima": 1.4,
                "breast_cancer_wisconsin": 2.8, "sonar": 9.6, "musk1": 41},
    }  # fmt: skip
    seen = set()
    for e in exp.datasets:
        (k,) = e.kernels
        S = max(1, math.floor(dims[k.name][e.label] + 0.5))
        extra = {2} if (k.name, e.label) == ("rbf", "liver_bupa") else set()  # 2.5: half-even reading too
        assert set(e.protocol.n_features) == {S} | extra, (k.name, e.label)
        seen.add((k.name, e.label))
    assert seen == {(k, d) for k in dims for d in dims[k]}
    assert [s.name for s in exp.selectors] == ["sas", "scss", "kfds"]


def test_table_V_wang(exps):
    (e,) = exps["tab5_usps_binary"].datasets
    p = e.protocol
    assert e.label == "usps_binary"
    assert (p.n_train, p.n_select, p.test, p.repeats) == ((1000,), 14, "official", 7)
    assert p.n_features == (50, 40, 20, 10, 5, 3, 1)


def test_table_VI_gmkl_70_30(exps):
    exp = exps["tab6_gmkl"]
    S = {"ionosphere": (5, 10, 15), "parkinsons": (3, 7), "sonar": (5, 10, 15)}
    assert [e.label for e in exp.datasets] == list(S)
    for e in exp.datasets:
        size = TABLE1[e.label][2]
        assert e.protocol.n_train == (math.floor(0.7 * size),) and e.protocol.test == "rest"
        assert e.protocol.n_features == S[e.label]
        assert [k.name for k in e.kernels] == ["rbf"]


def test_toy_figures(exps):
    for stem in ("fig1a_weston_linear", "fig1b_weston_nonlinear"):
        p = exps[stem].datasets[0].protocol
        assert p.n_train == tuple(range(10, 101, 10)) and p.n_test == 500
        assert p.repeats == 40 and p.n_features == (2,)


def test_coarse_override_thins_every_grid_keeping_the_ends():
    """`--coarse K` (make reproduce-quick) keeps first and last n / S and at most K values per grid."""
    from fsbench.config.experiment import thin_grid

    assert thin_grid([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 3) == [10, 60, 100]
    assert thin_grid([5, 10], 3) == [5, 10]
    assert thin_grid([200, 150, 100, 50, 30, 10, 5], 2) == [200, 5]
    fig1 = load_experiment(CONFIG_DIR / "fig1a_weston_linear.yaml", {"coarse": 3})
    assert fig1.datasets[0].protocol.n_train == (10, 60, 100)
    # per-dataset protocol overrides are thinned too; every thinned grid is a subset of the full one
    for stem in ("tab4_neumann", "tab6_gmkl", "fig6_parkinsons_poly", "tab8_cpu_vs_n"):
        full = load_experiment(CONFIG_DIR / f"{stem}.yaml")
        thin = load_experiment(CONFIG_DIR / f"{stem}.yaml", {"coarse": 3})
        for a, b in zip(full.datasets, thin.datasets, strict=True):
            for grid in ("n_train", "n_features"):
                g_full, g_thin = getattr(a.protocol, grid), getattr(b.protocol, grid)
                if g_full == "all":
                    continue
                assert len(g_thin) <= 3 and set(g_thin) <= set(g_full)
                assert g_thin[0] == g_full[0] and g_thin[-1] == g_full[-1]


@pytest.mark.slow  # > 10 s on 2 cores
def test_quick_protocol_runs_a_synthetic_config_end_to_end(tmp_path):
    """`make reproduce-quick` on one synthetic config: 3 repeats, --coarse 3, then the paper report."""
    from conftest import cli

    out = tmp_path / "quick" / "fig1b_weston_nonlinear"
    res = cli(
        "run", CONFIG_DIR / "fig1b_weston_nonlinear.yaml", "--repeats", 3, "--coarse", 3,
        "--exclude-selector", "fspp", "--out", out, "--no-progress",
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    import pandas as pd

    df = pd.read_csv(out / "results.csv")
    assert sorted(df["n_train"].unique()) == [10, 60, 100]
    assert set(df["repeat"]) == {0, 1, 2} and (df["status"] == "ok").all()
    assert cli("report", tmp_path / "quick", "--paper", "ramona2012").exit_code == 0
    body = (tmp_path / "quick" / "REPORT.md").read_text()
    assert "fig1b.r2w2_best" in body and "fig1b_weston_nonlinear" in body
