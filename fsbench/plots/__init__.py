"""Figures and CPU-time tables of result directories (headless, matplotlib Agg).

* :mod:`fsbench.plots.experiment` — a directory's error curves and files (:func:`plot_results`);
* :mod:`fsbench.plots.cpu` — the CPU-time figures and tables;
* :mod:`fsbench.plots.style` — what they share: axes, saving without dates, legends, ticks, line styles.
"""

from __future__ import annotations

from fsbench.plots.experiment import PlotError, parse_selectors, plot_results

__all__ = ["PlotError", "parse_selectors", "plot_results"]
