"""Experiment scripts that are not ranker/transformer classification runs of ``fsbench run``.

Each module is a function plus a thin command line, ``python -m fsbench.experiments.<module> CONFIG --out
DIR``, that reads a *script config* (:func:`fsbench.experiments.common.load_script_config`): an
``fsbench run`` config (name, seed, dataset entries, protocol, kernel) plus ``script`` and ``settings``
keys. The splits are those of ``fsbench run`` for the same seed, dataset label, ``n_train`` and repeat.

Modules
-------
:mod:`~fsbench.experiments.takes_table2`
    Xu et al. 2011 Table 2: reconstruction cost E(M) and dimension per basis learner (train and test).
:mod:`~fsbench.experiments.takes_timing`
    Fit time of the kernel-space basis learners against the training-set size N.
:mod:`~fsbench.experiments.takes_figures`
    Xu et al. 2011 Figs. 2-3 drawn from an ``fsbench run`` result (accuracy vs selected features).
:mod:`~fsbench.experiments.kife_projection`
    Liu et al. 2011 Fig. 2: 2-D projections of Statlog (satimage) by GDA, MMI and KIFE.
:mod:`~fsbench.experiments.paper_report`
    ``results/<paper>/REPORT.md``: our numbers beside the paper's.
:mod:`~fsbench.experiments.scaled_gamma`
    Kernel-space transformers accepting a scaled RBF width rule such as ``gamma: median/4``.
"""
