r"""Producers: the tables, figures and Markdown a report computes from a result directory, declared as data.

A paper folder (or a benchmark of one's own) names them in the ``report`` mapping of its
``paper_values.yaml``, with their parameters; their Markdown takes the ``producers`` place of the report's
layout, in the order declared::

    report:
      sections: [summary, producers, notes, comparison, analysis]
      producers:
        - kind: metric_vs_k          # a metric against the number of selected features, per dataset
          run: clinical_bcr          # the result directory, under the results directory
          ...

Kinds (:data:`PRODUCERS`):

* ``metric_vs_k`` (:mod:`.metric_vs_k`): a metric's mean ± sd against S per dataset and selector, the
  Kuncheva stability of the top-S sets, their figures and tables;
* ``timing_vs_n`` (:mod:`.timing`): fit time against the training-set size, log-log slopes beside the
  complexities a paper states;
* ``own_dimension_curves`` (:mod:`.own_dimension`): transformers that choose their own output dimension,
  drawn as a point at it and as a curve along the S grid;
* ``subset_choice`` and ``subset_search`` (:mod:`.subsets`): which subset a search chose; the accuracy,
  time and criterion evaluations of subset searches against d, and their speed-ups over a reference;
* ``data_scatter`` (:mod:`.subsets`): a dataset's samples in pairs of its features.

A producer is a function ``producer(ctx, **params) -> list[str]``: ``ctx`` is the report's context
(:class:`ProducerContext`), the parameters are the declared keys other than ``kind``. It writes its files
under ``ctx.results_dir`` (figures through :func:`fsbench.results.tables.save_figure`, without dates) and
returns Markdown lines linking them relative to ``ctx.root``. A producer a folder needs but the library
lacks is registered with :func:`register` from a plug-in module.
"""

from __future__ import annotations

# importing the kinds' modules registers them
from fsbench.results.producers import metric_vs_k, own_dimension, subsets, timing  # noqa: F401
from fsbench.results.producers.registry import (
    PRODUCERS,
    ProducerContext,
    ProducerError,
    check_producers,
    register,
    run_producers,
)

__all__ = ["PRODUCERS", "ProducerContext", "ProducerError", "check_producers", "register", "run_producers"]
