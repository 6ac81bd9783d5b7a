"""``fsbench report ... --html``: the paper report as one HTML page beside ``REPORT.md``, with the
comparison of selectors across datasets and the provenance of the same result directories.

What goes on the page; the rendering (Markdown, tables, figures) is :mod:`fsbench.results.html`'s.
The page holds, in order:

* the sections of ``REPORT.md`` (paper vs ours tables, claims, curves, stability and ground-truth
  tables), every ``![caption](path.png)`` shown where the report puts it;
* **Other figures in this folder** — every PNG under the results folder that ``REPORT.md`` does not
  show (e.g. a paper hook's ``plots/bcr_vs_k.png``, or the per-S curves of experiments the report
  summarises in one figure), grouped by folder, each group closed (``<details>``: opened on demand), so
  that every figure of the paper is on its page;
* **Selectors across datasets** — average ranks, Friedman / Iman–Davenport, the Nemenyi critical-difference
  diagram and Holm-corrected Wilcoxon tests over the (directory, dataset, kernel, n_train, S) blocks where
  every compared selector has results (:mod:`fsbench.results.compare`); every pair's tests, when there
  are more pairs than a page's table holds, by the first rows and a link to ``REPORT_tables/posthoc.csv``
  beside the page. Where the comparison is not possible (e.g. no two selectors common to all
  directories) the section is left out and one line under the navigation says why;
* **Provenance** — config hash, commit(s), package versions and times of every run (``run.json``).

**Only a report's own kind of statistics.** The comparison across datasets and the figures' note are
added only to a report that carries fsbench's generic analysis (its ``Stability of the selected
subsets`` section: the layout's ``analysis`` place, :mod:`fsbench.papers.folder`). A report laid out
without it states its statistics itself — the benchmark (``configs/benchmark/hooks.py``) compares the
selectors at each fraction of D, one block per dataset; a Friedman test over every (dataset, S) block
pooled, which are not independent, contradicted it on its page (p = 1e-28 where its own tests are
per fraction), and the generic stability and ground-truth tables added 1,477 and 254 rows under
headings of their own next to the benchmark's summaries of the same analyses. Nothing is appended that
the report left out.

**Figures are linked, not embedded.** The page sits in ``results/<paper>/`` beside the committed
figures and references each by its relative path (``loading="lazy"``, its size from the PNG header);
only the critical-difference diagram, drawn for the page, is embedded. Embedding made the Ramona 2012
page 13.4 MB, and drawing the stability and ground-truth figures for it (one error-vs-stability figure of
151 panels, 17 recovery figures) took about 110 of its 130 s; the page is now 0.76 MB and about 5 s of
CPU. Those two analyses are shown by their tables (REPORT.md's own sections, computed once by
:mod:`fsbench.results.experiment_tables`); their figures are one command away, ``fsbench compare DIRS
--out OUT`` (``error_vs_stability.png``, ``ground_truth_*.png`` and a self-contained ``compare.html``), as
the sections say.
Read the page in place, or copy it together with its folder; every ``<img>`` is checked to resolve
(:func:`fsbench.results.html.unresolved_images`) when the page is written.

Diagnostics' tables (their own columns) are not analysed here; their figures enter through REPORT.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from fsbench.results.compare import compare_selectors, comparison_markdown
from fsbench.results.experiment_tables import GROUND_TRUTH_SECTION, STABILITY_SECTION
from fsbench.results.html import (
    MAX_TABLE_ROWS,
    Details,
    Image,
    Provenance,
    Section,
    Table,
    markdown_images,
    markdown_sections,
    write_html,
)
from fsbench.results.loading import ResultSet, load_result_sets
from fsbench.results.schema import BASELINE
from fsbench.results.stats_compare import CompareError, plot_cd_diagram


def _experiment_sets(results_dir: Path) -> list[ResultSet]:
    return [s for s in load_result_sets([results_dir]) if "selector_name" in s.results.columns]


#: Where the figures of the stability and ground-truth analyses are (not drawn for the page).
FIGURES_ELSEWHERE = (
    "_Figures of this analysis (error vs stability, recovery curves) are not drawn for this page; "
    "`fsbench compare <result dirs> --out DIR` writes them (`error_vs_stability.png`, "
    "`ground_truth_*.png`, and a self-contained `compare.html`)._"
)


#: The page's comparison of selectors over every block of the report's result directories.
ACROSS_DATASETS = "Selectors across datasets"


def _add_note(sections: list[Section], title: str, note: str) -> None:
    """Put ``note`` into the section ``title`` after its introduction (the text before its first ``###``
    heading); nothing where the report has no such section (nothing is appended that it left out)."""
    sec = next((x for x in sections if x.title == title), None)
    if sec is None:
        return
    first = sec.items[0] if sec.items else ""
    m = re.search(r"^### ", first, re.M) if isinstance(first, str) else None
    intro, rest = (first[: m.start()], first[m.start() :]) if m else (first, "")
    sec.items[:1] = [x for x in (intro, note, rest) if not isinstance(x, str) or x.strip()]


def _no_common_selectors(sets: list[ResultSet]) -> str:
    """Why no comparison across the result directories ``sets`` is possible, in one sentence, or "" when
    at least two selectors (the all-features baseline aside) have results in every one of them."""
    ran = []
    for s in sets:
        ok = s.results[s.results["status"] == "ok"]
        ran.append(set(ok["selector"].astype(str)) - set(s.baseline_labels) - {BASELINE})
    common = sorted(set.intersection(*ran)) if ran else []
    if len(common) >= 2:
        return ""
    which = f"only {common[0]}" if common else "none"
    n = len(sets)
    return f"it compares the selectors that ran in every one of the {n} result directories, and {which} did."


def other_figures(report_md: Path, results_dir: Path) -> list[Details]:
    """Every PNG under ``results_dir`` that ``report_md`` does not show, one closed group per folder.

    Parameters
    ----------
    report_md : Path
        The report; its image links are relative to its directory.
    results_dir : Path
        The folder whose figures belong on the page.

    Returns
    -------
    list of Details
        Per folder (path order): a summary naming the folder and its number of figures, and the figures,
        each captioned with its file name. The paper's own figures (in ``results_dir`` or its ``plots/``,
        e.g. written by the paper's hooks) are open; an experiment's folder is closed (on demand).
    """
    base = report_md.parent.resolve()
    shown = {(base / src).resolve() for src in markdown_images(report_md.read_text(encoding="utf-8"))}
    groups: dict[Path, list[Path]] = {}
    for png in sorted(Path(results_dir).rglob("*.png")):
        if png.resolve() not in shown:
            groups.setdefault(png.parent, []).append(png)
    out = []
    for folder, pngs in groups.items():
        rel = folder.relative_to(results_dir).as_posix()
        out.append(
            Details(
                f"`{rel}/` — {len(pngs)} figure{'s' if len(pngs) > 1 else ''}",
                [Image(p, f"`{p.name}`") for p in pngs],
                open=rel in (".", "plots"),
            )
        )
    return out


def across_datasets(sets: list[ResultSet], tables_dir: Path, alpha: float = 0.05) -> Section:
    """The section :data:`ACROSS_DATASETS`: Friedman / Iman–Davenport, the Nemenyi CD diagram and every
    pair's tests over the blocks of ``sets``; without items, and with the reason, where the comparison is
    not possible.

    Parameters
    ----------
    sets : list of ResultSet
        The experiments' result directories.
    tables_dir : Path
        Where a table too long for the page is written in full (``posthoc.csv``), beside the page.
    alpha : float
        Family-wise significance level.

    Returns
    -------
    Section
    """
    reason = _no_common_selectors(sets)
    if reason:
        return Section(ACROSS_DATASETS, reason=reason)
    try:
        comp = compare_selectors(sets, alpha=alpha)
    except CompareError as exc:
        return Section(ACROSS_DATASETS, reason=f"not computed ({exc}).")
    n, k = comp.friedman.n_blocks, comp.friedman.k
    cd = plot_cd_diagram(
        comp.friedman.average_ranks,
        comp.nemenyi_groups,
        comp.cd,
        f"error: Nemenyi, alpha = {alpha}, N = {n} blocks, k = {k}",
    )
    post = comp.posthoc
    if len(post) > MAX_TABLE_ROWS:  # k(k-1)/2 pairs: 153 for 18 selectors; all of them in the CSV
        tables_dir.mkdir(parents=True, exist_ok=True)
        post.to_csv(tables_dir / "posthoc.csv", index=False)
        post = Table(post, tables_dir / "posthoc.csv")
    return Section(
        ACROSS_DATASETS,
        [
            comparison_markdown(comp),
            comp.summary,
            Image(cd, f"critical-difference diagram (Nemenyi, CD = {comp.cd:.3f})"),
            post,
        ],
    )


def analysis_sections(
    sets: list[ResultSet], report: list[Section], tables_dir: Path, alpha: float = 0.05
) -> list[Section]:
    """The page's sections: ``report`` (REPORT.md's sections, changed in place), with — where it carries
    fsbench's generic analysis (its :data:`STABILITY_SECTION`) — a note in its stability and ground-truth
    sections and the comparison across datasets, then the provenance of ``sets``.

    Parameters
    ----------
    sets : list of ResultSet
        The experiments' result directories under the report's folder.
    report : list of Section
        The report's sections (:func:`fsbench.results.html.markdown_sections`).
    tables_dir : Path
        Where a table too long for the page is written in full (see :func:`across_datasets`).
    alpha : float
        Family-wise significance level of the comparison.

    Returns
    -------
    list of Section
        ``report`` with what the page adds to it (see the module docstring: a report with statistics of
        its own, such as the benchmark's, gets only the provenance).
    """
    sections = report
    if any(s.title == STABILITY_SECTION for s in sections):
        sections.append(across_datasets(sets, tables_dir, alpha))
        _add_note(sections, STABILITY_SECTION, FIGURES_ELSEWHERE)
        _add_note(sections, GROUND_TRUTH_SECTION, FIGURES_ELSEWHERE)
    sections.append(Section("Provenance", [Provenance({s.source: s.run or {} for s in sets})]))
    return sections


def write_report_html(report_md: Path, results_dir: Path, out: Path | None = None) -> Path:
    """Write ``REPORT.html`` beside ``report_md`` (or at ``out``); return its path.

    Figures are linked relative to the page (see the module docstring); a written page whose images do
    not all resolve raises ``ValueError``.
    """
    report_md, results_dir = Path(report_md), Path(results_dir)
    out = Path(out) if out is not None else report_md.with_suffix(".html")
    text = report_md.read_text(encoding="utf-8")
    first = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), "fsbench report")
    sections = markdown_sections(text)
    others = other_figures(report_md, results_dir)
    if others:
        intro = (
            "Figures under this folder that the report above does not show, by folder; click a closed "
            "folder to open it."
        )
        sections.append(Section("Other figures in this folder", [intro, *others]))
    sets = _experiment_sets(results_dir)
    if sets:
        sections = analysis_sections(sets, sections, out.parent / f"{out.stem}_tables")
    # REPORT.md's figures are linked relative to it; the page links them relative to itself
    return write_html(out, sections, title=first, base=report_md.parent, link_from=out.parent)
