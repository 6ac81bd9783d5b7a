"""The HTML report is one self-contained file: sections present, images decodable PNGs, nothing external."""

from __future__ import annotations

import base64
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from fsbench.results.html import (  # noqa: E402
    PNG_MAGIC,
    Details,
    Image,
    Provenance,
    Section,
    image_sources,
    markdown_html,
    markdown_images,
    markdown_sections,
    unresolved_images,
    write_html,
)
from fsbench.results.report_html import other_figures  # noqa: E402


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.h2, self.imgs, self.tags, self.refs = [], [], [], []
        self._in_h2 = False
        self.cells = []
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self._in_h2 = tag == "h2"
        self._in_cell = tag in ("td", "th")
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        for key in ("src", "href"):
            if key in a:
                self.refs.append(a[key])

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)
        if self._in_cell:
            self.cells.append(data)


def _page(tmp_path):
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    png = tmp_path / "curve.png"
    fig.savefig(png)
    run = {
        "experiment": "fig3b",
        "config_hash": "52bc30e8" + "0" * 56,
        "git_commit": "7f734f79",
        "commits": ["7f734f79", "ffbb180d"],
        "git_dirty": False,
        "versions": {"numpy": "2.4.6", "scipy": "1.17.1"},
        "started": "2026-11-22T05:50:02+00:00",
        "finished": "2026-11-22T05:50:15+00:00",
    }
    sections = [
        Section(
            "Friedman test",
            [
                pd.DataFrame(
                    {"selector": ["sas", "fisher <b>"], "average_rank": [1.5, 2.5], "sig": [True, False]}
                ),
                "Blocks: **38**, see `blocks.csv`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            ],
        ),
        Section("Figures", [Image(png, "from a file"), Image(fig, "from a figure")]),
        Section("Provenance", [Provenance({"ramona2012/fig3b": run})]),
    ]
    return write_html(tmp_path / "out" / "compare.html", sections, title="comparison")


def test_html_sections_images_and_provenance(tmp_path):
    path = _page(tmp_path)
    text = path.read_text(encoding="utf-8")
    p = _Collect()
    p.feed(text)
    assert [h.strip() for h in p.h2] == ["Friedman test", "Figures", "Provenance"]
    assert len(p.imgs) == 2
    for src in p.imgs:
        assert src.startswith("data:image/png;base64,")
        raw = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert raw[:8] == PNG_MAGIC
        arr = mpimg.imread(io.BytesIO(raw), format="png")
        assert arr.ndim == 3 and arr.shape[0] > 10
    # self-contained: no script, no stylesheet link, every reference internal (anchors or data URIs)
    assert "script" not in p.tags and "link" not in p.tags
    assert all(r.startswith(("#", "data:image/png;base64,")) for r in p.refs)
    assert "http://" not in text and "https://" not in text
    # tables: DataFrame and Markdown pipe table both rendered; text escaped, not interpreted
    assert "fisher <b>" in p.cells and "<b>" not in text.replace("&lt;b&gt;", "")
    assert {"1", "2", "a", "b"} <= set(p.cells)
    assert "52bc30e8" + "0" * 56 in p.cells
    assert "7f734f79, ffbb180d" in p.cells
    # the package versions once under the table, for every run that shares them (not a column of it)
    assert "numpy 2.4.6, scipy 1.17.1" not in p.cells
    assert "<p>Package versions (every run): numpy 2.4.6, scipy 1.17.1</p>" in text
    assert "<code>blocks.csv</code>" in text and "<strong>38</strong>" in text


def test_non_png_and_unknown_items_are_refused(tmp_path):
    bad = tmp_path / "x.png"
    bad.write_bytes(b"%PDF-1.4 not a png")
    with pytest.raises(ValueError, match="not a PNG"):
        write_html(tmp_path / "a.html", [Section("s", [Image(bad)])])
    with pytest.raises(TypeError, match="cannot render"):
        write_html(tmp_path / "b.html", [Section("s", [np.arange(3)])])


def _text(fragment: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", fragment).split())


def test_markdown_lists_nested_lists_and_emphasis_are_rendered():
    md = (
        "Intro with _underscore emphasis_, *star emphasis*, **bold**, `code` and a [link](notes.md); "
        "snake_case_names stay as they are.\n\n"
        "- first item\n"
        "  - nested one\n"
        "  - nested two with **bold**\n"
        "- second item\n\n"
        "1. numbered\n"
        "2. numbered too\n\n"
        "### A heading\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    out = markdown_html(md)
    assert "<em>underscore emphasis</em>" in out and "<em>star emphasis</em>" in out
    assert "<strong>bold</strong>" in out and "<code>code</code>" in out
    assert '<a href="notes.md">link</a>' in out and "snake_case_names" in out
    # the nested list is a <ul> inside the first item, not run-on text
    first = out.index("<li>first item")
    inner = out.index("<ul>", first)
    assert inner < out.index("</li>", first) and out.count("<ul>") == 2
    assert out.count("<li>") == 6 and "<ol>" in out
    assert "<h5>A heading</h5>" in out  # headings below the page's h1 and the sections' h2
    assert '<td class="text">1</td>' in out


def test_a_long_note_is_rendered_whole_and_raw_html_is_shown_as_text():
    words = [f"word{i}" for i in range(400)]
    note = "_Note:_ " + " ".join(words[:200]) + "\n" + " ".join(words[200:]) + " <script>x</script>."
    out = markdown_html(f"- item\n\n{note}\n")
    assert _text(out).endswith(
        " ".join(words) + " <script>x</script>.".replace("<", "&lt;").replace(">", "&gt;")
    )
    assert "<script>" not in out


def test_markdown_images_are_embedded_or_reported_missing(tmp_path):
    fig, ax = plt.subplots(figsize=(1, 1))
    fig.savefig(tmp_path / "curve.png")
    plt.close(fig)
    out = markdown_html(
        "![the curve](curve.png)\n\nText ![inline](curve.png) and ![gone](missing.png).\n", tmp_path
    )
    assert out.count('src="data:image/png;base64,') == 2
    assert "<figcaption>the curve</figcaption>" in out
    assert "(figure not found: <code>missing.png</code>)" in out


def test_markdown_report_is_split_into_sections():
    secs = markdown_sections(
        "# Title\n\nsummary text\n\n## First `one`\n\n- a\n- b\n\n## Empty\n\n## Last\n\nend\n"
    )
    assert [s.title for s in secs] == ["Summary", "First `one`", "Last"]
    assert "- a\n- b" in secs[1].items[0]


def test_the_page_is_a_function_of_its_content(tmp_path):
    # no date or other run-time stamp: the same content gives the same bytes (committed pages stay stable)
    sections = [Section("S", ["text with `code`", pd.DataFrame({"a": [1.5]})])]
    a = write_html(tmp_path / "a.html", sections, title="t").read_bytes()
    b = write_html(tmp_path / "b.html", sections, title="t").read_bytes()
    assert a == b


def _png(path, size=(2, 1)):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=size)
    ax.plot([0, 1], [0, 1])
    fig.savefig(path, dpi=50)
    plt.close(fig)
    return path


def test_linked_pages_reference_png_files_beside_them_and_embed_only_drawn_figures(tmp_path):
    png = _png(tmp_path / "exp a" / "plots" / "curve.png")
    fig, ax = plt.subplots(figsize=(1, 1))
    md = "![the curve](<exp a/plots/curve.png>)\n\nText ![inline](exp%20a/plots/curve.png).\n"
    page = write_html(
        tmp_path / "REPORT.html",
        [Section("S", [md, Image(png, "as an item"), Image(fig, "drawn")])],
        base=tmp_path,
        link_from=tmp_path,
    )
    plt.close(fig)
    p = _Collect()
    p.feed(page.read_text(encoding="utf-8"))
    assert p.imgs[:3] == ["exp%20a/plots/curve.png"] * 3  # linked relative to the page, URL-quoted
    assert p.imgs[3].startswith("data:image/png;base64,")  # a figure drawn for the page is embedded
    text = page.read_text(encoding="utf-8")
    assert text.count('width="100" height="50" loading="lazy"') == 3  # size from the PNG header
    assert unresolved_images(page) == []
    # a page written elsewhere links back to the same file
    other = write_html(
        tmp_path / "out" / "x.html", [Section("S", [md])], base=tmp_path, link_from=tmp_path / "out"
    )
    assert image_sources(other) == ["../exp%20a/plots/curve.png"] * 2
    assert unresolved_images(other) == []


def test_unresolved_images_names_missing_files_foreign_and_broken_sources(tmp_path):
    _png(tmp_path / "ok.png")
    good = "data:image/png;base64," + base64.b64encode(PNG_MAGIC + b"rest").decode()
    bad = "data:image/png;base64," + base64.b64encode(b"GIF89a not a png").decode()
    page = tmp_path / "p.html"
    page.write_text(
        f'<p><img src="ok.png"><img src="gone.png"><img src="{good}"><img src="{bad}">'
        '<img src="https://example.org/x.png"><img src="/etc/x.png"></p>'
    )
    assert unresolved_images(page) == ["gone.png", bad[:40], "https://example.org/x.png", "/etc/x.png"]


def test_details_render_closed_or_open_with_their_items(tmp_path):
    png = _png(tmp_path / "a.png")
    out = write_html(
        tmp_path / "d.html",
        [
            Section(
                "S",
                [
                    Details("`plots/` — 1 figure", [Image(png, "`a.png`")]),
                    Details("open one", ["- x"], open=True),
                ],
            )
        ],
        link_from=tmp_path,
    ).read_text(encoding="utf-8")
    assert "<details><summary><code>plots/</code> — 1 figure</summary>" in out
    assert (
        '<figure><img alt="`a.png`" src="a.png"' in out
        and "<figcaption><code>a.png</code></figcaption>" in out
    )
    assert "<details open><summary>open one</summary>\n<ul>\n<li>x</li>" in out


def test_markdown_images_lists_image_links_not_code():
    md = "![a](x/a.png)\n\n`![no](code.png)`\n\n    ![no](indented.png)\n\n- item ![b](b.png)\n"
    assert markdown_images(md) == ["x/a.png", "b.png"]


def test_other_figures_are_every_png_the_report_does_not_show(tmp_path):
    for rel in ("shown.png", "plots/bcr_vs_k.png", "exp/plots/e1.png", "exp/plots/e2.png"):
        _png(tmp_path / rel)
    (tmp_path / "REPORT.md").write_text("# R\n\n![shown](shown.png)\n")
    groups = other_figures(tmp_path / "REPORT.md", tmp_path)
    assert [(g.summary, g.open) for g in groups] == [
        ("`exp/plots/` — 2 figures", False),  # an experiment's: on demand
        ("`plots/` — 1 figure", True),  # the paper's own figures: open
    ]
    assert [Path(i.source).name for g in groups for i in g.items] == ["e1.png", "e2.png", "bcr_vs_k.png"]
