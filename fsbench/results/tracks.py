"""Tracks of a benchmark and their per-evaluator comparisons across datasets.

A *track* is one protocol run over its own datasets (the benchmark's ``classic``, ``highdim``,
``scenarios`` … configs): its result directories are told apart by their run's config ``track`` key, else
its config name (``run.json``'s ``effective_config``; the scenario track's p >> n variants run under their
own config, ``track: scenarios``), and the cross-dataset statistics pool only directories of one
track. A track sets S either as fractions of D (``n_features: {fraction_of_D: [...]}``; the blocks of a
fraction are the datasets at the S the fraction resolves to) or on an absolute grid (``n_features: [5, 10,
...]``; the blocks of an S are the datasets at that S).

* :func:`track_name`, :func:`s_scheme`, :func:`group_by_track` — the tracks of a list of result sets;
* :func:`evaluator_table` — the long table (:mod:`fsbench.results.pairing`) of every evaluator's rows
  (``protocol.evaluators``: one row per classifier scoring the same top-S subset), by fraction or by S;
* :func:`evaluator_comparisons` — every selector against the best-ranked one, Holm over k − 1, per
  (fraction or S, evaluator) (:func:`fsbench.results.posthoc.control_comparisons`);
* :func:`recommendations` — per (fraction or S, evaluator): the best-ranked selector, those not
  significantly worse than it, and each one's median selection cost;
* :func:`rank_cost_front` — per evaluator, the mean average rank over the groups against the median fit
  CPU seconds, with the Pareto front (:func:`fsbench.results.cost.pareto_front`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from fsbench.results.cost import TIME, pareto_front, selection_time
from fsbench.results.loading import ResultSet, read_results
from fsbench.results.pairing import fraction_rows
from fsbench.results.posthoc import control_comparisons
from fsbench.results.schema import BASELINE
from fsbench.results.stats_compare import CompareError

#: The benchmark's tracks in the order a report shows them; others follow by name.
TRACK_ORDER = ("benchmark", "classic", "highdim", "scenarios", "scenarios_pn")
#: The column of the evaluator (the classifier scoring the subsets) in the long tables.
EVALUATOR = "evaluator"


def _config(rs: ResultSet) -> dict:
    return (rs.run or {}).get("effective_config") or {}


def track_name(rs: ResultSet, default: str = "benchmark") -> str:
    """The track of a result directory: its run's config ``track``, else its config name, else ``default``."""
    cfg = _config(rs)
    return str(cfg.get("track") or cfg.get("name") or default)


def s_scheme(rs: ResultSet) -> str:
    """``"fraction"`` when the run's S are fractions of D (or the run does not say), else ``"absolute"``."""
    nf = (_config(rs).get("protocol") or {}).get("n_features")
    if nf is None or (isinstance(nf, dict) and "fraction_of_D" in nf):
        return "fraction"
    return "absolute"


def group_by_track(sets: Sequence[ResultSet], default: str = "benchmark") -> dict[str, list[ResultSet]]:
    """Result sets by track, in :data:`TRACK_ORDER` and then by name; each track keeps its sets' order."""
    out: dict[str, list[ResultSet]] = {}
    for rs in sets:
        out.setdefault(track_name(rs, default), []).append(rs)
    rank = {t: i for i, t in enumerate(TRACK_ORDER)}
    return {t: out[t] for t in sorted(out, key=lambda t: (rank.get(t, len(rank)), t))}


def grid(sets: Sequence[ResultSet]) -> list[float]:
    """The fractions of D (fraction scheme) or the S (absolute scheme) the sets' runs name, sorted."""
    values: set[float] = set()
    for rs in sets:
        nf = (_config(rs).get("protocol") or {}).get("n_features")
        if isinstance(nf, dict):
            values.update(float(f) for f in nf.get("fraction_of_D") or [])
        elif isinstance(nf, list):
            values.update(int(s) for s in nf)
    return sorted(values)


