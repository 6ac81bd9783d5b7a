"""Share of relevant features in the top S and exact-recovery success rate on synthetic result dirs."""

from __future__ import annotations

import numpy as np
import pytest
from results_helpers import fixed_ranker, write_result_dir

from fsbench.data import get_card
from fsbench.results.ground_truth import (
    dataset_generators,
    ground_truth_tables,
    plot_ground_truth,
    relevant_features,
    wilson_interval,
)
from fsbench.results.loading import load_result_sets


def test_relevant_features_of_the_weston_generators():
    assert relevant_features("weston_linear") == frozenset(range(6))
    assert relevant_features("weston_nonlinear", {}) == frozenset({0, 1})
    assert relevant_features("weston_linear", {"n_features": 5}) == frozenset(
        range(5)
    )  # truncated (Table IX)
    assert relevant_features("weston_linear", {"n_features": 2000}) == frozenset(range(6))
    assert relevant_features("something_else") is None
    # the cards name the generators this mapping is keyed by
    assert get_card("weston_linear").sources[0].generator == "weston_linear"
    assert get_card("weston_nonlinear").sources[0].generator == "weston_nonlinear"


def test_wilson_interval():
    lo, hi = wilson_interval(0, 40)
    assert lo == 0.0 and 0.05 < hi < 0.1  # 0/40: upper bound z²/(n + z²) = 0.0876
    assert hi == pytest.approx(1.959964**2 / (40 + 1.959964**2), rel=1e-5)
    lo, hi = wilson_interval(20, 40)
    assert lo == pytest.approx(1 - hi) and lo < 0.5 < hi


def _weston_dir(path, effective_dataset=None, dataset="weston_nonlinear"):
    d = 52

    def half_right(n, r, rng):
        # finds both relevant features in even repeats at n=40, one of them otherwise
        if n == 40 and r % 2 == 0:
            return fixed_ranker([1, 0, 7], d)(n, r, rng)
        return fixed_ranker([0, 9, 1], d)(n, r, rng)

    return write_result_dir(
        path,
        experiment=path.name,
        dataset=dataset,
        d=d,
        selectors={
            "oracle": fixed_ranker([0, 1], d),
            "half": half_right,
            "blind": fixed_ranker([5, 6, 7], d),
        },
        error=lambda sel, n, r, s, rng: 0.2,
        n_train=(20, 40),
        s_values=(2, 3),
        repeats=4,
        effective_dataset=effective_dataset,
    )


def test_share_and_success(tmp_path):
    _weston_dir(tmp_path / "fig1b")
    share, success = ground_truth_tables(load_result_sets([tmp_path]))
    assert set(success["selector"]) == {"oracle", "half", "blind"}  # never the baseline
    rate = success.set_index(["selector", "n_train"])["success_rate"]
    assert rate["oracle", 20] == 1.0 and rate["oracle", 40] == 1.0
    assert rate["blind", 20] == 0.0
    assert rate["half", 20] == 0.0 and rate["half", 40] == 0.5
    sh = share.set_index(["selector", "n_train", "n_features"])
    assert sh.loc[("oracle", 20, 2), "share_relevant"] == 1.0
    assert sh.loc[("oracle", 20, 3), "share_relevant"] == pytest.approx(2 / 3)
    assert sh.loc[("oracle", 20, 3), "recall"] == 1.0
    # "half" at S = 2: {0, 9} -> 1/2 relevant; at n=40 half the repeats have {1, 0} -> mean 3/4
    assert sh.loc[("half", 20, 2), "share_relevant"] == 0.5
    assert sh.loc[("half", 40, 2), "share_relevant"] == 0.75
    assert sh.loc[("half", 20, 3), "recall"] == 1.0  # {0, 9, 1}
    assert (success["relevant"] == 2).all() and (success["repeats"] == 4).all()
    figs = plot_ground_truth(share, success)
    assert len(figs) == 1 and len(figs[0][1].axes) == 3  # success + S = 2 and S = 3


def test_generator_from_inline_dataset_and_unknown_datasets(tmp_path):
    spec = [{"generator": "weston_linear", "params": {"n_features": 5}, "label": "wl_D5"}]
    rs = load_result_sets(
        [
            write_result_dir(
                tmp_path / "tab9",
                experiment="tab9",
                dataset="wl_D5",
                d=5,
                selectors={"oracle": fixed_ranker([0, 1, 2, 3, 4], 5)},
                error=lambda *a: 0.1,
                s_values=(2,),
                effective_dataset=spec,
            )
        ]
    )[0]
    assert dataset_generators(rs) == {"wl_D5": ("weston_linear", {"n_features": 5})}
    share, success = ground_truth_tables([rs])
    assert success["relevant"].tolist() == [5] and success["success_rate"].tolist() == [1.0]
    # a real dataset without known relevant features gives empty tables
    rs2 = load_result_sets([_weston_dir(tmp_path / "iono", dataset="ionosphere")])
    rs2 = [r for r in rs2 if r.source == "iono"]
    share, success = ground_truth_tables(rs2)
    assert share.empty and success.empty
    # ... unless the caller supplies them
    share, success = ground_truth_tables(rs2, relevant={"ionosphere": frozenset({0, 1})})
    assert np.allclose(success.loc[success.selector == "oracle", "success_rate"], 1.0)
