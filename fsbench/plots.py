"""Figures and tables from result directories (headless, matplotlib Agg).

For every experiment and (dataset, kernel):

* ``error_vs_S`` — mean test error (%) vs number of selected features S, one line per selector; the
  all-features SVM is the black horizontal line, as in the papers' figures. The paper's own methods
  (SAS, SCSS, KFDS, SFS) are dotted, reference methods solid (Ramona 2012 §V convention); colours
  (tab10) and markers cycle independently so that ten or more selectors stay distinguishable.
  Optional shaded 95 % confidence interval of the mean over repeats (t distribution): by default
  only in figures with at most :data:`BANDS_MAX` selectors, where bands do not bury the lines.
  Written per training size.
* ``error_vs_n`` — for sweeps over n_train (toy experiments): mean error vs n_train, one figure per S.
* ``cpu_time`` — mean selection CPU time per selector, absolute and normalised to the fastest
  (Ramona 2012 Tables VIII/IX), as Markdown and CSV.

The legend is outside the axes (right side), so it never covers data; integer axes (S, n_train) get
integer ticks; the error is in % like the report's tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402
from scipy import stats  # noqa: E402

from fsbench.results.loading import find_result_dirs, is_diagnostic, read_results  # noqa: E402
from fsbench.results.schema import BASELINE  # noqa: E402
from fsbench.results.tables import save_figure, to_markdown  # noqa: E402

PROPOSED = {"sas", "scss", "kfds", "sfs"}
#: Default band rule: confidence bands only in figures with at most this many selectors (baseline included).
BANDS_MAX = 5
#: Markers cycled independently of the 10 tab10 colours: 7 and 10 are coprime, so the first 70
#: selectors of a figure all get a distinct (colour, marker) pair.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: An x range spanning at least this factor (max / min) is drawn on a log scale (n_train 5 … 1000 in
#: Ramona 2012 Table VIII, S 10 … 4000 on Lymphoma): on a linear axis the small values, where the
#: curves differ most, are squeezed into the first few pixels.
LOG_X_RATIO = 50
#: Legend entries per column before the legend gets a second column.
LEGEND_ROWS = 14
YLABEL = "test error (%)"


class PlotError(ValueError):
    """A user error of ``fsbench plot`` (e.g. an unknown selector); reported as one line."""


def summarize(df: pd.DataFrame, by: list[str], value: str = "error") -> pd.DataFrame:
    """Mean, std, count and 95 % CI half-width of ``value`` over repeats."""
    g = df.groupby(by, sort=False)[value]
    s = g.agg(mean="mean", std="std", n="count").reset_index()
    tcrit = stats.t.ppf(0.975, np.maximum(s["n"] - 1, 1))
    s["ci95"] = np.where(s["n"] > 1, tcrit * s["std"].fillna(0) / np.sqrt(s["n"]), 0.0)
    return s


# --------------------------------------------------------------------------- choosing selectors
def parse_selectors(values: Iterable[str] | None) -> list[str] | None:
    """Selector tokens from ``--selectors A,B`` and repeated ``--selector``; ``None`` when none given.

    Parameters
    ----------
    values : iterable of str or None
        Raw option values; each may hold several comma-separated tokens.

    Returns
    -------
    list of str or None
        The tokens in order, duplicates and empty tokens dropped; ``None`` (= every selector) if empty.
    """
    tokens = [t.strip() for v in values or () for t in str(v).split(",")]
    tokens = list(dict.fromkeys(t for t in tokens if t))
    return tokens or None


def select_selectors(df: pd.DataFrame, wanted: list[str] | None) -> pd.DataFrame:
    """Rows of the selectors named in ``wanted``, each token a label (``selector``) or a registry name.

    A token that is a label of ``df`` selects that label only; otherwise it selects every label whose
    ``selector_name`` it is (e.g. ``rfe`` in a table that labels it ``RFE``). The label takes precedence
    because one name can carry several labels (``rfe`` and ``rfe_linear`` in Ramona 2012 Fig. 1b).
    Tokens matching nothing are ignored here (see :func:`check_selectors`).

    Parameters
    ----------
    df : DataFrame
        Rows of one results.csv.
    wanted : list of str or None
        Tokens; ``None`` keeps every row.

    Returns
    -------
    DataFrame
        The selected rows, in the table's order.
    """
    if wanted is None:
        return df
    labels = set(df["selector"].astype(str))
    names = df["selector_name"].astype(str) if "selector_name" in df.columns else df["selector"].astype(str)
    keep = pd.Series(False, index=df.index)
    for token in wanted:
        keep |= df["selector"].astype(str).eq(token) if token in labels else names.eq(token)
    return df[keep]


def check_selectors(tables: list[pd.DataFrame], wanted: list[str] | None) -> None:
    """Refuse tokens that are neither a label nor a selector name in any of ``tables``.

    Raises
    ------
    PlotError
        One line naming the unknown tokens and the labels available.
    """
    if wanted is None:
        return
    known: dict[str, None] = {}
    for df in tables:
        known.update(dict.fromkeys(df["selector"].astype(str)))
        if "selector_name" in df.columns:
            known.update(dict.fromkeys(df["selector_name"].astype(str)))
    unknown = [t for t in wanted if t not in known]
    if unknown:
        labels = dict.fromkeys(str(s) for df in tables for s in df["selector"])
        raise PlotError(
            f"unknown selector(s) {', '.join(unknown)}: not a label or selector name in the results; "
            f"available labels: {', '.join(labels)}"
        )


# --------------------------------------------------------------------------- figures
def selector_styles(df: pd.DataFrame) -> dict[str, dict]:
    """Line style per selector label: black solid baseline; otherwise tab10 colour and a marker in
    table order, dotted for the paper's own methods.

    Styles come from the whole (selected) table, not one figure, so a selector looks the same in every
    figure of an experiment.
    """
    names = _selector_names(df)
    colours = plt.get_cmap("tab10").colors
    styles: dict[str, dict] = {}
    i = 0
    for sel in df["selector"].drop_duplicates():
        name = names.get(sel, sel)
        if name == BASELINE:
            styles[sel] = {"color": "black", "linestyle": "-", "linewidth": 1.8, "zorder": 3}
            continue
        styles[sel] = {
            "color": colours[i % len(colours)],
            "marker": MARKERS[i % len(MARKERS)],
            "markersize": 4,
            "linestyle": ":" if name in PROPOSED else "-",
            "linewidth": 1.4,
        }
        i += 1
    return styles


def _save(fig: Figure, path: Path) -> list[Path]:
    # tight bbox (save_figure): the saved image grows to hold the legend outside the axes
    return save_figure(fig, path)


def _selector_names(df: pd.DataFrame) -> dict[str, str]:
    if "selector_name" not in df.columns:
        return {}
    return df.drop_duplicates("selector").set_index("selector")["selector_name"].to_dict()


def _use_bands(bands: bool | None, n_selectors: int) -> bool:
    return n_selectors <= BANDS_MAX if bands is None else bool(bands)


def _band(ax: Axes, x, d: pd.DataFrame, color, alpha: float) -> None:
    """Shaded 95 % CI of the mean (in %), clipped to [0, 100]."""
    ax.fill_between(
        x,
        (d["mean"] - d["ci95"]).clip(0, 100),
        (d["mean"] + d["ci95"]).clip(0, 100),
        color=color,
        alpha=alpha,
        linewidth=0,
    )


def _finish(ax: Axes, xlabel: str, title: str, bands: bool) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(YLABEL)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    _integer_x(ax)
    handles, labels = ax.get_legend_handles_labels()
    note = "mean over repeats" + ("\nband: 95 % CI of the mean" if bands else "")
    # outside the axes, right of them, so that no curve is ever hidden behind it
    ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize=8,
        ncol=1 if len(labels) <= LEGEND_ROWS else 2,
        title=note,
        title_fontsize=7,
        alignment="left",
        frameon=False,
    )


def _integer_x(ax: Axes) -> None:
    """Integer ticks on the x axis (S and n_train are counts: no 12.5 features), log scale for wide ranges."""
    x = np.concatenate([np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()] or [[]])
    x = x[np.isfinite(x)]
    if len(x) and x.min() > 0 and x.max() / x.min() >= LOG_X_RATIO:
        ax.set_xscale("log")
        # 1-2-5 steps are all integers from 1 up; plain numbers, not 10^k
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def _percent(df: pd.DataFrame) -> pd.DataFrame:
    """The error in % (the report's unit)."""
    return df.assign(error=100 * df["error"])


def figure_error_vs_S(
    df: pd.DataFrame, title: str, bands: bool | None = None, styles: dict[str, dict] | None = None
) -> Figure:
    """Mean test error (%) vs S, one line per selector of ``df`` (one training size).

    Parameters
    ----------
    df : DataFrame
        ok rows of one (dataset, kernel, n_train).
    title : str
        Axes title.
    bands : bool or None
        Draw the 95 % CI bands; ``None``: only with at most :data:`BANDS_MAX` selectors.
    styles : dict or None
        Line style per label (:func:`selector_styles`); default from ``df``.

    Returns
    -------
    Figure
        Not saved, not closed.
    """
    names = _selector_names(df)
    styles = styles or selector_styles(df)
    sels = list(df["selector"].drop_duplicates())
    show = _use_bands(bands, len(sels))
    s = summarize(_percent(df), ["selector", "n_features"])
    fig, ax = plt.subplots(figsize=(6, 4))
    S_all = sorted(df.loc[df["selector_name"] != BASELINE, "n_features"].unique())
    for sel in sels:
        d = s[s["selector"] == sel].sort_values("n_features")
        st = styles[sel]
        if names.get(sel) == BASELINE:
            m, ci = float(d["mean"].iloc[0]), float(d["ci95"].iloc[0])
            # the baseline exists only at S = D: drawn across the S range as the papers do
            xs = [min(S_all), max(S_all)] if S_all else [float(d["n_features"].iloc[0])] * 2
            ax.plot(xs, [m, m], label=sel, **st)
            if show:
                ax.fill_between(xs, max(m - ci, 0), min(m + ci, 100), color="black", alpha=0.08, linewidth=0)
            continue
        ax.plot(d["n_features"], d["mean"], label=sel, **st)
        if show:
            _band(ax, d["n_features"], d, st["color"], 0.15)
    _finish(ax, "number of selected features S", title, show)
    return fig


def figure_error_vs_n(
    df: pd.DataFrame, title: str, bands: bool | None = None, styles: dict[str, dict] | None = None
) -> Figure:
    """Mean test error (%) vs n_train, one line per selector of ``df`` (one S; the baseline at S = D).

    Parameters are those of :func:`figure_error_vs_S`.
    """
    styles = styles or selector_styles(df)
    sels = list(df["selector"].drop_duplicates())
    show = _use_bands(bands, len(sels))
    s = summarize(_percent(df), ["selector", "n_train"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for sel in sels:
        d = s[s["selector"] == sel].sort_values("n_train")
        st = styles[sel]
        ax.plot(d["n_train"], d["mean"], label=sel, **st)
        if show:
            _band(ax, d["n_train"], d, st["color"], 0.12)
    _finish(ax, "number of training samples n", title, show)
    return fig


def experiment_figures(
    df: pd.DataFrame, bands: bool | None = None, styles: dict[str, dict] | None = None
) -> list[tuple[str, Figure]]:
    """Every figure of one results table: ``(file stem, Figure)`` pairs, not saved.

    ``error_vs_S_<dataset>_<kernel>_n<n>`` per training size where S varies (or n does not), and
    ``error_vs_n_<dataset>_<kernel>_S<S>`` per S where n_train varies and S is evaluated at two or more
    training sizes (a one-point figure is not drawn).

    Parameters
    ----------
    df : DataFrame
        Rows of one results.csv (failed rows are left out here), already restricted to the selectors
        to draw.
    bands : bool or None
        See :func:`figure_error_vs_S`.
    styles : dict or None
        Line style per label; default :func:`selector_styles` of ``df``.

    Returns
    -------
    list of (str, Figure)
    """
    figs: list[tuple[str, Figure]] = []
    ok = df[df["status"] == "ok"]
    if ok.empty:
        return figs
    styles = styles or selector_styles(ok)
    exp = str(df["experiment"].iloc[0])
    for (ds, kern), d in ok.groupby(["dataset", "kernel"], sort=False):
        n_values = sorted(d["n_train"].unique())
        S_values = sorted(d.loc[d["selector_name"] != BASELINE, "n_features"].unique())
        if len(S_values) > 1 or len(n_values) == 1:
            for n in n_values:
                dn = d[d["n_train"] == n]
                title = f"{exp}: {ds}, {kern} kernel, n_train={n}, {dn['repeat'].nunique()} repeats"
                figs.append((f"error_vs_S_{ds}_{kern}_n{n}", figure_error_vs_S(dn, title, bands, styles)))
        if len(n_values) > 1:
            for S in S_values or [None]:
                dS = d[(d["n_features"] == S) | (d["selector_name"] == BASELINE)] if S is not None else d
                ranked = dS[dS["selector_name"] != BASELINE]
                if S is not None and ranked["n_train"].nunique() < 2:
                    continue  # S reached at one n only (a transformer's own output size): no curve to draw
                title = f"{exp}: {ds}, {kern} kernel, S={S}, {dS['repeat'].nunique()} repeats per n"
                figs.append((f"error_vs_n_{ds}_{kern}_S{S}", figure_error_vs_n(dS, title, bands, styles)))
    return figs


def cpu_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean selection CPU time per (dataset, kernel, n_train, selector), normalised to the fastest.

    One value per task (rows of the same task share the fit time), so tasks are deduplicated first.
    """
    t = df[df["status"] == "ok"].drop_duplicates("task_id")
    t = t[t["selector_name"] != BASELINE]
    if t.empty:
        return pd.DataFrame()
    g = t.groupby(["dataset", "kernel", "n_train", "selector"], sort=False)["fit_cpu_s"]
    s = g.agg(mean_cpu_s="mean", median_cpu_s="median", tasks="count").reset_index()
    fastest = s.groupby(["dataset", "kernel", "n_train"])["mean_cpu_s"].transform("min")
    s["normalised"] = s["mean_cpu_s"] / fastest.where(fastest > 0, np.nan)
    return s


def cpu_table_wide(df: pd.DataFrame) -> pd.DataFrame:
    """Ramona 2012 Tables VIII/IX layout: one row per selector, one column per (dataset, n_train), mean
    selection CPU time normalised to the single fastest entry of the whole table."""
    s = cpu_table(df)
    if s.empty:
        return s
    col = s["dataset"].astype(str) + " n=" + s["n_train"].astype(str)
    if s["dataset"].nunique() == 1:
        col = "n=" + s["n_train"].astype(str)
    elif s["n_train"].nunique() == 1:
        col = s["dataset"].astype(str)
    s = s.assign(column=col)
    wide = s.pivot_table(index="selector", columns="column", values="mean_cpu_s", sort=False)
    wide = wide[list(dict.fromkeys(col))]
    fastest = np.nanmin(wide.to_numpy())
    return (wide / fastest).reset_index() if fastest > 0 else wide.reset_index()


def plot_results(
    paths: list[Path],
    out: Path | None = None,
    selectors: list[str] | None = None,
    bands: bool | None = None,
) -> list[Path]:
    """Write every figure and table for the results under ``paths``; return the files written.

    Parameters
    ----------
    paths : list of Path
        Result directories, parents of them, or results.csv files.
    out : Path or None
        Output root (one sub-directory per experiment); default ``<result dir>/plots``.
    selectors : list of str or None
        Labels or selector names to draw and tabulate (:func:`select_selectors`); ``None``: all.
    bands : bool or None
        Confidence bands on, off, or ``None``: only in figures with at most :data:`BANDS_MAX` selectors.

    Returns
    -------
    list of Path

    Raises
    ------
    PlotError
        A selector that no table has, before anything is written.
    """
    # diagnostics' tables have their own columns and their own figures (``fsbench diagnose``)
    dirs = [d for d in find_result_dirs(paths) if not is_diagnostic(d)]
    tables = [(d, read_results(d)) for d in dirs]
    check_selectors([df for _, df in tables], selectors)
    written: list[Path] = []
    for d, df in tables:
        df = select_selectors(df, selectors)
        if df.empty:
            continue
        target = Path(out) / d.name if out is not None else d / "plots"
        exp = str(df["experiment"].iloc[0])
        # styles from the selected rows: a few chosen selectors get the most distinct first colours
        for stem, fig in experiment_figures(df, bands):
            written += _save(fig, target / stem)
        table = cpu_table(df)
        if not table.empty:
            target.mkdir(parents=True, exist_ok=True)
            csv_path = target / "cpu_time.csv"
            table.to_csv(csv_path, index=False)
            md_path = target / "cpu_time.md"
            md_path.write_text(
                f"# Selection CPU time — {exp}\n\nMean `time.process_time` of the selector's fit "
                "per task; `normalised` = mean / fastest selector of the same dataset, kernel "
                "and n_train (as in Ramona 2012 Tables VIII–IX).\n\n" + to_markdown(table)
            )
            wide = cpu_table_wide(df)
            wide_path = target / "cpu_time_table.md"
            wide_path.write_text(
                f"# Selection CPU time, normalised to the fastest entry — {exp}\n\nMean selection CPU time "
                "per selector (rows) and setting (columns), divided by the single lowest entry of the table, "
                "as in Ramona 2012 Tables VIII–IX.\n\n" + to_markdown(wide)
            )
            written += [csv_path, md_path, wide_path]
    return written
