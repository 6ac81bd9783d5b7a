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
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from fsbench.data import DatasetError, get_card
from fsbench.results.loading import ResultSet, ranking_splits

GROUP = ["source", "dataset", "kernel", "n_train", "selector"]

#: Number of relevant features of each synthetic generator; they are always the first ones (0-based).
#: ``ring_fig1`` (Ring & Eskofier 2015, Fig. 1): its x3, x4 carry information too (shifted overlapping
#: Gaussians), so "relevant" there means the *optimal pair* {x1, x2}, the only pair on which the classes
#: are separable ("enables the classifier to correctly classify all patterns", the paper's Fig. 1); its
#: exact-recovery rate is the share of draws whose chosen pair is {x1, x2}.
RELEVANT_BY_GENERATOR: dict[str, int] = {"weston_linear": 6, "weston_nonlinear": 2, "ring_fig1": 2}


def relevant_features(generator: str, params: dict[str, Any] | None = None) -> frozenset[int] | None:
    """The relevant features (0-based) of a generator with these parameters, or None if unknown."""
    n = RELEVANT_BY_GENERATOR.get(generator)
    if n is None:
        return None
    n_features = (params or {}).get("n_features")
    if n_features is not None:  # the generators truncate inside the relevant block (Ramona Table IX, D = 5)
        n = min(n, int(n_features))
    return frozenset(range(n))


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
