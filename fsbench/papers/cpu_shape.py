r"""CPU-time tables compared by their shape: log-log slopes with a bootstrap CI, and the order of methods.

A CPU-time table measured on another machine, in another language, differs from ours in constant
factors; what transfers is how each method's cost grows with the table's row variable x (N or D) and
which methods are the expensive ones. A paper's ``paper_values.yaml`` may declare, under ``cpu_shape:``,
a rule fixed before looking at the results (format: ``docs/paper-values.md``); this module applies it:

* per method and table, the least-squares slope of :math:`\log t` on :math:`\log x` over the rule's range
  of x (:func:`fsbench.results.stats.loglog_slope`), for the paper (its printed values) and for us (the per-x
  median of ``fit_cpu_s`` over the repeats), with a percentile bootstrap CI that resamples the repeats
  at every x independently (:func:`bootstrap_slope`); ours agrees when it is within the rule's
  tolerance of the paper's;
* per table, Kendall's :math:`\tau` between the paper's values and our medians at the largest x
  (:func:`order_agreement`); the order agrees when :math:`\tau` reaches the rule's threshold.

:func:`compare_cpu_shape` does both on the result rows; :func:`cpu_shape_markdown` and
:func:`cpu_shape_summary` render them for the report (:mod:`fsbench.papers.render`). Nothing here
names a paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from fsbench.papers.sources import d_of, experiments_of, one_per_fit, select_rows
from fsbench.results.stats import loglog_slope
from fsbench.results.tables import md_table


@dataclass(frozen=True)
class SlopeResult:
    """One method's slope in one table, the paper's and ours."""

    table: str
    method: str
    #: the paper's column it is compared with (SCSS → the SAS column, when the rule says so)
    paper_column: str
    #: paper's slope over the rule's range, and over every printed x (information only)
    paper: float
    paper_full: float
    #: our slope (medians over repeats), its bootstrap CI, and the full-range slope (information only)
    ours: float
    lo: float
    hi: float
    ours_full: float
    #: x values in the range that both sides have; fewest repeats at any of them
    n_points: int
    n_repeats: int
    tolerance: float
    paper_inconsistent: bool = False

    @property
    def diff(self) -> float:
        return self.ours - self.paper

    @property
    def agrees(self) -> bool | None:
        """|ours − paper| ≤ tolerance; None when either slope is missing."""
        if self.ours != self.ours or self.paper != self.paper:
            return None
        return abs(self.diff) <= self.tolerance

    @property
    def ci_overlaps(self) -> bool:
        """The CI reaches the band paper ± tolerance (said of a differing slope)."""
        return self.lo <= self.paper + self.tolerance and self.hi >= self.paper - self.tolerance


@dataclass(frozen=True)
class OrderResult:
    """The order of the methods by cost at the largest x of one table."""

    table: str
    x: float
    methods: tuple[str, ...]
    paper: tuple[float, ...]
    ours: tuple[float, ...]
    tau: float
    p_value: float
    threshold: float

    @property
    def agrees(self) -> bool | None:
        # τ of a few methods is a ratio of integers: 0.6 may come out as 0.59999…
        return None if self.tau != self.tau else self.tau >= self.threshold - 1e-9

    def order(self, side: str) -> list[str]:
        """Methods from the most to the least expensive on ``side`` ("paper" or "ours")."""
        vals = self.paper if side == "paper" else self.ours
        return [m for _, m in sorted(zip(vals, self.methods), key=lambda p: -p[0])]


@dataclass
class CpuShape:
    """Everything :func:`compare_cpu_shape` found, with the rule it applied."""

    rule: Mapping[str, Any]
    slopes: list[SlopeResult] = field(default_factory=list)
    orders: list[OrderResult] = field(default_factory=list)
    #: table id → caption number and x name, for the headings
    tables: dict[str, tuple[str, str]] = field(default_factory=dict)

    def table_ids(self) -> list[str]:
        """The tables compared, in the order of the rule's ``tables`` (the order the report shows them;
        :attr:`tables` read back from ``comparison.json`` has its keys sorted)."""
        order = [str(e["table"]) for e in self.rule.get("tables", [])]
        return [t for t in dict.fromkeys(order) if t in self.tables]


def _statistic(name: str):
    if name == "median":
        return np.median
    if name == "mean":
        return np.mean
    raise ValueError(f"unknown statistic {name!r}; expected 'median' or 'mean'")


def bootstrap_slope(
    samples: Mapping[float, Sequence[float]],
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    statistic: str = "median",
) -> tuple[float, float, float]:
    """Log-log slope of the per-x statistic of ``samples``, and its percentile bootstrap CI.

    Parameters
    ----------
    samples : mapping x → the repeats' times at x
    resamples : int
        Bootstrap resamples; in each, the repeats at every x are drawn with replacement, independently
        across x, and the slope is refitted.
    level : float
        Coverage of the two-sided percentile interval.
    seed : int
        ``numpy.random.default_rng`` seed.
    statistic : {"median", "mean"}
        Summary of the repeats at each x.

    Returns
    -------
    slope, lo, hi : float
        NaN if fewer than two x have times.
    """
    stat = _statistic(statistic)
    xs = sorted(x for x, v in samples.items() if len(v))
    arrays = [np.asarray(samples[x], dtype=float) for x in xs]
    point = loglog_slope(xs, [stat(a) for a in arrays])
    if point != point:
        return point, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    # one (resamples, n_x) matrix of per-x statistics, each column from its own resampled repeats
    stats = np.column_stack(
        [stat(a[rng.integers(0, a.size, size=(resamples, a.size))], axis=1) for a in arrays]
    )
    logx = np.log(np.asarray(xs, dtype=float))
    logy = np.log(np.clip(stats, np.finfo(float).tiny, None))
    xc = logx - logx.mean()
    slopes = (logy - logy.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(slopes, [alpha, 1.0 - alpha])
    return point, float(lo), float(hi)


def order_agreement(
    paper: Mapping[str, float], ours: Mapping[str, float], methods: Sequence[str]
) -> tuple[float, float]:
    """Kendall's :math:`\\tau`-b (and its p-value) between the paper's and our costs of ``methods``.

    Methods missing on either side are left out; NaN with fewer than two left.
    """
    both = [m for m in methods if m in paper and m in ours and paper[m] == paper[m] and ours[m] == ours[m]]
    if len(both) < 2:
        return float("nan"), float("nan")
    res = kendalltau([paper[m] for m in both], [ours[m] for m in both])
    return float(res.statistic), float(res.pvalue)


def _our_x(rows: pd.DataFrame, key: str) -> pd.Series:
    """Our value of a table's row variable: N = ``n_train``, D = the ``_D<D>`` of the dataset entry."""
    if key == "D":
        return rows["dataset"].map(d_of).astype(float)
    if key == "N":
        return rows["n_train"].astype(float)
    return pd.to_numeric(rows[key], errors="coerce")


