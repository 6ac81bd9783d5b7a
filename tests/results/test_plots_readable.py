"""Readable ``fsbench plot`` figures (#16 item 6): selector choice, legend outside the axes, integer ticks,
error in %, confidence-band toggle. Figures are inspected as matplotlib objects before saving."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from conftest import cli
from matplotlib.collections import PolyCollection

from fsbench.plots.experiment import (
    BANDS_MAX,
    PlotError,
    check_selectors,
    experiment_figures,
    figure_error_vs_n,
    figure_error_vs_S,
    parse_selectors,
    select_selectors,
)

#: (label, registry name): two labels of one name (Ramona Fig. 1b's rfe / rfe_linear) and labels that
#: differ from their names (Table VIII's Fisher / SAS).
SELECTORS = [("all", "all"), ("Fisher", "fisher"), ("rfe", "rfe"), ("rfe_linear", "rfe"), ("SAS", "sas")]


def _results(
    selectors: list[tuple[str, str]] = SELECTORS,
    n_train: tuple[int, ...] = (10, 20, 30),
    S: tuple[int, ...] = (1, 2, 3),
    D: int = 10,
    repeats: int = 4,
) -> pd.DataFrame:
    """A results.csv-like table: every selector at every (n_train, S, repeat); ``all`` only at S = D."""
    rng = np.random.default_rng(0)
    rows = []
    for n in n_train:
        for r in range(repeats):
            for i, (label, name) in enumerate(selectors):
                task = f"e-{label}-{n}-{r}"
                for s in [D] if name == "all" else S:
                    rows.append(
                        {
                            "experiment": "e",
                            "dataset": "toy",
                            "kernel": "rbf",
                            "selector": label,
                            "selector_name": name,
                            "n_train": n,
                            "n_features": s,
                            "repeat": r,
                            "error": float(np.clip(0.1 + 0.03 * i + rng.normal(0, 0.02), 0, 1)),
                            "fit_cpu_s": 0.01 * (i + 1),
                            "status": "ok",
                            "task_id": task,
                        }
                    )
    return pd.DataFrame(rows)


def _ten() -> list[tuple[str, str]]:
    """The ten selectors of Ramona 2012 Fig. 1b (baseline included)."""
    names = ["fisher", "arom", "r2w2", "rfe", "rfe", "sfs", "sas", "scss", "kfds"]
    labels = ["fisher", "arom", "r2w2", "rfe", "rfe_linear", "sfs", "sas", "scss", "kfds"]
    return [("all", "all"), *zip(labels, names)]


def _line_labels(fig) -> list[str]:
    return [line.get_label() for line in fig.axes[0].get_lines()]


def _bands(fig) -> int:
    return sum(isinstance(c, PolyCollection) for c in fig.axes[0].collections)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- selection
def test_parse_selectors_merges_commas_and_repeats():
    assert parse_selectors(None) is None
    assert parse_selectors(["", " , "]) is None
    assert parse_selectors(["sas,rfe", "all", "sas"]) == ["sas", "rfe", "all"]


def test_select_by_label_first_then_name():
    df = _results()
    # a label selects that label only, although rfe_linear has the same registry name
    assert set(select_selectors(df, ["rfe"])["selector"]) == {"rfe"}
    # a registry name that is no label selects its label(s)
    assert set(select_selectors(df, ["sas", "fisher"])["selector"]) == {"SAS", "Fisher"}
    assert set(select_selectors(df, ["Fisher", "all"])["selector"]) == {"Fisher", "all"}
    assert select_selectors(df, None) is df


def test_unknown_selector_refused():
    df = _results()
    check_selectors([df], ["SAS", "rfe_linear", "sas"])  # label, label, name: all known
    with pytest.raises(PlotError, match="unknown selector.*nope") as err:
        check_selectors([df], ["SAS", "nope"])
    assert "\n" not in str(err.value) and "available labels: all, Fisher" in str(err.value)


def test_figures_hold_only_the_chosen_selectors():
    df = select_selectors(_results(), ["SAS", "rfe", "all"])
    figs = dict(experiment_figures(df))
    # S varies: one error-vs-S figure per n; n varies: one error-vs-n figure per S, and CPU time vs n
    assert set(figs) == {f"error_vs_S_toy_rbf_n{n}" for n in (10, 20, 30)} | {
        f"error_vs_n_toy_rbf_S{s}" for s in (1, 2, 3)
    } | {"cpu_vs_n_toy_rbf"}
    cpu = figs.pop("cpu_vs_n_toy_rbf")
    # the baseline selects nothing: no selection time
    assert sorted(label.split(":")[0] for label in _line_labels(cpu)) == ["SAS", "rfe"]
    for fig in figs.values():
        assert sorted(_line_labels(fig)) == ["SAS", "all", "rfe"]
        assert sorted(t.get_text() for t in fig.axes[0].get_legend().get_texts()) == ["SAS", "all", "rfe"]


# --------------------------------------------------------------------------- layout
@pytest.mark.parametrize("make", [figure_error_vs_S, figure_error_vs_n])
def test_legend_outside_the_axes_with_ten_selectors(make):
    fig = make(_results(_ten()), "ten selectors")
    fig.canvas.draw()
    ax = fig.axes[0]
    leg = ax.get_legend().get_window_extent()
    box = ax.get_window_extent()
    assert leg.x0 >= box.x1 or leg.y1 <= box.y0, (leg, box)
    assert len(ax.get_legend().get_texts()) == 10


def test_ten_selectors_distinguishable():
    fig = figure_error_vs_n(_results(_ten()), "ten")
    lines = [ln for ln in fig.axes[0].get_lines() if ln.get_label() != "all"]
    assert len(lines) == 9
    assert len({(str(ln.get_color()), ln.get_marker()) for ln in lines}) == 9
    assert len({str(ln.get_color()) for ln in lines}) == 9  # tab10: no colour repeats below 10
    # the paper's own methods dotted, reference methods solid (Ramona 2012 §V)
    style = {ln.get_label(): ln.get_linestyle() for ln in lines}
    assert style["sas"] == ":" and style["fisher"] == "-"


def _int_tick_labels(ax) -> list[str]:
    lo, hi = sorted(ax.get_xlim())
    return [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]


@pytest.mark.parametrize(
    ("make", "kw"),
    [
        (figure_error_vs_S, {"S": (1, 2, 3)}),  # a default locator would put ticks at 1.5, 2.5
        (figure_error_vs_n, {"n_train": (10, 15, 20)}),
        (figure_error_vs_n, {"n_train": (5, 10, 20, 50, 200, 1000)}),  # wide range: log scale
    ],
)
def test_integer_ticks(make, kw):
    df = _results(**kw)
    if make is figure_error_vs_S:
        df = df[(df["n_train"] == df["n_train"].min()) & (df["selector"] != "all")]
    else:
        df = df[(df["n_features"] == 1) | (df["selector"] == "all")]
    fig = make(df, "t")
    fig.canvas.draw()
    labels = _int_tick_labels(fig.axes[0])
    assert len(labels) >= 2
    assert all(lab.isdigit() for lab in labels), labels
    if max(kw.get("n_train", [1])) == 1000:
        assert fig.axes[0].get_xscale() == "log" and {"10", "100", "1000"} <= set(labels)


def test_error_in_percent():
    df = _results()
    df = df[(df["n_train"] == 10) & (df["selector"].isin(["SAS", "all"]))]
    fig = figure_error_vs_S(df, "t")
    ax = fig.axes[0]
    assert "%" in ax.get_ylabel() and ax.get_ylabel() == "test error (%)"
    line = {ln.get_label(): ln for ln in ax.get_lines()}
    sas = df[df["selector"] == "SAS"].groupby("n_features")["error"].mean()
    np.testing.assert_allclose(line["SAS"].get_ydata(), 100 * sas.to_numpy())
    np.testing.assert_allclose(line["all"].get_ydata(), 100 * df.loc[df["selector"] == "all", "error"].mean())


# --------------------------------------------------------------------------- bands
def test_bands_toggle_and_default_rule():
    few = _results()  # 5 selectors: bands by default
    few = few[(few["n_features"] == 1) | (few["selector"] == "all")]
    many = _results(_ten())
    many = many[(many["n_features"] == 1) | (many["selector"] == "all")]
    assert _bands(figure_error_vs_n(few, "t")) == 5
    assert _bands(figure_error_vs_n(few, "t", bands=False)) == 0
    assert _bands(figure_error_vs_n(many, "t")) == 0
    assert _bands(figure_error_vs_n(many, "t", bands=True)) == 10
    assert len(few["selector"].unique()) == BANDS_MAX < len(many["selector"].unique())


# --------------------------------------------------------------------------- command line
def _write(tmp_path: Path, df: pd.DataFrame) -> Path:
    d = tmp_path / "e"
    d.mkdir()
    df.to_csv(d / "results.csv", index=False)
    return d


def test_cli_plot_selection(tmp_path):
    d = _write(tmp_path, _results())
    out = tmp_path / "plots"
    res = cli("plot", d, "--out", out, "--selectors", "sas,rfe", "--selector", "all", "--no-bands")
    assert res.exit_code == 0, res.stderr
    assert (out / "e" / "error_vs_S_toy_rbf_n10.png").stat().st_size > 0
    cpu = pd.read_csv(out / "e" / "cpu_time.csv")
    assert set(cpu["selector"]) == {"SAS", "rfe"}  # the baseline has no selection time


def test_cli_plot_unknown_selector_one_line_exit_2(tmp_path):
    d = _write(tmp_path, _results())
    out = tmp_path / "plots"
    res = cli("plot", d, "--out", out, "--selectors", "SAS,nope")
    assert res.exit_code == 2
    assert len(res.stderr_lines) == 1 and "unknown selector(s) nope" in res.stderr
    assert not out.exists()  # refused before anything is written


def test_cli_help_states_band_rule():
    res = cli("plot", "--help")
    assert res.exit_code == 0
    assert f"at most {BANDS_MAX}" in " ".join(res.stdout.split())
