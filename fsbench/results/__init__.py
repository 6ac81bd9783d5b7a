"""Analyses across finished result directories (``results.csv``, ``rankings.csv``, ``run.json``).

* :mod:`fsbench.results.loading` — find and read result directories;
* :mod:`fsbench.results.stats_compare` — Friedman / Iman–Davenport, Nemenyi critical difference and
  Holm-corrected Wilcoxon over blocks (dataset, kernel, n_train, S); critical-difference diagrams;
* :mod:`fsbench.results.stability` — Kuncheva's consistency index and the Nogueira–Sechidis–Brown
  stability estimator with its confidence interval; error-vs-stability plots;
* :mod:`fsbench.results.ground_truth` — recovery of the known relevant features of synthetic data;
* :mod:`fsbench.results.html` — one self-contained HTML file of tables, figures and provenance;
* :mod:`fsbench.results.compare` — the ``fsbench compare`` command tying them together.

Nothing here runs experiments: every function reads tables written by ``fsbench run``.
"""
