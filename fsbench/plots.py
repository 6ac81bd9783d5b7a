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

**Kernel-space transformers** (no ranking of the input features: an empty ``order`` in ``rankings.csv``)
are evaluated at the requested S up to their output dimension and at that dimension itself, which can
depend on the training data (``fsbench.protocol.transform_grid``): a task's largest S is its own
dimension. Curves join only the requested S (the grid), each point the mean over the repeats that
reached that S (the legend says how many where not all did; such points are hollow). Where a method's
own dimension is data-determined — it varies over repeats or lies off the grid — it is one marker per
method at the mean dimension and mean error, with ± sd bars over the repeats, never joined to the curve.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import imsave  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from scipy import stats  # noqa: E402

from fsbench.results.loading import (  # noqa: E402
    find_result_dirs,
    is_diagnostic,
    read_rankings,
    read_results,
)
from fsbench.results.schema import BASELINE  # noqa: E402
from fsbench.results.tables import figure_metadata, to_markdown  # noqa: E402

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
#: Resolution of the PNGs (the PDFs are vector): 100 dpi keeps the figures sharp on screen.
DPI = 100
#: The axes of every figure in inches (left, bottom, width, height) and the canvas around them: room
#: for tick labels and title, and right of the axes for a two-column legend; the saved files are cropped.
AXES_INCHES = (1.1, 0.6, 4.65, 3.1)
CANVAS_INCHES = (13.0, 4.2)
#: White margin around the drawn content of a saved figure.
PAD_INCHES = 0.1
#: Marker of a transformer's own output dimension.
OWN_MARKER = "*"
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
#: Fewest distinct n_train (or D) values for a CPU-time figure: two points always lie on a line.
CPU_MIN_POINTS = 3


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


def _new_figure() -> tuple[Figure, Axes]:
    """A figure with one axes of fixed size in inches (:data:`AXES_INCHES`) and room right of it for the
    legend: everything is drawn inside the canvas, so :func:`_save` crops the rendered pixels instead of
    laying the figure out once more to measure it."""
    left, bottom, w, h = AXES_INCHES
    W, H = CANVAS_INCHES
    fig = plt.figure(figsize=(W, H), dpi=DPI)
    ax = fig.add_axes((left / W, bottom / H, w / W, h / H))
    return fig, ax


def _save(fig: Figure, stem: Path) -> list[Path]:
    """Save ``stem.png`` and ``stem.pdf`` cropped to the drawn content (the legend outside the axes
    included), with a margin of :data:`PAD_INCHES`, and close the figure.

    The figure is rendered once (Agg) and the crop box read from its pixels; the PNG is that crop and the
    PDF is drawn with the same box. ``bbox_inches="tight"`` would lay every figure out once more per format
    to measure it (a third of the time of ``fsbench plot`` on the committed tree).
    """
    stem.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.canvas.draw()
        rgba = np.asarray(fig.canvas.buffer_rgba())
        ink = (rgba[..., :3] < 255).any(axis=2) & (rgba[..., 3] > 0)
        rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
        height, width = ink.shape
        pad = round(PAD_INCHES * fig.dpi)
        y0, y1 = max(rows[0] - pad, 0), min(rows[-1] + 1 + pad, height)
        x0, x1 = max(cols[0] - pad, 0), min(cols[-1] + 1 + pad, width)
        png = stem.with_suffix(".png")
        imsave(png, rgba[y0:y1, x0:x1], dpi=fig.dpi, metadata=figure_metadata(png))
        pdf = stem.with_suffix(".pdf")
        # pixel rows count from the top, PDF inches from the bottom
        box = Bbox.from_extents(x0 / fig.dpi, (height - y1) / fig.dpi, x1 / fig.dpi, (height - y0) / fig.dpi)
        fig.savefig(pdf, bbox_inches=box, metadata=figure_metadata(pdf))
    finally:
        plt.close(fig)
    return [png, pdf]


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


def _legend(ax: Axes, note: str, extra: list | None = None) -> None:
    """The legend outside the axes, right of them, so that no curve is ever hidden behind it."""
    handles, labels = ax.get_legend_handles_labels()
    for h in extra or ():
        handles.append(h)
        labels.append(h.get_label())
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


def _finish(ax: Axes, xlabel: str, title: str, bands: bool, partial: bool = False, own: bool = False) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(YLABEL)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    _integer_x(ax)
    note = "mean over the repeats" + (" that reached the point" if partial else "")
    note += "\nband: 95 % CI of the mean" if bands else ""
    note += "\nhollow: not every repeat reached it" if partial else ""
    extra = []
    if own:
        extra.append(
            Line2D(
                [],
                [],
                color="0.3",
                marker=OWN_MARKER,
                markersize=9,
                linestyle="none",
                label="own output dimension\n(mean ± sd over repeats)",
            )
        )
    _legend(ax, note, extra)


