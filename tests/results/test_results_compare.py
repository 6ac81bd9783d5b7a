"""``fsbench compare`` end to end on small synthetic result directories."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from results_helpers import fixed_ranker, random_ranker, write_result_dir
from typer.testing import CliRunner

from fsbench.cli import app
from fsbench.results.compare import compare_selectors, format_comparison
from fsbench.results.loading import load_result_sets
from fsbench.results.stats_compare import CompareError, build_blocks

D = 10
SHIFT = {"good": 0.00, "mid": 0.03, "bad": 0.06, "extra": 0.01}


def _error(sel, n, r, s, rng):
    # a shared split effect (same for every selector of a repeat) plus the selector's shift and noise
    return 0.2 + 0.01 * ((r * 7) % 5) + SHIFT.get(sel, 0.0) + 0.002 * rng.standard_normal()


def _dirs(tmp_path):
    sel = {"good": fixed_ranker([0, 1, 2, 3], D), "mid": random_ranker(D), "bad": random_ranker(D)}
    write_result_dir(tmp_path / "r" / "a", experiment="a", dataset="ds_a", d=D, selectors=sel, error=_error)
    write_result_dir(
        tmp_path / "r" / "b",
        experiment="b",
        dataset="ds_b",
        d=D,
        selectors={**sel, "extra": random_ranker(D)},
        error=_error,
        n_train=(30, 60),
        s_values=(2, 4, 6, D),
        seed=1,
    )
    write_result_dir(
        tmp_path / "r" / "c",
        experiment="c",
        dataset="weston_nonlinear",
        d=D,
        selectors=sel,
        error=_error,
        s_values=(2, 3),
        seed=2,
    )
    return [tmp_path / "r" / x for x in "abc"]


def _cli(*args):
    return CliRunner().invoke(app, ["compare", *map(str, args)], catch_exceptions=False)


def test_compare_command_end_to_end(tmp_path):
    dirs = _dirs(tmp_path)
    out = tmp_path / "out"
    res = _cli(*dirs, "--out", out)
    assert res.exit_code == 0, res.output
    text = res.output
    # blocks: a 1 n x 2 S, b 2 n x 3 S (S = D left out), c 1 n x 2 S
    # a successful compare must not read like a failure ("error: ..." is how every refusal starts)
    assert not text.lower().startswith("error") and not res.stdout.startswith("error")
    assert text.startswith("metric: error (lower is better); 10 blocks")
    assert "extra: left out, absent from a, c" in text
    assert "all: the all-features baseline" in text
    assert "2 block(s) at S = D left out" in text
    assert "Friedman chi2_F = 20.000 (df 2)" in text  # good < mid < bad in every block: chi2 = N(k-1)
    assert "Iman-Davenport F_F undefined: every block ranks the selectors identically" in text
    assert "no verdict" in text  # 10 blocks: fewer than Demšar's N > 10
    ranks = pd.read_csv(out / "ranks.csv")
    assert ranks["selector"].tolist() == ["good", "mid", "bad"]
    assert ranks["average_rank"].tolist() == [1.0, 2.0, 3.0]
    post = pd.read_csv(out / "posthoc.csv")
    assert len(post) == 3 and post["holm_significant"].all()
    assert post.loc[(post.a == "good") & (post.b == "bad"), "nemenyi_significant"].item()
    for name in [
        "cd_diagram.png",
        "cd_diagram.pdf",
        "cd_diagram_wilcoxon_holm.png",
        "friedman.md",
        "blocks.csv",
        "stability.csv",
        "error_vs_stability.png",
        "ground_truth_success.csv",
        "ground_truth_c_weston_nonlinear_linear.png",
        "similarity_spearman.csv",
        "similarity.png",
        "compare.html",
    ]:
        assert (out / name).is_file(), name
    assert (out / "cd_diagram.png").read_bytes()[:4] == b"\x89PNG"
    stab = pd.read_csv(out / "stability.csv")
    assert set(stab["source"]) == {"a", "b", "c"} and "all" not in set(stab["selector"])
    assert (stab.loc[(stab.selector == "good") & (stab.n_features < D), "nogueira"] == 1.0).all()
    gt = pd.read_csv(out / "ground_truth_success.csv")
    assert set(gt["source"]) == {"c"}  # only the Weston dataset has known relevant features
    assert gt.set_index("selector").loc["good", "success_rate"] == 1.0  # features 0, 1 first
    html = (out / "compare.html").read_text()
    assert "Friedman and Iman–Davenport tests" in html and "Provenance" in html
    assert "Similarity of the rankings" in html
    sim = pd.read_csv(out / "similarity_spearman.csv").set_index("selector")
    assert set(sim.index) == {"good", "mid", "bad"} and "all" not in sim.index
    assert np.allclose(np.diag(sim.loc[sim.index, sim.index].to_numpy()), 1.0)


def test_selector_choice_include_all_keep_full_and_per_dataset(tmp_path):
    sets = load_result_sets(_dirs(tmp_path))
    b = build_blocks(sets, selectors=["good", "extra"])
    assert len(b.values) == 6 and set(b.values.index.get_level_values("source")) == {"b"}
    assert len(build_blocks(sets, keep_full=True).values) == 12
    every = build_blocks(sets, include_all=True)
    assert "all" in every.selectors
    # "all" exists only at S = D, and only directory b evaluates the rankers there too
    assert list(every.values.index) == [("b", "ds_b", "linear", 30, D), ("b", "ds_b", "linear", 60, D)]
    plain = write_result_dir(
        tmp_path / "plain",
        experiment="p",
        dataset="ds",
        d=D,
        selectors={"x": random_ranker(D), "y": random_ranker(D)},
        error=_error,
        baseline=False,
    )
    no_base = build_blocks(load_result_sets([plain]), include_all=True)
    assert (
        no_base.selectors == ["x", "y"]
        and "--include-all: these results have no 'all' baseline" in no_base.notes
    )
    per = compare_selectors(sets, per_dataset=True)
    assert per.friedman.n_blocks == 4  # (a, 50), (b, 30), (b, 60), (c, 50)
    assert "note:" not in format_comparison(per)


def _relabel_baseline(dirs, label):
    """The baseline as a config may name it: selector label ``label``, selector name still ``all``."""
    for d in dirs:
        for name in ("results.csv", "rankings.csv"):
            f = d / name
            t = pd.read_csv(f, keep_default_na=False, dtype=str)
            t.loc[t["selector"] == "all", "selector"] = label
            t.to_csv(f, index=False)


def test_a_baseline_labelled_otherwise_is_still_the_baseline(tmp_path):
    plain = build_blocks(load_result_sets(_dirs(tmp_path / "plain")))
    dirs = _dirs(tmp_path / "knnc")
    _relabel_baseline(dirs, "KNNC")
    sets = load_result_sets(dirs)
    b = build_blocks(sets)
    # left out by default as `all` is, with the same blocks (S = D dropped), values and note
    assert b.selectors == plain.selectors == ["bad", "good", "mid"]
    pd.testing.assert_frame_equal(b.values, plain.values)
    assert any(n.startswith("KNNC: the all-features baseline") for n in b.notes)
    assert "2 block(s) at S = D left out (same SVM for every ranker); --keep-full" in b.notes
    every = build_blocks(sets, include_all=True)
    assert "KNNC" in every.selectors and not any("no 'all' baseline" in n for n in every.notes)
    assert list(every.values.index) == [("b", "ds_b", "linear", 30, D), ("b", "ds_b", "linear", 60, D)]


def test_blocks_are_paired_over_repeats(tmp_path):
    dirs = _dirs(tmp_path)
    path = dirs[0] / "results.csv"
    rows = list(csv.DictReader(open(path)))
    for r in rows:  # one failed task: that repeat leaves the block for every selector
        if r["selector"] == "bad" and r["repeat"] == "3" and r["n_features"] == "2":
            r["status"], r["error"] = "failed", ""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    sets = load_result_sets([dirs[0]])
    b = build_blocks(sets)
    assert b.n_repeats.loc[("a", "ds_a", "linear", 50, 2)] == 5
    assert b.n_repeats.loc[("a", "ds_a", "linear", 50, 4)] == 6
    ok = sets[0].results
    ok = ok[(ok.n_features == 2) & (ok.selector == "good") & (ok.repeat != 3)]
    assert b.values.loc[("a", "ds_a", "linear", 50, 2), "good"] == pytest.approx(ok["error"].mean())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metric", "selector"], "metric 'selector' is not a numeric column"),
        (["--selector", "nope", "--selector", "good"], "selector(s) ['nope'] not found"),
        (["--selector", "good"], "need at least 2 selectors"),
    ],
)
def test_user_errors_are_one_line_exit_2(tmp_path, args, message):
    dirs = _dirs(tmp_path)
    res = CliRunner().invoke(app, ["compare", *map(str, dirs), *args])
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_no_results_and_too_few_blocks(tmp_path):
    res = CliRunner().invoke(app, ["compare", str(tmp_path)])
    assert res.exit_code == 2 and "no results.csv found" in res.output
    sets = load_result_sets(_dirs(tmp_path)[:1])
    with pytest.raises(CompareError, match="only 1 block"):
        build_blocks(sets, per_dataset=True)
    np.testing.assert_equal(len(build_blocks(sets).values), 2)
