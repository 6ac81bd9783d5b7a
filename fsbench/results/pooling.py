"""Result directories that are parts of one experiment, pooled into one.

The analyses pair selectors only within one result directory (a block is keyed by its ``source``). A
benchmark can be run in parts, though: the shared config into one directory and, later, a config that
takes the same protocol (``base: benchmark.yaml``) with only a new selector into another. A task's split
depends only on the config's ``seed``, the dataset, the training size and the repeat (never on the
selectors or the experiment's name), so the parts hold the same splits, and their selectors can be
ranked against each other as if they had been one run. :func:`pool_result_sets` merges such parts into
one :class:`~fsbench.results.loading.ResultSet` after checking that claim on the tables themselves: every
(dataset, kernel, n_train, repeat, fold) must carry the same ``split_seed`` and ``n_test`` in every part
that has it, and no selector label may appear in two parts on the same dataset.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from fsbench.results.loading import ResultSet, split_columns

#: What names one split of the data in results.csv (with ``fold`` under k-fold).
SPLIT = ["dataset", "kernel", "n_train", "repeat"]


class PoolError(ValueError):
    """The directories are not parts of one experiment (other splits, or a selector in two parts)."""


def _splits(rs: ResultSet) -> pd.DataFrame:
    r = rs.results
    keys = [*SPLIT, *(["fold"] if "fold" in split_columns(r) else [])]
    cols = [c for c in ("split_seed", "n_test") if c in r.columns]
    out = r[r["status"] == "ok"][[*keys, *cols]].drop_duplicates()
    if "fold" in out.columns:
        out["fold"] = out["fold"].astype(str)
    return out.assign(part=rs.source)


def pool_result_sets(sets: Sequence[ResultSet], source: str | None = None) -> ResultSet:
    """Merge result directories that hold the same splits into one result set.

    Parameters
    ----------
    sets : sequence of ResultSet
        The parts (:func:`fsbench.results.loading.load_result_sets`).
    source : str, optional
        The pooled set's name (default: the first part's).

    Returns
    -------
    ResultSet
        Rows and rankings of every part under one ``source``; ``run`` and ``path`` of the first part.

    Raises
    ------
    PoolError
        A split with different ``split_seed`` or ``n_test`` in two parts, or a selector label in two parts
        on the same dataset.
    """
    if not sets:
        raise PoolError("nothing to pool")
    first = sets[0]
    name = source or first.source
    if len(sets) == 1:
        return first
    splits = pd.concat([_splits(rs) for rs in sets], ignore_index=True)
    keys = [c for c in splits.columns if c not in ("split_seed", "n_test", "part")]
    for col in [c for c in ("split_seed", "n_test") if c in splits.columns]:
        n = splits.groupby(keys, dropna=False)[col].nunique()
        bad = n[n > 1]
        if len(bad):
            raise PoolError(
                f"{', '.join(rs.source for rs in sets)} are not parts of one experiment: split "
                f"{dict(zip(keys, bad.index[0]))} has different {col} values (another seed or protocol)"
            )
    owners = pd.concat(
        [rs.results[["dataset", "selector"]].drop_duplicates().assign(part=rs.source) for rs in sets]
    )
    twice = owners.groupby(["dataset", "selector"])["part"].nunique()
    twice = twice[twice > 1]
    if len(twice):
        ds, sel = twice.index[0]
        raise PoolError(
            f"selector {sel!r} is in more than one of {', '.join(rs.source for rs in sets)} on {ds}; run "
            "each selector in one part only (e.g. leave `all` out of the added config)"
        )
    results = pd.concat([rs.results.assign(source=name) for rs in sets], ignore_index=True)
    ranks = [rs.rankings.assign(source=name) for rs in sets if rs.rankings is not None]
    rankings = pd.concat(ranks, ignore_index=True) if ranks else None
    return ResultSet(path=first.path, source=name, results=results, rankings=rankings, run=first.run)
