"""Our results beside the papers': paper values, the claim DSL, cell comparison, rendering, and the
paper-specific report modules (TAKES/KIFE, Paul 2015, Ring 2015)."""
