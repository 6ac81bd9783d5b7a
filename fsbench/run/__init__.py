"""The runner: config → tasks → parallel execution → durable, resumable result store.

One module per concern, imports flowing one way (no module imports one listed before it):

* :mod:`~fsbench.run.engine` — :func:`run_experiment` (resume, refusals, ``run.json``), :func:`dry_run`,
  :func:`unfinished_runs`; the output directory layout is described there;
* :mod:`~fsbench.run.backends` — worker processes (loky, crash handling), threads, dask;
* :mod:`~fsbench.run.checks` — backend options and output directory, checked before anything is created;
* :mod:`~fsbench.run.lock` — ``run.lock``;
* :mod:`~fsbench.run.store` — atomic writes, task files, ``results.csv`` / ``rankings.csv``;
* :mod:`~fsbench.run.plan` — tasks of an experiment and validation of its config;
* :mod:`~fsbench.run.workers` — the loky worker pool, the contract check of user classes run in it, and
  the watchdog that ends the workers with the run;
* :mod:`~fsbench.run.provenance` — git commit, package versions, timestamps;
* :mod:`~fsbench.run.errors` — :class:`RunError`.
"""
