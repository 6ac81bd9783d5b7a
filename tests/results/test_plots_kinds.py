"""Plots of every kind of experiment (#22 item 2): no one-point figures, kernel-space transformers'
curves over the repeats that reached each S with their own dimension as a marker, CPU time vs n or D on
log-log axes with the fitted exponent, figures closed once saved, progress per result directory, and
the crop of the saved files. Synthetic result frames only: no experiment is run."""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from conftest import cli
from matplotlib.image import imread

import fsbench.plots.experiment as plots
from fsbench.plots.cpu import dataset_dims
from fsbench.plots.experiment import (
    experiment_figures,
    figure_error_vs_S,
    mark_dimensions,
    plot_results,
    transformer_labels,
)
from fsbench.plots.style import DPI, OWN_MARKER, PAD_INCHES, save_figure
from fsbench.results.stats import loglog_slope


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _task(
    label: str,
    name: str,
    n: int,
    repeat: int,
    S: list[int],
    error,
    cpu: float = 0.01,
    dataset: str = "toy",
) -> list[dict]:
    """The rows of one task: one per evaluated S, ``error(repeat, S)`` each."""
    return [
        {
            "experiment": "e",
            "dataset": dataset,
            "kernel": "rbf",
            "selector": label,
            "selector_name": name,
            "n_train": n,
            "n_features": s,
            "repeat": repeat,
            "error": float(error(repeat, s)),
            "fit_cpu_s": cpu,
            "status": "ok",
            "task_id": f"{dataset}-{label}-{n}-{repeat}",
        }
        for s in S
    ]


def _err(repeat: int, s: int) -> float:
    return 0.1 * (repeat + 1) + 0.01 * s


def _transformer_S(grid: list[int], dim: int) -> list[int]:
    """What the protocol evaluates for a transformer of output dimension ``dim`` (transform_grid)."""
    return sorted({s for s in grid if s <= dim} | {dim})


GRID = [1, 2, 4, 8]
DIMS = [3, 5, 10]  # the transformer's own dimension in repeats 0, 1, 2


def _mixed(n: int = 100) -> pd.DataFrame:
    """A ranker R at every S of the grid, a transformer T whose dimension differs per repeat, the
    all-features baseline at D = 20."""
    rows = []
    for r, dim in enumerate(DIMS):
        rows += _task("all", "all", n, r, [20], _err)
        rows += _task("R", "fisher", n, r, GRID, _err)
        rows += _task("T", "kpca", n, r, _transformer_S(GRID, dim), _err)
    return pd.DataFrame(rows)


def _lines(fig) -> dict[str, object]:
    return {ln.get_label(): ln for ln in fig.axes[0].get_lines()}


def _has_curve(fig) -> bool:
    """Some legend line of the figure joins two or more points."""
    return any(
        len(ln.get_xdata()) >= 2 and not ln.get_label().startswith("_") for ln in fig.axes[0].get_lines()
    )


# --------------------------------------------------------------------------- transformers
def test_transformer_curve_per_S_over_the_repeats_that_reached_it():
    df = mark_dimensions(_mixed(), {"T"})
    fig = figure_error_vs_S(df, "t")
    lines = _lines(fig)
    # joined only at the requested S; S = 4 reached by 2 of 3 repeats, S = 8 by 1: the label says so
    t = lines["T (1–3 of 3 repeats)"]
    np.testing.assert_array_equal(t.get_xdata(), GRID)
    reached = {s: [r for r, dim in enumerate(DIMS) if s <= dim] for s in GRID}
    expected = [100 * np.mean([_err(r, s) for r in reached[s]]) for s in GRID]
    np.testing.assert_allclose(t.get_ydata(), expected)
    # those points are hollow
    np.testing.assert_array_equal(lines["_partial"].get_xdata(), [4, 8])
    # the ranker's largest S stays on its curve, with every repeat
    np.testing.assert_array_equal(lines["R"].get_xdata(), GRID)
    # the own dimension: one marker at the mean (dimension, error), ± sd bars, not joined
    (bars,) = fig.axes[0].containers  # the errorbar: (marker line, caps, bars)
    own = bars.lines[0]
    np.testing.assert_allclose(own.get_xdata().astype(float), [np.mean(DIMS)])
    own_error = 100 * np.mean([_err(r, d) for r, d in enumerate(DIMS)])
    np.testing.assert_allclose(own.get_ydata().astype(float), [own_error])
    assert own.get_linestyle() == "None" and own.get_marker() == OWN_MARKER
    xbar = np.asarray(bars.lines[2][0].get_segments()[0])
    np.testing.assert_allclose(xbar[:, 0], np.mean(DIMS) + np.array([-1, 1]) * np.std(DIMS, ddof=1))
    texts = [x.get_text() for x in fig.axes[0].get_legend().get_texts()]
    assert any("own output dimension" in x for x in texts)
    assert "hollow" in fig.axes[0].get_legend().get_title().get_text()