def compare_cpu_shape(values: Mapping[str, Any], df: pd.DataFrame) -> CpuShape | None:
    """Apply a paper's ``cpu_shape`` rule to the result rows.

    Parameters
    ----------
    values : mapping
        The parsed ``paper_values.yaml`` (its ``tables`` and its ``cpu_shape`` rule).
    df : DataFrame
        Result rows after :func:`fsbench.papers.sources.method_frame` (``selector`` = selector name).

    Returns
    -------
    CpuShape or None
        None if the paper declares no ``cpu_shape``. Tables whose experiment is not in ``df`` give NaN
        slopes for us (and no order).
    """
    rule = values.get("cpu_shape")
    if not rule:
        return None
    slope_rule = rule.get("slope") or {}
    order_rule = rule.get("order") or {}
    boot = slope_rule.get("bootstrap") or {}
    tol = float(slope_rule.get("tolerance", 0.3))
    stat_name = str(slope_rule.get("statistic", "median"))
    stat = _statistic(stat_name)
    methods: dict[str, str] = {str(k): str(v) for k, v in (rule.get("methods") or {}).items()}
    by_id = {t["id"]: t for t in values.get("tables", [])}
    out = CpuShape(rule=rule)
    for entry in rule.get("tables", []):
        table = by_id[entry["table"]]
        key = str(entry.get("x") or table["rows"]["key"])
        out.tables[table["id"]] = (str(table.get("number", table["id"])), key)
        lo_x, hi_x = (slope_rule.get("range") or {}).get(table["id"], [-np.inf, np.inf])
        lo_x = -np.inf if lo_x is None else float(lo_x)
        hi_x = np.inf if hi_x is None else float(hi_x)
        cells = table.get("cells", [])
        paper: dict[str, dict[float, float]] = {}
        flagged: set[str] = set()
        for c in cells:
            paper.setdefault(str(c["method"]), {})[float(c[key])] = float(c["value"])
            if c.get("paper_inconsistent"):
                flagged.add(str(c["method"]))
        exps = experiments_of(table.get("experiment"))
        rows = one_per_fit(select_rows(df, table, exps)) if len(df) else pd.DataFrame()
        if len(rows):
            rows = rows.assign(_x=_our_x(rows, key))
        times: dict[str, dict[float, np.ndarray]] = {}
        for ours, col in methods.items():
            if col not in paper:
                continue
            sub = rows[rows["selector"].astype(str) == ours] if len(rows) else rows
            samples = {
                float(x): g["fit_cpu_s"].to_numpy(dtype=float)
                for x, g in (sub.groupby("_x") if len(sub) else [])
                if float(x) in paper[col]
            }
            times[ours] = samples
            in_range = {x: v for x, v in samples.items() if lo_x <= x <= hi_x}
            p_in = {x: v for x, v in paper[col].items() if lo_x <= x <= hi_x}
            b, lo, hi = bootstrap_slope(
                in_range,
                resamples=int(boot.get("resamples", 2000)),
                level=float(boot.get("level", 0.95)),
                seed=int(boot.get("seed", 0)),
                statistic=stat_name,
            )
            full_x = sorted(samples)
            out.slopes.append(
                SlopeResult(
                    table=table["id"],
                    method=ours,
                    paper_column=col,
                    paper=loglog_slope(list(p_in), list(p_in.values())),
                    paper_full=loglog_slope(list(paper[col]), list(paper[col].values())),
                    ours=b,
                    lo=lo,
                    hi=hi,
                    ours_full=loglog_slope(full_x, [stat(samples[x]) for x in full_x]),
                    n_points=len(in_range),
                    n_repeats=min((len(v) for v in in_range.values()), default=0),
                    tolerance=tol,
                    paper_inconsistent=col in flagged,
                )
            )
        order_methods = [str(m) for m in order_rule.get("methods", [])]
        if not order_methods:
            continue
        xs = [x for x in set().union(*(paper.get(methods.get(m, m), {}) for m in order_methods))]
        if not xs:
            continue
        x_top = max(xs) if order_rule.get("at", "largest") == "largest" else float(order_rule["at"])
        p_top = {m: paper.get(methods.get(m, m), {}).get(x_top, float("nan")) for m in order_methods}
        o_top = {m: float(stat(times[m][x_top])) for m in order_methods if x_top in times.get(m, {})}
        tau, p = order_agreement(p_top, o_top, order_methods)
        kept = [m for m in order_methods if m in o_top]
        out.orders.append(
            OrderResult(
                table=table["id"],
                x=x_top,
                methods=tuple(kept),
                paper=tuple(p_top[m] for m in kept),
                ours=tuple(o_top[m] for m in kept),
                tau=tau,
                p_value=p,
                threshold=float(order_rule.get("agree_at_least", 0.6)),
            )
        )
    return out


