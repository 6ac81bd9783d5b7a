"""Recovery of the known relevant features of synthetic datasets, from ``rankings.csv``.

For a dataset whose relevant features R are known (r = |R|), per (dataset, kernel, n_train, selector):

* at each S, the share of relevant features in the top S (``share_relevant`` = |top-S ∩ R| / S, the
  precision) and the share of R found there (``recall`` = |top-S ∩ R| / r), averaged over repeats;
* the success rate: the share of repeats whose top r are exactly R, with a Wilson score interval.

Where R comes from: :data:`RELEVANT_BY_GENERATOR`, keyed by the *generator* (``fsbench.data.synthetic``)
rather than by a ``relevant_features:`` key in the dataset cards, because (1) the card loader
(``fsbench/data/cards.py``) refuses unknown keys, (2) inline datasets (``{generator: weston_linear,
label: ...}``, e.g. Ramona Table IX) have no card at all, and (3) the relevant set is a property of the
generator: the Weston toys put their relevant features first (``weston_linear``: x1..x6, i.e. 0-based
0..5; ``weston_nonlinear``: x1, x2 → 0, 1; see the module docstring of ``fsbench.data.synthetic`` and
``datasets/weston_*.yaml``; ``ring_fig1``: its optimal pair x1, x2 → 0, 1), and a ``n_features``
parameter below that count truncates inside the relevant block. A result's dataset label is resolved to
its generator through ``run.json``'s effective config (a card name → the card's synthetic source; an
inline entry → its ``generator``/``params``).

The scenario track (``fsbench.data.scenarios``: Madelon, parity/XOR, sparse linear, correlated nuisance)
declares R and its informative core I ⊆ R with each generator (:func:`relevant_features`,
:func:`informative_features`) and is scored per split by :func:`recovery_by_split`, for each
(dataset, kernel, n_train, selector, S, split) from the top S of the ranking (S in results.csv's grid and
S = r = |R|):

* ``recall`` = |top-S ∩ R| / r; ``precision`` = |top-S ∩ R| / S and ``fdr`` = 1 − precision (the share
  of the top S that is not relevant); ``recall_informative`` = |top-S ∩ I| / |I|;
* ``success`` = R ⊆ top-S; ``exact`` = (top r) == R, which does not depend on S;
* ``s_full`` = the smallest S whose top S holds all of R (1 + the worst rank of a relevant feature), and
  ``chance_recall`` = S / D, a random ranking's expected recall.

:func:`recovery_table` aggregates them per (dataset, kernel, n_train, selector, S) — means with a
percentile-bootstrap interval over the splits, rates with a Wilson interval — and
:func:`who_finds_table` gives one row per selector and scenario: exact recovery, recall at S = r, the S
needed for all of R, and the exact one-sided p-value of its hits at S = r against a random ranking.
:func:`write_recovery_tables` writes them (``python -m fsbench.results.ground_truth RESULT_DIR``).
``ground_truth_tables`` (``share_relevant`` = precision, ``recall``, exact recovery) is kept as it is:
the committed ``ground_truth*.csv`` of the paper reproductions are computed by it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.data import DatasetError, get_card
from fsbench.data.scenarios import SCENARIOS, Relevance, scenario_relevance
from fsbench.data.synthetic import resolve_generator
from fsbench.results.loading import ResultSet, load_result_sets, ranking_splits
from fsbench.results.tables import md_table

GROUP = ["source", "dataset", "kernel", "n_train", "selector"]

#: Number of relevant features of each synthetic generator; they are always the first ones (0-based).
#: ``ring_fig1`` (Ring & Eskofier 2015, Fig. 1): its x3, x4 carry information too (shifted overlapping
#: Gaussians), so "relevant" there means the *optimal pair* {x1, x2}, the only pair on which the classes
#: are separable ("enables the classifier to correctly classify all patterns", the paper's Fig. 1); its
#: exact-recovery rate is the share of draws whose chosen pair is {x1, x2}.
RELEVANT_BY_GENERATOR: dict[str, int] = {"weston_linear": 6, "weston_nonlinear": 2, "ring_fig1": 2}


def relevant_features(generator: str, params: dict[str, Any] | None = None) -> frozenset[int] | None:
    """The relevant features (0-based) of a generator with these parameters, or None if unknown.

    The Weston toys and ``ring_fig1`` from :data:`RELEVANT_BY_GENERATOR`; the scenario generators from
    their relevance rule (:func:`fsbench.data.scenarios.scenario_relevance`), after their parameters are
    checked and the defaults filled in as for a draw.
    """
    n = RELEVANT_BY_GENERATOR.get(generator)
    if n is None:
        rel = _scenario(generator, params)
        return None if rel is None else rel.relevant
    n_features = (params or {}).get("n_features")
    if n_features is not None:  # the generators truncate inside the relevant block (Ramona Table IX, D = 5)
        n = min(n, int(n_features))
    return frozenset(range(n))


def informative_features(generator: str, params: dict[str, Any] | None = None) -> frozenset[int] | None:
    """The informative core I ⊆ R (Madelon: its informative features, without the redundant and repeated
    ones); R itself for every other generator; None if R is unknown."""
    rel = _scenario(generator, params)
    return rel.informative if rel is not None else relevant_features(generator, params)


def _scenario(generator: str, params: dict[str, Any] | None) -> Relevance | None:
    """A scenario's R and I, its parameters checked and typed as for a draw (``resolve_generator``)."""
    if generator not in SCENARIOS:
        return None
    return scenario_relevance(generator, resolve_generator(generator, params).params)


