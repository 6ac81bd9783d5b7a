"""Our results beside the papers': paper values, the claim DSL, cell comparison, rendering, paper folders
(values, notes, report layout and hooks: :mod:`fsbench.papers.folder`) and the generic helpers their hooks
use (:mod:`fsbench.papers.timing`, :mod:`fsbench.papers.figures`). No module here is about one paper."""
