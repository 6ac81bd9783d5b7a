"""The cross-dataset report across tracks and evaluators: the tracks table, the statistics per evaluator
with how far the order depends on it, and the recommendation generated from the numbers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.cost import TIME
from fsbench.results.crossdataset.common import ALPHA, Links, frac, group_label, secs
from fsbench.results.loading import ResultSet
from fsbench.results.posthoc import not_worse_sets, order_agreement
from fsbench.results.tables import md_table, write_table
from fsbench.results.tracks import (
    EVALUATOR,
    grid,
    rank_cost_front,
    recommendations,
    s_scheme,
)


def tracks_intro(tracks: dict[str, list[ResultSet]]) -> list[str]:
    """What each track is, counted from its directories: scheme of S, datasets, result directories."""
    rows = []
    for name, parts in tracks.items():
        scheme = s_scheme(parts[0])
        values = grid(parts)
        at = (
            ", ".join(frac(v) for v in values)
            if scheme == "fraction"
            else ", ".join(str(int(v)) for v in values)
        )
        datasets = {str(d) for rs in parts for d in rs.results["dataset"].unique()}
        rows.append(
            [
                name,
                "fractions of D" if scheme == "fraction" else "absolute S",
                at,
                str(len(datasets)),
                ", ".join(f"`{rs.source}`" for rs in parts),
            ]
        )
    return [
        "## Tracks",
        "",
        f"The results hold {len(tracks)} tracks, told apart by their run's config name. Each track is "
        "analysed on its own: its statistics pool only its own datasets, never another track's. On a track "
        "whose S are fractions of D, one block of a test is a dataset at the S the fraction resolves to; on "
        "a track with an absolute grid of S, one block is a dataset at that S.",
        "",
        md_table(["track", "S", "grid", "datasets", "result directories"], rows),
        "",
    ]


def evaluator_section(ctx: Links, comps: pd.DataFrame, skipped: list[str], by: str, out: Path) -> list[str]:
    """Headline (Holm vs the control) and average ranks per evaluator, and how far the order depends on it."""
    lines = ["## Per evaluator", ""]
    if comps.empty:
        return [*lines, "Nothing to compare yet.", "", *(f"- {s}" for s in skipped)]
    evaluators = sorted(comps[EVALUATOR].unique())
    write_table(
        comps,
        out / "evaluator_comparisons",
        "Every selector against the best-ranked one, per evaluator",
        f"Wilcoxon signed-rank and rank z-test against the control, Holm over k - 1 (alpha = {ALPHA}), per "
        f"{by} and evaluator.",
    )
    heads = not_worse_sets(comps, by=[by, EVALUATOR])
    rows = [
        [
            group_label(by, r[by]),
            r[EVALUATOR],
            str(r["n_blocks"]),
            str(r["k"]),
            r["control"],
            f"{r['n_not_worse']}: {r['not_worse']}",
            r["worse"] or "none",
        ]
        for _, r in heads.iterrows()
    ]
    piv = comps.groupby(["selector", EVALUATOR])["average_rank"].mean().unstack(EVALUATOR)
    piv = piv.loc[piv.mean(axis=1).sort_values(kind="stable").index]
    rank_rows = [[sel, *(f"{v:.2f}" if v == v else "" for v in r)] for sel, r in piv.iterrows()]
    lines += [
        f"The evaluators ({', '.join(evaluators)}) score the same top-S subsets: no selector reselects for "
        "another learner. For each evaluator and each "
        f"{'fraction of D' if by == 'fraction' else 'S'} the headline's test is repeated: the selector with "
        "the best average rank over the datasets is the control, every other one is compared with it by the "
        f"Wilcoxon signed-rank test, Holm over the k − 1 comparisons (alpha = {ALPHA}). Every comparison: "
        f"[`evaluator_comparisons.csv`]({ctx.rel(out / 'evaluator_comparisons.csv')}).",
        "",
        md_table(
            [
                "S",
                "evaluator",
                "datasets",
                "k",
                "control (best average rank)",
                "not significantly worse",
                "significantly worse",
            ],
            rows,
        ),
        "",
        *(f"- not compared: {s}" for s in skipped),
        *([""] if skipped else []),
        f"Average rank per evaluator, the mean over the {'fractions of D' if by == 'fraction' else 'S'}:",
        "",
        md_table(["selector", *piv.columns], rank_rows),
        "",
    ]
    if len(evaluators) < 2:
        return lines
    agree = order_agreement(comps, evaluator=EVALUATOR, by=by)
    write_table(
        agree,
        out / "evaluator_agreement",
        "Agreement of the evaluators' selector orders",
        "Kendall tau_b and Spearman rho between the average-rank orders of two evaluators, per group.",
    )
    values = sorted(agree[by].unique())
    cell = {(r.evaluator_a, r.evaluator_b, getattr(r, by)): r for r in agree.itertuples(index=False)}
    pairs = list(dict.fromkeys(zip(agree["evaluator_a"], agree["evaluator_b"])))
    body = []
    for a, b in pairs:
        cells = []
        for v in values:
            r = cell.get((a, b, v))
            cells.append("" if r is None else f"{r.kendall_tau:.2f} / {r.spearman_rho:.2f}")
        body.append([f"{a} vs {b}", *cells])
    low = agree.loc[agree["kendall_tau"].idxmin()] if agree["kendall_tau"].notna().any() else None
    lines += [
        "### How far the selectors' order depends on the evaluator",
        "",
        "Kendall's τ_b / Spearman's ρ between two evaluators' orders of the selectors by average rank (1 = "
        "the same order, −1 the reverse), over the selectors both rank. "
        + (
            f"The lowest τ: {low['kendall_tau']:.2f}, {low['evaluator_a']} vs {low['evaluator_b']} at "
            f"{group_label(by, low[by])}. "
            if low is not None
            else ""
        )
        + f"With p-values: [`evaluator_agreement.csv`]({ctx.rel(out / 'evaluator_agreement.csv')}).",
        "",
        md_table(["evaluators", *(group_label(by, v) for v in values)], body),
        "",
    ]
    return lines


def recommendation_section(
    ctx: Links, comps: pd.DataFrame, parts: list[ResultSet], by: str, out: Path
) -> list[str]:
    """Which selectors to use, from the numbers: per evaluator and group, the best-ranked selector and those
    not significantly worse than it, with their selection cost; the Pareto front of rank against cost."""
    lines = ["## Recommendation", ""]
    if comps.empty:
        return [*lines, "Nothing to compare yet.", ""]
    rec = recommendations(comps, parts, by)
    front = rank_cost_front(comps, parts)
    write_table(
        rec,
        out / "recommendations",
        "The selectors not significantly worse than the best-ranked one, with their cost",
        f"Wilcoxon signed-rank against the control, Holm over k - 1 (alpha = {ALPHA}); median fit CPU "
        "seconds over every task of the track.",
    )
    write_table(
        front,
        out / "rank_cost_front",
        "Average rank against selection cost, per evaluator",
        "mean_average_rank: mean over the groups; pareto: no selector both as cheap and as well ranked.",
    )
    lines += [
        "Generated from the tests above: at each "
        f"{'fraction of D' if by == 'fraction' else 'S'} and for each evaluator, the selector with the "
        "best average rank, and those the data cannot separate from it (not significantly worse, Wilcoxon "
        f"with Holm over k − 1, alpha = {ALPHA}), each with its median CPU seconds per selection fit. "
        f"Tables: [`recommendations.csv`]({ctx.rel(out / 'recommendations.csv')}), "
        f"[`rank_cost_front.csv`]({ctx.rel(out / 'rank_cost_front.csv')}).",
        "",
    ]
    for ev, g in rec.groupby(EVALUATOR, sort=True):
        lines += [f"**{ev}**", ""]
        for v, h in g.groupby(by, sort=True):
            top = h[h["is_control"]].iloc[0]
            others = h[~h["is_control"]]
            cheap = h[h["cheapest"]]["selector"].tolist()
            text = (
                f"- {group_label(by, v)}: **{top['selector']}** ranks best (average rank "
                f"{top['average_rank']:.2f} over {int(top['n_blocks'])} datasets, k = {int(top['k'])}; "
                f"{secs(top[f'median_{TIME}'])} per fit); "
            )
            if others.empty:
                text += "every other selector is significantly worse."
            else:
                named = ", ".join(
                    f"{r.selector} ({r.average_rank:.2f}; {secs(getattr(r, f'median_{TIME}'))})"
                    for r in others.itertuples(index=False)
                )
                text += (
                    f"not significantly worse: {named}. The cheapest of these {len(h)}: {', '.join(cheap)}."
                )
            lines.append(text)
        f = front[(front[EVALUATOR] == ev) & front["pareto"]]
        named = ", ".join(
            f"{r.selector} (rank {r.mean_average_rank:.2f}, {secs(getattr(r, f'median_{TIME}'))})"
            for r in f.sort_values(f"median_{TIME}", kind="stable").itertuples(index=False)
        )
        lines += [
            f"- Pareto front of mean average rank against median fit CPU time, cheapest first: {named}.",
            "",
        ]
    return lines
