"""Analyses across finished result directories (``results.csv``, ``rankings.csv``, ``run.json``).

* :mod:`fsbench.results.schema` — the columns of ``results.csv`` / ``rankings.csv``, their version, the
  baseline's name (a leaf: the run store writes these columns);
* :mod:`fsbench.results.loading` — the one way to find and read result directories;
* :mod:`fsbench.results.tables` — the one Markdown table writer, CSV + Markdown tables, figure saving;
* :mod:`fsbench.results.ties` — the one tie rule: values are ranked at the metric's resolution;
* :mod:`fsbench.results.stats_compare` — Friedman / Iman–Davenport, Nemenyi critical difference and
  Holm-corrected Wilcoxon over blocks (dataset, kernel, n_train, S); critical-difference diagrams;
* :mod:`fsbench.results.stability` — Kuncheva's consistency index and the Nogueira–Sechidis–Brown
  stability estimator with its confidence interval; error-vs-stability plots;
* :mod:`fsbench.results.ground_truth` — recovery of the known relevant features of synthetic data;
* :mod:`fsbench.results.html` — the one HTML renderer: Markdown, tables, figures and provenance in one
  self-contained page (``compare.html``, ``REPORT.html``);
* :mod:`fsbench.results.experiment_tables` — the stability and ground-truth tables beside each experiment
  and their report sections;
* :mod:`fsbench.results.report_html` — what ``fsbench report --html`` puts on its page;
* :mod:`fsbench.results.compare` — the ``fsbench compare`` command tying them together.

Nothing here runs experiments: every function reads tables written by ``fsbench run``. Nothing here
imports the reports, the papers or the command line.
"""