def _card_generator(name: str) -> tuple[str, dict] | None:
    try:
        card = get_card(name)
    except DatasetError:
        return None
    if card.kind != "synthetic" or not card.sources:
        return None
    return card.sources[0].generator, dict(card.sources[0].params)


def dataset_generators(rs: ResultSet) -> dict[str, tuple[str, dict]]:
    """Dataset label → (generator, params) for the synthetic datasets of a result directory."""
    out: dict[str, tuple[str, dict]] = {}
    cfg = (rs.run or {}).get("effective_config") or {}
    entries = cfg.get("dataset", [])
    for e in entries if isinstance(entries, list) else [entries]:
        if isinstance(e, str):
            gen = _card_generator(e)
            if gen:
                out[e] = gen
        elif isinstance(e, dict) and e.get("generator"):
            out[str(e.get("label", e["generator"]))] = (e["generator"], dict(e.get("params") or {}))
        elif isinstance(e, dict) and e.get("name"):
            gen = _card_generator(e["name"])
            if gen:
                out[str(e.get("label", e["name"]))] = (gen[0], {**gen[1], **dict(e.get("params") or {})})
    # no run.json (or an older one): a dataset label that is a synthetic card's name
    for label in rs.results["dataset"].astype(str).unique() if rs.results is not None else []:
        if label not in out:
            gen = _card_generator(label)
            if gen:
                out[label] = gen
    return out


