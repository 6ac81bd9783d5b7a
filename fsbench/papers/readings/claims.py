"""Claims under the readings: every claim of a paper re-evaluated by its own checks with a reading's rows
in place of the default's, shown beside the default verdict (never in its place); computed here into
:class:`~fsbench.papers.comparison.ClaimUnderReading` objects, rendered by :mod:`fsbench.papers.render`.

**Which readings.** A claim is re-evaluated under every reading whose results are present and that changes
rows the claim reads: a reading of the claim's table or figure, or a reading whose default experiment is the
experiment of the claim's table or figure (two figures drawn from one run share their readings), unless the
reading names methods (``methods:``) and none of them is named by the claim's checks.

**How.** The same claim, the same checks, the same code (:func:`fsbench.papers.claims.evaluate_claim`), on
the result rows with the reading's rows in place of the default's:

* the reading's rows are those of its experiment (of the default's own runs when it names none),
  restricted to its ``methods`` (renamed to the paper's method ids), its ``datasets`` (renamed to the
  default's) and its ``applies_to`` fields; they take the default experiment's name;
* the default's rows they replace are dropped: every row of the default experiment(s) of the reading's
  methods (of every method when it names none), in the scope the reading declares (its ``datasets`` and
  ``applies_to`` fields; everything when it declares none): a dataset or method the reading should cover
  but has no rows for is then missing, and the check compares fewer points;
* the reading's ``table_set`` replaces the source keys of the claim's table (``where``, ``method_column``,
  ``methods``), and its ``column`` replaces the metric of a check that reads the table's ``column``.

A verdict under a reading is **comparable** when every check compared the same points (datasets, S, n:
:attr:`fsbench.papers.checks.CheckResult.points`) as under the default; otherwise it is reported with the
points the reading covers and not set beside the default's. A reading that moves cells to other settings
(``set:``) is not re-evaluated (a claim reads rows, not cells): the report says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from fsbench.papers.checks import NOT_EVALUABLE, CheckResult
from fsbench.papers.claims import SOURCE_KEYS, evaluate_claim
from fsbench.papers.comparison import CheckOutcome, ClaimUnderReading
from fsbench.papers.readings.declared import Reading
from fsbench.papers.sources import experiments_of, select_rows
from fsbench.papers.values import dataset_entries


def claim_refs(claim: Mapping[str, Any]) -> list[str]:
    """The ids of the figures or tables a claim is about (its ``figure`` or ``table`` entry)."""
    return [str(r) for r in dataset_entries(claim.get("figure") or claim.get("table"))]


def claim_methods(claim: Mapping[str, Any]) -> set[str]:
    """Every method a claim's checks name (``selectors``, ``than``, ``among``)."""
    out: set[str] = set()
    for chk in claim.get("checks") or []:
        for key in ("selectors", "than", "among"):
            out |= {str(m) for m in chk.get(key) or []}
    return out


