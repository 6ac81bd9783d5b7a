"""Figures and tables from result directories (headless, matplotlib Agg).

For every experiment and (dataset, kernel):

* ``error_vs_S`` — mean test error (%) vs number of selected features S, one line per selector; the
  all-features SVM is the black horizontal line, as in the papers' figures. The paper's own methods
  (SAS, SCSS, KFDS, SFS) are dotted, reference methods solid (Ramona 2012 §V convention); colours
  (tab10) and markers cycle independently so that ten or more selectors stay distinguishable.
  Optional shaded 95 % confidence interval of the mean over repeats (t distribution): by default
  only in figures with at most :data:`BANDS_MAX` selectors, where bands do not bury the lines.
  Written per training size.
* ``error_vs_n`` — for sweeps over n_train (toy experiments): mean error vs n_train, one figure per S;
  ``error_vs_n_<dataset>_<kernel>_own_dim``: each kernel-space transformer at its own output dimension.
* ``cpu_vs_n`` / ``cpu_vs_D`` — median selection CPU time per selector vs n_train (a sweep over n) or vs
  the number of input features D (datasets that differ only in D at one n_train), log–log, with the
  fitted exponent (least-squares slope of log CPU on log n over the upper half of the range) in the legend.
* ``cpu_time`` — mean selection CPU time per selector, absolute and normalised to the fastest
  (Ramona 2012 Tables VIII/IX), as Markdown and CSV.

A sweep with a single value is a table row, not a figure: a figure is drawn only where some selector
has a curve (two or more points). The legend is outside the axes (right side), so it never covers data;
integer axes (S, n_train) get integer ticks; the error is in % like the report's tables.

This module draws the error curves and writes a directory's files (:func:`plot_results`); the CPU-time
figures and tables are :mod:`fsbench.plots.cpu`, the style both share (axes, save, legend, ticks, line
styles) :mod:`fsbench.plots.style`.

**Kernel-space transformers** (no ranking of the input features: an empty ``order`` in ``rankings.csv``)
are evaluated at the requested S up to their output dimension and at that dimension itself, which can
depend on the training data (``fsbench.evaluation.protocol.transform_grid``): a task's largest S is its own
dimension. Curves join only the requested S (the grid), each point the mean over the repeats that
reached that S (the legend says how many where not all did; such points are hollow). Where a method's
own dimension is data-determined — it varies over repeats or lies off the grid — it is one marker per
method at the mean dimension and mean error, with ± sd bars over the repeats, never joined to the curve.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from fsbench.plots.cpu import cpu_figures, dataset_dims, write_cpu_tables
from fsbench.plots.style import (
    OWN_MARKER,
    error_percent,
    finish_axes,
    new_figure,
    save_figure,
    selector_names,
    selector_styles,
    summarize,
)
from fsbench.processes import worker_pool
from fsbench.results.loading import find_result_dirs, is_diagnostic, read_rankings, read_results, run_state
from fsbench.results.schema import BASELINE
from fsbench.results.table_files import table_file

#: Default band rule: confidence bands only in figures with at most this many selectors (baseline included).
BANDS_MAX = 5
#: The columns of results.csv the figures read.
FIGURE_COLUMNS = [
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "selector_name",
    "n_train",
    "n_features",
    "repeat",
    "error",
    "fit_cpu_s",
    "status",
    "task_id",
]


class PlotError(ValueError):
    """A user error of ``fsbench plot`` (e.g. an unknown selector); reported as one line."""


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


# --------------------------------------------------------------------------- transformers' dimensions
def transformer_labels(rankings: pd.DataFrame | None) -> set[str] | None:
    """Labels of the selectors without a ranking of the input features (every ``order`` empty): the
    kernel-space transformers, and rankers of a per-pair run that stores no single order.

    Parameters
    ----------
    rankings : DataFrame or None
        ``rankings.csv`` as read by :func:`fsbench.results.loading.read_rankings` (column ``order_len``).

    Returns
    -------
    set of str or None
        ``None`` without a rankings table (then every selector may be one, see :func:`mark_dimensions`).
    """
    if rankings is None or rankings.empty:
        return None
    has_order = rankings.groupby("selector", sort=False)["order_len"].max() > 0
    return {str(s) for s, ranked in has_order.items() if not ranked}


def mark_dimensions(df: pd.DataFrame, transformers: set[str] | None = None) -> pd.DataFrame:
    """Add ``on_grid`` (a requested S, joined into curves) and ``own_dim`` (a transformer's own,
    data-determined output dimension, drawn as a marker) to the ok rows of a results table.

    Decided per (dataset, kernel, n_train) from the rows alone: a transformer's task is evaluated at the
    requested S up to its output dimension and at that dimension, so a task's largest S is its own
    dimension and every other S is requested (:func:`fsbench.evaluation.protocol.transform_grid`).

    Parameters
    ----------
    df : DataFrame
        Rows of one results.csv (ok rows; columns ``dataset, kernel, n_train, selector, selector_name,
        n_features, task_id``).
    transformers : set of str or None
        Labels without a ranking (:func:`transformer_labels`); ``None``: every selector may be one.

    Returns
    -------
    DataFrame
        ``df`` with the two boolean columns (the baseline is on the grid, never an own dimension) and
        ``fits``: the selector's fits (repeats × folds) in the row's (dataset, kernel, n_train).
    """
    if df.empty:
        return df.assign(on_grid=pd.Series(dtype=bool), own_dim=pd.Series(dtype=bool), fits=0)
    setting = [df["dataset"], df["kernel"], df["n_train"]]
    per_sel = [*setting, df["selector"]]
    nb = df["selector_name"] != BASELINE
    task_max = df.groupby("task_id")["n_features"].transform("max")
    is_max = (df["n_features"] == task_max) & nb
    is_tr = df["selector"].astype(str).isin(transformers) if transformers is not None else nb
    # the requested S of a setting: every S that is not a task's largest (only the largest can be a
    # transformer's own dimension), the largest S of rankers, and a largest S shared by every task
    requested = (nb & (~is_max | ~is_tr)).groupby([*setting, df["n_features"]]).transform("any")
    shared_top = task_max.where(nb).groupby(setting).transform("nunique") == 1
    on_grid = nb & (requested | shared_top)
    own_rows = is_max & is_tr
    # data-determined: the own dimension varies over the tasks, or lies off the grid (GDA's C - 1)
    varies = task_max.where(own_rows).groupby(per_sel).transform("nunique") > 1
    determined = (own_rows & (varies | ~on_grid)).groupby(per_sel).transform("any")
    fits = df["task_id"].groupby(per_sel).transform("nunique")
    return df.assign(on_grid=on_grid | ~nb, own_dim=own_rows & determined, fits=fits)


def _marked(df: pd.DataFrame) -> pd.DataFrame:
    return df if {"on_grid", "own_dim"} <= set(df.columns) else mark_dimensions(df)


def _summaries(d: pd.DataFrame, x: str) -> dict[str, pd.DataFrame]:
    """Per selector: mean, std, count and CI of the error at each ``x`` (:func:`summarize`) and ``fits``,
    the selector's fits there (column ``fits`` of :func:`mark_dimensions` where present, else the tasks
    in ``d``). One grouping for the whole figure: per-selector groupings cost more than the drawing."""
    key = ["selector", x]
    s = summarize(d, key)
    if "fits" in d.columns:
        fits = d.groupby(key, sort=False)["fits"].max()
    else:
        fits = d.groupby(key, sort=False)["task_id"].nunique()
    s = s.merge(fits.rename("fits").reset_index(), on=key)
    return {str(sel): g.sort_values(x) for sel, g in s.groupby("selector", sort=False)}


def _curve(ax: Axes, s: pd.DataFrame, x: str, label: str, st: dict, show: bool, alpha: float) -> bool:
    """One selector's mean curve over ``x`` from its summary ``s`` (:func:`_summaries`, error in %), each
    point over the fits that reached it; points that fewer than all of the selector's fits there reached
    are hollow and the label says how many. Returns whether any point is."""
    total = s["fits"].to_numpy()
    part = s[s["n"].to_numpy() < total]
    if len(part):
        lo, hi = int(s["n"].min()), int(s["n"].max())
        label += (
            f" ({lo}–{hi} of {int(total.max())} repeats)"
            if len(set(total)) == 1
            else " (some: fewer repeats)"
        )
    ax.plot(s[x].to_numpy(), s["mean"].to_numpy(), label=label, **st)
    if len(part):
        ax.plot(
            part[x].to_numpy(),
            part["mean"].to_numpy(),
            linestyle="none",
            marker=st.get("marker", "o"),
            markersize=st.get("markersize", 4) + 1,
            markerfacecolor="white",
            markeredgecolor=st["color"],
            label="_partial",
            zorder=4,
        )
    if show:
        _band(ax, s[x].to_numpy(), s, st["color"], alpha)
    return len(part) > 0


def _own_marker(ax: Axes, d: pd.DataFrame, st: dict) -> None:
    """A transformer's own output dimension: the mean over its fits of (dimension, error), ± sd bars."""
    dims = d["n_features"].to_numpy(dtype=float)
    err = d["error"].to_numpy(dtype=float)
    sd = [float(v.std(ddof=1)) if len(v) > 1 else 0.0 for v in (dims, err)]
    ax.errorbar(
        [float(dims.mean())],
        [float(err.mean())],
        xerr=[sd[0]],
        yerr=[sd[1]],
        color=st["color"],
        marker=OWN_MARKER,
        markersize=11,
        markeredgecolor="black",
        markeredgewidth=0.5,
        linestyle="none",
        elinewidth=1,
        capsize=2,
        label="_own",
        zorder=5,
    )


