"""The cross-dataset report's analyses of the selected subsets: stability, ground truth on the toys,
similarity of the rankings, and who finds the relevant features of the generated scenarios."""

from __future__ import annotations

from pathlib import Path

from fsbench.results.crossdataset.common import ALPHA, Links, fig, frac, pct
from fsbench.results.fractions import (
    at_fractions,
)
from fsbench.results.ground_truth import ground_truth_tables, write_recovery_tables
from fsbench.results.loading import ResultSet, read_table
from fsbench.results.similarity import cluster_order, plot_similarity, ranking_similarity
from fsbench.results.stability import stability_table
from fsbench.results.tables import md_table, write_table


def stability_section(ctx: Links, sets: list[ResultSet], fractions: list[float], out: Path) -> list[str]:
    """Mean Nogueira stability over the datasets, per selector and fraction."""
    lines = ["## Stability (Nogueira)", ""]
    stab = stability_table(sets, alpha=ALPHA)
    if stab.empty:
        return [*lines, "No rankings to compare.", ""]
    write_table(
        stab,
        out / "stability",
        "Stability of the top-S subsets across repeats",
        "Per dataset, selector and S: Kuncheva and Nogueira et al. (2018) with its CI.",
    )
    at = at_fractions(stab[stab["n_features"] < stab["d"]], fractions)
    if at.empty:
        return [*lines, "No S below D at the fractions.", ""]
    piv = at.groupby(["selector", "fraction"])["nogueira"].mean().unstack("fraction")
    piv = piv.loc[piv.mean(axis=1).sort_values(ascending=False, kind="stable").index]
    rows = [
        [sel, *(f"{v:.2f}" if v == v else "–" for v in r), f"{r.mean():.2f}"] for sel, r in piv.iterrows()
    ]
    lines += [
        "Nogueira et al.'s (2018) stability Φ̂ of the top-S feature sets over the repeats (1 = the same set "
        "every time, 0 = what a random choice gives), at the fraction's S on each dataset, averaged over the "
        "datasets (S = D left out). Per dataset, with CIs: "
        f"[`stability.csv`]({ctx.rel(out / 'stability.csv')}).",
        "",
        md_table(["selector", *(f"{frac(f)} of D" for f in piv.columns), "mean"], rows),
        "",
    ]
    return lines


def ground_truth_section(ctx: Links, sets: list[ResultSet], out: Path) -> list[str]:
    """Recovery of the known relevant features on the synthetic datasets."""
    lines = ["## Ground truth on the toys", ""]
    share, success = ground_truth_tables(sets, alpha=ALPHA)
    if success.empty:
        return [*lines, "No dataset with known relevant features.", ""]
    write_table(success, out / "ground_truth_success", "Exact recovery of the relevant features", "")
    write_table(share, out / "ground_truth", "Relevant features in the top S", "")
    at_r = share[share["n_features"] == share["relevant"]]
    rows = []
    for (ds, sel), g in success.groupby(["dataset", "selector"], sort=True):
        s = g.iloc[0]
        rec = at_r[(at_r["dataset"] == ds) & (at_r["selector"] == sel)]["recall"]
        rows.append(
            [
                ds,
                sel,
                str(int(s["relevant"])),
                f"{int(s['successes'])}/{int(s['repeats'])}",
                f"{100 * s['success_rate']:.0f} [{100 * s['ci_low']:.0f}, {100 * s['ci_high']:.0f}]",
                pct(rec.mean()) if len(rec) else "–",
            ]
        )
    lines += [
        "On the synthetic datasets the relevant features are known (Weston et al. 2001: the linear toy's "
        "first 6 features; the nonlinear toy's x1 and x2, where x2 alone is independent of y). *Exact*: "
        f"share of repeats (%, {100 * (1 - ALPHA):g} % Wilson CI) whose top r features are exactly the r "
        "relevant ones; *recall at r*: mean share of the relevant features in the top r. Per S: "
        f"[`ground_truth.csv`]({ctx.rel(out / 'ground_truth.csv')}).",
        "",
        md_table(["dataset", "selector", "r", "exact", "exact % [CI]", "recall at r %"], rows),
        "",
    ]
    return lines


