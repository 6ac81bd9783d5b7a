"""Feature selectors, each a scikit-learn estimator; :mod:`.registry` maps config names to classes.

Nothing is imported here on purpose: ``fsbench.algorithms.registry.get_selector`` imports a
selector's module only when it is asked for.
"""
