"""README.md and docs/ against the code and the committed results.

* the README stays short (at most 200 lines) and keeps ``make test`` as its test command;
* the generated status block of docs/reproductions.md equals what :func:`render_status` gives on the
  committed comparisons (``results/<paper>/comparison.json``), and :func:`render_status` /
  :func:`update_docs` read made-up comparisons correctly, and never a ``REPORT.md``;
* every relative link points to an existing file (and an existing heading, for ``#anchor`` links);
* every ``fsbench <command>`` shown in code exists in the CLI, every ``make <target>`` in the Makefile;
* every repository path shown in code (``configs/...``, ``results/...``, ``fsbench/...``, ...) exists, and
  every dotted ``fsbench.module[.attribute]`` name imports.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import typer

from fsbench.cli import app
from fsbench.papers.checks import FAILS, HOLDS, NOT_CHECKABLE, NOT_EVALUABLE
from fsbench.papers.comparison import PaperComparison, write_comparison
from fsbench.papers.readings import EXPLAINED, INCONSISTENT, UNEXPLAINED
from fsbench.results.docs_status import BEGIN, END, read_status, render_status, replace_block, update_docs

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
#: ALGORITHMS.md is the algorithm spec written before the code (it cites external files and sources);
#: the pages checked here are the ones that describe fsbench itself.
PAGES = [README, *(p for p in DOCS if p.name != "ALGORITHMS.md")]
REPRODUCTIONS = REPO / "docs" / "reproductions.md"

#: Output paths the docs tell the reader a command will create (not committed).
GENERATED = (
    "results/demo",
    "results/quick",
    "results/meandiff_vs_fisher",
    "results/benchmark/meandiff",
    "results/benchmark/mine",
)
#: Commands, paths and names added by other branches of issue #21, allowed to be missing until they are
#: merged (then they are checked like everything else). The coordinator empties these sets at merge.
PENDING_COMMANDS: set[str] = set()
PENDING_NAMES: set[str] = set()
PENDING_MAKE_TARGETS: set[str] = set()
#: Dotted names that are not importable from a checkout (the cards become this package in a wheel).
NOT_IMPORTABLE = {"fsbench._cards"}

PATH_PREFIXES = (
    "configs/",
    "results/",
    "fsbench/",
    "docs/",
    "examples/",
    "tests/",
    "benchmarks/",
    "datasets/",
    "notes/",
)


def _fences(text: str) -> list[str]:
    """The contents of the fenced code blocks of a Markdown text."""
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)


def _spans(text: str) -> list[str]:
    """The inline code spans of a Markdown text (outside fenced blocks)."""
    return re.findall(r"`([^`\n]+)`", re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M))


def _code(text: str) -> list[str]:
    return _fences(text) + _spans(text)


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


# --------------------------------------------------------------------------- README
def test_readme_is_short_and_keeps_make_test():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the reference belongs in docs/"
    assert any(line.strip().startswith("make test") for line in lines), "README must show `make test`"
    linked = set(re.findall(r"\]\((docs/[^)#]+)", "\n".join(lines)))
    missing = {f"docs/{p.name}" for p in DOCS} - linked
    assert not missing, f"README does not link {sorted(missing)}"


# --------------------------------------------------------------------------- generated status block
def test_status_block_matches_committed_reports():
    text = REPRODUCTIONS.read_text(encoding="utf-8")
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    expected = render_status(REPO / "results")
    assert block == "\n" + expected, (
        "docs/reproductions.md's status block is stale: run `fsbench build` "
        "(fsbench.results.docs_status.update_docs)"
    )
    # every paper with a configs/<paper>/paper_values.yaml has a row
    papers = {p.parent.name for p in (REPO / "configs").glob("*/paper_values.yaml")}
    rows = {line.split("|")[1].strip() for line in expected.splitlines()[2:]}
    assert papers <= rows, sorted(papers - rows)


def _comparison(root: Path, paper: str, no_cells: bool, **n: int) -> Path:
    """A made-up ``<paper>/comparison.json`` with these counts, written by the writer of the build."""
    d = root / paper
    d.mkdir(parents=True)
    explained = n.get("explained", 0)
    cmp = PaperComparison(
        paper=paper,
        title=paper,
        tables=[],
        totals={"agree": n["agree"], "compared": n["compared"], "differ": n["differ"]},
        claims=[],
        claim_counts={HOLDS: n["hold"], FAILS: n["fail"], NOT_EVALUABLE: n["ne"], NOT_CHECKABLE: n["nc"]},
        readings=[],
        differing_counts={EXPLAINED: explained, INCONSISTENT: 0, UNEXPLAINED: n["differ"] - explained},
        substitutions=[],
        figure_readings=[],
        choices=[],
        no_table_cells="truncated." if no_cells else None,
    )
    return write_comparison(cmp, d)


def test_render_status_reads_made_up_comparisons(tmp_path):
    counts = dict(agree=7, compared=19, differ=12, hold=4, fail=3, ne=2, nc=1, explained=5)
    _comparison(tmp_path, "zeta2020", no_cells=False, **counts)
    zero = dict(agree=0, compared=0, differ=0, hold=1, fail=0, ne=0, nc=0)
    _comparison(tmp_path, "alpha2019", no_cells=True, **zero)
    (tmp_path / "scale").mkdir()
    (tmp_path / "scale" / "REPORT.md").write_text("# Report: scale\n\nno paper here\n", encoding="utf-8")

    st = read_status(tmp_path / "zeta2020")
    assert (st.cells_agree, st.cells_compared, st.claims_hold, st.claims_total) == (7, 19, 4, 10)
    assert (st.claims_fail, st.claims_not_evaluable, st.claims_not_checkable) == (3, 2, 1)
    assert st.explained == (5, 12) and not st.no_cells
    assert read_status(tmp_path / "scale") is None

    table = render_status(tmp_path, link_prefix="../res").splitlines()
    assert len(table) == 4  # header, rule, two papers (scale is not one), in name order
    assert table[2].startswith("| alpha2019 |") and table[3].startswith("| zeta2020 |")
    assert "(../res/zeta2020/REPORT.md)" in table[3]
    assert "| 7 / 19 |" in table[3] and "| 5 of 12 |" in table[3]
    assert "4 / 10 (3 do not hold, 2 not evaluable, 1 not machine-checkable)" in table[3]
    assert "| 0 of 0 |" in table[2] and "not in our copy" in table[2]


def test_status_reads_no_report(tmp_path, monkeypatch):
    """The status block comes from comparison.json alone: a REPORT.md that says otherwise is not read."""
    _comparison(
        tmp_path, "zeta2020", no_cells=False, agree=7, compared=19, differ=12, hold=4, fail=3, ne=2, nc=1
    )
    (tmp_path / "zeta2020" / "REPORT.md").write_text(
        "**Table cells: 1 of 2 comparable cells agree with the paper**\n", encoding="utf-8"
    )
    read = Path.read_text

    def no_report(self: Path, *args, **kwargs) -> str:
        assert self.name != "REPORT.md", f"{self} was read"
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", no_report)
    assert "| 7 / 19 |" in render_status(tmp_path)


def test_update_docs_rewrites_only_the_block(tmp_path):
    _comparison(
        tmp_path / "res", "p1", no_cells=False, agree=1, compared=2, differ=1, hold=0, fail=1, ne=0, nc=0
    )
    doc = tmp_path / "doc.md"
    doc.write_text(f"intro\n\n{BEGIN}\nSTALE-LINE\n{END}\n\nafter\n", encoding="utf-8")
    assert update_docs(doc, tmp_path / "res") is True
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("intro\n\n") and text.endswith("\n\nafter\n") and "STALE-LINE" not in text
    assert "| p1 |" in text
    assert update_docs(doc, tmp_path / "res") is False  # idempotent
    with pytest.raises(ValueError):
        replace_block("no markers", "x")
    with pytest.raises(ValueError):
        replace_block(f"{END}\n{BEGIN}\n", "x")


# --------------------------------------------------------------------------- links, commands, paths
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_point_to_existing_files_and_headings(page):
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: no heading #{anchor}")
    assert not bad, f"{page.name}: {bad}"


#: ``fsbench COMMAND [SUBCOMMAND]`` as shown in code.
COMMAND = r"fsbench ([a-z][a-z_-]*)(?: ([a-z][a-z_-]*))?"


def _cli_commands() -> dict[str, set[str]]:
    """Top-level commands of the CLI -> their subcommands (empty for plain commands)."""
    group = typer.main.get_command(app)
    return {name: set(getattr(cmd, "commands", {}) or {}) for name, cmd in group.commands.items()}


def test_every_fsbench_command_shown_exists():
    commands = _cli_commands()
    assert {"run", "report", "compare", "plot", "datasets", "selectors"} <= set(commands)
    bad = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        # a command line: at the start of a code line (or after "-> "), or a whole inline span
        shown = [m for code in _fences(text) for m in re.findall(rf"(?:^\s*|-> ){COMMAND}", code, flags=re.M)]
        shown += [m for span in _spans(text) for m in re.findall(rf"^{COMMAND}", span)]
        for cmd, sub in shown:
            if cmd not in commands:
                if cmd not in PENDING_COMMANDS:
                    bad.append(f"{page.name}: fsbench {cmd}")
            elif commands[cmd] and sub and sub not in commands[cmd]:
                bad.append(f"{page.name}: fsbench {cmd} {sub}")
    assert not bad, f"commands shown but not in the CLI: {sorted(set(bad))}"


def _tokens(code: str) -> list[str]:
    return [t.strip(".,;:()[]'\"") for t in re.split(r"[\s,|]+", code)]


def test_every_repository_path_shown_exists():
    bad = []
    for page in PAGES:
        for code in _code(page.read_text(encoding="utf-8")):
            for tok in _tokens(code):
                if not tok.startswith(PATH_PREFIXES) or re.search(r"[<>*{}…]|\.\.\.", tok):
                    continue  # not a repository path, or a placeholder such as results/<paper>/
                if tok.startswith(GENERATED):
                    continue
                if not (REPO / tok).exists():
                    bad.append(f"{page.name}: {tok}")
    assert not bad, f"paths shown but missing: {sorted(set(bad))}"


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_fsbench_name_shown_imports():
    names = set()
    for page in PAGES:
        for code in _code(page.read_text(encoding="utf-8")):
            names.update(re.findall(r"(?<![\w/])fsbench(?:\.\w+)+", code))
    bad = sorted(n for n in names - NOT_IMPORTABLE - PENDING_NAMES if not _resolves(n))
    assert not bad, f"names shown but not importable: {bad}"


def _make_targets() -> set[str]:
    """Targets of the Makefile: written out, and those it derives from the files under configs/."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][\w-]*):", text, flags=re.M))
    for cfg in (REPO / "configs").glob("*/*.yaml"):
        paper = cfg.parent.name
        targets |= {f"reproduce-{paper}", f"report-{paper}", f"reproduce-{paper}-{cfg.stem}"}
    return targets


def test_every_make_target_shown_exists():
    targets = _make_targets()
    assert {"install", "test", "demo"} <= targets
    bad = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        shown = [t for code in _fences(text) for t in re.findall(r"^\s*make ([a-z][\w-]*)", code, flags=re.M)]
        shown += [t for span in _spans(text) for t in re.findall(r"^make ([a-z][\w-]*)$", span)]
        bad += [f"{page.name}: make {t}" for t in shown if t not in targets | PENDING_MAKE_TARGETS]
    assert not bad, f"make targets shown but not in the Makefile: {sorted(set(bad))}"