def evaluator_table(sets: Sequence[ResultSet], scheme: str, values: Sequence[float]) -> pd.DataFrame:
    """Every evaluator's rows as one long table, without the all-features baseline.

    Columns: ``fraction`` (fraction scheme) or ``S`` (absolute scheme), ``evaluator`` (the ``classifier``
    column; ``svm`` where a run has no evaluators), ``dataset``, ``selector``, ``repeat``, ``S``, ``D``,
    ``value`` (the test error), ``status``. In the absolute scheme only the S of ``values`` below D count.
    """
    frames = []
    for rs in sets:
        rows = read_results(rs.path, evaluators=True)
        if "classifier" not in rows.columns:
            rows = rows.assign(classifier="svm")
        rows = rows.assign(source=rs.source, dataset=rows["dataset"].astype(str))
        rows["selector"] = rows["selector"].astype(str)
        base = rows[rows["selector"].isin(rs.baseline_labels)]
        d_of = base.groupby("dataset")["n_features"].max()
        for ev, g in rows.groupby("classifier", sort=False):
            if scheme == "fraction":
                t = fraction_rows(g, list(values), sizes=d_of)
            else:
                t = g.assign(S=g["n_features"].astype(int), value=g["error"].astype(float))
                t["D"] = t["dataset"].map(d_of)
                t = t[t["S"].isin([int(v) for v in values]) & (t["S"] < t["D"])]
                if "status" not in t.columns:
                    t["status"] = "ok"
                t = t[["source", "dataset", "selector", "repeat", "S", "D", "value", "status"]]
            frames.append(t.assign(**{EVALUATOR: str(ev)}))
    if not frames:
        return pd.DataFrame()
    table = pd.concat(frames, ignore_index=True)
    baseline = set().union(*(rs.baseline_labels for rs in sets)) | {BASELINE}
    return table[~table["selector"].isin(baseline)].reset_index(drop=True)


def group_column(scheme: str) -> str:
    """The column a scheme's comparisons are grouped by: ``fraction`` or ``S``."""
    return "fraction" if scheme == "fraction" else "S"


def evaluator_comparisons(
    table: pd.DataFrame, by: str, alpha: float = 0.05
) -> tuple[pd.DataFrame, list[str]]:
    """:func:`~fsbench.results.posthoc.control_comparisons` per (``by``, evaluator) group.

    Returns the comparisons (the ``by`` and ``evaluator`` columns first) and, for each group that could not
    be compared (fewer than 2 datasets or selectors on common splits), a line saying why.
    """
    frames, skipped = [], []
    for (v, ev), g in table.groupby([by, EVALUATOR], sort=True):
        try:
            res = control_comparisons(g, alpha=alpha)
        except CompareError as e:
            skipped.append(f"{by} = {v:g}, {ev}: {e}")
            continue
        frames.append(res.assign(**{by: v, EVALUATOR: ev})[[by, EVALUATOR, *res.columns]])
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), skipped


def recommendations(comparisons: pd.DataFrame, sets: Sequence[ResultSet], by: str) -> pd.DataFrame:
    """Per (``by``, evaluator): the best-ranked selector (the control) and every selector not significantly
    worse than it (Wilcoxon, Holm over k − 1; the control included), in average-rank order, with the median
    fit CPU seconds of each (:func:`fsbench.results.cost.selection_time`, every task once).

    Returns
    -------
    DataFrame
        ``by``, ``evaluator``, ``control``, ``n_blocks``, ``k``, ``selector``, ``average_rank``,
        ``is_control``, ``median_fit_cpu_s``, ``cheapest`` (the lowest median cost of the group's set).
    """
    cost = selection_time(sets).set_index("selector")[f"median_{TIME}"]
    rows = comparisons[comparisons["wilcoxon_not_worse"].astype(bool)].copy()
    rows = rows.sort_values(
        [by, EVALUATOR, "is_control", "average_rank", "selector"],
        ascending=[True, True, False, True, True],
        kind="stable",
    )
    rows[f"median_{TIME}"] = rows["selector"].map(cost)
    low = rows.groupby([by, EVALUATOR])[f"median_{TIME}"].transform("min")
    rows["cheapest"] = rows[f"median_{TIME}"] == low
    cols = [by, EVALUATOR, "control", "n_blocks", "k", "selector", "average_rank", "is_control"]
    return rows[[*cols, f"median_{TIME}", "cheapest"]].reset_index(drop=True)


def rank_cost_front(comparisons: pd.DataFrame, sets: Sequence[ResultSet]) -> pd.DataFrame:
    """Per evaluator and selector: the average rank averaged over the groups (fractions or S) it was ranked
    in, the median fit CPU seconds and whether it is on the Pareto front of the two (both minimised)."""
    cost = selection_time(sets).set_index("selector")[f"median_{TIME}"]
    frames = []
    for ev, g in comparisons.groupby(EVALUATOR, sort=True):
        acc = g.groupby("selector")["average_rank"].agg(["mean", "size"]).reset_index()
        acc.columns = ["selector", "mean_average_rank", "groups"]
        acc[f"median_{TIME}"] = acc["selector"].map(cost)
        acc["pareto"] = pareto_front(acc[f"median_{TIME}"].to_numpy(), acc["mean_average_rank"].to_numpy())
        acc.insert(0, EVALUATOR, ev)
        frames.append(acc.sort_values(["mean_average_rank", "selector"], kind="stable"))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
