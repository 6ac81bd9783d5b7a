"""Figures a reader can read, checked on the figure objects (text extents, colours, sizes), not on pixels:
CPU-time tick labels that do not collide, the similarity heat map's numbers, accuracy-vs-time labels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba

from fsbench.plots.cpu import figure_cpu_vs
from fsbench.results.cost import figure_accuracy_vs_time, pareto_front
from fsbench.results.similarity import NUMBERS_MAX, figure_similarity


def _overlapping(extents) -> list[tuple[int, int]]:
    return [(i, j) for i, a in enumerate(extents) for j, b in enumerate(extents) if i < j and a.overlaps(b)]


def test_cpu_time_tick_labels_do_not_collide() -> None:
    import matplotlib.pyplot as plt

    xs = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]  # 80, 90, 100 drew as "8090100"
    tasks = pd.DataFrame(
        [
            {"selector": s, "n_train": n, "fit_cpu_s": 0.01 * n * k}
            for s, k in (("a", 1), ("b", 2))
            for n in xs
        ]
    )
    fig = figure_cpu_vs(tasks, "n_train", "n", "cpu")
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        renderer = fig.canvas.get_renderer()
        assert not _overlapping([t.get_window_extent(renderer) for t in shown])
        texts = [t.get_text() for t in shown]
        assert texts[0] == "10" and "100" in texts and len(texts) >= 6
        assert list(ax.get_xticks()) == xs  # every n of the sweep keeps its tick mark
    finally:
        plt.close(fig)


def _contrast(a, b) -> float:
    def lum(c):
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in to_rgba(c)[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _matrix(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n))
    a = (a + a.T) / 2
    a[0, 1] = a[1, 0] = 0.97  # dark red
    a[0, 2] = a[2, 0] = -0.95  # dark blue
    np.fill_diagonal(a, 1.0)
    names = [f"selector_{i}" for i in range(n)]
    return pd.DataFrame(a, index=names, columns=names)


def test_similarity_numbers_readable() -> None:
    import matplotlib.pyplot as plt

    fig = figure_similarity(_matrix(8), "Spearman")
    try:
        ax = fig.axes[1]
        im = ax.images[0]
        cells = im.get_array()
        texts = ax.texts
        assert len(texts) == 64
        for t in texts:
            j, i = (round(v) for v in t.get_position())
            background = im.cmap(im.norm(cells[i, j]))
            assert t.get_fontsize() >= 8
            assert _contrast(t.get_color(), background) >= 4.5, (t.get_text(), t.get_color(), background)
        # dark cells take white numbers, the pale middle black ones
        colours = {
            round(float(cells[i, j]), 2): t.get_color()
            for t in texts
            for j, i in [map(round, t.get_position())]
        }
        assert colours[0.97] == colours[-0.95] == colours[1.0] == "white"
        renderer = fig.canvas.get_renderer()
        cell_w = ax.get_window_extent(renderer).width / 8
        assert max(t.get_window_extent(renderer).width for t in texts) < cell_w  # each fits its cell
    finally:
        plt.close(fig)


def test_similarity_no_numbers_above_max() -> None:
    import matplotlib.pyplot as plt

    fig = figure_similarity(_matrix(NUMBERS_MAX + 1))
    try:
        assert len(fig.axes[1].texts) == 0
    finally:
        plt.close(fig)


def test_accuracy_vs_time_labels_do_not_overlap() -> None:
    import matplotlib.pyplot as plt

    names = [f"sel_{c}" for c in "abcdefghijkl"]
    rng = np.random.default_rng(0)
    t = np.exp(rng.normal(0, 0.6, len(names)))
    r = rng.uniform(4, 8, len(names))
    t[:5] = [0.010, 0.011, 0.012, 0.0105, 0.0115]  # a tight cluster: labels at one offset all collide
    r[:5] = [5.0, 5.05, 5.1, 4.98, 5.02]
    table = pd.DataFrame({"selector": names, "average_rank": r, "median_fit_cpu_s": t})
    table["pareto"] = pareto_front(t, r)
    fig = figure_accuracy_vs_time(table, title="cost")
    try:
        fig.canvas.draw()
        ax = fig.axes[0]
        renderer = fig.canvas.get_renderer()
        labels = [a for a in ax.texts if a.get_text() in names]
        assert sorted(a.get_text() for a in labels) == names
        extents = [a.get_window_extent(renderer) for a in labels]
        assert not _overlapping(extents)
        box = ax.get_window_extent(renderer)
        assert all(box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 and e.y1 <= box.y1 for e in extents)
    finally:
        plt.close(fig)