def wilson_interval(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (sensible at 0 and 1, unlike the Wald interval)."""
    if n == 0:
        return float("nan"), float("nan")
    z = float(stats.norm.ppf(1 - alpha / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def ground_truth_tables(
    sets: list[ResultSet], alpha: float = 0.05, relevant: dict[str, frozenset[int]] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Share of relevant features in the top S, and success rate of recovering exactly the relevant set.

    Parameters
    ----------
    sets : list of ResultSet
        Result directories; only datasets with a known relevant set are used.
    alpha : float
        1 − confidence level of the Wilson interval of the success rate.
    relevant : dict, optional
        Dataset label → relevant features, overriding the generator lookup (for other known datasets).

    Returns
    -------
    share, success : DataFrame
        ``share``: GROUP, ``n_features`` (S: r and the S grid of results.csv), ``relevant`` (r), ``repeats``,
        ``share_relevant``, ``recall``. ``success``: GROUP, ``relevant``, ``repeats``, ``successes``,
        ``success_rate``, ``ci_low``, ``ci_high``.
    """
    share_rows, success_rows = [], []
    for rs in sets:
        if rs.rankings is None or rs.rankings.empty:
            continue
        known = {k: relevant_features(*v) for k, v in dataset_generators(rs).items()}
        known.update(relevant or {})
        known = {k: v for k, v in known.items() if v}
        ok = rs.results[rs.results["status"] == "ok"] if rs.results is not None else None
        r = rs.rankers()
        r = r[r["dataset"].astype(str).isin(known)]
        for key, g in r.groupby(GROUP, sort=False):
            rel = known[str(key[1])]
            n_rel = len(rel)
            d = int(g["order_len"].max())
            g, splits = ranking_splits(g)  # one ranking per split: repeat, or (repeat, fold) under k-fold
            orders = list(g["order_idx"])
            grid = set()
            if ok is not None:
                sel = ok
                for col, v in zip(GROUP, key):
                    sel = sel[sel[col] == v]
                grid = {int(s) for s in sel["n_features"].unique() if s < d}
            rel_arr = np.fromiter(rel, dtype=np.int64)
            for s in sorted(grid | {n_rel}):
                top = rs.top_sets(tuple(key)[1:], s, splits, orders)
                hits = np.array([np.isin(t, rel_arr).sum() for t in top], dtype=float)
                share_rows.append(
                    {
                        **dict(zip(GROUP, key)),
                        "n_features": s,
                        "relevant": n_rel,
                        "repeats": len(orders),
                        "share_relevant": float(np.mean(hits / s)),
                        "recall": float(np.mean(hits / n_rel)),
                    }
                )
            exact = sum(set(t.tolist()) == rel for t in rs.top_sets(tuple(key)[1:], n_rel, splits, orders))
            lo, hi = wilson_interval(exact, len(orders), alpha)
            success_rows.append(
                {
                    **dict(zip(GROUP, key)),
                    "relevant": n_rel,
                    "repeats": len(orders),
                    "successes": int(exact),
                    "success_rate": exact / len(orders),
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    share_cols = [*GROUP, "n_features", "relevant", "repeats", "share_relevant", "recall"]
    success_cols = [*GROUP, "relevant", "repeats", "successes", "success_rate", "ci_low", "ci_high"]
    return pd.DataFrame(share_rows, columns=share_cols), pd.DataFrame(success_rows, columns=success_cols)


def plot_ground_truth(share: pd.DataFrame, success: pd.DataFrame, alpha: float = 0.05) -> list:
    """Curves vs n_train, one figure per (directory, dataset, kernel).

    Left: success rate (top r = R exactly) with its Wilson interval; then the share of relevant features
    in the top S for up to three S values (r first).

    Returns
    -------
    list of (key, matplotlib.figure.Figure)
        ``key`` = (source, dataset, kernel).
    """
    # function-level: matplotlib loads only when a figure is drawn (not for tables or the console report)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = []
    for key, g in success.groupby(GROUP[:3], sort=False):
        sh = share
        for col, v in zip(GROUP[:3], key):
            sh = sh[sh[col] == v]
        n_rel = int(g["relevant"].iloc[0])
        s_list = [n_rel] + [s for s in sorted(sh["n_features"].unique()) if s != n_rel][:2]
        fig, axes = plt.subplots(1, 1 + len(s_list), figsize=(4.6 * (1 + len(s_list)), 3.8), squeeze=False)
        selectors = list(dict.fromkeys(g["selector"]))
        colors = {s: plt.get_cmap("tab10")(i % 10) for i, s in enumerate(selectors)}
        ax = axes[0, 0]
        for sel, gs in g.groupby("selector", sort=False):
            gs = gs.sort_values("n_train")
            ax.errorbar(
                gs["n_train"],
                gs["success_rate"],
                # clipped at 0: at a rate of 0 or 1 the Wilson bound equals it up to round-off
                yerr=np.clip(
                    [gs["success_rate"] - gs["ci_low"], gs["ci_high"] - gs["success_rate"]], 0.0, None
                ),
                marker="o",
                ms=3,
                capsize=2,
                lw=1,
                color=colors[sel],
                label=sel,
            )
        ax.set_title(f"top {n_rel} = the {n_rel} relevant ({100 * (1 - alpha):g} % Wilson CI)", fontsize=9)
        ax.set_ylabel("success rate")
        for ax, s in zip(axes[0, 1:], s_list):
            for sel, gs in sh[sh["n_features"] == s].groupby("selector", sort=False):
                gs = gs.sort_values("n_train")
                ax.plot(
                    gs["n_train"],
                    gs["share_relevant"],
                    marker="o",
                    ms=3,
                    lw=1,
                    color=colors.get(sel),
                    label=sel,
                )
            ax.set_title(f"share of relevant features in the top {s}", fontsize=9)
            ax.set_ylabel("share relevant")
        for ax in axes.flat:
            ax.set_xlabel("n_train")
            ax.set_ylim(-0.03, 1.03)
            ax.grid(alpha=0.3)
        axes[0, 0].legend(fontsize=7)
        fig.suptitle(f"{key[0]}: {key[1]}, {key[2]} kernel — relevant features {n_rel}", fontsize=10)
        fig.tight_layout()
        figs.append((key, fig))
    return figs


# ------------------------------------------------------------------------------- per-split recovery
#: Columns of :func:`recovery_by_split` (one row per ranking and S).
SPLIT_COLUMNS = [
    *GROUP,
    "n_features",
    "repeat",
    "fold",
    "D",
    "relevant",
    "informative",
    "hits",
    "recall",
    "precision",
    "fdr",
    "recall_informative",
    "success",
    "exact",
    "s_full",
    "chance_recall",
]


def _known_sets(
    rs: ResultSet, relevant: dict[str, frozenset[int]] | None
) -> dict[str, tuple[frozenset[int], frozenset[int]]]:
    """Dataset label → (R, I) for the datasets of ``rs`` with a known relevant set (``relevant``: R = I)."""
    known: dict[str, tuple[frozenset[int], frozenset[int]]] = {}
    for label, (gen, params) in dataset_generators(rs).items():
        rel = relevant_features(gen, params)
        if rel:
            known[label] = (rel, informative_features(gen, params) or rel)
    known.update({k: (frozenset(v), frozenset(v)) for k, v in (relevant or {}).items()})
    return {k: v for k, v in known.items() if v[0]}


def recovery_by_split(
    sets: list[ResultSet], relevant: dict[str, frozenset[int]] | None = None
) -> pd.DataFrame:
    """Recovery of the relevant set R per ranking (split) and S.

    Parameters
    ----------
    sets : list of ResultSet
        Result directories; only datasets with a known R are used (:func:`relevant_features`), and only
        rankings of the input features (``ResultSet.rankers``: not the all-features baseline, not a
        transformer).
    relevant : dict, optional
        Dataset label → R, overriding the generator lookup (I = R for these).

    Returns
    -------
    DataFrame
        :data:`SPLIT_COLUMNS`: GROUP, ``n_features`` (S: results.csv's S values below D, and r = |R|),
        ``repeat``, ``fold`` (None outside k-fold), ``D``, ``relevant`` (r), ``informative`` (|I|),
        ``hits`` = |top-S ∩ R|, ``recall`` = hits / r, ``precision`` = hits / S, ``fdr`` = 1 − precision,
        ``recall_informative`` = |top-S ∩ I| / |I|, ``success`` = R ⊆ top-S, ``exact`` = (top r) == R,
        ``s_full`` = 1 + the worst rank (0-based) of a relevant feature in the ranking, ``chance_recall``
        = S / D. The top S is a subset search's own choice at S where ``results.csv`` records one
        (``ResultSet.top_sets``), as in :func:`ground_truth_tables`.
    """
    rows = []
    for rs in sets:
        if rs.rankings is None or rs.rankings.empty:
            continue
        known = _known_sets(rs, relevant)
        ok = rs.results[rs.results["status"] == "ok"] if rs.results is not None else None
        r = rs.rankers()
        r = r[r["dataset"].astype(str).isin(known)]
        for key, g in r.groupby(GROUP, sort=False):
            rel, inf = known[str(key[1])]
            rel_arr, inf_arr = np.fromiter(rel, dtype=np.int64), np.fromiter(inf, dtype=np.int64)
            n_rel = len(rel)
            d = int(g["order_len"].max())
            g, splits = ranking_splits(g)
            orders = [np.asarray(o) for o in g["order_idx"]]
            grid: set[int] = set()
            if ok is not None:
                sel = ok
                for col, v in zip(GROUP, key):
                    sel = sel[sel[col] == v]
                grid = {int(s) for s in sel["n_features"].unique() if s < d}
            exact = [set(t.tolist()) == rel for t in rs.top_sets(tuple(key)[1:], n_rel, splits, orders)]
            s_full = []
            for o in orders:
                pos = np.full(max(d, int(rel_arr.max()) + 1), -1, dtype=np.int64)
                pos[o] = np.arange(o.size)
                worst = pos[rel_arr]
                # a ranking that leaves a relevant feature out never holds all of R
                s_full.append(float(worst.max() + 1) if (worst >= 0).all() else float("nan"))
            for s in sorted(grid | {n_rel}):
                tops = rs.top_sets(tuple(key)[1:], s, splits, orders)
                for (rep, fold), top, ex, sf in zip(splits, tops, exact, s_full):
                    hits = int(np.isin(top, rel_arr).sum())
                    rows.append(
                        {
                            **dict(zip(GROUP, key)),
                            "n_features": s,
                            "repeat": rep,
                            "fold": fold,
                            "D": d,
                            "relevant": n_rel,
                            "informative": len(inf),
                            "hits": hits,
                            "recall": hits / n_rel,
                            "precision": hits / s,
                            "fdr": 1.0 - hits / s,
                            "recall_informative": float(np.isin(top, inf_arr).sum()) / len(inf),
                            "success": hits == n_rel,
                            "exact": bool(ex),
                            "s_full": sf,
                            "chance_recall": min(s, d) / d,
                        }
                    )
    return pd.DataFrame(rows, columns=SPLIT_COLUMNS)


def bootstrap_mean_interval(
    values: np.ndarray, alpha: float = 0.05, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of ``values`` (resampled with replacement).

    Seeded, so a table is the same on every run; with one value, or all values equal, the interval is
    that value. NaN for no values.
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan")
    idx = np.random.default_rng(seed).integers(0, v.size, size=(n_boot, v.size))
    means = v[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


#: Columns of :func:`recovery_table`.
RECOVERY_COLUMNS = [
    *GROUP,
    "n_features",
    "D",
    "relevant",
    "informative",
    "repeats",
    "recall",
    "recall_ci_low",
    "recall_ci_high",
    "precision",
    "precision_ci_low",
    "precision_ci_high",
    "fdr",
    "recall_informative",
    "successes",
    "success_rate",
    "success_ci_low",
    "success_ci_high",
    "exact",
    "exact_rate",
    "exact_ci_low",
    "exact_ci_high",
    "chance_recall",
]


def recovery_table(
    per_split: pd.DataFrame, alpha: float = 0.05, n_boot: int = 2000, seed: int = 0
) -> pd.DataFrame:
    """Per (dataset, kernel, n_train, selector, S): the :func:`recovery_by_split` rows over the splits.

    Parameters
    ----------
    per_split : DataFrame
        :func:`recovery_by_split`'s table.
    alpha : float
        1 − confidence level of the intervals.
    n_boot, seed : int
        Bootstrap resamples and their seed (every group is resampled from ``seed`` anew, so a group's
        interval does not depend on the other groups).

    Returns
    -------
    DataFrame
        :data:`RECOVERY_COLUMNS`: ``repeats`` (splits), the means of ``recall``, ``precision`` (each with
        a percentile-bootstrap interval over the splits), ``fdr`` and ``recall_informative``;
        ``successes`` (R ⊆ top-S) and ``exact`` ((top r) == R) as counts, rates and Wilson intervals;
        ``chance_recall`` = S / D.
    """
    out = []
    for key, g in per_split.groupby([*GROUP, "n_features"], sort=False):
        m = len(g)
        succ, ex = int(g["success"].sum()), int(g["exact"].sum())
        rec_lo, rec_hi = bootstrap_mean_interval(g["recall"].to_numpy(), alpha, n_boot, seed)
        pre_lo, pre_hi = bootstrap_mean_interval(g["precision"].to_numpy(), alpha, n_boot, seed)
        s_lo, s_hi = wilson_interval(succ, m, alpha)
        e_lo, e_hi = wilson_interval(ex, m, alpha)
        first = g.iloc[0]
        out.append(
            {
                **dict(zip([*GROUP, "n_features"], key)),
                "D": int(first["D"]),
                "relevant": int(first["relevant"]),
                "informative": int(first["informative"]),
                "repeats": m,
                "recall": float(g["recall"].mean()),
                "recall_ci_low": rec_lo,
                "recall_ci_high": rec_hi,
                "precision": float(g["precision"].mean()),
                "precision_ci_low": pre_lo,
                "precision_ci_high": pre_hi,
                "fdr": float(g["fdr"].mean()),
                "recall_informative": float(g["recall_informative"].mean()),
                "successes": succ,
                "success_rate": succ / m,
                "success_ci_low": s_lo,
                "success_ci_high": s_hi,
                "exact": ex,
                "exact_rate": ex / m,
                "exact_ci_low": e_lo,
                "exact_ci_high": e_hi,
                "chance_recall": float(first["chance_recall"]),
            }
        )
    return pd.DataFrame(out, columns=RECOVERY_COLUMNS)


def chance_hits_pvalue(total_hits: int, d: int, r: int, splits: int) -> float:
    """P(a random ranking's hits at S = r, summed over ``splits`` independent splits, ≥ ``total_hits``).

    A random top r out of D holds a hypergeometric number of the r relevant features (population D, r
    successes, r draws); the sum over the splits is their convolution, computed exactly.
    """
    pmf = stats.hypergeom(d, r, r).pmf(np.arange(r + 1))
    total = np.array([1.0])
    for _ in range(splits):
        total = np.convolve(total, pmf)
    return float(min(1.0, total[total_hits:].sum()))


#: Columns of :func:`who_finds_table`.
WHO_FINDS_COLUMNS = [
    *GROUP,
    "D",
    "relevant",
    "informative",
    "repeats",
    "exact",
    "exact_rate",
    "exact_ci_low",
    "exact_ci_high",
    "recall_at_r",
    "recall_informative_at_r",
    "chance_recall_at_r",
    "p_chance",
    "s_full_median",
]


def who_finds_table(per_split: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """One row per (dataset, kernel, n_train, selector): who finds the relevant set, best first.

    Parameters
    ----------
    per_split : DataFrame
        :func:`recovery_by_split`'s table (its rows at S = r are used).
    alpha : float
        1 − confidence level of the Wilson interval of the exact-recovery rate.

    Returns
    -------
    DataFrame
        :data:`WHO_FINDS_COLUMNS`: ``exact`` = splits whose top r are exactly R (rate, Wilson interval);
        ``recall_at_r`` and ``recall_informative_at_r``: mean recall of R and of I in the top r (at S = r,
        recall and precision are equal); ``chance_recall_at_r`` = r / D; ``p_chance``: the exact
        one-sided p-value of the total hits at S = r against a random ranking
        (:func:`chance_hits_pvalue`; small = found beyond chance); ``s_full_median``: the median over the
        splits of the smallest S that holds all of R. Within a (dataset, kernel, n_train): sorted by
        exact-recovery rate, then recall at r (both descending), then ``s_full_median``, then name.
    """
    at_r = per_split[per_split["n_features"] == per_split["relevant"]]
    out = []
    for key, g in at_r.groupby(GROUP, sort=False):
        m, d, r = len(g), int(g["D"].iloc[0]), int(g["relevant"].iloc[0])
        ex = int(g["exact"].sum())
        lo, hi = wilson_interval(ex, m, alpha)
        out.append(
            {
                **dict(zip(GROUP, key)),
                "D": d,
                "relevant": r,
                "informative": int(g["informative"].iloc[0]),
                "repeats": m,
                "exact": ex,
                "exact_rate": ex / m,
                "exact_ci_low": lo,
                "exact_ci_high": hi,
                "recall_at_r": float(g["recall"].mean()),
                "recall_informative_at_r": float(g["recall_informative"].mean()),
                "chance_recall_at_r": r / d,
                "p_chance": chance_hits_pvalue(int(g["hits"].sum()), d, r, m),
                "s_full_median": float(g["s_full"].median()),
            }
        )
    df = pd.DataFrame(out, columns=WHO_FINDS_COLUMNS)
    # blocks (dataset, kernel, n_train) in the order they come, each sorted best first
    df["_block"] = df.groupby(GROUP[:4], sort=False).ngroup()
    df = df.sort_values(
        ["_block", "exact_rate", "recall_at_r", "s_full_median", "selector"],
        ascending=[True, False, False, True, True],
        kind="mergesort",
    )
    return df.drop(columns="_block").reset_index(drop=True)


def who_finds_markdown(who: pd.DataFrame) -> str:
    """One Markdown table per (source, dataset, kernel, n_train) of :func:`who_finds_table`."""
    parts = []
    for key, g in who.groupby(GROUP[:4], sort=False):
        source, ds, kern, n = key
        d, r, i = int(g["D"].iloc[0]), int(g["relevant"].iloc[0]), int(g["informative"].iloc[0])
        core = f", informative core |I| = {i}" if i != r else ""
        rows = []
        for x in g.itertuples():
            row = [
                x.selector,
                f"{x.exact}/{x.repeats}",
                f"{100 * x.exact_rate:.0f} [{100 * x.exact_ci_low:.0f}, {100 * x.exact_ci_high:.0f}]",
                f"{x.recall_at_r:.2f}",
            ]
            if i != r:
                row.append(f"{x.recall_informative_at_r:.2f}")
            row += [
                f"{x.p_chance:.2g}",
                "–" if x.s_full_median != x.s_full_median else f"{x.s_full_median:g}",
            ]
            rows.append(row)
        header = ["selector", "exact", "exact % [CI]", "recall at r"]
        header += ["recall of I at r"] if i != r else []
        header += ["p vs chance", "median S for all of R"]
        parts += [
            f"### {ds} ({source}, {kern}, n_train = {n}): D = {d}, |R| = r = {r}{core}; chance recall at "
            f"r = {r / d:.3g}",
            "",
            md_table(header, rows),
        ]
    return "\n".join(parts)


RECOVERY_LEGEND = (
    "Recovery of the known relevant set R (`fsbench.results.ground_truth`). *exact*: splits whose top r "
    "(r = |R|) are exactly R, with a Wilson interval; *recall at r*: mean |top-r ∩ R| / r (= the precision "
    "at S = r); *recall of I*: the same for the informative core (Madelon: the informative features "
    "without their redundant and repeated copies); *p vs chance*: exact one-sided p-value of the hits at "
    "S = r summed over the splits against a random ranking; *median S for all of R*: the smallest S whose "
    "top S holds R, median over the splits (a random ranking's mean: r(D+1)/(r+1)). Per S (recall, "
    "precision, FDR, R ⊆ top S, with intervals): `recovery.csv`; per split: `recovery_splits.csv`."
)


def write_recovery_tables(sets: list[ResultSet], out: Path, alpha: float = 0.05) -> list[Path]:
    """Write ``recovery_splits.csv``, ``recovery.csv``, ``recovery_who_finds.csv`` and ``recovery.md``
    (the who-finds tables per scenario) into ``out``; nothing when no dataset has a known R.

    Returns
    -------
    list of Path
        The files written.
    """
    per_split = recovery_by_split(sets)
    if per_split.empty:
        return []
    out.mkdir(parents=True, exist_ok=True)
    who = who_finds_table(per_split, alpha)
    files = [out / "recovery_splits.csv", out / "recovery.csv", out / "recovery_who_finds.csv"]
    per_split.to_csv(files[0], index=False)
    recovery_table(per_split, alpha).to_csv(files[1], index=False)
    who.to_csv(files[2], index=False)
    files.append(out / "recovery.md")
    files[3].write_text(
        f"# Who finds the relevant set\n\n{RECOVERY_LEGEND}\n\n{who_finds_markdown(who)}", encoding="utf-8"
    )
    return files


def main(argv: list[str] | None = None) -> int:
    """``python -m fsbench.results.ground_truth RESULT_DIR... [--out DIR]``: :func:`write_recovery_tables`."""
    ap = argparse.ArgumentParser(
        prog="python -m fsbench.results.ground_truth",
        description="Recovery of the known relevant features: per split, per S, and who finds them.",
    )
    ap.add_argument("results", nargs="+", type=Path, help="result directories (searched recursively)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: the first RESULT_DIR)")
    args = ap.parse_args(argv)
    files = write_recovery_tables(load_result_sets(args.results), args.out or args.results[0])
    print("\n".join(str(f) for f in files) if files else "no dataset with known relevant features")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
