"""The cross-dataset report at fractions of D: the headline (Holm against the best-ranked selector), the
bootstrap intervals of the average ranks, what was run, and the critical-difference diagrams."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.crossdataset.common import ALPHA, Links, fig, frac
from fsbench.results.fractions import (
    FractionComparison,
)
from fsbench.results.loading import ResultSet
from fsbench.results.pairing import fraction_rows
from fsbench.results.posthoc import control_comparisons, not_worse_sets, rank_bootstrap
from fsbench.results.schema import BASELINE
from fsbench.results.stats_compare import plot_cd_diagram
from fsbench.results.tables import md_table, save_figure, write_table


def long_table(sets: list[ResultSet], fractions: list[float], selectors: list[str] | None) -> pd.DataFrame:
    """The rows at every fraction of D as one long table (:func:`fsbench.results.pairing.fraction_rows`),
    the all-features SVM repeated at each fraction; only ``selectors`` (and the baseline) when given."""
    table = fraction_rows(pd.concat([rs.results for rs in sets], ignore_index=True), fractions)
    if selectors is not None:
        table = table[table["selector"].isin([*selectors, BASELINE])]
    return table.reset_index(drop=True)


def headline(
    ctx: Links, fcs: list[FractionComparison], table: pd.DataFrame, out: Path
) -> tuple[list[str], pd.DataFrame]:
    """Which selectors are not significantly worse than the best-ranked one (the control), at each fraction.

    Wilcoxon signed-rank against the control with Holm over the k − 1 comparisons with it (Demšar 2006;
    García & Herrera 2008), the rank z-test beside it; returns the lines and the comparisons.
    """
    lines = ["## Headline", ""]
    ranked = table[table["selector"] != BASELINE]
    if ranked.empty or ranked["selector"].nunique() < 2:
        return [*lines, "No fraction of D has two selectors on two datasets to compare yet.", ""], ranked
    res = control_comparisons(ranked, by="fraction", alpha=ALPHA)
    wil = not_worse_sets(res, by="fraction").set_index("fraction")
    zed = not_worse_sets(res, by="fraction", column="z_not_worse").set_index("fraction")
    write_table(
        res,
        out / "control_comparisons",
        "Every selector against the best-ranked one (the control), at each fraction of D",
        "Wilcoxon signed-rank on the datasets' mean errors and the rank z-test; each family of k - 1 "
        f"p-values Holm-adjusted (alpha = {ALPHA}); the control's row has no test.",
    )
    p_ff = {fc.fraction: fc.comparison.friedman.p_ff for fc in fcs if fc.comparison is not None}
    rows = []
    for f, r in wil.iterrows():
        rows.append(
            [
                frac(f),
                str(r["n_blocks"]),
                str(r["k"]),
                r["control"],
                f"{r['n_not_worse']}: {r['not_worse']}",
                r["worse"] or "none",
                zed.loc[f, "worse"] or "none",
                f"{p_ff[f]:.3g}" if f in p_ff else "–",
            ]
        )
    k = int(wil["k"].max())
    lines += [
        "At each fraction of D the selectors are ranked on every dataset (1 = lowest mean test error over "
        "the splits all of them finished); the one with the best average rank over the datasets is the "
        "*control*. Every other selector is compared with the control alone: a two-sided Wilcoxon "
        "signed-rank test on the datasets' paired mean errors, and the k − 1 p-values of a fraction "
        f"Holm-adjusted together (alpha = {ALPHA}). The correction is for the k − 1 = {k - 1} comparisons "
        "with the control, not for every pair: the question is only which selectors are worse than the best "
        "(Demšar 2006, §3.2.2; García & Herrera 2008). *Not significantly worse* includes the control. The "
        "rank z-test against the control, z = (R_i − R_c) / √(k(k + 1)/(6N)), with the same Holm correction, "
        "is given beside it for reference; it uses only the average ranks. Every comparison, with "
        f"p-values: [`control_comparisons.csv`]({ctx.rel(out / 'control_comparisons.csv')}). The tests over "
        "all pairs (Nemenyi, Holm over every pair) answer another question and are used only for the CD "
        "diagrams below.",
        "",
        md_table(
            [
                "S / D",
                "datasets",
                "k",
                "control (best average rank)",
                "not significantly worse (Wilcoxon, Holm over k − 1)",
                "significantly worse (Wilcoxon, Holm over k − 1)",
                "significantly worse (rank z-test, Holm over k − 1)",
                "p (Iman–Davenport)",
            ],
            rows,
        ),
        "",
    ]
    skipped = [fc for fc in fcs if fc.comparison is None]
    lines += [f"- {frac(fc.fraction)}: no comparison — {fc.reason}" for fc in skipped]
    return ([*lines, ""] if skipped else lines), res


#: Bootstrap of the average ranks: B resamples of the datasets, seeded (stated in the report).
N_BOOT = 2000


BOOT_SEED = 0


LEVEL = 0.95


def bootstrap_section(ctx: Links, table: pd.DataFrame, out: Path) -> list[str]:
    """Percentile bootstrap intervals of every selector's average rank per fraction, resampling datasets."""
    ranked = table[table["selector"] != BASELINE]
    boot = rank_bootstrap(ranked, by="fraction", n_boot=N_BOOT, level=LEVEL, seed=BOOT_SEED)
    write_table(
        boot,
        out / "rank_bootstrap",
        "Bootstrap intervals of the average ranks at each fraction of D",
        f"Datasets resampled with replacement, B = {N_BOOT}, seed {BOOT_SEED}; percentile intervals "
        f"({100 * LEVEL:g} %); share_best: share of resamples in which the selector ranks best on average.",
    )
    fractions = sorted(boot["fraction"].unique())
    cell = {
        (r.selector, r.fraction): f"{r.average_rank:.1f} [{r.ci_low:.1f}, {r.ci_high:.1f}]"
        for r in boot.itertuples(index=False)
    }
    order = boot.groupby("selector")["average_rank"].mean().sort_values(kind="stable").index
    rows = [[sel, *(cell.get((sel, f), "") for f in fractions)] for sel in order]
    top = []
    for f in fractions:
        g = boot[boot["fraction"] == f].sort_values("share_best", ascending=False, kind="stable")
        top.append(f"{g['selector'].iloc[0]} ({100 * g['share_best'].iloc[0]:.0f} %)")
    rows.append(["*best most often*", *top])
    n = int(boot["n_blocks"].max())
    return [
        "### How much the order owes to the datasets chosen",
        "",
        f"Each selector's average rank with its {100 * LEVEL:g} % percentile bootstrap interval: the "
        f"{n} datasets drawn {n} times with replacement, B = {N_BOOT} times (seed {BOOT_SEED}), the "
        "selectors ranked within each drawn dataset as above and averaged (Efron & Tibshirani 1993). The "
        "intervals say how far the order would move on another draw of datasets like these, not how the "
        "splits vary. Last row: the selector with the best average rank in the most resamples. Table: "
        f"[`rank_bootstrap.csv`]({ctx.rel(out / 'rank_bootstrap.csv')}).",
        "",
        md_table(["selector", *(f"{frac(f)} of D" for f in fractions)], rows),
        "",
    ]


