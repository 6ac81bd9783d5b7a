"""configs/ramona2012/paper_values.yaml: the paper's tables, figures and claims, machine-readable.

The expected layouts below (rows x columns of each table, the figure legends) are written from the paper
independently of the file, so a dropped, duplicated or misplaced cell fails here.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
import yaml

from fsbench.config.experiment import config_kind, load_experiment

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "configs" / "ramona2012"
VALUES = CONFIG_DIR / "paper_values.yaml"


@pytest.fixture(scope="module")
def pv() -> dict:
    return yaml.safe_load(VALUES.read_text())


@pytest.fixture(scope="module")
def tables(pv) -> dict:
    return {t["id"]: t for t in pv["tables"]}


@pytest.fixture(scope="module")
def experiments() -> dict:
    """Experiment name -> Experiment, for every config of the paper."""
    out = {}
    for f in sorted(CONFIG_DIR.glob("*.yaml")):
        if f == VALUES or config_kind(yaml.safe_load(f.read_text())) != "experiment":
            continue
        exp = load_experiment(f)
        out[exp.name] = exp
    return out


# Printed layout of every table: (row key(s), row values, columns as method ids).
S_USPS = [200, 150, 100, 50, 30, 10, 5]
NEUMANN_SETS = [
    "liver_bupa",
    "heart_disease_cleveland",
    "ionosphere",
    "pima",
    "breast_cancer_wisconsin",
    "sonar",
    "musk1",
]
LAYOUT = {
    "table2": (("S",), [(s,) for s in S_USPS], ["fisher", "fspp", "arom", "sas", "scss"]),
    "table3": (("S",), [(s,) for s in [79, 40, 30, 20, 10, 5]], ["fspp", "arom", "sas", "scss"]),
    "table4": (
        ("kernel", "dataset"),
        [(k, d) for k in ("linear", "rbf") for d in NEUMANN_SETS],
        ["neumann", "sas", "scss", "kfds"],
    ),
    "table5": (
        ("S",),
        [(s,) for s in [50, 40, 20, 10, 5, 3, 1]],
        ["wang_r2w2", "wang_kcs", "sas", "scss", "kfds"],
    ),
    "table6": (
        ("dataset", "S"),
        [("ionosphere", s) for s in (5, 10, 15)]
        + [("parkinsons", s) for s in (3, 7)]
        + [("sonar", s) for s in (5, 10, 15)],
        ["bahsic", "gmkl", "sas", "scss", "kfds"],
    ),
    "table7": (
        ("section", "method"),
        [("V-B", m) for m in ("sas", "scss", "kfds", "r2w2")] + [("V-C", m) for m in ("sas", "scss", "kfds")],
        ["first", "second", "rest"],
    ),
    "table8": (
        ("N",),
        [(n,) for n in [5, 10, 20, 50, 200, 500, 1000]],
        ["arom", "r2w2", "rfe", "sas", "kfds"],
    ),
    "table9": (
        ("D",),
        [(d,) for d in [5, 20, 50, 200, 500, 1000, 2000]],
        ["arom", "r2w2", "rfe", "sas", "kfds"],
    ),
}
EXTERNAL = {"neumann", "wang_r2w2", "wang_kcs", "bahsic", "gmkl"}
UNITS = {"error": "%", "accuracy": "%", "rank_share": "%"}


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def test_header(pv):
    assert pv["paper"] == "ramona2012"
    assert pv["schema_version"] == 1
    assert [t["id"] for t in pv["tables"]] == [f"table{i}" for i in range(1, 10)]
    numerals = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
    assert [str(t["number"]) for t in pv["tables"]] == numerals


@pytest.mark.parametrize("tid", sorted(LAYOUT))
def test_every_cell_has_method_setting_unit_value(tables, tid):
    t = tables[tid]
    assert t["metric"] in ("error", "accuracy", "rank_share", "cpu_time")
    assert t["unit"] == UNITS.get(t["metric"], t["unit"]) and t["unit"]
    assert t["caption"] and t["section"] and t["statistic"]
    for c in t["cells"]:
        assert isinstance(c["method"], str) and c["method"], c
        assert _num(c["value"]), c
        assert isinstance(c["doubtful"], bool), c
        if c["doubtful"]:
            assert c.get("note"), f"doubtful cell without a note: {c}"
        if "std" in c:
            assert _num(c["std"]) and c["std"] >= 0, c
        assert bool(c.get("external", False)) == (c["method"] in EXTERNAL), c
        if t["metric"] in ("error", "accuracy"):
            assert isinstance(c["dataset"], str) and c["kernel"] in ("linear", "rbf", "poly"), c
            assert isinstance(c["S"], int) and c["S"] >= 1, c


@pytest.mark.parametrize("tid", sorted(LAYOUT))
def test_table_layout_matches_the_paper(tables, tid):
    keys, row_values, columns = LAYOUT[tid]
    t = tables[tid]
    assert t["columns"] == columns
    assert t["rows"]["key"] == (keys[0] if len(keys) == 1 else list(keys))
    printed = [tuple(v) if isinstance(v, list) else (v,) for v in t["rows"]["values"]]
    assert printed == row_values
    col_key = "rank" if tid == "table7" else "method"
    got = Counter(tuple(c[k] for k in keys) + (c[col_key],) for c in t["cells"])
    expected = Counter(r + (m,) for r in row_values for m in columns)
    assert got == expected, f"{tid}: missing {expected - got}, extra {got - expected}"


def test_value_ranges(tables):
    for tid in ("table2", "table3", "table4", "table5"):
        for c in tables[tid]["cells"]:
            assert 0 < c["value"] <= 50, c  # error rates of (at worst) chance-level binary problems
            assert c.get("std", 0) <= 10, c
    for c in tables["table6"]["cells"]:
        assert 50 <= c["value"] <= 100 and 0 < c["std"] <= 10, c
    for c in tables["table7"]["cells"]:
        assert 0 <= c["value"] <= 100 and "std" not in c, c
    for tid in ("table8", "table9"):
        vals = [c["value"] for c in tables[tid]["cells"]]
        assert all(isinstance(v, int) and v >= 1 for v in vals)
        assert min(vals) == 1, "times are normalised to the lowest one"


def test_std_printed_where_the_paper_prints_one(tables):
    for tid in ("table2", "table3", "table4", "table6"):
        assert all("std" in c for c in tables[tid]["cells"]), tid
    for c in tables["table5"]["cells"]:
        assert ("std" in c) == (c["method"] in ("sas", "scss", "kfds")), c


def test_internal_consistency_of_the_printed_numbers(tables):
    """Properties the printed tables must have; a transcription slip usually breaks one of them."""
    t3 = [c for c in tables["table3"]["cells"] if c["S"] == 79]  # S = D: all methods use every feature
    assert len({(c["value"], c["std"]) for c in t3}) == 1
    t4 = tables["table4"]["cells"]
    for ds in ("liver_bupa", "breast_cancer_wisconsin"):  # linear S = D
        own = [c for c in t4 if c["dataset"] == ds and c["kernel"] == "linear" and not c.get("external")]
        assert len({(c["value"], c["std"]) for c in own}) == 1, ds
    for c in t4:  # S = Neumann's dim rounded half up
        assert c["S"] == max(1, math.floor(c["dim"] + 0.5)), c
    rows7 = Counter()
    for c in tables["table7"]["cells"]:
        rows7[(c["section"], c["method"])] += c["value"]
    assert all(abs(v - 100) <= 0.2 for v in rows7.values()), rows7
    for tid, key in (("table8", "N"), ("table9", "D")):  # the largest N / D is the slowest of every column
        by_m: dict[str, list] = {}
        for c in sorted(tables[tid]["cells"], key=lambda c: c[key]):
            by_m.setdefault(c["method"], []).append(c["value"])
        assert all(v[-1] == max(v) for v in by_m.values()), (tid, by_m)
    for c in tables["table8"]["cells"]:
        assert c["D"] == 30
    for c in tables["table9"]["cells"]:
        assert c["N"] == 30


def test_table1_dataset_characteristics(tables):
    rows = tables["table1"]["rows"]
    assert [r["dataset"] for r in rows] == [
        "Spambase", "Ionosphere", "Lymphoma", "Speechmusic", "USPS", "Yeast", "Parkinsons",
        "BCW", "Cleveland", "Liver", "Musk", "Pima", "Sonar",
    ]  # fmt: skip
    for r in rows:
        if "class_sizes" in r:
            assert sum(r["class_sizes"]) == r["size"] and len(r["class_sizes"]) == r["C"], r
        assert r["n_train"] < r["size"] and r["D"] >= 6, r
        if r["section"] == "V-C" or r["dataset"] in ("Ionosphere", "Lymphoma", "Parkinsons", "Yeast"):
            assert r["n_train"] + r["n_test"] == r["size"], r  # every sample used
    usps = next(r for r in rows if r["dataset"] == "USPS")
    assert usps["n_train"] == usps["C"] * usps["n_train_per_class"] == 1000


def test_tables_point_at_existing_experiments(tables, experiments):
    for t in tables.values():
        if t.get("experiment"):
            assert t["experiment"] in experiments, t["id"]


def test_table_cells_match_their_config(tables, experiments):
    """Every non-external cell of tables II-VI is a (dataset, kernel, S, selector) the config runs."""
    for tid in ("table2", "table3", "table4", "table5", "table6"):
        exp = experiments[tables[tid]["experiment"]]
        runs = set()
        for e in exp.datasets:
            for k in e.kernels:
                for S in e.protocol.n_features:
                    for s in exp.selectors:
                        runs.add((e.label, k.name, S, s.name))
        for c in tables[tid]["cells"]:
            if not c.get("external"):
                assert (c["dataset"], c["kernel"], c["S"], c["method"]) in runs, (tid, c)


# --------------------------------------------------------------------------- figures and claims
FIGURES = {
    "fig1a": ["fisher", "arom", "r2w2", "rfe", "sas", "scss", "kfds", "all"],
    "fig1b": ["fisher", "arom", "r2w2", "rfe", "sfs", "sas", "scss", "kfds", "all"],
    "fig2a": ["fisher", "arom", "r2w2", "rfe", "sas", "scss", "kfds"],
    "fig2b": ["fisher", "arom", "r2w2", "rfe", "sfs", "sas", "scss", "kfds"],
    "fig3a": ["fisher", "arom", "r2w2", "rfe", "sas", "scss", "kfds"],
    "fig3b": ["fisher", "arom", "r2w2", "rfe", "sfs", "sas", "scss", "kfds"],
    "fig4": ["fisher", "arom", "r2w2", "sas", "scss", "kfds"],
    "fig5a": ["fisher", "arom", "r2w2", "rfe", "sas", "scss", "kfds"],
    "fig5b": ["fisher", "arom", "r2w2", "rfe", "sfs", "sas", "scss", "kfds"],
    "fig6": ["fisher", "arom", "r2w2", "rfe", "sas", "scss"],
}
KINDS = {
    "better", "not_worse", "close", "best", "worst", "level", "above", "below", "min_level", "trend", "flat",
    "gain", "difference", "significant", "not_significant", "compare_experiments", "rank_share", "slope",
}  # fmt: skip
NEEDS = {
    "better": {"than"},
    "not_worse": {"than", "tolerance"},
    "close": {"tolerance"},
    "level": {"value", "tolerance"},
    "above": {"value"},
    "below": {"value"},
    "min_level": {"value", "tolerance"},
    "trend": {"direction", "tolerance"},
    "flat": {"tolerance"},
    "gain": {"value", "tolerance"},
    "difference": {"than", "value", "tolerance"},
    "compare_experiments": {"experiments", "relation"},
    "rank_share": {"rank", "relation", "value", "experiments"},
    "slope": {"value", "tolerance"},
}


def test_figures_legends_and_axes(pv):
    figs = {f["id"]: f for f in pv["figures"]}
    assert list(figs) == list(FIGURES)
    for fid, f in figs.items():
        assert [e["method"] for e in f["legend"]] == FIGURES[fid], fid
        proposed = {e["method"] for e in f["legend"] if e["proposed"]}
        assert proposed == {"sas", "scss", "kfds"} & set(FIGURES[fid]), fid
        assert f["x"]["quantity"] == ("n_train" if fid.startswith("fig1") else "n_features")
        assert f["y"]["quantity"] == "error" and f["y"]["unit"] == "%"
        ticks = f["y"]["ticks"]
        assert ticks == sorted(ticks) and 0 <= ticks[0] and ticks[-1] <= 50, fid


def test_figures_match_their_configs(pv, experiments):
    for f in pv["figures"]:
        exp = experiments[f["experiment"]]
        (entry,) = exp.datasets
        assert entry.label == f["dataset"], f["id"]
        assert [k.name for k in entry.kernels] == [f["kernel"]], f["id"]
        names = {s.name for s in exp.selectors}
        legend = {e["method"] for e in f["legend"]}
        assert names == legend, f"{f['id']}: config {sorted(names)} vs legend {sorted(legend)}"
        for key, value in f["fixed"].items():
            p = entry.protocol
            got = {
                "S": p.n_features and list(p.n_features),
                "n_train": list(p.n_train),
                "n_test": p.n_test,
                "repeats": p.repeats,
                "degree": entry.kernels[0].degree,
            }[key]
            assert got in (value, [value]), (f["id"], key, got, value)


def test_claims_are_well_formed(pv, experiments):
    figs = {f["id"]: f for f in pv["figures"]}
    tables = {t["id"]: t for t in pv["tables"]}
    ids = [c["id"] for c in pv["claims"]]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    covered = set()
    for c in pv["claims"]:
        assert c["quote"] and c["statement"] and c["source"], c["id"]
        assert ("figure" in c) != ("table" in c), c["id"]
        if "figure" in c:
            covered.add(c["figure"])
            default_exp = figs[c["figure"]]["experiment"]
            assert "paper_consistent" not in c, c["id"]
        else:
            default_exp = tables[c["table"]]["experiment"]
            assert c["paper_consistent"] in (True, False, "partial") and c["note"], c["id"]
        assert isinstance(c["checks"], list), c["id"]
        for chk in c["checks"]:
            where = f"{c['id']}: {chk}"
            assert chk["kind"] in KINDS, where
            assert NEEDS.get(chk["kind"], set()) <= set(chk), where
            assert chk.get("aggregate", "mean") in ("mean", "each", "majority", "any"), where
            assert chk.get("metric", "error") in ("error", "fit_cpu_s"), where
            exps = chk.get("experiments") or [chk.get("experiment", default_exp)]
            for name in exps:
                assert name in experiments, where
                sel_names = {s.name for s in experiments[name].selectors}
                for key in ("selectors", "than", "among"):
                    assert set(chk.get(key, [])) <= sel_names, f"{where}: {key} not in {name}"
            if chk["kind"] == "rank_share":
                continue
            lo, hi = chk["range"]
            assert lo <= hi, where
            x = chk["x"]
            assert x in ("n_features", "n_train", "D"), where
            if x == "D":
                continue
            for name in exps:  # the range ends are points the experiment evaluates
                for e in experiments[name].datasets:
                    grid = e.protocol.n_features if x == "n_features" else e.protocol.n_train
                    assert lo in grid and hi in grid, f"{where}: {lo}/{hi} not in {name} {x} {grid}"
    assert covered == set(FIGURES), f"figures without a claim: {set(FIGURES) - covered}"
