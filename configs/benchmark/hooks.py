"""Report hooks of the benchmark (``configs/benchmark/``): the library's cross-dataset report.

Loaded by file path by ``fsbench build`` (a configs folder without paper values: not compared with a
paper, :meth:`fsbench.papers.folder.PaperFolder.plain`). The page is
:func:`fsbench.results.crossdataset.cross_dataset_sections` on the result directories under the results
folder, its tables and figures under ``<results>/analysis/``; the benchmark adds only its title, its
layout and the name of its first run (``benchmark``, 19 datasets), whose files sit in ``analysis/`` itself.
"""

from __future__ import annotations

from fsbench.papers.folder import ReportContext
from fsbench.results.crossdataset import cross_dataset_sections
from fsbench.results.crossdataset.common import ANALYSIS

#: The page's title and sections (no paper values: the layout lives here, fsbench.papers.folder).
REPORT = {
    "title": "Benchmark — feature selectors across the papers' datasets",
    "sections": ["notes", "hooks", "runs"],
}


def sections(ctx: ReportContext) -> list[str]:
    """The cross-dataset report of every result directory under the results folder."""
    return cross_dataset_sections(
        ctx.results.sets, ctx.results_dir / ANALYSIS, ctx.root, root_track="benchmark"
    )
