"""Shared style of the ``fsbench plot`` figures (headless, matplotlib Agg).

Fixed axes and canvas in inches, the save with its crop from the rendered pixels, the legend outside the
axes, integer or 1-2-5 log ticks, line styles per selector (the paper's own methods dotted, tab10 colours
and markers cycled independently), and the summary of the error over repeats. Used by the error curves
(:mod:`fsbench.plots`) and the CPU-time figures (:mod:`fsbench.plots.cpu`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

# headless; set before pyplot loads: the other figure modules draw through this one
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import imsave  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from scipy import stats  # noqa: E402

from fsbench.results.schema import BASELINE  # noqa: E402
from fsbench.results.tables import figure_metadata  # noqa: E402

PROPOSED = {"sas", "scss", "kfds", "sfs"}
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


def summarize(df: pd.DataFrame, by: list[str], value: str = "error") -> pd.DataFrame:
    """Mean, std, count and 95 % CI half-width of ``value`` over repeats."""
    g = df.groupby(by, sort=False)[value]
    s = g.agg(mean="mean", std="std", n="count").reset_index()
    tcrit = stats.t.ppf(0.975, np.maximum(s["n"] - 1, 1))
    s["ci95"] = np.where(s["n"] > 1, tcrit * s["std"].fillna(0) / np.sqrt(s["n"]), 0.0)
    return s


def selector_styles(df: pd.DataFrame) -> dict[str, dict]:
    """Line style per selector label: black solid baseline; otherwise tab10 colour and a marker in
    table order, dotted for the paper's own methods.

    Styles come from the whole (selected) table, not one figure, so a selector looks the same in every
    figure of an experiment.
    """
    names = selector_names(df)
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


def new_figure() -> tuple[Figure, Axes]:
    """A figure with one axes of fixed size in inches and room right of it for the legend.

    Everything is drawn inside the canvas, so :func:`save_figure` crops the rendered pixels instead of
    laying the figure out once more to measure it.

    Returns
    -------
    fig : Figure
        The figure, of :data:`CANVAS_INCHES` at :data:`DPI`.
    ax : Axes
        Its one axes, placed at :data:`AXES_INCHES`.
    """
    left, bottom, w, h = AXES_INCHES
    W, H = CANVAS_INCHES
    fig = plt.figure(figsize=(W, H), dpi=DPI)
    ax = fig.add_axes((left / W, bottom / H, w / W, h / H))
    return fig, ax


def save_figure(fig: Figure, stem: Path) -> list[Path]:
    """Save ``stem.png`` and ``stem.pdf`` cropped to the drawn content (the legend outside the axes
    included), with a margin of :data:`PAD_INCHES`, and close the figure.

    The figure is rendered once (Agg) and the crop box read from its pixels; the PNG is that crop and the
    PDF is drawn with the same box. ``bbox_inches="tight"`` would lay every figure out once more per format
    to measure it (a third of the time of ``fsbench plot`` on the committed tree).

    Parameters
    ----------
    fig : Figure
        The figure to save; closed on return, also on an error.
    stem : Path
        Path of the files without suffix; its directory is created if missing.

    Returns
    -------
    list of Path
        The PNG and the PDF written.
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


def selector_names(df: pd.DataFrame) -> dict[str, str]:
    """The display name of every selector of ``df``.

    Parameters
    ----------
    df : DataFrame
        Result rows with a ``selector`` column and optionally ``selector_name``.

    Returns
    -------
    dict of str to str
        ``selector`` -> ``selector_name``; empty when ``df`` has no ``selector_name`` column.
    """
    if "selector_name" not in df.columns:
        return {}
    return df.drop_duplicates("selector").set_index("selector")["selector_name"].to_dict()


def outside_legend(ax: Axes, note: str, extra: list | None = None) -> None:
    """Draw the legend outside the axes, right of them, so that no curve is ever hidden behind it.

    Parameters
    ----------
    ax : Axes
        The axes whose labelled artists form the legend.
    note : str
        The legend's title (what the curves and bands are).
    extra : list, optional
        More handles (artists with a label) appended after the axes' own.
    """
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


def finish_axes(
    ax: Axes, xlabel: str, title: str, bands: bool, partial: bool = False, own: bool = False
) -> None:
    """Label, grid and integer ticks of a curve figure, and its legend with a note of what is drawn.

    Parameters
    ----------
    ax : Axes
        The axes with the curves drawn.
    xlabel : str
        Label of the x axis (the y axis is :data:`YLABEL`).
    title : str
        Title of the axes.
    bands : bool
        Whether 95 % CI bands are drawn (said in the legend's note).
    partial : bool, default False
        Whether some points are means over fewer repeats (hollow markers, said in the note).
    own : bool, default False
        Whether the figure marks selectors' own output dimensions (a legend entry for the marker).
    """
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
    outside_legend(ax, note, extra)


def _integer_x(ax: Axes) -> None:
    """Integer ticks on the x axis (S and n_train are counts: no 12.5 features), log scale for wide ranges."""
    x = np.concatenate([np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()] or [[]])
    x = x[np.isfinite(x)]
    if len(x) and x.min() > 0 and x.max() / x.min() >= LOG_X_RATIO:
        ax.set_xscale("log")
        log_ticks(ax.xaxis)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def log_ticks(axis: Axis) -> None:
    """Put 1-2-5 steps on a log axis (all integers from 1 up), as plain numbers, not 10^k.

    Parameters
    ----------
    axis : Axis
        The x or y axis of a log-scaled axes.
    """
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}" if v >= 1 else f"{v:g}"))
    # no minor ticks: between 1-2-5 majors they add nothing to read, and each one costs drawing time
    axis.set_minor_locator(NullLocator())


def error_percent(df: pd.DataFrame) -> pd.DataFrame:
    """The error in % (the report's unit).

    Parameters
    ----------
    df : DataFrame
        Result rows with an ``error`` column, a fraction.

    Returns
    -------
    DataFrame
        A copy with ``error`` in percent.
    """
    return df.assign(error=100 * df["error"])