def _item(values: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    items = [*values.get("figures", []), *values.get("tables", [])]
    return next((x for x in items if str(x.get("id")) == ref), {})


def _default_spec(values: Mapping[str, Any], r: Reading) -> Any:
    """The reading's default experiment entry: its ``default`` or its table's / figure's ``experiment``."""
    return r.default or _item(values, r.where).get("experiment")


def touches(values: Mapping[str, Any], r: Reading, claim: Mapping[str, Any]) -> bool:
    """Whether a reading changes rows the claim reads (the rule in the module docstring).

    Parameters
    ----------
    values : mapping
        The paper's values (``figures``, ``tables``).
    r : Reading
    claim : mapping
        A ``claims:`` entry.

    Returns
    -------
    bool
    """
    refs = claim_refs(claim)
    if not refs:
        return False
    claim_exps = set(experiments_of(_item(values, refs[0]).get("experiment")))
    same_run = bool(set(experiments_of(_default_spec(values, r))) & claim_exps)
    if r.where not in refs and not same_run:
        return False
    return not r.methods or bool(set(map(str, r.methods)) & claim_methods(claim))


def _names(rows: pd.DataFrame, entry: Mapping[str, Any]) -> pd.Series:
    """The method each row is to a claim reading ``entry`` (its ``method_column`` and ``methods``)."""
    spec = {k: entry[k] for k in ("method_column", "methods") if entry.get(k)}
    named = select_rows(rows, spec, set(rows["experiment"].astype(str)), ok_only=False)
    return named["selector"].astype(str).reindex(rows.index)


def substituted_rows(
    values: Mapping[str, Any], r: Reading, entry: Mapping[str, Any], df: pd.DataFrame
) -> pd.DataFrame | str:
    """The result rows with the reading's rows in place of the default's (the rule in the module docstring).

    Parameters
    ----------
    values : mapping
        The paper's values.
    r : Reading
    entry : mapping
        The claim's table or figure entry (its ``method_column`` and ``methods`` name the default's rows).
    df : DataFrame
        Every result row, ``selector`` mapped to method names (:func:`fsbench.papers.sources.method_frame`,
        the config label kept in ``label``).

    Returns
    -------
    DataFrame or str
        The rows (``df`` itself for a reading that only replaces source keys, ``table_set``), or why the
        reading cannot be re-evaluated on rows.
    """
    df = df.reset_index(drop=True)
    if r.set:
        keys = ", ".join(map(str, r.set))
        return f"the reading moves cells to other settings (set: {keys}); a claim reads rows, not cells"
    spec = _default_spec(values, r) or entry.get("experiment")
    by_dataset = {str(k): str(v) for k, v in spec.items()} if isinstance(spec, Mapping) else None
    defaults = experiments_of(spec)
    if not defaults:
        return "no default experiment is named"
    same_runs = r.experiment is None or r.experiment in defaults
    if same_runs and not r.methods and not r.datasets and not r.applies_to:
        return df
    src = df[df["experiment"].isin([r.experiment] if r.experiment else defaults)]
    if r.datasets:
        inverse = {str(v): str(k) for k, v in r.datasets.items()}
        src = src[src["dataset"].astype(str).isin(inverse)]
    mcol = entry.get("method_column")
    new = src.copy()
    replaced: set[str] | None = None
    if r.methods:
        inverse_m = {str(lab): str(m) for m, lab in r.methods.items()}
        label = new["label"].astype(str) if "label" in new.columns else new["selector"].astype(str)
        sel = new[mcol].astype(str) if mcol and mcol in new.columns else new["selector"].astype(str)
        name = [inverse_m.get(a, inverse_m.get(b)) for a, b in zip(label, sel)]
        new = new.assign(_m=name)
        new = new[new["_m"].notna()]
        replaced = set(r.methods)
    else:
        new = new.assign(_m=_names(new, entry) if len(new) else pd.Series(dtype=str))
    for key, allowed in r.applies_to.items():
        allowed = {str(a) for a in (allowed if isinstance(allowed, list) else [allowed])}
        if key == "method":
            new = new[new["_m"].isin(allowed)]
            replaced = allowed if replaced is None else replaced & allowed
        elif key in new.columns:
            new = new[new[key].astype(str).isin(allowed)]
        else:
            return f"its applies_to field `{key}` is not a column of the result rows"
    if r.datasets:
        new = new.assign(dataset=new["dataset"].astype(str).map(inverse))
    if by_dataset is not None:
        new = new.assign(experiment=new["dataset"].astype(str).map(by_dataset))
        new = new[new["experiment"].notna()]
    else:
        new = new.assign(experiment=defaults[0])
    if r.methods or replaced is not None:  # the paper's ids, as the claim's source names the default's rows
        new = new.assign(selector=new["_m"], label=new["_m"])
        if mcol and mcol in new.columns:
            new[mcol] = new["_m"]
    # the default's rows the reading replaces: its datasets (all unless it declares some: `datasets`,
    # `applies_to: {dataset: ...}`) of the default experiment(s), its methods (all if it names none)
    base = df[df["experiment"].isin(defaults)]
    drop = pd.Series(True, index=base.index)
    if r.datasets:
        drop &= base["dataset"].astype(str).isin({str(k) for k in r.datasets})
    for key, allowed in r.applies_to.items():  # every key is a column here (checked above) but `method`
        if key != "method" and key in base.columns:
            drop &= (
                base[key]
                .astype(str)
                .isin({str(a) for a in (allowed if isinstance(allowed, list) else [allowed])})
            )
    if replaced is not None and len(base):
        drop &= _names(base, entry).isin(replaced)
    gone = set(base.index[drop])
    if same_runs:
        gone |= set(new.index)  # the reading's own rows, now renamed, are not also read as they were
    kept = df.drop(index=list(gone))
    return pd.concat([kept, new.drop(columns="_m")], ignore_index=True)


def _source(entry: Mapping[str, Any], r: Reading) -> dict[str, Any]:
    """The claim's source keys under the reading: the entry's, with the reading's ``table_set`` keys."""
    src = {k: v for k, v in entry.items() if k in SOURCE_KEYS}
    src.update({k: v for k, v in r.table_set.items() if k in SOURCE_KEYS})
    return src


def _claim_as_read(claim: Mapping[str, Any], entry: Mapping[str, Any], r: Reading) -> dict[str, Any]:
    """The claim with a check's metric that reads the table's ``column`` replaced by the reading's."""
    column, new = entry.get("column"), r.table_set.get("column")
    if not column or not new or new == column:
        return dict(claim)
    checks = [
        {**c, "metric": new} if str(c.get("metric")) == str(column) else dict(c)
        for c in claim.get("checks") or []
    ]
    return {**claim, "checks": checks}


def _coverage(default: list[CheckResult], under: list[CheckResult]) -> tuple[bool, str]:
    """Whether each check compared the same points under the reading as under the default, and if not,
    which points the reading covers."""
    parts = []
    for i, (a, b) in enumerate(zip(default, under), start=1):
        if set(a.points) == set(b.points):
            continue
        have = len(set(a.points) & set(b.points))
        extra = len(set(b.points) - set(a.points))
        part = f"check {i}: {have} of the default's {len(set(a.points))} points"
        if extra:
            part += f" (and {extra} the default does not compare)"
        parts.append(part)
    return not parts, "; ".join(parts)


def claim_under_reading(
    values: Mapping[str, Any],
    r: Reading,
    claim: Mapping[str, Any],
    entry: Mapping[str, Any],
    df: pd.DataFrame,
    default: list[CheckResult],
    missing_reason: Callable[[str | None], str] | None = None,
) -> ClaimUnderReading:
    """One claim re-evaluated under one reading (rules: the module docstring).

    Parameters
    ----------
    values : mapping
        The paper's values.
    r : Reading
    claim : mapping
        The ``claims:`` entry.
    entry : mapping
        The claim's table or figure entry (its first, for a claim about several).
    df : DataFrame
        Every result row, ``selector`` mapped to method names (:func:`fsbench.papers.sources.method_frame`).
    default : list of CheckResult
        The claim's checks evaluated on the default (their points are compared).
    missing_reason : callable, optional
        Experiment name → why it has no results.

    Returns
    -------
    ClaimUnderReading
    """
    rows = substituted_rows(values, r, entry, df)
    if isinstance(rows, str):
        return ClaimUnderReading(r.id, r.label, NOT_EVALUABLE, [], False, f"not re-evaluated: {rows}")
    cl = _claim_as_read(claim, entry, r)
    status, results = evaluate_claim(cl, rows, entry.get("experiment"), missing_reason, _source(entry, r))
    checks = [
        CheckOutcome(str(c.get("kind")), x.status, x.detail) for c, x in zip(cl.get("checks") or [], results)
    ]
    same, note = _coverage(default, results)
    return ClaimUnderReading(r.id, r.label, status, checks, same, note)


def ran(values: Mapping[str, Any], r: Reading, experiments: set[str]) -> bool:
    """Whether a reading's results are among ``experiments`` (its own experiment, or the default's runs)."""
    if r.experiment:
        return r.experiment in experiments
    return all(e in experiments for e in experiments_of(_default_spec(values, r)))