def run_section(parts: list[ResultSet], table: pd.DataFrame) -> list[str]:
    """What was run, counted from the rows: selectors, datasets, repeats, tasks; the selectors left out of the
    run (``run.json``'s ``excluded_selectors``) and why; the S each fraction resolves to on every dataset."""
    lines = ["## What was run", ""]
    rows = pd.concat([rs.results for rs in parts], ignore_index=True)
    baseline = set().union(*(rs.baseline_labels for rs in parts))
    selectors = sorted(set(rows["selector"].astype(str)))
    rankers = [s for s in selectors if s not in baseline]
    datasets = sorted(set(rows["dataset"].astype(str)))
    repeats = rows["repeat"].nunique()
    tasks = rows.drop_duplicates(["source", "task_id"]) if "task_id" in rows.columns else rows
    excluded = sorted({str(s) for rs in parts for s in ((rs.run or {}).get("excluded_selectors") or [])})
    lines += [
        f"**{len(rankers)} rankers** ({', '.join(rankers)}; random_ranking is the chance reference) and "
        f"the SVM on all features, on **{len(datasets)} datasets** × {repeats} repeats: {len(tasks):,} "
        "tasks, counted from the result rows. The all-features SVM is the reference of *Does selection "
        "help?*, not a ranked selector.",
        "",
    ]
    if excluded:
        lines += [
            f"Defined in the config but **left out of this run: {', '.join(excluded)}** "
            f"({len(excluded)} selector{'s' * (len(excluded) != 1)}, `--exclude-selector`; in `run.json`). "
            "The reason is their "
            "cost: they are the config's slow selectors, and the run was planned at about 3 hours wall on "
            "two cores with them left out (the notes' *Cost*). They are in none of the tables below; a later "
            "run without the exclusion resumes the stored tasks and adds them (the config hash does not "
            "change).",
            "",
        ]
    s_of = table[table["selector"] != BASELINE].groupby(["dataset", "fraction"])["S"].first().unstack()
    d_of = table.groupby("dataset")["D"].first()
    s_of = s_of.loc[d_of.loc[s_of.index].sort_values(kind="stable").index]
    ones = (s_of == 1).sum()
    body = [
        [str(ds), str(d_of[ds]), *("" if s != s else ("**1** ⚑" if s == 1 else str(int(s))) for s in r)]
        for ds, r in s_of.iterrows()
    ]
    body.append(["*datasets with S = 1*", "", *(str(int(ones[f])) for f in s_of.columns)])
    lines += [
        "### The S of each fraction, per dataset",
        "",
        "S = max(1, round(f·D)), rounded half up, as the run sets it. ⚑ = S = 1: a single feature, where "
        "every selector that ranks the same feature first gives the same SVM and the same error, so many "
        "selectors tie in that block's ranks (and a block may recur at several fractions with the same S). "
        "Last row: how many of the blocks of each fraction have S = 1.",
        "",
        md_table(["dataset", "D", *(f"{frac(f)} of D" for f in s_of.columns)], body),
        "",
    ]
    return lines


