"""Check outcomes and the statistical and cross-experiment check kinds of the claim DSL.

Part of the claim layer of the paper comparison (render → claims → checks → cells → sources → values):
:class:`CheckResult` and the statuses; the checks that run tests or compare several experiments —
``significant`` / ``not_significant`` / ``not_significantly_worse`` (paired t-tests,
:func:`fsbench.results.stats.paired_ttests`), ``ratio`` (geometric mean of a ratio, e.g. a speed-up),
``compare_experiments`` and ``rank_share``. :mod:`fsbench.papers.claims` dispatches to them; the order,
level and curve checks are there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from fsbench.papers.cells import CPU_FACTOR, format_p
from fsbench.papers.sources import (
    Metric,
    d_of,
    is_numeric_x,
    metric,
    one_per_fit,
    select_rows,
    with_x,
    x_columns,
)
from fsbench.results.pairing import paired_cells
from fsbench.results.schema import BASELINE
from fsbench.results.stats import CELL, paired_ttests, rank_shares

HOLDS, FAILS, NOT_EVALUABLE = "holds", "does not hold", "not evaluable"
NOT_CHECKABLE = "not machine-checkable"
_X_LABEL = {"n_features": "S", "n_train": "n", "D": "D"}


@dataclass
class CheckResult:
    """Outcome of one check: ``status`` (holds / does not hold / not evaluable) and the numbers.

    ``points`` are the x points the check compared (datasets, S, n, as text; empty for a check not
    evaluated at x points, e.g. ``rank_share``): a claim re-evaluated under a reading is set beside the
    default's only where each check compared the same points (:mod:`fsbench.papers.readings.claims`).
    """

    status: str
    detail: str
    points: tuple[str, ...] = ()


def _ne(msg: str) -> CheckResult:
    return CheckResult(NOT_EVALUABLE, msg)


def _not_run(exps: list[str], have: set[str], why: Callable[[str | None], str]) -> CheckResult | None:
    """Not evaluable, with each absent experiment's reason, where an experiment of ``exps`` is not in
    ``have``; ``None`` where all are."""
    absent = [e for e in exps if e not in have]
    return _ne("; ".join(f"`{e}`: {why(e)}" for e in absent)) if absent else None


def _combine(flags: list[bool], aggregate: str) -> bool:
    if aggregate == "majority":
        return sum(flags) > len(flags) / 2
    if aggregate == "any":
        return any(flags)
    if aggregate == "almost_all":
        return sum(flags) >= len(flags) - 1
    return all(flags)


def _quantify(flags: dict[str, bool], quantifier: str | None) -> bool:
    if quantifier == "most":
        return sum(flags.values()) > len(flags) / 2
    return all(flags.values())


def _x_label(x: Any) -> str:
    cols = x_columns(x)
    return " × ".join(_X_LABEL.get(c, c) for c in cols)


def paired_rows(rows: pd.DataFrame, met: Metric) -> pd.DataFrame:
    """A check's rows (``_v`` = the metric, ``_x`` = the abscissa) on the splits that every selector among
    them finished, cell by cell (:func:`fsbench.results.pairing.paired_cells`; a cell = the columns of
    :data:`fsbench.results.stats.CELL` the rows have, and ``_x``). A per-fit metric (CPU time: one row per
    fit, :func:`fsbench.papers.sources.one_per_fit`) pairs without S, since a ranker's fit serves every S."""
    if rows.empty or "repeat" not in rows.columns:
        return rows
    cell = [c for c in CELL if c in rows.columns and not (met.per_task and c == "n_features")]
    kept, _ = paired_cells(rows, "_v", cell=[*cell, "_x"], setting=(), one_row=False)
    return kept


