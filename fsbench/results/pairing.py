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

The same rule serves the per-experiment comparisons (the report's mean ± std tables with their bold marks
and paired t-tests, the ranks over all cells, the paper claims, the console summary of ``fsbench run``):
:func:`paired_cells` applies :func:`common_splits` to ``results.csv`` rows with one block per comparison
*cell* (:data:`CELL`: every selector at one S of one setting), each cell comparing the selectors that
finished at least one split there, and says for every cell how many splits the protocol had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from fsbench.config.files import fraction_size
from fsbench.results.schema import BASELINE
from fsbench.results.ties import at_resolution

#: The columns of one comparison cell of an experiment's rows: every selector at one S (``n_features``) of
#: one setting (experiment, dataset, kernel, n_train). A table cell, a bold mark, a t-test and a rank
#: compare the selectors of one cell.
CELL = ("experiment", "dataset", "kernel", "n_train", "n_features")


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
    rule, :func:`fsbench.config.files.fraction_size`); the all-features baseline (S = D) is repeated at
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
    per_block: bool = False,
    one_row: bool = True,
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
    per_block : bool
        Compare, in each (by, block), the selectors (of ``selectors``) that finished at least one split
        there, instead of all of them everywhere: a selector without any finished row in a block (absent
        from it, or failed in every split) is left out of that block's comparison rather than emptying it.
        The per-experiment tables compare so (:func:`paired_cells`), since a cell compares the selectors it
        shows.
    one_row : bool
        Require one row per (by, block, split, selector) (the default). ``False`` keeps several (e.g. a
        diagnostic's rows at settings the block does not name): a split is then finished by a selector
        with at least one finished row there, and every row of the common splits is kept.

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
        Several finished rows for one (by, block, split, selector) (unless ``one_row`` is false), or a
        selector asked for that has no row.
    """
    by, block, split = columns(by), columns(block), columns(split)
    names = table[selector].astype(str)
    chosen = sorted(names.unique()) if selectors is None else list(dict.fromkeys(map(str, selectors)))
    absent = sorted(set(chosen) - set(names))
    if absent:
        raise ValueError(f"selector(s) {absent} have no row")
    rows = table[names.isin(chosen)]
    key = [*by, *block, *split]
    done = np.isfinite(pd.to_numeric(rows[value], errors="coerce").to_numpy(dtype=float))
    if status in rows.columns:
        done &= (rows[status] == "ok").to_numpy()
    ok = rows[done]
    # (a failed row beside a finished one of the same split is not a second value: only finished rows count)
    if one_row and ok.duplicated([*key, selector]).any():
        raise ValueError(f"several rows for one ({', '.join([*key, selector])})")
    group = [*by, *block]
    # the splits where the number of finished compared selectors is all of them (of the block's, per_block)
    count = ok.groupby(key, sort=False, dropna=False)[selector].nunique().rename("_n").reset_index()
    if per_block:
        need = ok.groupby(group, sort=False, dropna=False)[selector].nunique().rename("_k").reset_index()
        count = count.merge(need, on=group, how="left")
        full = count.loc[count["_n"] == count["_k"], key]
        compared = {
            k if isinstance(k, tuple) else (k,): set(map(str, v))
            for k, v in ok.groupby(group, sort=False, dropna=False)[selector].unique().items()
        }
    else:
        full = count.loc[count["_n"] == len(chosen), key]
        compared = {}
    kept = ok.merge(full, on=key, how="inner")
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
            own = compared.get(k[: len(group)], set(chosen)) if per_block else set(chosen)
            lacking.setdefault(k[: len(group)], set()).update(own - finished.get(k, set()))
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


def split_columns_of(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The rows with their split as keys: ``repeat``, and ``fold`` where the table has the column (k-fold;
    −1 on rows without a fold, a holdout split: a key that is NaN would not pair)."""
    if "fold" in rows.columns:
        fold = pd.to_numeric(rows["fold"], errors="coerce").fillna(-1).astype(int)
        return rows.assign(fold=fold), ["repeat", "fold"]
    return rows, ["repeat"]


def paired_cells(
    rows: pd.DataFrame,
    value: str = "error",
    cell: Sequence[str] = CELL,
    setting: Sequence[str] | None = None,
    selectors: Sequence[str] | None = None,
    one_row: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Result rows restricted, cell by cell, to the splits every selector compared in the cell finished.

    The per-experiment form of :func:`common_splits` (one block per :data:`CELL`, ``per_block``): in each
    cell the selectors compared are those of ``selectors`` (default: all) that finished at least one split
    there, and only the splits all of them finished are kept. Means, bold marks, t-tests and ranks computed
    from the kept rows then compare every selector on the same splits. A selector that failed in every
    split of a cell is not compared there.

    Parameters
    ----------
    rows : DataFrame
        Rows of ``results.csv`` (``selector``, ``repeat``, optionally ``fold`` and ``status``, the ``cell``
        columns present, ``value``); failed rows included, so that the protocol's splits can be counted.
    value : str
        The compared column; a row without a finite value has not finished.
    cell : sequence of str
        The columns of a cell; those absent from ``rows`` are ignored (a diagnostic's table).
    setting : sequence of str, optional
        The columns within which the protocol's splits are counted (default: ``cell`` without
        ``n_features``: every S of a setting has the same splits).
    selectors : sequence of str, optional
        The selectors compared; default every selector of ``rows``. Others are left out.
    one_row : bool
        As for :func:`common_splits`.

    Returns
    -------
    kept : DataFrame
        The finished rows on their cell's common splits (``fold`` −1 where a row has none).
    report : DataFrame
        One row per cell: ``splits`` (the protocol's: the splits of the cell's setting in which any
        selector has a row, finished or failed), ``common`` (the splits kept), ``selectors`` (how many
        are compared) and ``incomplete`` (the compared selectors lacking a finished row in some split
        of the setting, joined by ``", "``).
    """
    cell = [c for c in cell if c in rows.columns]
    setting = [c for c in (setting if setting is not None else cell) if c in cell and c != "n_features"]
    rows, split = split_columns_of(rows)
    names = rows["selector"].astype(str)
    chosen = sorted(names.unique()) if selectors is None else [s for s in map(str, selectors)]
    rows = rows.assign(selector=names)[names.isin(chosen)]
    cols = [*cell, "splits", "common", "selectors", "incomplete"]
    if rows.empty:
        return rows.copy(), pd.DataFrame(columns=cols)
    present = sorted(set(rows["selector"]))
    kept, report = common_splits(
        rows, present, (), cell, split, "selector", value, "status", per_block=True, one_row=one_row
    )
    # the protocol's splits: of the setting, over every selector and status (a failed task has a row)
    protocol = rows[[*setting, *split]].drop_duplicates()
    n_protocol = (
        protocol.groupby(setting, sort=False, dropna=False).size().rename("_p").reset_index()
        if setting
        else pd.DataFrame({"_p": [len(protocol)]})
    )
    report = report.merge(n_protocol, on=setting, how="left") if setting else report.assign(_p=len(protocol))
    n_sel = kept.groupby(cell, sort=False, dropna=False)["selector"].nunique().rename("selectors")
    report = report.merge(n_sel.reset_index(), on=cell, how="left")
    report["selectors"] = report["selectors"].fillna(0).astype(int)
    # who is short of the protocol: a compared selector without a finished row in some split of the setting
    finished = np.isfinite(pd.to_numeric(rows[value], errors="coerce").to_numpy(dtype=float))
    if "status" in rows.columns:
        finished &= (rows["status"] == "ok").to_numpy()
    fin = rows.loc[finished, [*cell, "selector", *split]].drop_duplicates()
    have = fin.groupby([*cell, "selector"], sort=False, dropna=False).size().rename("_have").reset_index()
    have = have.merge(report[[*cell, "_p"]], on=cell, how="left")
    short = have[have["_have"] < have["_p"]]
    lacking = {
        k if isinstance(k, tuple) else (k,): ", ".join(sorted(map(str, g["selector"])))
        for k, g in short.groupby(cell, sort=False, dropna=False)
    }
    report["incomplete"] = [lacking.get(k, "") for k in report[cell].itertuples(index=False, name=None)]
    report = report.rename(columns={"splits": "_any"}).rename(columns={"_p": "splits"})
    return kept.reset_index(drop=True), report[cols]


def groups(table: pd.DataFrame, by: str | Sequence[str]) -> list[tuple[dict[str, object], pd.DataFrame]]:
    """The table split by the ``by`` columns, in sorted order: ({column: value}, rows); one group without."""
    by = columns(by)
    if not by:
        return [({}, table)]
    return [(dict(zip(by, k)), g) for k, g in table.groupby(by, sort=True)]
