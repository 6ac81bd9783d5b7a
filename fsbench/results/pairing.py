"""Long tables for the cross-dataset statistics, and their pairing on the splits every selector finished.

The statistics of :mod:`fsbench.results.posthoc`, :mod:`fsbench.results.bayes` and
:mod:`fsbench.results.helps` take one *long table*: a row per (group, block, selector, split) with the
value compared. The column names are arguments; the defaults are

* ``by`` — the groups compared separately: ``fraction`` (S as a share of D), ``n_features`` (S on an
  absolute grid), an evaluator (the classifier scoring the subsets), or nothing;
* ``block`` — what the tests treat as one observation: ``dataset``;
* ``selector`` and ``value`` (the metric, lower is better unless a function says otherwise);
* ``split`` — ``repeat`` (and ``fold`` under k-fold);
* ``status`` — optional; only ``ok`` rows count.

:func:`fraction_rows` makes that table from ``results.csv`` rows at fractions of D;
:func:`common_splits` keeps, in every block, only the splits that *all* compared selectors finished, and
reports how many it dropped; :func:`block_means` then averages each selector over those splits. Every
comparison of the three modules goes through these two, so the means it compares stay paired: two selectors
are never compared on different splits of a dataset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from fsbench.config_files import fraction_size
from fsbench.results.schema import BASELINE
from fsbench.results.ties import at_resolution


def columns(names: str | Sequence[str]) -> list[str]:
    """One column name or several, as a list (the ``by`` / ``block`` / ``split`` arguments)."""
    return [names] if isinstance(names, str) else list(names)


def fraction_rows(
    results: pd.DataFrame,
    fractions: Sequence[float],
    metric: str = "error",
    baseline: str = BASELINE,
    sizes: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """The rows of ``results.csv`` at fractions of D, as a long table (by fraction, blocks = datasets).

    At fraction f a dataset of D features contributes its rows at S = max(1, round-half-up(f·D)) (the run's
    rule, :func:`fsbench.config_files.fraction_size`); the all-features baseline (S = D) is repeated at
    every fraction, so that "selection against all features" is a comparison within one fraction.

    Parameters
    ----------
    results : DataFrame
        Rows of ``results.csv`` (``dataset``, ``selector``, ``repeat``, ``n_features``, ``metric`` and
        optionally ``fold``, ``status``, ``source``).
    fractions : sequence of float
        The fractions of D, in (0, 1].
    metric : str
        The column compared (becomes ``value``).
    baseline : str
        The all-features selector's label.
    sizes : mapping, optional
        dataset → D; default: the baseline's S on each dataset.

    Returns
    -------
    DataFrame
        ``fraction``, ``dataset``, ``selector``, ``repeat`` (and ``fold`` where the rows have folds, −1 on
        rows without one), ``S``, ``D``, ``value``, ``status`` (``source`` kept where present).

    Raises
    ------
    ValueError
        A fraction outside (0, 1], or a dataset whose D is unknown (no baseline row, not in ``sizes``).
    """
    bad = [f for f in fractions if not 0 < f <= 1]
    if bad:
        raise ValueError(f"fractions must be in (0, 1], got {bad}")
    df = results.copy()
    df["dataset"] = df["dataset"].astype(str)
    df["selector"] = df["selector"].astype(str)
    if sizes is None:
        base = df[df["selector"] == baseline]
        d_of = {str(k): int(v) for k, v in base.groupby("dataset")["n_features"].max().items()}
    else:
        d_of = {str(k): int(v) for k, v in sizes.items()}
    unknown = sorted(set(df["dataset"]) - set(d_of))
    if unknown:
        raise ValueError(f"D unknown for {unknown}: no '{baseline}' row and not in sizes")
    df["D"] = df["dataset"].map(d_of).astype(int)
    df["S"] = df["n_features"].astype(int)
    split = ["repeat"]
    if "fold" in df.columns and df["fold"].notna().any():
        df["fold"] = pd.to_numeric(df["fold"], errors="coerce").fillna(-1).astype(int)
        split.append("fold")
    if "status" not in df.columns:
        df["status"] = "ok"
    keep = [c for c in ("source",) if c in df.columns]
    cols = ["fraction", *keep, "dataset", "selector", *split, "S", "D", "value", "status"]
    is_base = (df["selector"] == baseline).to_numpy()
    frames = []
    for f in fractions:
        target = np.array([fraction_size(f, d) for d in df["D"]])
        at = (df["S"].to_numpy() == target) & ~is_base
        frames.append(df[at | is_base].assign(fraction=float(f), value=lambda x: x[metric].astype(float)))
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def common_splits(
    table: pd.DataFrame,
    selectors: Sequence[str] | None = None,
    by: str | Sequence[str] = (),
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Restrict a long table to the (block, split) pairs that every compared selector finished.

    A selector *finished* a split when it has a row there with ``status == "ok"`` (when the table has a
    status column) and a finite value. A split missing for one selector is dropped for all of them in that
    block: the block means compared afterwards are then means over the same splits, so their difference is
    a paired difference (Demšar 2006, §3: the tests compare methods on the same data).

    Parameters
    ----------
    table : DataFrame
        A long table (module docstring).
    selectors : sequence of str, optional
        The selectors compared; default every selector of the table. Rows of other selectors are left out.
    by, block, split, selector, value, status
        Column names (one or several for ``by``, ``block``, ``split``).

    Returns
    -------
    kept : DataFrame
        The finished rows of the compared selectors on the common splits.
    report : DataFrame
        One row per (by, block): ``splits`` (splits in which any compared selector has a row),
        ``common`` (kept), ``dropped`` and ``incomplete`` (the selectors without a finished row in some
        dropped split, joined by ``", "``). A block with no common split has ``common == 0`` and no kept
        row.

    Raises
    ------
    ValueError
        Several rows for one (by, block, split, selector), or a selector asked for that has no row.
    """
    by, block, split = columns(by), columns(block), columns(split)
    names = table[selector].astype(str)
    chosen = sorted(names.unique()) if selectors is None else list(dict.fromkeys(map(str, selectors)))
    absent = sorted(set(chosen) - set(names))
    if absent:
        raise ValueError(f"selector(s) {absent} have no row")
    rows = table[names.isin(chosen)]
    key = [*by, *block, *split]
    if rows.duplicated([*key, selector]).any():
        raise ValueError(f"several rows for one ({', '.join([*key, selector])})")
    done = np.isfinite(pd.to_numeric(rows[value], errors="coerce").to_numpy(dtype=float))
    if status in rows.columns:
        done &= (rows[status] == "ok").to_numpy()
    ok = rows[done]
    # the splits where the number of finished compared selectors is all of them
    count = ok.groupby(key, sort=False, dropna=False)[selector].nunique().rename("_n").reset_index()
    full = count.loc[count["_n"] == len(chosen), key]
    kept = ok.merge(full, on=key, how="inner")
    group = [*by, *block]
    marked = rows[key].drop_duplicates().merge(full.assign(_full=True), on=key, how="left")
    marked["_full"] = marked["_full"].notna()
    report = (
        marked.groupby(group, sort=True, dropna=False)
        .agg(splits=("_full", "size"), common=("_full", "sum"))
        .astype(int)
        .reset_index()
    )
    report["dropped"] = report["splits"] - report["common"]
    # who is missing where: only the dropped splits are looked at (usually none)
    dropped = marked.loc[~marked["_full"], key]
    lacking: dict[tuple, set[str]] = {}
    if len(dropped):
        have = ok.merge(dropped, on=key, how="inner")
        finished = {k: set(map(str, v)) for k, v in have.groupby(key, sort=False, dropna=False)[selector]}
        for k in dropped.itertuples(index=False, name=None):
            lacking.setdefault(k[: len(group)], set()).update(set(chosen) - finished.get(k, set()))
    report["incomplete"] = [
        ", ".join(sorted(lacking.get(g, set()))) for g in report[group].itertuples(index=False, name=None)
    ]
    return kept.reset_index(drop=True), report


