"""Comparisons at fractions of D: one block per dataset at each fraction, and the best method per dataset.

A run whose S grid is given as fractions of D (``protocol.n_features: {fraction_of_D: [...]}``) evaluates
every dataset at its own S values; results pool across datasets at a *fraction*: the S that the fraction
of the dataset's D resolves to (:func:`fsbench.config.files.fraction_size`, the run's own rule). Here

* :func:`fraction_grid` reads the fractions from the runs' ``run.json``;
* :func:`compare_at_fractions` runs :func:`fsbench.results.compare.compare_selectors` with
  ``fraction=f`` for each fraction (Friedman / Nemenyi / Wilcoxon–Holm over the *datasets*);
* :func:`rank_table` lists, per fraction and selector, the average rank and whether it is significantly
  worse than the selector with the best average rank (Nemenyi, and Holm-corrected Wilcoxon);
* :func:`best_per_dataset` names the lowest-error selector of every dataset at every fraction and where
  the dataset's lowest error is reached; :func:`baseline_errors` gives the all-features SVM's error beside
  it, over the same splits;
* :func:`complete_selectors` names the selectors with results on every dataset (one failure would
  otherwise drop that dataset from every comparison);
* :func:`at_fractions` selects the rows of any tidy table with ``n_features`` and ``d`` columns (stability,
  ground truth) at the fractions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsbench.config.files import fraction_size
from fsbench.results.compare import Comparison, compare_selectors
from fsbench.results.loading import ResultSet
from fsbench.results.pairing import split_columns_of
from fsbench.results.stats_compare import CompareError, full_set_sizes
from fsbench.results.ties import at_resolution


@dataclass
class FractionComparison:
    """The comparison at one fraction of D, or why there is none."""

    fraction: float
    comparison: Comparison | None
    reason: str = ""  # the CompareError message where ``comparison`` is None


def _fractions_of(config: dict) -> list[float]:
    n = (config.get("protocol") or {}).get("n_features")
    return [float(f) for f in n.get("fraction_of_D", [])] if isinstance(n, dict) else []


def fraction_grid(sets: Iterable[ResultSet]) -> list[float]:
    """The fractions of D the runs asked for (``fraction_of_D`` of the effective config, top level and
    per dataset), ascending; empty when no run gives S as fractions."""
    found: set[float] = set()
    for rs in sets:
        cfg = (rs.run or {}).get("effective_config") or {}
        found.update(_fractions_of(cfg))
        entries = cfg.get("dataset")
        for entry in entries if isinstance(entries, list) else [entries]:
            if isinstance(entry, dict):
                found.update(_fractions_of(entry))
    return sorted(found)


def complete_selectors(sets: Sequence[ResultSet]) -> tuple[list[str], dict[str, list[str]]]:
    """Selectors with a finished task on every dataset, and the datasets each other selector lacks.

    A comparison pairs selectors on the blocks where *all* of them have results, so one selector that
    failed on one dataset would drop that dataset for every selector; comparing the complete ones and
    naming the others keeps every dataset. The all-features baseline is not a ranked selector: left out.

    Returns
    -------
    (complete, missing)
        Selector labels, sorted; selector → the (source/)datasets where it has no ``ok`` row.
    """
    rows = [
        rs.results.loc[rs.results["status"] == "ok", ["source", "dataset", "selector"]]
        for rs in sets
        if rs.results is not None
    ]
    baseline = set().union(*(rs.baseline_labels for rs in sets)) if sets else set()
    if not rows:
        return [], {}
    ok = pd.concat(rows, ignore_index=True).drop_duplicates()
    ok = ok[~ok["selector"].astype(str).isin(baseline)]
    everywhere = set(zip(ok["source"], ok["dataset"].astype(str)))
    complete, missing = [], {}
    for sel, g in ok.groupby("selector", sort=True):
        lacks = everywhere - set(zip(g["source"], g["dataset"].astype(str)))
        if lacks:
            missing[str(sel)] = sorted(ds for _, ds in lacks)
        else:
            complete.append(str(sel))
    return complete, missing


def dataset_sizes(sets: Sequence[ResultSet]) -> dict[tuple[str, str], int]:
    """D per (source, dataset): from the rankings' order length, else from the baseline's S."""
    return full_set_sizes(list(sets))


def compare_at_fractions(
    sets: list[ResultSet],
    fractions: Sequence[float] | None = None,
    metric: str = "error",
    alpha: float = 0.05,
    selectors: Sequence[str] | None = None,
) -> list[FractionComparison]:
    """:func:`fsbench.results.compare.compare_selectors` at each fraction of D (blocks = datasets).

    Parameters
    ----------
    sets : list of ResultSet
    fractions : sequence of float, optional
        Default: :func:`fraction_grid` of ``sets``.
    metric, alpha, selectors
        As for :func:`fsbench.results.compare.compare_selectors`.

    Returns
    -------
    list of FractionComparison
        One per fraction, in order; ``comparison`` None (with the reason) where it cannot be made (fewer
        than two datasets or selectors with results there).
    """
    out = []
    for f in fractions if fractions is not None else fraction_grid(sets):
        try:
            out.append(FractionComparison(f, compare_selectors(sets, metric, alpha, selectors, fraction=f)))
        except CompareError as exc:
            out.append(FractionComparison(f, None, str(exc)))
    return out


def _not_worse(comp: Comparison, column: str) -> dict[str, bool]:
    """Selector → not significantly worse than the one with the best average rank (post-hoc ``column``)."""
    best = comp.friedman.average_ranks.index[0]
    sig = {
        frozenset((a, b))
        for a, b, s in comp.posthoc[["a", "b", column]].itertuples(index=False)
        if s and best in (a, b)
    }
    return {s: frozenset((best, s)) not in sig for s in comp.friedman.average_ranks.index}


def rank_table(fcs: Sequence[FractionComparison]) -> pd.DataFrame:
    """Tidy table of every fraction's average ranks.

    Returns
    -------
    DataFrame
        ``fraction``, ``selector``, ``average_rank``, ``mean_<metric>`` (over the datasets), ``datasets``
        (N), ``cd`` (Nemenyi), ``p_ff`` (Iman–Davenport), ``best`` (the best average rank) and
        ``not_worse_nemenyi`` / ``not_worse_holm``: not significantly worse than the selector with the best
        average rank (Nemenyi; Holm-corrected Wilcoxon), that selector included.
    """
    rows = []
    for fc in fcs:
        c = fc.comparison
        if c is None:
            continue
        nem, hol = _not_worse(c, "nemenyi_significant"), _not_worse(c, "holm_significant")
        metric = c.blocks.metric
        for r in c.summary.itertuples(index=False):
            rows.append(
                {
                    "fraction": fc.fraction,
                    "selector": r.selector,
                    "average_rank": r.average_rank,
                    f"mean_{metric}": getattr(r, f"mean_{metric}"),
                    "datasets": c.friedman.n_blocks,
                    "cd": c.cd,
                    "p_ff": c.friedman.p_ff,
                    "best": r.selector == c.friedman.average_ranks.index[0],
                    "not_worse_nemenyi": nem[r.selector],
                    "not_worse_holm": hol[r.selector],
                }
            )
    return pd.DataFrame(rows)


def _label(block: tuple, names: Sequence[str]) -> dict[str, object]:
    return {k: v for k, v in zip(names, block) if k != "n_features"}


def best_per_dataset(fcs: Sequence[FractionComparison]) -> pd.DataFrame:
    """The selector(s) with the lowest mean metric on every dataset, at each fraction and overall.

    The rule: at a fraction, the lowest mean over the splits every compared selector finished (the
    comparison's paired block means, at the metric's resolution: equal means are all named); overall, the
    lowest of those over the fractions, at the smallest fraction that reaches it (fewest features).

    Returns
    -------
    DataFrame
        One row per (source, dataset, kernel, n_train) and fraction: ``S``, ``best`` (selector labels
        joined by ``, ``), ``best_<metric>``, ``n_selectors`` and ``overall`` (True on the row of the
        fraction where the dataset's lowest value is first reached).
    """
    rows = []
    for fc in fcs:
        c = fc.comparison
        if c is None:
            continue
        v = c.blocks.values
        names = list(v.index.names)
        for block, row in v.iterrows():
            vals = pd.Series(at_resolution(row.to_numpy(dtype=float)), index=row.index)
            low = float(vals.min())
            rows.append(
                {
                    **_label(block, names),
                    "fraction": fc.fraction,
                    "S": int(dict(zip(names, block))["n_features"]),
                    "best": ", ".join(sorted(vals.index[vals == low])),
                    f"best_{c.blocks.metric}": low,
                    "n_selectors": len(vals),
                }
            )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    metric_col = next(c for c in out.columns if c.startswith("best_"))
    keys = [c for c in ("source", "dataset", "kernel", "n_train") if c in out.columns]
    out = out.sort_values([*keys, "fraction"], kind="stable").reset_index(drop=True)
    resolved = at_resolution(out[metric_col].to_numpy(dtype=float))
    out["overall"] = False
    for _, g in out.groupby(keys, sort=False):
        r = resolved[g.index]
        out.loc[g.index[int(np.argmin(r))], "overall"] = True  # argmin: the first (smallest) fraction
    return out


def baseline_errors(
    sets: Sequence[ResultSet], fcs: Sequence[FractionComparison], metric: str = "error"
) -> dict[tuple[str, str], float]:
    """The all-features baseline's mean ``metric`` per (source, dataset), over the splits the comparisons
    averaged on that dataset (those every compared selector finished, at every fraction that compared it):
    the reference beside :func:`best_per_dataset`, on the same splits as the best selector's mean. A dataset
    no fraction compared keeps every split the baseline finished.

    Returns
    -------
    dict
        (source, dataset) → mean.
    """
    common: dict[tuple[str, str], set[tuple]] = {}
    for fc in fcs:
        sp = fc.comparison.blocks.splits if fc.comparison is not None else pd.DataFrame()
        if sp.empty:
            continue
        split = [c for c in ("repeat", "fold") if c in sp.columns]
        for (src, ds), g in sp.groupby(["source", "dataset"], sort=False):
            keys = set(g[split].itertuples(index=False, name=None))
            key = (str(src), str(ds))
            common[key] = common[key] & keys if key in common else keys
    out: dict[tuple[str, str], float] = {}
    for rs in sets:
        r = rs.results
        base = r[r["selector"].astype(str).isin(rs.baseline_labels) & (r["status"] == "ok")]
        base, split = split_columns_of(base)
        for ds, g in base.groupby("dataset"):
            keep = common.get((rs.source, str(ds)))
            if keep is not None:
                g = g[[k in keep for k in g[split].itertuples(index=False, name=None)]]
            out[(rs.source, str(ds))] = float(g[metric].mean())
    return out


def at_fractions(
    table: pd.DataFrame,
    fractions: Sequence[float],
    sizes: dict[tuple[str, str], int] | None = None,
) -> pd.DataFrame:
    """The rows of a tidy per-S table (``n_features`` = S) at each fraction of D, with a ``fraction`` column.

    Parameters
    ----------
    table : DataFrame
        Has ``dataset``, ``n_features`` and either ``d`` (D, as in the stability table) or ``source``
        (then D comes from ``sizes``).
    fractions : sequence of float
    sizes : dict, optional
        (source, dataset) → D (:func:`dataset_sizes`), used where ``table`` has no ``d`` column.

    Returns
    -------
    DataFrame
        The rows whose S is the fraction's S of their D, once per fraction (a row can serve several
        fractions on a small D).
    """
    if table.empty:
        return table.assign(fraction=pd.Series(dtype=float))
    if "d" in table.columns:
        d = table["d"].astype(int).to_numpy()
    else:
        lookup = sizes or {}
        d = np.array([lookup.get((str(s), str(ds)), -1) for s, ds in zip(table["source"], table["dataset"])])
    frames = []
    for f in fractions:
        target = np.array([fraction_size(f, int(x)) if x > 0 else -1 for x in d])
        frames.append(table[table["n_features"].to_numpy(dtype=int) == target].assign(fraction=f))
    return pd.concat(frames, ignore_index=True)