def figure_error_vs_S(
    df: pd.DataFrame, title: str, bands: bool | None = None, styles: dict[str, dict] | None = None
) -> Figure:
    """Mean test error (%) vs S, one line per selector of ``df`` (one training size).

    Curves join the requested S only, each point averaged over the fits that reached it; a
    transformer's data-determined own dimension is a separate marker (:func:`mark_dimensions`).

    Parameters
    ----------
    df : DataFrame
        ok rows of one (dataset, kernel, n_train), marked by :func:`mark_dimensions` or not (then marked
        here, every selector a possible transformer).
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
    df = error_percent(_marked(df))
    names = selector_names(df)
    styles = styles or selector_styles(df)
    sels = [str(x) for x in df["selector"].drop_duplicates()]
    show = _use_bands(bands, len(sels))
    fig, ax = new_figure()
    base = df["selector_name"] == BASELINE
    curves = _summaries(df[df["on_grid"] & ~base], "n_features")
    own_rows = df[df["own_dim"]]
    own = {str(k): g for k, g in own_rows.groupby("selector", sort=False)}
    span = [float(v) for c in curves.values() for v in c["n_features"]]
    span += [float(g["n_features"].mean()) for g in own.values()]
    partial = False
    for sel in sels:
        st = styles[sel]
        if names.get(sel) == BASELINE:
            s = summarize(df[df["selector"] == sel], ["n_features"])
            m, ci = float(s["mean"].iloc[0]), float(s["ci95"].iloc[0])
            # the baseline exists only at S = D: drawn across the S range as the papers do
            xs = [min(span), max(span)] if span else [float(s["n_features"].iloc[0])] * 2
            ax.plot(xs, [m, m], label=sel, **st)
            if show:
                ax.fill_between(xs, max(m - ci, 0), min(m + ci, 100), color="black", alpha=0.08, linewidth=0)
            continue
        if sel in curves:
            partial |= _curve(ax, curves[sel], "n_features", sel, st, show, 0.15)
        if sel in own:
            if sel not in curves:  # the marker alone: the selector still needs its legend entry
                ax.plot([], [], label=sel, **st)
            _own_marker(ax, own[sel], st)
    finish_axes(ax, "number of selected features S", title, show, partial, bool(own))
    return fig


def figure_error_vs_n(
    df: pd.DataFrame,
    title: str,
    bands: bool | None = None,
    styles: dict[str, dict] | None = None,
    own_dim: bool = False,
) -> Figure:
    """Mean test error (%) vs n_train, one line per selector of ``df`` (one S; the baseline at S = D).

    Parameters are those of :func:`figure_error_vs_S`, and

    own_dim : bool
        ``df`` holds each transformer's rows at its own output dimension (one S per fit, not one S for
        all): the label gives the mean dimension at the smallest and the largest n_train.
    """
    df = error_percent(df)
    names = selector_names(df)
    styles = styles or selector_styles(df)
    sels = [str(x) for x in df["selector"].drop_duplicates()]
    show = _use_bands(bands, len(sels))
    fig, ax = new_figure()
    curves = _summaries(df, "n_train")
    dims = df.groupby(["selector", "n_train"])["n_features"].mean() if own_dim else None
    partial = False
    for sel in sels:
        label = sel
        if dims is not None and names.get(sel) != BASELINE:
            a, b = dims.loc[sel].sort_index().iloc[[0, -1]]
            label = f"{sel} (dim. {a:.0f})" if round(a) == round(b) else f"{sel} (dim. {a:.0f}–{b:.0f})"
        partial |= _curve(ax, curves[sel], "n_train", label, styles[sel], show, 0.12)
    finish_axes(ax, "number of training samples n", title, show, partial)
    return fig


def _curves(d: pd.DataFrame, x: str) -> bool:
    """Whether some selector other than the baseline has two or more points along ``x`` in ``d``."""
    r = d[d["selector_name"] != BASELINE]
    return bool(len(r)) and int(r.groupby("selector")[x].nunique().max()) >= 2


def experiment_figures(
    df: pd.DataFrame,
    bands: bool | None = None,
    styles: dict[str, dict] | None = None,
    transformers: set[str] | None = None,
    dims: dict[str, int] | None = None,
) -> Iterator[tuple[str, Figure]]:
    """Every figure of one results table: ``(file stem, Figure)`` pairs, not saved, drawn one at a time
    (save and close each before taking the next: a table can have dozens).

    * ``error_vs_S_<dataset>_<kernel>_n<n>`` per training size where some selector has two or more S;
    * ``error_vs_n_<dataset>_<kernel>_S<S>`` per requested S where some selector has it at two or more
      training sizes, and ``…_own_dim`` for the transformers whose own dimension is data-determined;
    * ``cpu_vs_n_<dataset>_<kernel>`` where n_train takes :data:`fsbench.plots.cpu.CPU_MIN_POINTS` or
      more values, and ``cpu_vs_D_<kernel>_n<n>`` where that many datasets of known, different D share
      one n_train (:func:`fsbench.plots.cpu.cpu_figures`).

    A single value (one S, one n) is a table row, not a figure.

    Parameters
    ----------
    df : DataFrame
        Rows of one results.csv (failed rows are left out here), already restricted to the selectors
        to draw.
    bands : bool or None
        See :func:`figure_error_vs_S`.
    styles : dict or None
        Line style per label; default :func:`selector_styles` of ``df``.
    transformers : set of str or None
        See :func:`mark_dimensions`.
    dims : dict or None
        Number of input features D per dataset (for ``cpu_vs_D``; e.g. :func:`dataset_dims`).

    Yields
    ------
    (str, Figure)
    """
    # only the columns drawn: every row filter below would otherwise copy params, messages, subsets
    ok = df.loc[df["status"] == "ok", [c for c in FIGURE_COLUMNS if c in df.columns]]
    if ok.empty:
        return
    styles = styles or selector_styles(ok)
    ok = mark_dimensions(ok, transformers)
    exp = str(df["experiment"].iloc[0])
    base = ok["selector_name"] == BASELINE
    for (ds, kern), d in ok.groupby(["dataset", "kernel"], sort=False):
        n_values = sorted(d["n_train"].unique())
        for n in n_values:
            dn = d[d["n_train"] == n]
            if _curves(dn[dn["on_grid"]], "n_features"):
                title = f"{exp}: {ds}, {kern} kernel, n_train={n}, {dn['repeat'].nunique()} repeats"
                yield f"error_vs_S_{ds}_{kern}_n{n}", figure_error_vs_S(dn, title, bands, styles)
        if len(n_values) < 2:
            continue
        db = d[base.loc[d.index]]
        grid = d[d["on_grid"] & ~base.loc[d.index]]
        for S in sorted(grid["n_features"].unique()):
            dS = pd.concat([db, grid[grid["n_features"] == S]])
            if _curves(dS, "n_train"):
                title = f"{exp}: {ds}, {kern} kernel, S={S}, {dS['repeat'].nunique()} repeats per n"
                yield f"error_vs_n_{ds}_{kern}_S{S}", figure_error_vs_n(dS, title, bands, styles)
        own = pd.concat([db, d[d["own_dim"]]])
        if _curves(own, "n_train"):
            title = (
                f"{exp}: {ds}, {kern} kernel, each method at its own output dimension, "
                f"{own['repeat'].nunique()} repeats per n"
            )
            yield (
                f"error_vs_n_{ds}_{kern}_own_dim",
                figure_error_vs_n(own, title, bands, styles, own_dim=True),
            )
    yield from cpu_figures(ok, styles, dims)


def plot_results(
    paths: list[Path],
    out: Path | None = None,
    selectors: list[str] | None = None,
    bands: bool | None = None,
    progress: Callable[[str], None] | None = None,
    jobs: int = 1,
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
    progress : callable or None
        Called with one line per result directory once it is drawn, in the order of the directories,
        e.g. ``"[3/41] <paper>/<experiment> ... 12 figures"``.
    jobs : int
        Worker processes (joblib) drawing result directories in parallel; 1: in this process.

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
    work = []
    for d, df in tables:
        # only the columns drawn and tabulated: lighter filters here, lighter frames to the workers
        df = select_selectors(df, selectors)
        df = df[[c for c in FIGURE_COLUMNS if c in df.columns]]
        target = Path(out) / d.name if out is not None else d / "plots"
        work.append((d, df, target, bands, partial_note(d)))
    if jobs > 1 and len(work) > 1:
        # workers that end with this process (no orphan after a kill -9), results in order as they come
        drawn = worker_pool(jobs).map(_draw_dir, *zip(*work))
    else:
        drawn = (_draw_dir(*w) for w in work)
    written: list[Path] = []
    for i, ((d, *_, note), (files, n_figures)) in enumerate(zip(work, drawn, strict=True), 1):
        written += files
        if progress is not None:
            name = "/".join(d.resolve().parts[-2:])
            flag = f" ({note})" if note else ""
            progress(f"[{i}/{len(work)}] {name} ... {n_figures} figure{'s' if n_figures != 1 else ''}{flag}")
    return written


def partial_note(d: Path) -> str | None:
    """``"partial run: N of M tasks"`` when the run in ``d`` has not finished all its tasks (its tables
    then hold only the saved tasks), else None (:func:`fsbench.results.loading.run_state`)."""
    state = run_state(d)
    return f"partial run: {state.describe()}" if state is not None and state.partial else None


def _draw_dir(
    d: Path, df: pd.DataFrame, target: Path, bands: bool | None, note: str | None = None
) -> tuple[list[Path], int]:
    """The figures and CPU-time tables of one result directory's (selected) rows: files, figure count.
    With ``note`` (:func:`partial_note`), every figure carries it in red in its bottom-left corner, so a
    figure of an unfinished run cannot pass for the finished one."""
    if df.empty:
        return [], 0
    rank_file = table_file(d, "rankings")
    rankings = read_rankings(rank_file) if rank_file is not None else None
    written: list[Path] = []
    n_figures = 0
    # styles from the selected rows: a few chosen selectors get the most distinct first colours;
    # figures come one at a time and each is closed once saved
    for stem, fig in experiment_figures(
        df, bands, transformers=transformer_labels(rankings), dims=dataset_dims(rankings)
    ):
        if note:
            fig.text(0.005, 0.005, note, ha="left", va="bottom", fontsize=8, color="red")
        written += save_figure(fig, target / stem)
        n_figures += 1
    return written + write_cpu_tables(df, target), n_figures
