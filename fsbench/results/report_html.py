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
  every compared selector has results (:mod:`fsbench.results.compare`); a sentence where that is not
  possible (e.g. one dataset, or no selector common to all directories);
* **Provenance** — config hash, commit(s), package versions and times of every run (``run.json``).

**Figures are linked, not embedded.** The page sits in ``results/<paper>/`` beside the committed
figures and references each by its relative path (``loading="lazy"``, its size from the PNG header);
only the critical-difference diagram, drawn for the page, is embedded. Embedding made the Ramona 2012
page 13.4 MB, and drawing the stability and ground-truth figures for it (one error-vs-stability figure of
151 panels, 17 recovery figures) took about 110 of its 130 s; the page is now 0.76 MB and about 5 s of
CPU. Those two analyses are shown by their tables (REPORT.md's own sections, computed once by
:mod:`fsbench.results.experiment_tables`); their figures are one command away, ``fsbench compare DIRS
--out OUT`` (``error_vs_stability.png``, ``ground_truth_*.png`` and a self-contained ``compare.html``), as
the sections say. A report without a stability or ground-truth section gets one, with the full table.
Read the page in place, or copy it together with its folder; every ``<img>`` is checked to resolve
(:func:`fsbench.results.html.unresolved_images`) when the page is written.

Diagnostics' tables (their own columns) are not analysed here; their figures enter through REPORT.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsbench.results.compare import _console_md, compare_selectors
from fsbench.results.experiment_tables import GROUND_TRUTH_SECTION, STABILITY_SECTION
from fsbench.results.ground_truth import ground_truth_tables
from fsbench.results.html import (
    Details,
    Image,
    Provenance,
    Section,
    markdown_images,
    markdown_sections,
    write_html,
)
from fsbench.results.loading import ResultSet, load_result_sets
from fsbench.results.stability import stability_table
from fsbench.results.stats_compare import CompareError, plot_cd_diagram


def _experiment_sets(results_dir: Path) -> list[ResultSet]:
    return [s for s in load_result_sets([results_dir]) if "selector_name" in s.results.columns]


#: Where the figures of the stability and ground-truth analyses are (not drawn for the page).
FIGURES_ELSEWHERE = (
    "_Figures of this analysis (error vs stability, recovery curves) are not drawn for this page; "
    "`fsbench compare <result dirs> --out DIR` writes them (`error_vs_stability.png`, "
    "`ground_truth_*.png`, and a self-contained `compare.html`)._"
)


def _add_note(sections: list[Section], title: str, note: str, tables: Callable[[], list[Any]]) -> None:
    """Put ``note`` into the section ``title`` after its introduction (the text before its first ``###``
    heading); where there is no such section, append one holding ``note`` and ``tables()``."""
    sec = next((x for x in sections if x.title == title), None)
    if sec is None:
        sections.append(Section(title, [note, *tables()]))
        return
    first = sec.items[0] if sec.items else ""
    m = re.search(r"^### ", first, re.M) if isinstance(first, str) else None
    intro, rest = (first[: m.start()], first[m.start() :]) if m else (first, "")
    sec.items[:1] = [x for x in (intro, note, rest) if not isinstance(x, str) or x.strip()]


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


def analysis_sections(
    sets: list[ResultSet], alpha: float = 0.05, report: list[Section] | None = None
) -> list[Section]:
    """The page's sections: ``report`` (REPORT.md's sections, changed in place) with a note in its
    stability and ground-truth sections, then the across-datasets comparison and the provenance of
    ``sets``.
    """
    sections = report if report is not None else []
    try:
        comp = compare_selectors(sets, alpha=alpha)
        n, k = comp.friedman.n_blocks, comp.friedman.k
        cd = plot_cd_diagram(
            comp.friedman.average_ranks,
            comp.nemenyi_groups,
            comp.cd,
            f"error: Nemenyi, alpha = {alpha}, N = {n} blocks, k = {k}",
        )
        sections.append(
            Section(
                "Selectors across datasets",
                [
                    _console_md(comp),
                    comp.summary,
                    Image(cd, f"critical-difference diagram (Nemenyi, CD = {comp.cd:.3f})"),
                    comp.posthoc,
                ],
            )
        )
    except CompareError as exc:
        sections.append(Section("Selectors across datasets", [f"Not computed: {exc}"]))
    legend = (
        "Kuncheva's consistency index and the Nogueira–Sechidis–Brown (2018) estimator with its "
        f"{100 * (1 - alpha):g} % confidence interval, of the top-S subsets across repeats (NaN at S = D)."
    )

    def stab() -> list[Any]:
        table = stability_table(sets, alpha=alpha)
        return [legend, table] if not table.empty else ["No ranking of input features to compare."]

    def truth() -> list[Any]:
        share, success = ground_truth_tables(sets, alpha=alpha)
        return [success, share] if not success.empty else ["No dataset with known relevant features."]

    # the tables are computed only where REPORT.md has no such section (it normally has both)
    _add_note(sections, STABILITY_SECTION, FIGURES_ELSEWHERE, stab)
    _add_note(sections, GROUND_TRUTH_SECTION, FIGURES_ELSEWHERE, truth)
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
        sections = analysis_sections(sets, report=sections)
    # REPORT.md's figures are linked relative to it; the page links them relative to itself
    return write_html(out, sections, title=first, base=report_md.parent, link_from=out.parent)
