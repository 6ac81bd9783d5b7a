"""Ties at the metric's resolution (:mod:`fsbench.results.ties`), wherever fsbench ranks.

The real case: Ramona Fig. 2b (Spambase, RBF, n = 500, S = 10), where arom and fisher make the same number
of test errors in total, yet their mean errors, averaged in floating point, differ in the last bits.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

from fsbench.report import experiment_section
from fsbench.results.loading import load_result_sets, read_results
from fsbench.results.stats import rank_shares, ranks, summary
from fsbench.results.stats_compare import build_blocks, posthoc_table, rank_blocks, rank_summary
from fsbench.results.ties import TIE_RTOL, at_resolution


# --------------------------------------------------------------------------- the rule itself
def test_values_equal_up_to_rounding_become_equal_and_others_stay():
    noisy = 0.1 + 0.2  # 0.30000000000000004
    assert noisy != 0.3
    x = np.array([0.5, noisy, 0.3, 0.3 + 1e-9, np.nan])
    r = at_resolution(x)
    assert r[1] == r[2] == 0.3  # the group takes its smallest value
    assert r[3] == x[3] and r[0] == 0.5  # a real difference (1e-9 relative) is kept
    assert np.isnan(r[4])
    np.testing.assert_array_equal(at_resolution(r), r)  # idempotent
    # the tolerance is relative to the largest magnitude compared: a tie at 1e6 scale too
    big = np.array([1e6, 1e6 * (1 + TIE_RTOL / 4), 2e6])
    assert at_resolution(big)[0] == at_resolution(big)[1]
    # rows (blocks) are resolved each on its own
    two = at_resolution(np.array([[noisy, 0.3, 1.0], [0.3, 0.3 + 1e-6, 1.0]]))
    assert two[0, 0] == two[0, 1] and two[1, 0] != two[1, 1]
    # a chain: each successive gap below the resolution makes one group
    step = 0.4 * TIE_RTOL
    chain = at_resolution(np.array([1.0, 1.0 + step, 1.0 + 2 * step, 2.0]))
    assert len(set(chain[:3])) == 1 and chain[3] == 2.0


def test_synthetic_tie_in_stats_ranks_and_compare():
    rows = []
    # a and b: the same errors in another order; summed in floating point, their means differ in the last bit
    errs = {"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2, 0.1], "c": [0.9, 0.9, 0.9]}
    for S in (2, 3):
        for sel, e in errs.items():
            for rep, v in enumerate(e):
                rows.append(
                    dict(experiment="e", dataset="d", kernel="linear", n_train=10, n_features=S)
                    | dict(selector=sel, repeat=rep, status="ok", error=v)
                )
    df = pd.DataFrame(rows)
    raw = df.groupby(["n_features", "selector"])["error"].mean().unstack()
    assert (raw["a"] != raw["b"]).all()  # the noise the rule removes
    r = ranks(df)
    assert (r.loc[r.selector.isin(["a", "b"]), "rank"] == 1).all()
    assert r.loc[r.selector.isin(["a", "b"]), "tied_first"].all()
    shares = rank_shares(df).set_index("selector")
    assert shares.loc["a", "first"] == shares.loc["b", "first"] == 1.0
    assert shares.loc["c", "second"] == 0.0 and shares.loc["c", "rest"] == 1.0  # two ahead of it: rank 3
    wide = df.groupby(["n_features", "selector"])["error"].mean().unstack()
    rk = rank_blocks(wide)
    assert (rk["a"] == 1.5).all() and (rk["b"] == 1.5).all()
    post = posthoc_table(wide, rk).set_index(["a", "b"])
    pair = post.loc[("a", "b")] if ("a", "b") in post.index else post.loc[("b", "a")]
    assert pair["ties"] == 2 and pair["wins_a"] == 0 and pair["losses_a"] == 0


# --------------------------------------------------------------------------- Ramona, committed results
RAMONA = REPO / "results" / "ramona2012"
FIG2B = RAMONA / "fig2b_spambase_rbf"
TAB9 = RAMONA / "tab9_cpu_vs_d"


def _committed(d):
    if not (d / "results.csv").is_file():
        pytest.skip(f"the committed results {d} are absent")
    return read_results(d)


@pytest.fixture(scope="module")
def fig2b() -> pd.DataFrame:
    return _committed(FIG2B)


def _error_counts(ok: pd.DataFrame, selectors) -> dict[str, int]:
    counts = {}
    for sel in selectors:
        d = ok[ok.selector == sel]
        n_err = d["error"] * d["n_test"]
        np.testing.assert_allclose(n_err, np.round(n_err), atol=1e-6)  # errors are counts
        counts[sel] = int(np.round(n_err).sum())
    return counts


def test_fig2b_arom_and_fisher_make_the_same_errors_but_their_block_means_differ_in_the_last_bits(fig2b):
    ok = fig2b[(fig2b.status == "ok") & (fig2b.n_train == 500) & (fig2b.n_features == 10)]
    counts = _error_counts(ok, ("arom", "fisher"))
    assert counts["arom"] == counts["fisher"]  # 3,471 errors each over 30 x 1,000 test points: a true tie
    # the block means as compare takes them (a grouped mean over the repeats): noise in the last bits
    wide = ok.set_index(["repeat", "selector"])["error"].unstack("selector")
    means = wide.groupby(lambda _: 0).mean().iloc[0]
    assert means["arom"] != means["fisher"]
    resolved = pd.Series(at_resolution(means.to_numpy()), index=means.index)
    assert resolved["arom"] == resolved["fisher"]


def test_tab9_arom_and_kfds_tie_in_stats_ranks():
    """Ramona Table IX, weston_linear_D20, n = 30, S = 5: AROM and KFDS both make 28 errors in 1,000."""
    df = _committed(TAB9)
    where = (df.dataset == "weston_linear_D20") & (df.n_train == 30) & (df.n_features == 5)
    ok = df[where & (df.status == "ok")]
    counts = _error_counts(ok, ("AROM", "KFDS"))
    assert counts["AROM"] == counts["KFDS"]
    s = summary(df[where]).set_index("selector")["mean"]
    assert s["AROM"] != s["KFDS"]  # 0.027999999999999997 vs 0.028000000000000004
    cell = ranks(df[where]).set_index("selector")
    assert cell.loc["AROM", "rank"] == cell.loc["KFDS", "rank"]
    # ties share the lower rank and the next one comes two places down
    assert cell.loc["AROM", "rank"] + 1 not in set(cell["rank"])
    shares = rank_shares(df[where]).set_index("selector")
    assert shares.loc["AROM", "rest"] == shares.loc["KFDS", "rest"]


def test_fig2b_tie_for_first_in_stats_ranks_and_rank_shares(fig2b):
    r = ranks(fig2b)
    cell = r[(r.n_train == 500) & (r.n_features == 10)].set_index("selector")
    assert cell.loc["arom", "rank"] == cell.loc["fisher", "rank"] == 1
    assert cell.loc["arom", "tied_first"] and cell.loc["fisher", "tied_first"]
    assert (cell.drop(["arom", "fisher"])["rank"] >= 3).all()  # nobody is second after a tie for first
    one = fig2b[(fig2b.n_train == 500) & (fig2b.n_features == 10)]
    shares = rank_shares(one).set_index("selector")
    assert shares.loc["arom", "first"] == shares.loc["fisher", "first"] == 1.0


def test_fig2b_tie_in_compare(fig2b):
    blocks = build_blocks(load_result_sets([FIG2B]), selectors=["arom", "fisher", "sas"])
    key = ("fig2b_spambase_rbf", "spambase", "rbf", 500, 10)
    row = blocks.values.loc[key]
    assert row["arom"] == row["fisher"]
    rk = rank_blocks(blocks.values)
    assert rk.loc[key, "arom"] == rk.loc[key, "fisher"] == 1.5
    summ = rank_summary(blocks, rk).set_index("selector")
    # the shared first place counts for both: more wins than blocks
    assert summ["best_in_blocks"].sum() > len(blocks.values)
    post = posthoc_table(blocks.values, rk)
    pair = post[post[["a", "b"]].apply(set, axis=1) == {"arom", "fisher"}].iloc[0]
    assert pair["ties"] >= 1


def test_fig2b_tie_in_the_report_table(fig2b, tmp_path):
    d = tmp_path / "fig2b"
    (d / "plots").mkdir(parents=True)
    for name in ("results.csv", "run.json"):
        shutil.copy(FIG2B / name, d / name)
    (d / "plots" / "stub.png").write_bytes(b"")  # the section embeds plots; none are drawn here
    text, _ = experiment_section(d, tmp_path)
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("**spambase, rbf kernel, n_train = 500**"))
    header = next(x for x in lines[start:] if x.startswith("| S "))
    row = next(x for x in lines[start:] if x.startswith("| 10 "))
    cells = dict(
        zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")])
    )
    assert cells["arom"].startswith("**") and cells["fisher"].startswith("**"), row
