"""Speed benchmarks of fsbench (issue 4): ``python -m benchmarks.run`` (``make bench``).

* :mod:`benchmarks.reference` — straightforward reference implementations the fast code is compared with;
* :mod:`benchmarks.timing` — the timing protocol (one BLAS thread, warm-up, medians of CPU time) and the
  machine description recorded with every result;
* :mod:`benchmarks.run` — the four measurements, ``benchmarks/results/*.json`` and ``RESULTS.md``.
"""
