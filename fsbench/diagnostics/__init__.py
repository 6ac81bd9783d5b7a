"""Diagnostics: what is not a ranker/transformer experiment, run by ``fsbench diagnose CONFIG``."""
