"""The claim DSL: a paper's qualitative claims checked on our results.

The third layer of the paper comparison of ``fsbench report --paper`` (render → claims → cells →
values). A claim of ``paper_values.yaml`` (``claims``; the file's header documents every check
``kind``) holds when all its checks hold: :func:`evaluate_check` evaluates one check on the rows of
``results.csv`` (order relations between selectors, levels, curve shapes, paired t-tests, rank shares,
two experiments compared), :func:`evaluate_claim` combines them into :data:`HOLDS`, :data:`FAILS`,
:data:`NOT_EVALUABLE` (results missing) or :data:`NOT_CHECKABLE` (a claim without checks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from fsbench.papers.cells import _d_of, _fmt_p, _metric_rows, _ok, _with_x, method_frame
from fsbench.stats import BASELINE, CELL, paired_ttests, rank_shares

HOLDS, FAILS, NOT_EVALUABLE = "holds", "does not hold", "not evaluable"
NOT_CHECKABLE = "not machine-checkable"
_X_LABEL = {"n_features": "S", "n_train": "n", "D": "D"}


@dataclass
class CheckResult:
    """Outcome of one check: ``status`` (holds / does not hold / not evaluable) and the numbers."""

    status: str
    detail: str


def _ne(msg: str) -> CheckResult:
    return CheckResult(NOT_EVALUABLE, msg)


def _combine(flags: list[bool], aggregate: str) -> bool:
    if aggregate == "majority":
        return sum(flags) > len(flags) / 2
    if aggregate == "any":
        return any(flags)
    return all(flags)


def _quantify(flags: dict[str, bool], quantifier: str | None) -> bool:
    if quantifier == "most":
        return sum(flags.values()) > len(flags) / 2
    return all(flags.values())


def _num(v: float, metric: str) -> str:
    return f"{v:.3g} s" if metric == "fit_cpu_s" else f"{v:.2f} %"


def _vals(d: dict[str, float], metric: str) -> str:
    return ", ".join(f"{k} {_num(v, metric)}" for k, v in d.items())


def _xs(xs: Iterable[float]) -> str:
    return ", ".join(f"{x:g}" for x in xs)


def evaluate_check(
    check: dict[str, Any],
    df: pd.DataFrame,
    experiment: str | None = None,
    missing_reason: Callable[[str | None], str] | None = None,
) -> CheckResult:
    """Evaluate one claim check of the paper-values FORMAT on our results.

    Parameters
    ----------
    check : dict
        The check (``kind``, ``selectors``, ``than``, ``x``, ``range``, ``aggregate``, ...).
    df : DataFrame
        Results (rows of results.csv, any experiments).
    experiment : str, optional
        Default experiment (the claim's figure's or table's), used when the check names none.
    missing_reason : callable, optional
        Experiment name → why it has no results (default ``"not run"``).

    Returns
    -------
    CheckResult

    Notes
    -----
    ``err`` at an x value is the mean over repeats (error in %, or ``fit_cpu_s`` in seconds with one
    value per task), pooled over whatever else varies at that x (several datasets of one experiment).
    Only x values in the range where every involved selector has results are used. ``best`` /
    ``worst`` count ties as satisfied; ``trend`` and ``gain`` use the smallest and largest x run
    inside the range (printed in the detail). Significance checks with ``aggregate: mean`` average
    each repeat's metric over the range and test once per pair; a pair with fewer than two paired
    repeats is left undecided. A check whose experiment or selectors have no results is
    :data:`NOT_EVALUABLE`.
    """
    why = missing_reason or (lambda e: f"not run (no results for `{e}`)")
    kind = check.get("kind")
    have = set(df["experiment"].astype(str)) if len(df) else set()
    exp = check.get("experiment", experiment)
    wanted = [str(e) for e in check.get("experiments") or []] or [exp]
    df = method_frame(df[df["experiment"].isin(wanted)]) if len(df) else df
    if kind == "compare_experiments":
        return _check_compare_experiments(check, df, have, why)
    if kind == "rank_share":
        return _check_rank_share(check, df, have, why)
    if exp is None:
        return _ne("the check names no experiment")
    if exp not in have:
        return _ne(f"`{exp}`: {why(exp)}")
    metric = check.get("metric", "error")
    x = check.get("x", "n_features")
    xl = _X_LABEL.get(x, x)
    lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
    rows, col = _metric_rows(df[df["experiment"] == exp], metric)
    rows = _with_x(rows, x)
    rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi)]
    present = sorted(set(rows["selector"]) - {BASELINE})
    selectors = [str(s) for s in check.get("selectors") or []]
    than = [str(s) for s in check.get("than") or []]
    among = [str(s) for s in check.get("among") or []] or present
    if kind in ("best", "worst"):
        involved = list(dict.fromkeys(selectors + among))
    else:
        involved = list(dict.fromkeys(selectors + than))
    missing = [s for s in involved if s not in set(rows["selector"])]
    rng = f"{xl} ∈ [{lo:g}, {hi:g}]"
    if missing:
        return _ne(f"no results for {', '.join(missing)} in `{exp}` over {rng}")
    if not involved:
        return _ne("the check names no selectors")
    table = rows[rows["selector"].isin(involved)].groupby(["_x", "selector"])[col].mean().unstack()
    table = table.dropna(how="any")
    if table.empty:
        return _ne(f"no {xl} value in [{lo:g}, {hi:g}] where all of {', '.join(involved)} have results")
    if kind in ("significant", "not_significant"):
        return _check_significance(check, df[df["experiment"] == exp], x, lo, hi, selectors, than, rng)
    tol = float(check.get("tolerance", 0.0))
    value = check.get("value")
    aggregate = check.get("aggregate", "mean")
    quant = check.get("quantifier")
    xs = list(table.index)
    if aggregate == "mean":
        points = {"mean": table.mean(axis=0).to_dict()}
        where = f"mean over {rng} ({len(xs)} value(s): {_xs(xs)})"
    else:
        points = {f"{xl} = {x_:g}": table.loc[x_].to_dict() for x_ in xs}
        where = f"{aggregate} over {rng}"

    def per_point(pred: Callable[[dict[str, float]], bool]) -> bool:
        return _combine([pred(v) for v in points.values()], aggregate)

    def subject_result(pred_s: Callable[[str, dict[str, float]], bool], subjects: list[str]) -> bool:
        flags = {s: _combine([pred_s(s, v) for v in points.values()], aggregate) for s in subjects}
        return _quantify(flags, quant)

    def summary_vals(names: list[str]) -> str:
        if aggregate == "mean":
            return _vals({n: points["mean"][n] for n in names}, metric)
        return "; ".join(f"{k}: {_vals({n: v[n] for n in names}, metric)}" for k, v in points.items())

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
                return all(v[s] < v[t] for t in than)
            return all(v[s] <= v[t] + tol for t in than)

        ok = subject_result(pred_s, selectors)
        op = "<" if kind == "better" else f"≤ (+{tol:g})"
        text = f"{summary_vals(selectors)} {op} {summary_vals(than)}" if aggregate == "mean" else ""
        text = text or f"{', '.join(selectors)} {op} {', '.join(than)}: {summary_vals(involved)}"
        return res(ok, f"{text} ({where})", counts(selectors, pred_s))
    if kind in ("best", "worst"):
        pool = among

        def pred_s(s: str, v: dict[str, float]) -> bool:
            others = [v[t] for t in pool if t != s]
            if not others:
                return True
            return v[s] <= min(others) if kind == "best" else v[s] >= max(others)

        ok = subject_result(pred_s, selectors)
        word = "lowest" if kind == "best" else "highest"
        return res(
            ok,
            f"{', '.join(selectors)} {word} among {', '.join(pool)}: {summary_vals(pool)} ({where})",
            counts(selectors, pred_s),
        )
    if kind == "close":
        ok = per_point(lambda v: all(abs(v[a] - v[b]) <= tol for a, b in combinations(selectors, 2)))
        spread = {k: max(v[s] for s in selectors) - min(v[s] for s in selectors) for k, v in points.items()}
        sp = ", ".join(f"{k}: {_num(d, metric)}" for k, d in spread.items())
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
        return res(
            ok, f"minimum {_num(m, metric)} ({s_min} at {xl} = {x_min:g}) vs {val:g} ± {tol:g} over {rng}"
        )
    if kind in ("trend", "flat", "gain", "slope"):
        return _check_curve(kind, check, table, selectors, metric, xl, rng, tol, value, quant)
    return _ne(f"unknown check kind {kind!r}")


def _check_curve(
    kind: str,
    check: dict[str, Any],
    table: pd.DataFrame,
    selectors: list[str],
    metric: str,
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
        head += f" [{metric if metric == 'fit_cpu_s' else 'error %'}]"
    return CheckResult(HOLDS if ok else FAILS, head)


def _check_significance(
    check: dict[str, Any],
    df: pd.DataFrame,
    x: str,
    lo: float,
    hi: float,
    selectors: list[str],
    than: list[str],
    rng: str,
) -> CheckResult:
    kind = check["kind"]
    metric = check.get("metric", "error")
    value = "fit_cpu_s" if metric == "fit_cpu_s" else "error"
    aggregate = check.get("aggregate", "mean")
    pairs = [(s, t) for s in selectors for t in than] if than else list(combinations(selectors, 2))
    involved = list(dict.fromkeys(selectors + than))
    d = _with_x(_ok(df[df["selector"].isin(involved)]), x)
    d = d[(d["_x"] >= lo) & (d["_x"] <= hi)]
    xl = _X_LABEL.get(x, x)
    if aggregate == "mean":
        # average each repeat over the range, then one paired test per pair
        key = [c for c in CELL if c != (x if x != "D" else "dataset")]
        d = d.groupby([*key, "repeat", "selector"], sort=False)[value].mean().reset_index()
        d[x if x != "D" else "dataset"] = "pooled"
        d["status"] = "ok"
        d["_x"] = 0.0
        tests = paired_ttests(d, value=value)
        tests["_x"] = 0.0
    else:
        tests = paired_ttests(d.drop(columns="_x"), value=value)
        if tests.empty:
            return _ne(f"no paired results over {rng}")
        tests["_x"] = tests["dataset"].map(_d_of) if x == "D" else tests[x].astype(float)
    if tests.empty:
        return _ne(f"no paired results over {rng}")
    want = kind == "significant"
    flags: list[bool] = []
    lines = []
    for x_, tx in tests.groupby("_x"):
        ok_pairs, bad, undecided = 0, [], 0
        for a, b in pairs:
            m = tx[((tx.a == a) & (tx.b == b)) | ((tx.a == b) & (tx.b == a))]
            if m.empty or not (m["p"] == m["p"]).all():
                undecided += 1
                continue
            sig = bool(m["significant"].all())
            if sig == want:
                ok_pairs += 1
            else:
                pv = float(m["p"].max() if want else m["p"].min())
                bad.append(f"{a}–{b} p {'' if pv < 0.001 else '= '}{_fmt_p(pv)}")
        if undecided == len(pairs):
            continue
        flags.append(not bad and undecided == 0)
        where = "mean over range" if aggregate == "mean" else f"{xl} = {x_:g}"
        lines.append(
            f"{where}: {ok_pairs}/{len(pairs)} pairs {'significant' if want else 'not significant'}"
            + (f" (not: {'; '.join(bad[:3])}{'…' if len(bad) > 3 else ''})" if bad else "")
        )
    if not flags:
        return _ne(f"no testable pair over {rng} (fewer than 2 paired repeats)")
    ok = _combine(flags, aggregate if aggregate != "mean" else "each")
    head = f"paired t-tests (5 %) over {rng}, {aggregate}: holds at {sum(flags)}/{len(flags)}"
    shown = lines if len(lines) <= 4 else [*lines[:2], "…", lines[-1]]
    return CheckResult(HOLDS if ok else FAILS, f"{head} — {'; '.join(shown)}")


def _best_error(df: pd.DataFrame, check: dict[str, Any]) -> tuple[float, str]:
    x = check.get("x", "n_features")
    lo, hi = (float(v) for v in check.get("range", [-np.inf, np.inf]))
    rows, col = _metric_rows(df, check.get("metric", "error"))
    rows = _with_x(rows, x)
    rows = rows[(rows["_x"] >= lo) & (rows["_x"] <= hi) & (rows["selector"] != BASELINE)]
    if check.get("selectors"):
        rows = rows[rows["selector"].isin(check["selectors"])]
    if rows.empty:
        return float("nan"), ""
    m = rows.groupby(["_x", "selector"])[col].mean()
    (x_, s), v = m.idxmin(), float(m.min())
    return v, f"{s} at {_X_LABEL.get(x, x)} = {x_:g}"


def _check_compare_experiments(
    check: dict[str, Any], df: pd.DataFrame, have: set[str], why: Callable[[str | None], str]
) -> CheckResult:
    exps = [str(e) for e in check.get("experiments") or []]
    if len(exps) != 2:
        return _ne("malformed check: `compare_experiments` needs two experiments")
    missing = [e for e in exps if e not in have]
    if missing:
        return _ne("; ".join(f"`{e}`: {why(e)}" for e in missing))
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
    missing = [e for e in exps if e not in have]
    if missing:
        return _ne("; ".join(f"`{e}`: {why(e)}" for e in missing))
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


def evaluate_claim(
    claim: dict[str, Any],
    df: pd.DataFrame,
    experiment: str | None = None,
    missing_reason: Callable[[str | None], str] | None = None,
) -> tuple[str, list[CheckResult]]:
    """Evaluate every check of a claim; all must hold for the claim to hold.

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
    results = [evaluate_check(c, df, experiment, missing_reason) for c in checks]
    statuses = {r.status for r in results}
    if FAILS in statuses:
        return FAILS, results
    if NOT_EVALUABLE in statuses:
        return NOT_EVALUABLE, results
    return HOLDS, results