def similarity_section(ctx: Links, sets: list[ResultSet], out: Path) -> list[str]:
    """Mean Spearman correlation between the selectors' rankings, clustered (Bommert et al. 2020)."""
    lines = ["## Similarity of the selectors' rankings", ""]
    # the all-features baseline's order is arbitrary: not a ranking to compare
    baseline = set().union(*(rs.baseline_labels for rs in sets))
    rankers = sorted({str(s) for rs in sets for s in rs.rankers()["selector"]} - baseline)
    sim, n = ranking_similarity(sets, selectors=rankers)
    if sim.empty:
        return [*lines, "Fewer than two selectors with complete rankings.", ""]
    order = cluster_order(sim)
    write_table(
        sim.loc[order, order].round(3).reset_index(names="selector"),
        out / "similarity_spearman",
        "Similarity of the selectors' rankings",
        "Mean Spearman correlation over the splits both selectors ran; clustered order.",
    )
    png = plot_similarity(sim, out / "similarity", "Spearman correlation of the rankings")[0]
    lines += [
        "Mean Spearman correlation between two selectors' complete rankings of the D features on the same "
        f"split, over every dataset and repeat both ran (at most {int(n.to_numpy().max())} splits per pair), "
        "clustered by average linkage on 1 − correlation, as Bommert et al. (2020) cluster filter methods. "
        "Methods in one cluster order the features alike, so they tend to pick the same sets. Matrix: "
        f"[`similarity_spearman.csv`]({ctx.rel(out / 'similarity_spearman.csv')}).",
        "",
        *fig(ctx, png, "similarity of the rankings"),
    ]
    return lines


#: Rows of the who-finds summary shown per scenario (the full table is linked).
WHO_TOP = 3


def recovery_section(ctx: Links, parts: list[ResultSet], out: Path) -> list[str]:
    """Who finds the known relevant set on each scenario: a summary, the full tables linked."""
    lines = ["## Ground truth: who finds the relevant features", ""]
    files = write_recovery_tables(parts, out)
    if not files:  # no dataset with known relevant features (the high-dimensional track): no section
        return []
    who = read_table(out / "recovery_who_finds.csv")  # as written, so the summary matches the linked file
    rows = []
    for ds, g in who.groupby("dataset", sort=True):
        g = g.reset_index(drop=True)  # best first (who_finds_table's order)
        top = ", ".join(
            f"{r.selector} ({r.exact}/{r.repeats}, recall {r.recall_at_r:.2f})"
            for r in g.head(WHO_TOP).itertuples(index=False)
        )
        beyond = int((g["p_chance"] < ALPHA).sum())
        every = int((g["exact_rate"] == 1).sum())
        rows.append(
            [
                ds,
                str(int(g["D"].iloc[0])),
                str(int(g["relevant"].iloc[0])),
                top,
                f"{beyond}/{len(g)}",
                str(every),
            ]
        )
    lines += [
        "On the generated datasets the relevant set R is known. Per scenario: the "
        f"{WHO_TOP} selectors that recover R best (exact recovery: splits whose top r = |R| features are "
        "exactly R; recall at r: mean share of R in the top r), how many selectors find R beyond chance "
        f"(exact one-sided p < {ALPHA} of the hits at S = r against a random ranking) and how many recover R "
        "exactly in every split. Every selector, with intervals: "
        f"[`recovery.md`]({ctx.rel(out / 'recovery.md')}), "
        f"[`recovery_who_finds.csv`]({ctx.rel(out / 'recovery_who_finds.csv')}); per S: "
        f"[`recovery.csv`]({ctx.rel(out / 'recovery.csv')}).",
        "",
        md_table(
            ["scenario", "D", "relevant", "best (exact, recall at r)", "beyond chance", "exact every split"],
            rows,
        ),
        "",
    ]
    return lines