def _integer_x(ax: Axes) -> None:
    """Integer ticks on the x axis (S and n_train are counts: no 12.5 features), log scale for wide ranges."""
    x = np.concatenate([np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()] or [[]])
    x = x[np.isfinite(x)]
    if len(x) and x.min() > 0 and x.max() / x.min() >= LOG_X_RATIO:
        ax.set_xscale("log")
        _log_ticks(ax.xaxis)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def _log_ticks(axis) -> None:
    """1-2-5 steps on a log axis (all integers from 1 up), as plain numbers, not 10^k."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}" if v >= 1 else f"{v:g}"))
    # no minor ticks: between 1-2-5 majors they add nothing to read, and each one costs drawing time
    axis.set_minor_locator(NullLocator())


def _percent(df: pd.DataFrame) -> pd.DataFrame:
    """The error in % (the report's unit)."""
    return df.assign(error=100 * df["error"])


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
    dimension and every other S is requested (:func:`fsbench.protocol.transform_grid`).

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
    df = _percent(_marked(df))
    names = _selector_names(df)
    styles = styles or selector_styles(df)
    sels = [str(x) for x in df["selector"].drop_duplicates()]
    show = _use_bands(bands, len(sels))
    fig, ax = _new_figure()
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
    _finish(ax, "number of selected features S", title, show, partial, bool(own))
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
    df = _percent(df)
    names = _selector_names(df)
    styles = styles or selector_styles(df)
    sels = [str(x) for x in df["selector"].drop_duplicates()]
    show = _use_bands(bands, len(sels))
    fig, ax = _new_figure()
    curves = _summaries(df, "n_train")
    dims = df.groupby(["selector", "n_train"])["n_features"].mean() if own_dim else None
    partial = False
    for sel in sels:
        label = sel
        if dims is not None and names.get(sel) != BASELINE:
            a, b = dims.loc[sel].sort_index().iloc[[0, -1]]
            label = f"{sel} (dim. {a:.0f})" if round(a) == round(b) else f"{sel} (dim. {a:.0f}–{b:.0f})"
        partial |= _curve(ax, curves[sel], "n_train", label, styles[sel], show, 0.12)
    _finish(ax, "number of training samples n", title, show, partial)
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
    * ``cpu_vs_n_<dataset>_<kernel>`` where n_train takes :data:`CPU_MIN_POINTS` or more values, and
      ``cpu_vs_D_<kernel>_n<n>`` where that many datasets of known, different D share one n_train.

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


# --------------------------------------------------------------------------- CPU time
def loglog_slope(x: Iterable[float], y: Iterable[float]) -> float:
    """Least-squares slope of log y on log x over the points with x, y > 0 (NaN below two points)."""
    x, y = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if np.unique(x[keep]).size < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def _fit_from(values: list) -> float:
    """Smallest x of the exponent fit: the upper half of the x values (at least two), where the growth
    dominates the fixed costs that flatten small problems."""
    v = sorted(values)
    return v[len(v) - max(2, math.ceil(len(v) / 2))]


def figure_cpu_vs(
    tasks: pd.DataFrame, x: str, xlabel: str, title: str, styles: dict[str, dict] | None = None
) -> Figure:
    """Median selection CPU time per selector vs ``x`` (log–log), the fitted exponent in the legend.

    Parameters
    ----------
    tasks : DataFrame
        One row per fit: ``selector``, ``x`` and ``fit_cpu_s`` (the baseline left out).
    x : str
        The column on the x axis (``n_train``, or ``D``).
    xlabel, title : str
        Axis label and title.
    styles : dict or None
        Line style per label.

    Returns
    -------
    Figure
        Not saved, not closed. Each legend label ends with ``∝ x^b``, b the least-squares slope of log
        median CPU on log x over the upper half of the x values (:func:`loglog_slope`).
    """
    styles = styles or selector_styles(tasks)
    sym = "n" if x == "n_train" else x
    xs = sorted(tasks[x].unique())
    x0 = _fit_from(xs)
    fig, ax = _new_figure()
    for sel, d in tasks.groupby("selector", sort=False):
        med = d.groupby(x)["fit_cpu_s"].median().sort_index()
        med = med[med > 0]  # process_time can read 0 s for the fastest fits: no place on a log axis
        b = loglog_slope(med.index[med.index >= x0], med[med.index >= x0])
        label = f"{sel}: ∝ {sym}^{b:.2f}" if np.isfinite(b) else f"{sel} (no fit)"
        st = {k: v for k, v in styles[sel].items() if k != "zorder"}
        ax.plot(med.index, med.to_numpy(), label=label, **st)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_ticks(ax.xaxis)
    if len(xs) <= 10:  # a tick at every n (or D) of the sweep
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("selection (fit) CPU time (s), median over repeats")
    ax.set_title(title, fontsize=9)
    ax.yaxis.set_minor_locator(NullLocator())  # decades only: the minor ticks cost most of the drawing
    ax.grid(alpha=0.3)
    note = f"exponent: least-squares slope of\nlog CPU on log {sym} over {sym} ≥ {x0:g}"
    _legend(ax, note)
    return fig


def dataset_dims(rankings: pd.DataFrame | None) -> dict[str, int]:
    """Number of input features D per dataset: the length of its longest ranking (a full ranking)."""
    if rankings is None or rankings.empty:
        return {}
    lens = rankings.groupby("dataset")["order_len"].max()
    return {str(k): int(v) for k, v in lens.items() if v > 0}


def cpu_figures(
    ok: pd.DataFrame, styles: dict[str, dict] | None = None, dims: dict[str, int] | None = None
) -> Iterator[tuple[str, Figure]]:
    """``cpu_vs_n`` per (dataset, kernel) swept over n_train and ``cpu_vs_D`` per (kernel, n_train) shared
    by datasets of different D, each where there are :data:`CPU_MIN_POINTS` or more x values."""
    t = ok[(ok["status"] == "ok") & (ok["selector_name"] != BASELINE)].drop_duplicates("task_id")
    if t.empty:
        return
    styles = styles or selector_styles(t)
    exp = str(t["experiment"].iloc[0])
    for (ds, kern), d in t.groupby(["dataset", "kernel"], sort=False):
        if d["n_train"].nunique() >= CPU_MIN_POINTS:
            title = f"{exp}: {ds}, {kern} kernel — selection CPU time vs n"
            yield (
                f"cpu_vs_n_{ds}_{kern}",
                figure_cpu_vs(d, "n_train", "number of training samples n", title, styles),
            )
    if not dims:
        return
    t = t.assign(D=t["dataset"].map(dims))
    for (kern, n), d in t[t["D"].notna()].groupby(["kernel", "n_train"], sort=False):
        if d.groupby("D")["dataset"].nunique().max() == 1 and d["D"].nunique() >= CPU_MIN_POINTS:
            title = f"{exp}: {kern} kernel, n_train={n} — selection CPU time vs D"
            yield (
                f"cpu_vs_D_{kern}_n{n}",
                figure_cpu_vs(d.astype({"D": int}), "D", "number of input features D", title, styles),
            )


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


def cpu_table_wide(df: pd.DataFrame, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Ramona 2012 Tables VIII/IX layout: one row per selector, one column per (dataset, n_train), mean
    selection CPU time normalised to the single fastest entry of the whole table (``table``: the
    :func:`cpu_table` of ``df`` where already computed)."""
    s = cpu_table(df) if table is None else table
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
        e.g. ``"[3/41] ramona2012/fig1a_weston_linear ... 12 figures"``.
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
        work.append((d, df, Path(out) / d.name if out is not None else d / "plots", bands))
    if jobs > 1 and len(work) > 1:
        drawn = Parallel(n_jobs=jobs, return_as="generator")(delayed(_draw_dir)(*w) for w in work)
    else:
        drawn = (_draw_dir(*w) for w in work)
    written: list[Path] = []
    for i, ((d, *_), (files, n_figures)) in enumerate(zip(work, drawn, strict=True), 1):
        written += files
        if progress is not None:
            name = "/".join(d.resolve().parts[-2:])
            progress(f"[{i}/{len(work)}] {name} ... {n_figures} figure{'s' if n_figures != 1 else ''}")
    return written


def _draw_dir(d: Path, df: pd.DataFrame, target: Path, bands: bool | None) -> tuple[list[Path], int]:
    """The figures and CPU-time tables of one result directory's (selected) rows: files, figure count."""
    if df.empty:
        return [], 0
    rankings = read_rankings(d / "rankings.csv") if (d / "rankings.csv").is_file() else None
    written: list[Path] = []
    n_figures = 0
    # styles from the selected rows: a few chosen selectors get the most distinct first colours;
    # figures come one at a time and each is closed once saved
    for stem, fig in experiment_figures(
        df, bands, transformers=transformer_labels(rankings), dims=dataset_dims(rankings)
    ):
        written += _save(fig, target / stem)
        n_figures += 1
    return written + _cpu_tables(df, target), n_figures


def _cpu_tables(df: pd.DataFrame, target: Path) -> list[Path]:
    """cpu_time.csv / .md and cpu_time_table.md of one results table (none without selection times)."""
    table = cpu_table(df)
    if table.empty:
        return []
    exp = str(df["experiment"].iloc[0])
    target.mkdir(parents=True, exist_ok=True)
    csv_path = target / "cpu_time.csv"
    table.to_csv(csv_path, index=False)
    md_path = target / "cpu_time.md"
    md_path.write_text(
        f"# Selection CPU time — {exp}\n\nMean `time.process_time` of the selector's fit "
        "per task; `normalised` = mean / fastest selector of the same dataset, kernel "
        "and n_train (as in Ramona 2012 Tables VIII–IX).\n\n" + to_markdown(table)
    )
    wide = cpu_table_wide(df, table)
    wide_path = target / "cpu_time_table.md"
    wide_path.write_text(
        f"# Selection CPU time, normalised to the fastest entry — {exp}\n\nMean selection CPU time "
        "per selector (rows) and setting (columns), divided by the single lowest entry of the table, "
        "as in Ramona 2012 Tables VIII–IX.\n\n" + to_markdown(wide)
    )
    return [csv_path, md_path, wide_path]
