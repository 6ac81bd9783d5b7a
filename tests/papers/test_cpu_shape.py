"""CPU tables compared by their shape (fsbench.papers.cpu_shape): slopes, bootstrap CIs, Kendall's τ.

Synthetic timings with a known exponent; the paper values are made up here, not copied from a paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fsbench.papers.cpu_shape import (
    bootstrap_slope,
    compare_cpu_shape,
    cpu_shape_markdown,
    cpu_shape_summary,
    loglog_slope,
    order_agreement,
)

XS = [5.0, 20.0, 200.0, 500.0, 1000.0, 2000.0]


def _times(
    exponent: float, scale: float, rng, repeats: int = 10, noise: float = 0.1
) -> dict[float, np.ndarray]:
    return {x: scale * x**exponent * np.exp(noise * rng.normal(size=repeats)) for x in XS}


@pytest.mark.parametrize("k", [0.5, 1.0, 2.0, 3.0])
def test_loglog_slope_recovers_a_power_law(k):
    x = np.array(XS)
    assert loglog_slope(x, 7.0 * x**k) == pytest.approx(k, abs=1e-12)
    # non-positive or missing points are left out; fewer than two x: NaN
    assert loglog_slope([*x, 3.0], [*(7.0 * x**k), 0.0]) == pytest.approx(k, abs=1e-12)
    assert np.isnan(loglog_slope([10.0, 10.0], [1.0, 2.0]))


@pytest.mark.parametrize("k", [1.0, 2.0])
def test_bootstrap_ci_covers_the_known_exponent(k):
    samples = _times(k, 1e-4, np.random.default_rng(3))
    b, lo, hi = bootstrap_slope(samples, resamples=2000, level=0.95, seed=24)
    assert lo < b < hi
    assert lo <= k <= hi
    assert abs(b - k) < 0.05 and hi - lo < 0.1
    # the seed fixes the interval; another seed moves it only a little
    assert bootstrap_slope(samples, resamples=2000, level=0.95, seed=24) == (b, lo, hi)
    b2, lo2, hi2 = bootstrap_slope(samples, resamples=2000, level=0.95, seed=7)
    assert b2 == b and abs(lo2 - lo) < 0.02 and abs(hi2 - hi) < 0.02


def test_bootstrap_without_noise_is_a_point_and_wider_with_more_noise():
    exact = {x: np.full(5, 2.0 * x**1.5) for x in XS}
    b, lo, hi = bootstrap_slope(exact, resamples=200, seed=0)
    assert b == pytest.approx(1.5) and lo == pytest.approx(1.5) and hi == pytest.approx(1.5)
    rng = np.random.default_rng(0)
    narrow = bootstrap_slope(_times(1.5, 1.0, rng, noise=0.05), resamples=500, seed=0)
    wide = bootstrap_slope(_times(1.5, 1.0, rng, noise=0.5), resamples=500, seed=0)
    assert wide[2] - wide[1] > 3 * (narrow[2] - narrow[1])


def test_kendall_tau_of_orders():
    paper = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0, "e": 5.0}
    same = {m: 10 * v for m, v in paper.items()}
    assert order_agreement(paper, same, list(paper))[0] == pytest.approx(1.0)
    assert order_agreement(paper, {m: -v for m, v in paper.items()}, list(paper))[0] == pytest.approx(-1.0)
    one_swap = dict(same, d=60.0)  # d and e swap: 1 of 10 pairs discordant
    assert order_agreement(paper, one_swap, list(paper))[0] == pytest.approx(0.8)
    assert np.isnan(order_agreement(paper, {"a": 1.0}, list(paper))[0])


def _values(paper_exponents: dict[str, float]) -> dict:
    cells = [
        {
            "N": x,
            "method": m,
            "value": round(3.0 * x**k, 6),
            **({"paper_inconsistent": "x"} if m == "c" else {}),
        }
        for m, k in paper_exponents.items()
        for x in XS
    ]
    return {
        "tables": [
            {
                "id": "table8",
                "number": "VIII",
                "experiment": "timing",
                "rows": {"key": "N", "values": XS},
                "cells": cells,
            }
        ],
        "cpu_shape": {
            "fixed": "test",
            "tables": [{"table": "table8", "x": "N"}],
            "methods": {"a": "a", "b": "b", "c": "c", "a2": "a"},
            "slope": {
                "range": {"table8": [200, None]},
                "statistic": "median",
                "bootstrap": {"resamples": 500, "level": 0.95, "seed": 1},
                "tolerance": 0.3,
            },
            "order": {"at": "largest", "methods": ["a", "b", "c"], "agree_at_least": 0.6},
        },
    }


def _rows(our_exponents: dict[str, float], seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m, (k, scale) in our_exponents.items():
        for x, t in _times(k, scale, rng, repeats=8, noise=0.05).items():
            for r, v in enumerate(t):
                for S in (2, 4):  # a ranker: one fit, several evaluated S (one time)
                    rows.append(
                        {
                            "experiment": "timing",
                            "dataset": "toy",
                            "selector": m,
                            "selector_name": m,
                            "status": "ok",
                            "task_id": f"{m}-{x}-{r}",
                            "n_train": x,
                            "n_features": S,
                            "fit_cpu_s": v,
                        }
                    )
    return pd.DataFrame(rows)


def test_compare_cpu_shape_judges_each_slope_and_the_order():
    values = _values({"a": 2.0, "b": 1.0, "c": 3.0})
    # a: same exponent, another constant (a different machine); b: 1.8 vs 1.0 (differs);
    # c: 3.2 vs 3.0 (agrees); a2 is compared with a's column
    df = _rows({"a": (2.0, 1e-6), "b": (1.8, 1e-3), "c": (3.2, 1e-9), "a2": (2.6, 1e-6)})
    shape = compare_cpu_shape(values, df)
    by = {s.method: s for s in shape.slopes}
    assert by["a"].paper == pytest.approx(2.0, abs=1e-6) and by["a"].ours == pytest.approx(2.0, abs=0.05)
    assert by["a"].agrees and by["c"].agrees and not by["b"].agrees and not by["a2"].agrees
    assert by["a2"].paper_column == "a" and by["c"].paper_inconsistent and not by["a"].paper_inconsistent
    assert by["b"].lo <= by["b"].ours <= by["b"].hi and not by["b"].ci_overlaps
    # the range: 200, 500, 1000, 2000; eight repeats each (one per task, not one per evaluated S)
    assert by["a"].n_points == 4 and by["a"].n_repeats == 8
    # the full range keeps every x (information only)
    assert by["b"].ours_full == pytest.approx(1.8, abs=0.05)
    # order at N = 2000: paper c > a > b; ours b (≈ 870 s) > c (≈ 37 s) > a (4 s)
    (order,) = shape.orders
    assert order.x == 2000.0
    assert order.order("paper") == ["c", "a", "b"] and order.order("ours") == ["b", "c", "a"]
    assert order.tau == pytest.approx(-1 / 3) and order.agrees is False
    md = "\n".join(cpu_shape_markdown(shape))
    assert "a2 (vs a)" in md and "paper inconsistent" in md and "Kendall" in md
    (line,) = cpu_shape_summary(shape)
    assert "2 of 4 log-log slopes" in line and "τ = -0.33 (differs)" in line


def test_no_rule_no_section_and_no_results_no_verdict():
    values = _values({"a": 2.0, "b": 1.0, "c": 3.0})
    assert compare_cpu_shape({"tables": values["tables"]}, pd.DataFrame()) is None
    shape = compare_cpu_shape(values, pd.DataFrame())
    assert all(s.agrees is None for s in shape.slopes) and not np.isnan(shape.slopes[0].paper)
    assert all(o.agrees is None for o in shape.orders)
    assert cpu_shape_summary(shape) == []