def _check_significance(
    check: dict[str, Any],
    rows: pd.DataFrame,
    met: Metric,
    selectors: list[str],
    than: list[str],
    rng: str,
) -> CheckResult:
    """Paired t-tests (``significant``, ``not_significant``, ``not_significantly_worse``) on the rows of
    the check (already restricted to its range), one per pair of methods at each x point or over the
    pooled range (``aggregate: mean``)."""
    kind = check["kind"]
    x = check.get("x", "n_features")
    cols = x_columns(x)
    # the raw column (its own scale: p-values do not depend on it); an indicator metric has only _v
    value = "_v" if met.equals is not None else met.column
    raw_sign = (1.0 if met.scale >= 0 else -1.0) * (-1.0 if met.higher_is_better else 1.0)
    aggregate = check.get("aggregate", "mean")
    pairs = [(s, t) for s in selectors for t in than] if than else list(combinations(selectors, 2))
    involved = list(dict.fromkeys(selectors + than))
    d = rows[rows["selector"].isin(involved)]
    xl = _x_label(x)
    if aggregate == "mean":
        # average each repeat over the range, then one paired test per pair
        pooled = ["dataset" if c == "D" else c for c in cols]
        key = [c for c in CELL if c not in pooled]
        d = d.groupby([*key, "repeat", "selector"], sort=False)[value].mean().reset_index()
        for c in pooled:
            d[c] = "pooled"
        d["status"] = "ok"
        tests = paired_ttests(d, value=value)
        tests["_x"] = 0.0
    else:
        tests = paired_ttests(d.drop(columns="_x"), value=value)
        if tests.empty:
            return _ne(f"no paired results over {rng}")
        if is_numeric_x(x):
            tests["_x"] = tests["dataset"].map(d_of) if cols[0] == "D" else tests[cols[0]].astype(float)
        else:
            tests["_x"] = with_x(tests, x)["_x"]
    if tests.empty:
        return _ne(f"no paired results over {rng}")
    flags: list[bool] = []
    lines = []
    for x_, tx in tests.groupby("_x"):
        ok_pairs, bad, undecided = 0, [], 0
        for a, b in pairs:
            m = tx[((tx.a == a) & (tx.b == b)) | ((tx.a == b) & (tx.b == a))]
            if m.empty or not (m["p"] == m["p"]).all():
                undecided += 1
                continue
            if kind == "not_significantly_worse":
                # a − b in the raw column, oriented so that > 0 means a is worse
                worse = (m["mean_diff"] * np.where(m["a"] == a, 1.0, -1.0) * raw_sign) > 0
                good = not bool((m["significant"] & worse).any())
                pv = float(m["p"].min())
            else:
                want = kind == "significant"
                good = bool(m["significant"].all()) == want
                pv = float(m["p"].max() if want else m["p"].min())
            if good:
                ok_pairs += 1
            else:
                bad.append(f"{a}–{b} p {'' if pv < 0.001 else '= '}{format_p(pv)}")
        if undecided == len(pairs):
            continue
        flags.append(not bad and undecided == 0)
        where = (
            "mean over range" if aggregate == "mean" else (x_ if isinstance(x_, str) else f"{xl} = {x_:g}")
        )
        word = {"significant": "significant", "not_significant": "not significant"}.get(
            kind, "not significantly worse"
        )
        lines.append(
            f"{where}: {ok_pairs}/{len(pairs)} pairs {word}"
            + (f" (not: {'; '.join(bad)})" if bad else "")  # every failing pair: nothing elided
        )
    if not flags:
        return _ne(f"no testable pair over {rng} (fewer than 2 paired repeats)")
    ok = _combine(flags, aggregate if aggregate != "mean" else "each")
    head = f"paired t-tests (5 %) over {rng}, {aggregate}: holds at {sum(flags)}/{len(flags)}"
    # every x point, none elided: the report shows the evidence whole
    return CheckResult(HOLDS if ok else FAILS, f"{head} — {'; '.join(lines)}")


def _check_ratio(
    check: dict[str, Any], table: pd.DataFrame, selectors: list[str], than: list[str], met: Metric, rng: str
) -> CheckResult:
    """``ratio``: the geometric mean over the x points of v(than[0]) / v(s) is ``value`` within a factor
    ``factor`` (default :data:`fsbench.papers.cells.CPU_FACTOR`, the tolerance of CPU-time cells), for
    every s in selectors (or more than half with ``quantifier: most``) — e.g. a speed-up."""
    value = check.get("value")
    if value is None or not than:
        return _ne("malformed check: `ratio` needs `value` and `than`")
    val, factor = float(value), float(check.get("factor", CPU_FACTOR))
    flags, parts = {}, []
    for s in selectors:
        r = (table[than[0]] / table[s]).to_numpy(float)
        r = r[np.isfinite(r) & (r > 0)]
        if r.size == 0:
            return _ne(f"ratio {than[0]} / {s}: no positive value over {rng}")
        g = float(np.exp(np.mean(np.log(r))))
        flags[s] = val / factor <= g <= val * factor
        parts.append(f"{than[0]} / {s} ×{g:.3g}")
    ok = _quantify(flags, check.get("quantifier"))
    return CheckResult(
        HOLDS if ok else FAILS,
        f"geometric mean over {rng} ({len(table)} point(s)) [{met.name}]: "
        f"{', '.join(parts)} vs ×{val:g} within a factor {factor:g}",
    )


