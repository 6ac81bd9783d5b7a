"""Our results beside the papers': paper values, the claim DSL, cell comparison, rendering and paper folders
(values, notes, report layout, declared producers and hooks: :mod:`fsbench.papers.folder`). No module here
is about one paper; the producers a folder declares are :mod:`fsbench.results.producers`."""