def _f(x: float, nd: int = 2) -> str:
    return "–" if x != x else f"{x:.{nd}f}"


def _diff_text(s: SlopeResult) -> str:
    """The difference, with a third decimal where two would show the tolerance itself."""
    if s.agrees is None:
        return "–"
    near = abs(round(abs(s.diff), 2) - s.tolerance) < 1e-9
    return f"{s.diff:+.3f}" if near else f"{s.diff:+.2f}"


def _verdict(s: SlopeResult) -> str:
    a = s.agrees
    if a is None:
        return "not run"
    text = "agrees" if a else "differs" + (" (CI overlaps)" if s.ci_overlaps else "")
    return text + (" ⚠ paper inconsistent" if s.paper_inconsistent else "")


def cpu_shape_summary(shape: CpuShape) -> list[str]:
    """One summary bullet: slopes that agree and the order verdicts, beside the cell counts."""
    judged = [s for s in shape.slopes if s.agrees is not None]
    agree = sum(bool(s.agrees) for s in judged)
    orders = [
        f"Table {shape.tables[o.table][0]} τ = {o.tau:.2f} ({'agrees' if o.agrees else 'differs'})"
        for o in shape.orders
        if o.agrees is not None
    ]
    if not judged and not orders:
        return []
    tol = shape.rule.get("slope", {}).get("tolerance", 0.3)
    thr = shape.rule.get("order", {}).get("agree_at_least", 0.6)
    return [
        f"- **CPU tables by their shape** (rule fixed in advance, `cpu_shape` in `paper_values.yaml`): "
        f"{agree} of {len(judged)} log-log slopes within ±{tol:g} of the paper's; order of the methods by "
        f"cost at the largest size (Kendall's τ ≥ {thr:g} agrees): {'; '.join(orders) or 'not run'}. "
        "The cell counts above are unchanged by it."
    ]


