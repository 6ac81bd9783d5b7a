"""The cross-dataset report: which selector to use, and does one's own help, over a collection of result
directories (the project's benchmark, or any user's own).

:func:`cross_dataset_sections` takes the result sets (:class:`fsbench.results.loading.ResultSet`), writes
its tables and figures under ``out`` and returns the page's Markdown, links relative to ``root``. Every
number comes from the generic analyses of :mod:`fsbench.results` (the same ones ``fsbench compare`` uses):

* the result directories are grouped into *tracks* by their run's config name
  (:func:`fsbench.results.tracks.group_by_track`); each track's statistics pool only its own directories;
* at fractions of D (:mod:`.headline`): every selector against the best-ranked one, Holm over the k − 1
  comparisons with it (:mod:`fsbench.results.posthoc`), with bootstrap intervals of the average ranks; what
  was run (the rankers and datasets counted from the rows, the selectors the run left out, the S of each
  fraction per dataset); CD diagrams over the datasets at each fraction, tests over all pairs
  (:mod:`fsbench.results.fractions`);
* the answers (:mod:`.answers`): wins / ties / losses against the all-features SVM and the error difference
  to it (:mod:`fsbench.results.helps`); the leading selectors by the Bayesian signed-rank test
  (:mod:`fsbench.results.bayes`); accuracy against selection time with the Pareto front
  (:mod:`fsbench.results.cost`); the best method per dataset
  (:func:`fsbench.results.fractions.best_per_dataset`);
* the selected subsets (:mod:`.analyses`): stability (Nogueira; :mod:`fsbench.results.stability`), ground
  truth (:mod:`fsbench.results.ground_truth`), similarity of the rankings
  (:mod:`fsbench.results.similarity`), and on an absolute grid of S who finds the relevant features;
* per evaluator and the recommendation generated from the numbers (:mod:`.evaluators`,
  :mod:`fsbench.results.tracks`).

A paper folder uses it as its page's ``cross_dataset`` section (:mod:`fsbench.papers.folder`), as
``configs/benchmark/`` does; ``fsbench report DIR --cross-dataset`` gives any collection the same page.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsbench.results.crossdataset.analyses import (
    ground_truth_section,
    recovery_section,
    similarity_section,
    stability_section,
)
from fsbench.results.crossdataset.answers import bayes_section, best_section, cost_section, helps_section
from fsbench.results.crossdataset.common import ALPHA, Links, demote
from fsbench.results.crossdataset.evaluators import evaluator_section, recommendation_section, tracks_intro
from fsbench.results.crossdataset.headline import (
    bootstrap_section,
    cd_section,
    headline,
    long_table,
    run_section,
)
from fsbench.results.fractions import (
    compare_at_fractions,
    complete_selectors,
    fraction_grid,
    rank_table,
)
from fsbench.results.loading import ResultSet
from fsbench.results.pooling import pool_result_sets
from fsbench.results.tracks import (
    evaluator_comparisons,
    evaluator_table,
    grid,
    group_by_track,
    group_column,
    s_scheme,
)


def track_sections(ctx: Links, name: str, parts: list[ResultSet], out: Path) -> list[str]:
    """One track: the analyses at fractions of D (fraction tracks), per evaluator, the recommendation and,
    on an absolute grid of S, the ground truth of its scenarios."""
    scheme = s_scheme(parts[0])
    by = group_column(scheme)
    out.mkdir(parents=True, exist_ok=True)
    body = fraction_track(ctx, parts, out, name) if scheme == "fraction" else []
    table = evaluator_table(parts, scheme, grid(parts))
    # as at the fractions of D: a selector that did not run on some of the track's datasets (a run of the
    # track without it) is compared without, rather than dropping those datasets for every selector
    complete, missing = complete_selectors(parts)
    if missing and not table.empty:
        table = table[table["selector"].isin(complete)].reset_index(drop=True)
    if missing and scheme == "absolute":
        body += [
            *(
                f"- `{sel}` has no finished task on {', '.join(ds)}: left out of this track's tests (its "
                "rows and the ground truth below keep what it did)."
                for sel, ds in missing.items()
            ),
            "",
        ]
    comps, skipped = (
        evaluator_comparisons(table, by, alpha=ALPHA) if not table.empty else (pd.DataFrame(), [])
    )
    body += evaluator_section(ctx, comps, skipped, by, out)
    body += recommendation_section(ctx, comps, parts, by, out)
    if scheme == "absolute":
        body += recovery_section(ctx, parts, out)
    what = (
        "S as fractions of D: the analyses below are those of the fractions of D"
        if scheme == "fraction"
        else "S on an absolute grid: every test below has one block per dataset at each S"
    )
    return [
        f"## Track `{name}`",
        "",
        f"{what}; only this track's result directories are pooled.",
        "",
        *demote(body),
    ]


def fraction_track(ctx: Links, parts: list[ResultSet], out: Path, source: str) -> list[str]:
    """The analyses at fractions of D of one track's result directories (pooled as ``source``)."""
    # the track and any config run beside it with its base (a selector of one's own): the same splits, so
    # one experiment (checked on split_seed; notes.md, "Your own selector")
    sets = [pool_result_sets(parts, source)]
    out.mkdir(parents=True, exist_ok=True)
    fractions = fraction_grid(sets)
    # a selector without results on some dataset would drop that dataset for all: compared without it
    complete, missing = complete_selectors(sets)
    fcs = compare_at_fractions(sets, fractions, alpha=ALPHA, selectors=complete if missing else None)
    ranks = rank_table(fcs)
    table = long_table(sets, fractions, complete if missing else None)
    left_out = [
        f"- `{sel}` has no finished task on {', '.join(ds)}: left out of the comparisons (its tables "
        f"in `{source}/` keep what it did)."
        for sel, ds in missing.items()
    ]
    head, control = headline(ctx, fcs, table, out)
    if control.empty:
        return [*head, *left_out]
    return [
        *head,
        *([*left_out, ""] if left_out else []),
        *bootstrap_section(ctx, table, out),
        *run_section(parts, table),
        *cd_section(ctx, fcs, ranks, control, out),
        *helps_section(ctx, table, out),
        *bayes_section(ctx, table, out),
        *cost_section(ctx, sets, ranks, out),
        *best_section(ctx, sets, fcs, out),
        *stability_section(ctx, sets, fractions, out),
        *ground_truth_section(ctx, sets, out),
        *similarity_section(ctx, sets, out),
    ]


def cross_dataset_sections(
    sets: list[ResultSet], out: Path, root: Path, root_track: str | None = None
) -> list[str]:
    """Every analysis of the cross-dataset report, as Markdown lines; tables and figures under ``out``.

    Parameters
    ----------
    sets : list of ResultSet
        The result directories (a diagnostic's are left out).
    out : Path
        Where the tables and figures go (one folder per track below it).
    root : Path
        The report's directory: links are relative to it.
    root_track : str, optional
        A track whose files go in ``out`` itself rather than ``out/<track>`` and which, alone, is shown
        without the tracks table (the benchmark's first run, ``benchmark``, whose page and files predate
        the tracks).

    Returns
    -------
    list of str
    """
    ctx = Links(Path(root))
    parts = [s for s in sets if "diagnostic" not in s.results.columns]
    if not parts:
        return ["No result directory has been run yet (no results.csv).", ""]
    tracks = group_by_track(parts)
    if root_track is not None and list(tracks) == [root_track]:
        return fraction_track(ctx, parts, out, root_track)
    lines = tracks_intro(tracks)
    for name, tparts in tracks.items():
        lines += track_sections(ctx, name, tparts, out if name == root_track else out / name)
    return lines
