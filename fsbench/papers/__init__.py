"""Paper-specific reporting: our results beside the papers' values, for the papers without the claim DSL."""