def cpu_shape_markdown(shape: CpuShape) -> list[str]:
    """The report section: the rule in words, a slope table per table, and the order comparison."""
    rule = shape.rule
    sl = rule.get("slope") or {}
    boot = sl.get("bootstrap") or {}
    order = rule.get("order") or {}
    ranges = ", ".join(
        f"Table {shape.tables[t][0]}: {sl['range'][t][0]}–{sl['range'][t][1]}"
        for t in shape.table_ids()
        if t in (sl.get("range") or {})
    )
    lines = [
        "### CPU tables by their shape",
        "",
        "A second comparison of the CPU-time tables, beside the cell-by-cell one (whose counts stay as "
        f"they are). The rule was fixed before looking ({rule.get('fixed', 'see paper_values.yaml')}): "
        f"per method, the least-squares slope of log(CPU time) on log(x) over the range "
        f"{ranges}; the paper's on its printed values, ours on the {sl.get('statistic', 'median')} of "
        "`fit_cpu_s` "
        f"over the repeats at each x, with a {100 * float(boot.get('level', 0.95)):g} % percentile "
        f"bootstrap CI ({boot.get('resamples', 2000)} resamples of the repeats, independently at each x, "
        f"seed {boot.get('seed', 0)}). Ours agrees when it is within ±{sl.get('tolerance', 0.3)} of the "
        'paper\'s; "CI overlaps": a differing slope whose CI still reaches that band. The full-range '
        "slopes (every printed x) are shown for information only. The order of the methods by cost at the "
        f"largest x is compared with Kendall's τ-b; it agrees when τ ≥ {order.get('agree_at_least', 0.6)}.",
        "",
    ]
    if rule.get("why"):
        lines += [f"_Why: {' '.join(str(rule['why']).split())}_", ""]
    for tid in shape.table_ids():
        number, key = shape.tables[tid]
        rows = []
        for s in (s for s in shape.slopes if s.table == tid):
            method = s.method if s.paper_column == s.method else f"{s.method} (vs {s.paper_column})"
            ci = "–" if s.lo != s.lo else f"[{s.lo:.2f}, {s.hi:.2f}]"
            rows.append(
                [
                    method,
                    _f(s.paper),
                    _f(s.ours),
                    ci,
                    _diff_text(s),
                    _verdict(s),
                    f"{s.n_points} × ≥{s.n_repeats}",
                    _f(s.paper_full),
                    _f(s.ours_full),
                ]
            )
        lines += [
            f"**Table {number}: slope of CPU time against {key}**",
            "",
            *md_table(
                [
                    "method",
                    "paper slope",
                    "our slope",
                    "95 % CI",
                    "diff",
                    "verdict",
                    f"{key} points × repeats",
                    "paper, all x",
                    "ours, all x",
                ],
                rows,
                escape=True,
            ).splitlines(),
            "",
        ]
    orows = []
    for o in shape.orders:
        number, key = shape.tables[o.table]
        orows.append(
            [
                f"Table {number}, {key} = {o.x:g}",
                " > ".join(o.order("paper")),
                " > ".join(o.order("ours")),
                _f(o.tau),
                "–" if o.agrees is None else ("agrees" if o.agrees else "differs"),
            ]
        )
    if orows:
        lines += [
            "**Order of the methods by cost (most expensive first) at the largest x**",
            "",
            *md_table(["where", "paper", "ours", "Kendall's τ", "verdict"], orows, escape=True).splitlines(),
            "",
        ]
    return lines
