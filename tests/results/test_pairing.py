"""Long tables at fractions of D, and their restriction to the splits every compared selector finished."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fsbench.config.files import fraction_size
from fsbench.results.pairing import block_means, common_splits, fraction_rows, paired_values


def table(repeats: int = 4) -> pd.DataFrame:
    """Selectors a, b, c on datasets x, y; value = 0.1·selector index + 0.01·repeat + 0.001·dataset."""
    rows = [
        {"dataset": ds, "selector": s, "repeat": r, "value": 0.1 * i + 0.01 * r + 0.001 * k, "status": "ok"}
        for k, ds in enumerate(("x", "y"))
        for i, s in enumerate(("a", "b", "c"))
        for r in range(repeats)
    ]
    return pd.DataFrame(rows)


def test_a_split_any_compared_selector_did_not_finish_is_dropped_for_all_and_reported():
    t = table()
    t.loc[(t.dataset == "x") & (t.selector == "c") & (t.repeat == 1), "status"] = "error"
    t.loc[(t.dataset == "y") & (t.selector == "b") & (t.repeat == 2), "value"] = np.nan  # no value: not done
    t = t[~((t.dataset == "y") & (t.selector == "c") & (t.repeat == 3))]  # no row at all
    kept, report = common_splits(t)
    assert sorted(set(kept.loc[kept.dataset == "x", "repeat"])) == [0, 2, 3]
    assert sorted(set(kept.loc[kept.dataset == "y", "repeat"])) == [0, 1]
    assert len(kept) == 3 * 3 + 2 * 3  # every selector on every kept split, nothing else
    assert (kept["status"] == "ok").all()
    r = report.set_index("dataset")
    assert r.loc["x", ["splits", "common", "dropped"]].tolist() == [4, 3, 1]
    assert r.loc["y", ["splits", "common", "dropped"]].tolist() == [4, 2, 2]
    assert r.loc["x", "incomplete"] == "c" and r.loc["y", "incomplete"] == "b, c"


def test_only_the_selectors_compared_decide_which_splits_are_common():
    t = table()
    t.loc[(t.dataset == "x") & (t.selector == "c") & (t.repeat == 1), "status"] = "error"
    kept, report = common_splits(t, ["a", "b"])
    assert set(kept["selector"]) == {"a", "b"} and len(kept) == 2 * 2 * 4
    assert report["dropped"].sum() == 0 and (report["incomplete"] == "").all()
    with pytest.raises(ValueError, match="no row"):
        common_splits(t, ["a", "zzz"])
    with pytest.raises(ValueError, match="several rows"):
        common_splits(pd.concat([t, t.iloc[:1]]))


def test_groups_are_paired_separately_and_a_block_without_a_common_split_disappears():
    t = pd.concat([table().assign(fraction=0.1), table().assign(fraction=0.2)], ignore_index=True)
    gone = (t.fraction == 0.2) & (t.dataset == "y") & (t.selector == "a")
    t.loc[gone, "status"] = "error"
    kept, report = common_splits(t, by="fraction")
    assert len(kept[(kept.fraction == 0.2) & (kept.dataset == "y")]) == 0
    assert len(kept[(kept.fraction == 0.1) & (kept.dataset == "y")]) == 12
    r = report.set_index(["fraction", "dataset"])
    assert r.loc[(0.2, "y"), "common"] == 0 and r.loc[(0.2, "y"), "incomplete"] == "a"
    means = block_means(kept[kept.fraction == 0.2])
    assert list(means.index) == ["x"]


def test_block_means_average_the_kept_splits_at_the_metrics_resolution():
    t = table()
    t.loc[(t.dataset == "x") & (t.selector == "b") & (t.repeat == 0), "status"] = "error"
    means = paired_values(t)
    assert list(means.columns) == ["a", "b", "c"] and list(means.index) == ["x", "y"]
    assert means.loc["x", "a"] == pytest.approx(0.02)  # repeats 1, 2, 3 only
    assert means.loc["y", "a"] == pytest.approx(0.001 + 0.015)
    # means that differ by rounding only are ties (fsbench.results.ties)
    noisy = pd.DataFrame(
        {"dataset": "x", "selector": ["a", "b"], "repeat": 0, "value": [0.1157, 0.1157 + 3e-17]}
    )
    m = block_means(noisy)
    assert m.loc["x", "a"] == m.loc["x", "b"]


def results_csv() -> pd.DataFrame:
    """Rows as results.csv has them: datasets of D = 4 and 40, the baseline at S = D."""
    rows = []
    for ds, d in (("small", 4), ("large", 40)):
        s_grid = sorted({fraction_size(f, d) for f in (0.1, 0.5)} | {3})
        for r in range(2):
            rows.append({"dataset": ds, "selector": "all", "repeat": r, "n_features": d, "error": 0.2})
            for s in s_grid:
                rows.append(
                    {"dataset": ds, "selector": "f", "repeat": r, "n_features": s, "error": 0.3 - s / 100}
                )
    return pd.DataFrame(rows)


def test_fraction_rows_take_each_datasets_own_S_and_repeat_the_baseline():
    t = fraction_rows(results_csv(), [0.1, 0.5])
    f = t[t.selector == "f"].groupby(["fraction", "dataset"])["S"].unique().map(list).to_dict()
    assert f == {(0.1, "large"): [4], (0.1, "small"): [1], (0.5, "large"): [20], (0.5, "small"): [2]}
    base = t[t.selector == "all"]
    assert len(base) == 2 * 2 * 2 and (base["S"] == base["D"]).all()  # both fractions, both datasets
    assert set(t.columns) == {"fraction", "dataset", "selector", "repeat", "S", "D", "value", "status"}
    assert (t["status"] == "ok").all()


def test_fraction_rows_need_D():
    rows = results_csv()
    with pytest.raises(ValueError, match="D unknown"):
        fraction_rows(rows[rows.selector != "all"], [0.1])
    t = fraction_rows(rows[rows.selector != "all"], [0.5], sizes={"small": 4, "large": 40})
    assert sorted(t["S"].unique()) == [2, 20]
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        fraction_rows(rows, [0.0])