def test_constant_off_grid_dimension_is_a_marker_not_a_line():
    """KIFE Table II: GDA outputs C - 1 = 25 dimensions in every repeat, the grid is S = 2, 8."""
    rows = []
    for r in range(4):
        rows += _task("GDA", "gda", 500, r, [2, 8, 25], _err)
        rows += _task("MMI", "mmi", 500, r, [2, 8], _err)  # n_components = 8: its dimension is requested
    df = mark_dimensions(pd.DataFrame(rows), {"GDA", "MMI"})
    at25 = df[df["n_features"] == 25]
    assert at25["own_dim"].all() and not at25["on_grid"].any()
    assert not df.loc[df["selector"] == "MMI", "own_dim"].any()  # a fixed, requested dimension
    fig = figure_error_vs_S(df, "t")
    lines = _lines(fig)
    np.testing.assert_array_equal(lines["GDA"].get_xdata(), [2, 8])
    (bars,) = fig.axes[0].containers  # one marker: GDA's, at its own dimension
    np.testing.assert_array_equal(bars.lines[0].get_xdata().astype(float), [25.0])


def test_transformers_without_a_grid_and_per_pair_rankers():
    # n_features: all — one row per task, at the own dimension
    rows = []
    for r, dim in enumerate(DIMS):
        rows += _task("T", "kpca", 100, r, [dim], _err)
        rows += _task("U", "kgs", 100, r, [dim + 1], _err)
    df = mark_dimensions(pd.DataFrame(rows), {"T", "U"})
    assert df["own_dim"].all() and not df["on_grid"].any()
    # rankers without a stored order (one subset per pair): the same S everywhere, nothing is "own"
    rows = []
    for r in range(3):
        rows += _task("P", "fisher", 100, r, GRID, _err)
        rows += _task("Q", "sas", 100, r, GRID, _err)
    df = mark_dimensions(pd.DataFrame(rows), {"P", "Q"})
    assert df["on_grid"].all() and not df["own_dim"].any()


def test_transformer_labels_and_dims_from_rankings():
    rankings = pd.DataFrame(
        {
            "selector": ["R", "R", "T", "T", "all"],
            "dataset": ["d5", "d50", "d5", "d50", "d50"],
            "order_len": [5, 50, 0, 0, 50],
        }
    )
    assert transformer_labels(rankings) == {"T"}
    assert transformer_labels(None) is None
    assert dataset_dims(rankings) == {"d5": 5, "d50": 50}


# --------------------------------------------------------------------------- no one-point figures
def _rankers(n_values, S) -> pd.DataFrame:
    rows = []
    for n in n_values:
        for r in range(3):
            rows += _task("all", "all", n, r, [20], _err)
            rows += _task("R", "fisher", n, r, list(S), _err)
            rows += _task("Q", "sas", n, r, list(S), _err)
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("n_values", "S", "expected"),
    [
        ((100,), (5,), set()),  # one n, one S: a table row
        ((50, 100), (5,), {"error_vs_n_toy_rbf_S5"}),
        ((100,), (2, 5), {"error_vs_S_toy_rbf_n100"}),
        (
            (50, 100),
            (2, 5),
            {"error_vs_S_toy_rbf_n50", "error_vs_S_toy_rbf_n100", "error_vs_n_toy_rbf_S2"}
            | {"error_vs_n_toy_rbf_S5"},
        ),
    ],
)
def test_no_one_point_figures(n_values, S, expected):
    figs = dict(experiment_figures(_rankers(n_values, S)))
    assert set(figs) == expected
    assert all(_has_curve(f) for f in figs.values())