def cd_section(
    ctx: Links, fcs: list[FractionComparison], ranks: pd.DataFrame, control: pd.DataFrame, out: Path
) -> list[str]:
    """Average ranks per fraction (table) and the two CD diagrams of each fraction (tests over all pairs)."""
    lines = [
        "## Critical-difference diagrams over the datasets, at each fraction of D",
        "",
        "Each dataset is one block: the selectors' mean test errors over the splits all of them finished, at "
        "the S that the fraction resolves to on that dataset (S = max(1, round(f·D)), as in the run). Rank 1 "
        "= lowest error; equal means share the rank. The diagrams answer a question other than the "
        "headline's: which *pairs* of selectors differ. Their bars join selectors that the test cannot "
        "tell apart, correcting for all k(k − 1)/2 pairs: Nemenyi (with its critical difference CD) and "
        "Wilcoxon signed-rank tests Holm-adjusted over every pair (Demšar 2006). Corrected for k(k − 1)/2 "
        "instead of k − 1 comparisons, they are not the test of the headline. On a small D several "
        "fractions give the same S (iris, D = 4: S = 1 up to "
        "30 %), so its block recurs. The all-features SVM is the reference column of the best-method "
        "table, not a ranked selector.",
        "",
    ]
    if ranks.empty:
        return [*lines, "Nothing to compare yet.", ""]
    piv = ranks.pivot(index="selector", columns="fraction", values="average_rank")
    vs_control = control.pivot(index="selector", columns="fraction", values="wilcoxon_not_worse")
    best = ranks.pivot(index="selector", columns="fraction", values="best")
    piv = piv.loc[piv.mean(axis=1).sort_values(kind="stable").index]
    rows = []
    for sel, r in piv.iterrows():
        cells = []
        for f in piv.columns:
            v = r[f]
            if v != v:
                cells.append("")
                continue
            txt = f"{v:.2f}"
            if bool(best.loc[sel, f]):
                txt = f"**{txt}**"
            elif bool(vs_control.loc[sel, f]):
                txt += " ≈"
            cells.append(txt)
        rows.append([sel, *cells, f"{r.mean():.2f}"])
    write_table(
        ranks,
        out / "ranks_by_fraction",
        "Average ranks over the datasets at each fraction of D",
        "not_worse_nemenyi / not_worse_holm: not significantly worse than the selector with the best average "
        f"rank under the all-pairs tests of the CD diagrams (alpha = {ALPHA}); the headline's test against "
        "that selector alone is in control_comparisons.csv.",
    )
    lines += [
        "Average rank over the datasets (bold = best, the control; ≈ = not significantly worse than it, "
        "Wilcoxon with Holm over the k − 1 comparisons with the control, as in the headline). "
        f"Table: [`ranks_by_fraction.csv`]({ctx.rel(out / 'ranks_by_fraction.csv')}).",
        "",
        md_table(["selector", *(f"S = {frac(f)} of D" for f in piv.columns), "mean"], rows),
        "",
    ]
    for fc in fcs:
        c = fc.comparison
        if c is None:
            continue
        tag = f"{fc.fraction:g}".replace(".", "p")
        avg, n, k = c.friedman.average_ranks, c.friedman.n_blocks, c.friedman.k
        nem = save_figure(
            plot_cd_diagram(
                avg,
                c.nemenyi_groups,
                c.cd,
                f"S = {frac(fc.fraction)} of D: Nemenyi (all pairs), N = {n} datasets, k = {k}",
            ),
            out / f"cd_nemenyi_{tag}",
        )[0]
        wil = save_figure(
            plot_cd_diagram(
                avg,
                c.wilcoxon_groups,
                None,
                f"S = {frac(fc.fraction)} of D: Wilcoxon, Holm over all {k * (k - 1) // 2} pairs, "
                f"N = {n} datasets",
            ),
            out / f"cd_wilcoxon_holm_{tag}",
        )[0]
        write_table(
            c.posthoc,
            out / f"posthoc_{tag}",
            f"Post-hoc tests over all pairs at S = {frac(fc.fraction)} of D (the CD diagrams)",
            f"Nemenyi CD = {c.cd:.3f}; Wilcoxon p-values Holm-adjusted over all {k * (k - 1) // 2} pairs.",
        )
        fr = c.friedman
        lines += [
            f"### S = {frac(fc.fraction)} of D",
            "",
            f"{n} datasets, {k} selectors; Friedman chi2_F = {fr.chi2:.2f} (p = {fr.p_chi2:.3g}), "
            f"Iman–Davenport F_F = {fr.ff:.2f} (p = {fr.p_ff:.3g}); Nemenyi CD = {c.cd:.2f}. "
            f"Every pair (Nemenyi; Wilcoxon, Holm over all {k * (k - 1) // 2} pairs): "
            f"[`posthoc_{tag}.csv`]({ctx.rel(out / f'posthoc_{tag}.csv')}).",
            "",
        ]
        # the baseline's note ("left out, only at S = D") holds at every fraction: said once, above
        notes = [n for n in c.blocks.notes if "all-features baseline" not in n]
        lines += [f"- {note}" for note in notes] + ([""] if notes else [])
        lines += fig(ctx, nem, f"CD diagram, Nemenyi over all pairs, {frac(fc.fraction)}")
        lines += fig(ctx, wil, f"CD diagram, Wilcoxon with Holm over all pairs, {frac(fc.fraction)}")
    return lines