def _best_error(df: pd.DataFrame, check: dict[str, Any]) -> tuple[float, str]:
    x = check.get("x", "n_features")
    lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
    met = metric(check.get("metric", "error"))
    rows = select_rows(df, check, set(df["experiment"]))
    if met.per_task:
        rows = one_per_fit(rows)
    rows = with_x(rows.assign(_v=met.values(rows)), x)
    rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi) & (rows["selector"] != BASELINE)]
    if check.get("selectors"):
        rows = rows[rows["selector"].isin(check["selectors"])]
    rows = paired_rows(rows, met)  # the lowest mean over the splits every selector finished
    if rows.empty:
        return float("nan"), ""
    m = rows.groupby(["_x", "selector"])["_v"].mean()
    (x_, s), v = m.idxmin(), float(m.min())
    return v, f"{s} at {_X_LABEL.get(x, x)} = {x_:g}"


def _check_compare_experiments(
    check: dict[str, Any], df: pd.DataFrame, have: set[str], why: Callable[[str | None], str]
) -> CheckResult:
    exps = [str(e) for e in check.get("experiments") or []]
    if len(exps) != 2:
        return _ne("malformed check: `compare_experiments` needs two experiments")
    if (absent := _not_run(exps, have, why)) is not None:
        return absent
    (a, wa), (b, wb) = (_best_error(df[df["experiment"] == e], check) for e in exps)
    if a != a or b != b:
        return _ne("no results in the range for one of the experiments")
    tol = float(check.get("tolerance", 0.0))
    rel = check.get("relation", "not_better")
    if rel == "better":
        val = float(check.get("value", 0.0))
        ok = b < a - val
        cond = f"min B < min A − {val:g}"
    else:
        ok = b >= a - tol
        cond = f"min B ≥ min A − {tol:g}"
    return CheckResult(
        HOLDS if ok else FAILS,
        f"min error A = {exps[0]}: {a:.1f} % ({wa}); B = {exps[1]}: {b:.1f} % ({wb}); {rel}: {cond}",
    )


def _check_rank_share(
    check: dict[str, Any], df: pd.DataFrame, have: set[str], why: Callable[[str | None], str]
) -> CheckResult:
    exps = [str(e) for e in check.get("experiments") or []]
    if not exps:
        return _ne("malformed check: `rank_share` needs `experiments`")
    if (absent := _not_run(exps, have, why)) is not None:
        return absent
    shares = rank_shares(df[df["experiment"].isin(exps)])
    rank = check.get("rank", "first")
    val = float(check.get("value", 0.0))
    rel = check.get("relation", "at_least")
    flags, parts = {}, []
    for s in check.get("selectors") or []:
        row = shares[shares["selector"] == s]
        if row.empty:
            return _ne(f"no ranked cells for {s} over {', '.join(exps)}")
        r = row.iloc[0]
        share = 100.0 * (float(r["first"]) + (float(r["second"]) if rank == "first_or_second" else 0.0))
        flags[str(s)] = share >= val if rel == "at_least" else share <= val
        parts.append(f"{s} {share:.1f} % of {int(r['cells'])} cells")
    if not flags:
        return _ne("the check names no selectors")
    ok = _quantify(flags, check.get("quantifier"))
    op = "≥" if rel == "at_least" else "≤"
    return CheckResult(
        HOLDS if ok else FAILS,
        f"share ranked {rank.replace('_', ' ')}: {', '.join(parts)} vs {op} {val:g} % over {', '.join(exps)}",
    )
