"""The dataset cards (``*.yaml``), installed with fsbench as the package ``fsbench._cards``.

This directory is the only copy of the cards: ``pyproject.toml`` maps it onto ``fsbench._cards`` so that a
wheel ships them; :func:`fsbench.data.cards.cards_dir` finds them (here in a checkout, through
:mod:`importlib.resources` in an installed copy). This file only makes the directory a regular package.
"""
