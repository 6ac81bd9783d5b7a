"""The claim DSL: a paper's qualitative claims checked on our results.

A layer of the paper comparison of ``fsbench report --paper`` (render → claims → checks → cells →
sources → values). A claim of ``paper_values.yaml`` (``claims``; the paper-values format, in the FORMAT
header of the paper folders' ``paper_values.yaml``, documents every check ``kind`` and key) holds when all its
checks hold: :func:`evaluate_check` evaluates one check on our result rows (order relations between
selectors, levels, curve shapes; ratios, paired t-tests, rank shares and two experiments compared are in
:mod:`fsbench.papers.checks`) at the
points of its ``x`` (S, n, D, or categories such as datasets), :func:`evaluate_claim` combines them into
:data:`HOLDS`, :data:`FAILS`, :data:`NOT_EVALUABLE` (results missing) or :data:`NOT_CHECKABLE` (a claim
without checks). Which rows and which column a check reads is :mod:`fsbench.papers.sources`'s business;
a check inherits the source keys of its claim's table or figure (``experiment``, ``where``,
``method_column``, ``methods``) unless it sets them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from fsbench.papers.checks import (
    FAILS,
    HOLDS,
    NOT_CHECKABLE,
    NOT_EVALUABLE,
    CheckResult,
    _check_compare_experiments,
    _check_rank_share,
    _check_ratio,
    _check_significance,
    _combine,
    _ne,
    _not_run,
    _quantify,
    _x_label,
    paired_rows,
)
from fsbench.papers.sources import (
    Metric,
    experiments_of,
    is_numeric_x,
    method_frame,
    metric,
    name_methods,
    one_per_fit,
    select_rows,
    with_x,
)
from fsbench.results.schema import BASELINE

#: Keys of a claim's table or figure entry that its checks inherit (where our numbers come from).
SOURCE_KEYS = ("experiment", "where", "method_column", "methods")


def _vals(d: dict[str, float], met: Metric) -> str:
    return ", ".join(f"{k} {met.fmt(v)}" for k, v in d.items())


def _xs(xs: Iterable[Any]) -> str:
    return ", ".join(f"{x:g}" if isinstance(x, (int, float, np.number)) else str(x) for x in xs)


def evaluate_check(
    check: dict[str, Any],
    df: pd.DataFrame,
    experiment: Any = None,
    missing_reason: Callable[[str | None], str] | None = None,
    source: dict[str, Any] | None = None,
) -> CheckResult:
    """Evaluate one claim check of the paper-values FORMAT on our results.

    Parameters
    ----------
    check : dict
        The check (``kind``, ``selectors``, ``than``, ``x``, ``range``, ``aggregate``, ...).
    df : DataFrame
        Results (rows of results.csv and of diagnostics' tables, any experiments).
    experiment : str, list or dict, optional
        Default experiment(s) (the claim's figure's or table's), used when the check names none.
    missing_reason : callable, optional
        Experiment name → why it has no results (default ``"not run"``).
    source : dict, optional
        The claim's table or figure entry: its :data:`SOURCE_KEYS` are the check's defaults.

    Returns
    -------
    CheckResult

    Notes
    -----
    ``v`` at an x value is the mean over repeats of the check's metric (:func:`fsbench.papers.sources.
    metric`: error in % by default, ``fit_cpu_s`` with one value per fit, any result column), pooled
    over whatever else varies at that x (several datasets of one experiment). A numeric x (S, n, D) is
    restricted to ``range``; a categorical x (``dataset``, or a list of columns such as ``[dataset,
    n_features]``) has one point per category, and its ``range``, if any, bounds S. Only x values where
    every involved selector has results are used, and in every cell (experiment, dataset, kernel, n_train,
    S and x) only the splits that all involved selectors with results there finished
    (:func:`fsbench.papers.checks.paired_rows`): the means compared are paired. "Better" means lower, or
    higher for a metric where
    higher is better (accuracy).
    ``best`` / ``worst`` count ties as satisfied; ``trend`` and ``gain`` use the smallest and largest x
    run inside the range (printed in the detail). Significance checks with ``aggregate: mean`` average
    each repeat's metric over the range and test once per pair; a pair with fewer than two paired
    repeats is left undecided. A check whose experiment or selectors have no results is
    :data:`NOT_EVALUABLE`.
    """
    why = missing_reason or (lambda e: f"not run (no results for `{e}`)")
    kind = check.get("kind")
    have = set(df["experiment"].astype(str)) if len(df) else set()
    src = {k: v for k, v in (source or {}).items() if k in SOURCE_KEYS}
    if experiment is not None:
        src["experiment"] = experiment
    src.update(check)
    if kind in ("compare_experiments", "rank_share"):
        wanted = [str(e) for e in check.get("experiments") or []]
        sub = method_frame(df[df["experiment"].isin(wanted)]) if len(df) else df
        if kind == "compare_experiments":
            return _check_compare_experiments(check, sub, have, why)
        return _check_rank_share(check, sub, have, why)
    exps = experiments_of(src.get("experiment"))
    if not exps:
        return _ne("the check names no experiment")
    if (absent := _not_run(exps, have, why)) is not None:
        return absent
    met = metric(check.get("metric", "error"))
    x = check.get("x", "n_features")
    xl = _x_label(x)
    rows = select_rows(method_frame(df[df["experiment"].isin(exps)]), src, exps)
    if met.per_task:
        rows = one_per_fit(rows)
    rows = with_x(rows.assign(_v=met.values(rows)) if len(rows) else rows.assign(_v=np.nan), x)
    where_exp = f"`{exps[0]}`" if len(exps) == 1 else ", ".join(f"`{e}`" for e in exps)
    if is_numeric_x(x):
        lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
        rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi)]
        rng = f"{xl} ∈ [{lo:g}, {hi:g}]"
    else:
        rng = f"each {xl}"
        if "range" in check:  # a categorical x: the range bounds S
            lo, hi = (float(v) for v in check["range"])
            s_col = pd.to_numeric(rows["n_features"], errors="coerce")
            rows = rows[(s_col >= lo) & (s_col <= hi)]
            rng += f", S ∈ [{lo:g}, {hi:g}]"
    selectors = [str(s) for s in check.get("selectors") or []]
    than = [str(s) for s in check.get("than") or []]
    rows = name_methods(rows, [*selectors, *than, *(str(s) for s in check.get("among") or [])])
    present = sorted(set(rows["selector"]) - {BASELINE})
    among = [str(s) for s in check.get("among") or []] or present
    if kind in ("best", "worst"):
        involved = list(dict.fromkeys(selectors + among))
    else:
        involved = list(dict.fromkeys(selectors + than))
    missing = [s for s in involved if s not in set(rows["selector"])]
    if missing:
        return _ne(f"no results for {', '.join(missing)} in {where_exp} over {rng}")
    if not involved:
        return _ne("the check names no selectors")
    # compared on the splits every involved selector finished, cell by cell (fsbench.results.pairing)
    rows = paired_rows(rows[rows["selector"].isin(involved)], met)
    table = rows.groupby(["_x", "selector"])["_v"].mean().unstack()
    table = table.dropna(how="any")
    if table.empty:
        return _ne(f"no {xl} value ({rng}) where all of {', '.join(involved)} have results")
    if kind in ("significant", "not_significant", "not_significantly_worse"):
        out = _check_significance(check, rows, met, selectors, than, rng)
    elif kind == "ratio":
        out = _check_ratio(check, table, selectors, than, met, rng)
    else:
        out = _check_points(kind, check, table, selectors, than, among, involved, met, xl, rng)
    out.points = tuple(_xs([x_]) for x_ in table.index)  # where every involved selector has results
    return out


def _check_points(
    kind: str,
    check: dict[str, Any],
    table: pd.DataFrame,
    selectors: list[str],
    than: list[str],
    among: list[str],
    involved: list[str],
    met: Metric,
    xl: str,
    rng: str,
) -> CheckResult:
    """The order, level and curve checks on the table of means (x values × selectors)."""
    tol = float(check.get("tolerance", 0.0))
    value = check.get("value")
    aggregate = check.get("aggregate", "mean")
    quant = check.get("quantifier")
    sign = -1.0 if met.higher_is_better else 1.0  # compare sign · v: lower is better
    xs = list(table.index)
    if aggregate == "mean":
        points = {"mean": table.mean(axis=0).to_dict()}
        where = f"mean over {rng} ({len(xs)} value(s): {_xs(xs)})"
    else:
        points = {(f"{xl} = {x_:g}" if not isinstance(x_, str) else x_): table.loc[x_].to_dict() for x_ in xs}
        where = f"{aggregate} over {rng}"

    def per_point(pred: Callable[[dict[str, float]], bool]) -> bool:
        return _combine([pred(v) for v in points.values()], aggregate)

    def subject_result(pred_s: Callable[[str, dict[str, float]], bool], subjects: list[str]) -> bool:
        flags = {s: _combine([pred_s(s, v) for v in points.values()], aggregate) for s in subjects}
        return _quantify(flags, quant)

    def summary_vals(names: list[str]) -> str:
        if aggregate == "mean":
            return _vals({n: points["mean"][n] for n in names}, met)
        return "; ".join(f"{k}: {_vals({n: v[n] for n in names}, met)}" for k, v in points.items())

    def res(ok: bool, text: str, extra: str = "") -> CheckResult:
        return CheckResult(HOLDS if ok else FAILS, text + (f" — {extra}" if extra else ""))

    def counts(subjects: list[str], pred_s: Callable[[str, dict[str, float]], bool]) -> str:
        if aggregate == "mean":
            return ""
        parts = []
        for s in subjects:
            k = sum(pred_s(s, v) for v in points.values())
            parts.append(f"{s} at {k}/{len(points)}")
        return "satisfied: " + ", ".join(parts)

    if kind in ("better", "not_worse"):

        def pred_s(s: str, v: dict[str, float]) -> bool:
            if kind == "better":
                return all(sign * v[s] < sign * v[t] for t in than)
            return all(sign * v[s] <= sign * v[t] + tol for t in than)

        ok = subject_result(pred_s, selectors)
        lt, le = ("<", "≤") if sign > 0 else (">", "≥")
        op = lt if kind == "better" else f"{le} ({'+' if sign > 0 else '−'}{tol:g})"
        text = f"{summary_vals(selectors)} {op} {summary_vals(than)}" if aggregate == "mean" else ""
        text = text or f"{', '.join(selectors)} {op} {', '.join(than)}: {summary_vals(involved)}"
        return res(ok, f"{text} ({where})", counts(selectors, pred_s))
    if kind in ("best", "worst"):
        pool = among

        def pred_s(s: str, v: dict[str, float]) -> bool:
            others = [sign * v[t] for t in pool if t != s]
            if not others:
                return True
            return sign * v[s] <= min(others) if kind == "best" else sign * v[s] >= max(others)

        ok = subject_result(pred_s, selectors)
        word = (
            ("lowest" if kind == "best" else "highest")
            if sign > 0
            else ("highest" if kind == "best" else "lowest")
        )
        return res(
            ok,
            f"{', '.join(selectors)} {word} among {', '.join(pool)}: {summary_vals(pool)} ({where})",
            counts(selectors, pred_s),
        )
    if kind == "close":
        ok = per_point(lambda v: all(abs(v[a] - v[b]) <= tol for a, b in combinations(selectors, 2)))
        spread = {k: max(v[s] for s in selectors) - min(v[s] for s in selectors) for k, v in points.items()}
        sp = ", ".join(f"{k}: {met.fmt(d)}" for k, d in spread.items())
        return res(ok, f"spread of {', '.join(selectors)} {sp} vs tolerance {tol:g} ({where})")
    if kind in ("level", "above", "below"):
        if value is None:
            return _ne(f"malformed check: `{kind}` needs `value`")
        val = float(value)

        def pred_s(s: str, v: dict[str, float]) -> bool:
            if kind == "level":
                return abs(v[s] - val) <= tol
            return v[s] >= val if kind == "above" else v[s] <= val

        ok = subject_result(pred_s, selectors)
        ref = f"{val:g} ± {tol:g}" if kind == "level" else f"{'≥' if kind == 'above' else '≤'} {val:g}"
        return res(ok, f"{summary_vals(selectors)} vs {ref} ({where})", counts(selectors, pred_s))
    if kind == "difference":
        if value is None or not than:
            return _ne("malformed check: `difference` needs `value` and `than`")
        val = float(value)

        def diff_of(v: dict[str, float]) -> float:
            return v[than[0]] - min(v[s] for s in selectors)

        ok = per_point(lambda v: abs(diff_of(v) - val) <= tol)
        ds = ", ".join(f"{k}: {diff_of(v):+.2f}" for k, v in points.items())
        return res(
            ok,
            f"{than[0]} − min({', '.join(selectors)}) = {ds} vs {val:g} ± {tol:g} "
            f"[{summary_vals(involved)}] ({where})",
        )
    if kind == "min_level":
        if value is None:
            return _ne("malformed check: `min_level` needs `value`")
        val = float(value)
        stacked = table[selectors].stack()
        (x_min, s_min), m = stacked.idxmin(), float(stacked.min())
        ok = abs(m - val) <= tol
        return res(ok, f"minimum {met.fmt(m)} ({s_min} at {xl} = {x_min:g}) vs {val:g} ± {tol:g} over {rng}")
    if kind in ("trend", "flat", "gain", "slope"):
        return _check_curve(kind, check, table, selectors, met, xl, rng, tol, value, quant)
    return _ne(f"unknown check kind {kind!r}")


def _check_curve(
    kind: str,
    check: dict[str, Any],
    table: pd.DataFrame,
    selectors: list[str],
    met: Metric,
    xl: str,
    rng: str,
    tol: float,
    value: Any,
    quant: str | None,
) -> CheckResult:
    xs = list(table.index)
    lo_x, hi_x = xs[0], xs[-1]
    flags: dict[str, bool] = {}
    parts = []
    if kind in ("gain", "slope") and value is None:
        return _ne(f"malformed check: `{kind}` needs `value`")
    for s in selectors:
        y = table[s]
        if kind == "trend":
            direction = check.get("direction", "increasing")
            d = float(y.loc[hi_x] - y.loc[lo_x])
            flags[s] = d > tol if direction == "increasing" else d < -tol
            parts.append(f"{s} {d:+.2f}")
        elif kind == "flat":
            d = float(y.max() - y.min())
            flags[s] = d <= tol
            parts.append(f"{s} {d:.2f}")
        elif kind == "gain":
            d = float(y.loc[hi_x] - y.min())
            flags[s] = abs(d - float(value)) <= tol
            parts.append(f"{s} {d:.2f} (min at {xl} = {y.idxmin():g})")
        else:
            xx, yy = np.asarray(xs, float), y.to_numpy(float)
            keep = (xx > 0) & (yy > 0)
            if keep.sum() < 2:
                return _ne(f"slope of {s}: fewer than two positive points over {rng}")
            b = float(np.polyfit(np.log(xx[keep]), np.log(yy[keep]), 1)[0])
            flags[s] = abs(b - float(value)) <= tol
            parts.append(f"{s} {b:.2f}")
    ok = _quantify(flags, quant)
    q = " (more than half must)" if quant == "most" else ""
    if kind == "trend":
        head = (
            f"err({xl} = {hi_x:g}) − err({xl} = {lo_x:g}): {', '.join(parts)}; "
            f"{check.get('direction', 'increasing')} needs "
            f"{'>' if check.get('direction', 'increasing') == 'increasing' else '<'} "
            f"{'' if check.get('direction', 'increasing') == 'increasing' else '−'}{tol:g}{q}"
        )
    elif kind == "flat":
        head = f"max − min over {rng}: {', '.join(parts)} vs ≤ {tol:g}{q}"
    elif kind == "gain":
        head = f"err({xl} = {hi_x:g}) − min over {rng}: {', '.join(parts)} vs {float(value):g} ± {tol:g}{q}"
    else:
        head = f"log-log slope over {xl} = {_xs(xs)}: {', '.join(parts)} vs {float(value):g} ± {tol:g}{q}"
    if kind != "slope":
        head += f" [{met.name if met.unit != '%' else f'{met.name} %'}]"
    return CheckResult(HOLDS if ok else FAILS, head)


def evaluate_claim(
    claim: dict[str, Any],
    df: pd.DataFrame,
    experiment: Any = None,
    missing_reason: Callable[[str | None], str] | None = None,
    source: dict[str, Any] | None = None,
) -> tuple[str, list[CheckResult]]:
    """Evaluate every check of a claim; all must hold for the claim to hold (``experiment`` and
    ``source``: the defaults of :func:`evaluate_check`).

    Returns
    -------
    status : str
        :data:`HOLDS`, :data:`FAILS` (some check does not hold), :data:`NOT_EVALUABLE` (none fails
        but some cannot be evaluated) or :data:`NOT_CHECKABLE` (no checks).
    results : list of CheckResult
    """
    checks = claim.get("checks") or []
    if not checks:
        return NOT_CHECKABLE, []
    results = [evaluate_check(c, df, experiment, missing_reason, source) for c in checks]
    statuses = {r.status for r in results}
    if FAILS in statuses:
        return FAILS, results
    if NOT_EVALUABLE in statuses:
        return NOT_EVALUABLE, results
    return HOLDS, results