def block_means(
    table: pd.DataFrame,
    block: str | Sequence[str] = "dataset",
    selector: str = "selector",
    value: str = "value",
) -> pd.DataFrame:
    """Blocks × selectors: each selector's mean value over its rows in each block, at the metric's resolution.

    Call it on :func:`common_splits`' ``kept`` rows so that the means are over the same splits. Means equal
    up to rounding noise are made equal within each block (:func:`fsbench.results.ties.at_resolution`),
    the tie rule of every ranking in fsbench.

    Returns
    -------
    DataFrame
        Index: the block column(s); columns: the selectors, sorted; blocks without a value for every
        selector are left out.
    """
    block = columns(block)
    wide = table.pivot_table(index=block, columns=selector, values=value, aggfunc="mean", observed=True)
    wide = wide.reindex(columns=sorted(wide.columns, key=str)).dropna()
    wide.columns = [str(c) for c in wide.columns]
    wide.columns.name = None
    return pd.DataFrame(at_resolution(wide.to_numpy(dtype=float)), index=wide.index, columns=wide.columns)


def paired_values(
    table: pd.DataFrame,
    selectors: Sequence[str] | None = None,
    block: str | Sequence[str] = "dataset",
    split: str | Sequence[str] = "repeat",
    selector: str = "selector",
    value: str = "value",
    status: str = "status",
) -> pd.DataFrame:
    """Blocks × selectors means over the splits all of ``selectors`` finished (:func:`common_splits`, then
    :func:`block_means`): the paired values every test of the cross-dataset statistics compares."""
    kept, _ = common_splits(table, selectors, (), block, split, selector, value, status)
    return block_means(kept, block, selector, value)


def groups(table: pd.DataFrame, by: str | Sequence[str]) -> list[tuple[dict[str, object], pd.DataFrame]]:
    """The table split by the ``by`` columns, in sorted order: ({column: value}, rows); one group without."""
    by = columns(by)
    if not by:
        return [({}, table)]
    return [(dict(zip(by, k)), g) for k, g in table.groupby(by, sort=True)]