def test_transformer_sweeps_without_a_curve_in_S():
    """takes2011/timing_vs_n: every method at its own dimension only, n swept: no error-vs-S figure,
    no per-S figure, one error-vs-n figure at the own dimensions, CPU time vs n."""
    rows = []
    for n in (250, 500, 1000):
        for r in range(3):
            rows += _task("T", "kpca", n, r, [n // 2 + r], _err, cpu=1e-6 * n**2)
            rows += _task("K", "takes", n, r, [2 + r], _err, cpu=1e-5 * n)
    figs = dict(experiment_figures(pd.DataFrame(rows), transformers={"T", "K"}))
    assert set(figs) == {"error_vs_n_toy_rbf_own_dim", "cpu_vs_n_toy_rbf"}
    labels = set(_lines(figs["error_vs_n_toy_rbf_own_dim"]))
    assert {"T (dim. 126–501)", "K (dim. 3)"} <= labels
    # one KIFE-like setting: one n, one S per method → nothing to draw
    one = pd.DataFrame([row for row in rows if row["n_train"] == 250])
    assert [stem for stem, _ in experiment_figures(one, transformers={"T", "K"})] == []


# --------------------------------------------------------------------------- CPU time
def test_cpu_vs_n_log_log_with_fitted_exponent():
    rows = []
    for n in (50, 100, 200, 400, 800):
        for r in range(3):
            rows += _task("A", "sas", n, r, [2, 5], _err, cpu=1e-6 * n**2)
            # a fixed cost that dominates small n: the exponent is fitted over the upper half of n
            rows += _task("B", "rfe", n, r, [2, 5], _err, cpu=0.05 + 1e-5 * n**1.5)
    figs = dict(experiment_figures(pd.DataFrame(rows)))
    fig = figs["cpu_vs_n_toy_rbf"]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "A: ∝ n^2.00"
    b = float(re.match(r"B: ∝ n\^([\d.]+)", labels[1]).group(1))
    ns = np.array([200, 400, 800])
    assert b == pytest.approx(loglog_slope(ns, 0.05 + 1e-5 * ns**1.5), abs=0.005)
    assert b > loglog_slope([50, 100, 200, 400, 800], 0.05 + 1e-5 * np.array([50, 100, 200, 400, 800]) ** 1.5)
    assert "n ≥ 200" in ax.get_legend().get_title().get_text()


def test_loglog_slope():
    x = np.array([10, 20, 40, 80])
    assert loglog_slope(x, 3 * x**2.5) == pytest.approx(2.5)
    assert loglog_slope(x, np.zeros(4)) != loglog_slope(x, np.zeros(4))  # NaN: no positive time
    assert np.isnan(loglog_slope([10, 10], [1, 2]))


def test_cpu_vs_D_only_where_datasets_differ_in_D():
    rows = []
    dims = {"toy_D5": 5, "toy_D50": 50, "toy_D500": 500}
    for ds, D in dims.items():
        for r in range(3):
            rows += _task("A", "rfe", 30, r, [5], _err, cpu=1e-4 * D**1.5, dataset=ds)
    df = pd.DataFrame(rows)
    figs = dict(experiment_figures(df, dims=dims))
    assert set(figs) == {"cpu_vs_D_rbf_n30"}  # one S, one n per dataset: no error figure
    labels = [t.get_text() for t in figs["cpu_vs_D_rbf_n30"].axes[0].get_legend().get_texts()]
    assert labels == ["A: ∝ D^1.50"]
    assert list(experiment_figures(df)) == []  # D unknown
    # two D values: two points always lie on a line
    assert list(experiment_figures(df[df["dataset"] != "toy_D500"], dims=dims)) == []


# --------------------------------------------------------------------------- closing, progress, files
def _write(root: Path, name: str, df: pd.DataFrame) -> Path:
    d = root / name
    d.mkdir(parents=True)
    df.to_csv(d / "results.csv", index=False)
    return d


def test_figures_come_one_at_a_time_and_are_closed(tmp_path, monkeypatch):
    # 24 training sizes x 2 S: 24 error-vs-S figures, 2 error-vs-n, 1 CPU — more than matplotlib's 20
    d = _write(tmp_path, "many", _rankers(tuple(range(10, 250, 10)), (2, 5)))
    assert inspect.isgenerator(experiment_figures(_rankers((10,), (2, 5))))
    open_at_save = []

    def fake_save(fig, stem):  # no drawing: the test is about the figures' lifetime
        open_at_save.append(len(plt.get_fignums()))
        plt.close(fig)
        return [stem.with_suffix(".png")]

    monkeypatch.setattr(plots, "save_figure", fake_save)  # where _draw_dir looks it up
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "More than 20 figures have been opened" would raise
        plot_results([d], tmp_path / "out")
    assert len(open_at_save) == 27 and set(open_at_save) == {1}
    assert plt.get_fignums() == []


def test_saved_files_cropped_and_figure_closed(tmp_path):
    fig = figure_error_vs_S(_mixed(), "t")
    ax_px = fig.axes[0].get_window_extent()
    written = save_figure(fig, tmp_path / "f")
    assert plt.get_fignums() == []
    png, pdf = written
    img = imread(png)
    ink = (img[..., :3] < 1).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    pad = round(PAD_INCHES * DPI)
    # a white margin of PAD_INCHES on every side, and nothing else blank around the content
    assert (rows[0], cols[0]) == (pad, pad)
    assert (img.shape[0] - 1 - rows[-1], img.shape[1] - 1 - cols[-1]) == (pad, pad)
    # the legend right of the axes is in the file
    assert img.shape[1] > ax_px.width + 100
    # the PDF has the PNG's size (points = inches x 72)
    box = re.search(rb"/MediaBox \[ *0 0 ([\d.]+) ([\d.]+) *\]", pdf.read_bytes())
    assert float(box.group(1)) / 72 == pytest.approx(img.shape[1] / DPI, abs=0.02)
    assert float(box.group(2)) / 72 == pytest.approx(img.shape[0] / DPI, abs=0.02)


def test_progress_one_line_per_result_dir(tmp_path):
    _write(tmp_path / "paper", "a", _rankers((100,), (2, 5)))
    _write(tmp_path / "paper", "b", _rankers((100,), (5,)))
    lines: list[str] = []
    plot_results([tmp_path], tmp_path / "out", progress=lines.append)
    assert lines == ["[1/2] paper/a ... 1 figure", "[2/2] paper/b ... 0 figures"]
    res = cli("plot", tmp_path / "paper", "--out", tmp_path / "out2")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.splitlines() == lines


@pytest.mark.slow  # worker processes start and import matplotlib: > 10 s on 2 cores
def test_parallel_workers_write_the_same_files_in_order(tmp_path):
    for name in ("a", "b", "c"):
        _write(tmp_path / "p", name, _rankers((50, 100), (2, 5)))
    one: list[str] = []
    two: list[str] = []
    files1 = plot_results([tmp_path / "p"], tmp_path / "one", progress=one.append)
    files2 = plot_results([tmp_path / "p"], tmp_path / "two", progress=two.append, jobs=2)
    assert one == two and [line.split()[1] for line in two] == ["p/a", "p/b", "p/c"]
    assert [f.relative_to(tmp_path / "one") for f in files1] == [
        f.relative_to(tmp_path / "two") for f in files2
    ]
    for f in files1:
        if f.suffix == ".png":  # the same pixels from a worker
            np.testing.assert_array_equal(
                imread(f), imread(tmp_path / "two" / f.relative_to(tmp_path / "one"))
            )
