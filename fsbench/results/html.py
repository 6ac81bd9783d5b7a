"""The one HTML renderer: pages of tables, figures, Markdown and provenance.

Two ways to show a figure, chosen by the writer (``link_from`` of :func:`write_html`):

* **embedded** (default; ``fsbench compare --out`` → ``compare.html``): every image is a
  ``data:image/png;base64,...`` URI, so the page is one self-contained file that can be mailed or
  archived;
* **linked** (``fsbench report --html`` → ``REPORT.html``, :mod:`fsbench.results.report_html`): an image
  that is a PNG file is referenced by its path relative to the page (``<img src="fig1a/plots/x.png"
  loading="lazy">``), because the page sits in the results folder beside the committed figures; only a
  figure drawn for the page (a matplotlib figure) is embedded. This keeps a paper's page small and quick
  to write (Ramona 2012: 84 figures, 4 MB of PNG, were 5.5 MB of base64 in the page); the page is read
  in place, or copied together with its folder.

:func:`unresolved_images` lists the ``<img>`` references of a written page that do not resolve to a file.
Either way the style sheet is inline, there is no script, and the page is a function of its content only
(no date): re-rendering the same results gives the same bytes. No text is shortened: notes, captions and
the report's tables are shown whole (wide tables scroll sideways); a table the page computes that is
longer than :data:`MAX_TABLE_ROWS` rows (a :class:`Table`) is shown by its first rows and a link to the
CSV of all of them.

A page is a list of :class:`Section`; a section holds items, each rendered by type:

* ``pandas.DataFrame`` → an HTML table (floats with 4 significant digits);
* :class:`Table` (a DataFrame and the CSV that holds all of it) → the whole table up to
  :data:`MAX_TABLE_ROWS` rows, else its first :data:`TABLE_HEAD_ROWS` rows and a link to the CSV;
* ``str`` → Markdown (CommonMark with GitHub pipe tables, :func:`markdown_html`): headings, paragraphs,
  lists (nested too), emphasis, bold, inline code, links, tables and images (a PNG beside the report is
  embedded or linked; an image alone in its paragraph becomes a figure with its caption);
* :class:`Image` (a PNG file or a matplotlib figure, with a caption) → a figure;
* :class:`Details` (a summary line and items) → a ``<details>`` element, closed: shown on demand;
* :class:`Provenance` (``run.json`` contents) → config hash, commit(s), package versions, times.

A section with nothing to show is not on the page: one without items is left out, and if it carries a
``reason`` the navigation is followed by one line saying what is not on the page and why (where a reader
looks for the section), instead of a heading over "Not computed". Relative links of the Markdown (to a
CSV, a figure, another report) are rewritten relative to the page when it is written away from the
report (``link_from`` other than ``base``), so that they resolve from either.
"""

from __future__ import annotations

import base64
import html
import io
import os
import re
import struct
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import numpy as np
import pandas as pd
from markdown_it import MarkdownIt
from markdown_it.token import Token

from fsbench import __version__

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

#: The longest table (body rows) a page shows whole: about two screens. A longer :class:`Table` is shown
#: by its first :data:`TABLE_HEAD_ROWS` rows and a link to its full CSV. The papers' own comparison
#: tables (one row per printed cell) stay under it; a 1,477-row stability table on the benchmark's page
#: was 90 % of it.
MAX_TABLE_ROWS = 100
#: Rows of a long :class:`Table` shown on the page.
TABLE_HEAD_ROWS = 20

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #bbb; padding-bottom: .15em; margin-top: 2em; }
/* the report's ### and #### are h5/h6 here: not smaller than the text under them */
h3 { font-size: 1.25em; } h4 { font-size: 1.15em; } h5 { font-size: 1.08em; } h6 { font-size: 1em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
/* narrow side padding: a stability table of 22 S columns fits a 1280-pixel window */
th, td { border: 1px solid #ccc; padding: .2em .35em; text-align: right; }
th { background: #f0f0f0; }
td.text, th.text { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
details { margin: .6em 0; }
summary { cursor: pointer; }
figcaption { font-size: .85em; color: #555; }
code { background: #f4f4f4; padding: 0 .2em; }
/* a wide gap: the second column's bullets sit in it, not on the first column's longest entry */
nav ul { columns: 2; column-gap: 3em; }
p.omitted { font-size: .9em; color: #555; margin: .2em 0; }
.scroll { overflow-x: auto; }
/* table_html's breaks: full hashes break anywhere rather than widen a table past the page; dates never */
td.any { overflow-wrap: anywhere; min-width: 22ch; } td.nowrap { white-space: nowrap; }
li { margin: .15em 0; }
"""


@dataclass
class Image:
    """A figure to embed: a PNG file or a matplotlib figure, with an optional caption."""

    source: Any  # pathlib.Path / str of a .png file, or a matplotlib.figure.Figure
    caption: str = ""

    @property
    def is_file(self) -> bool:
        """Whether the image is a file (linked from a page written with ``link_from``)."""
        return not hasattr(self.source, "savefig")

    def png_bytes(self) -> bytes:
        """The image as PNG bytes (a figure is rendered at 110 dpi)."""
        if hasattr(self.source, "savefig"):
            buf = io.BytesIO()
            self.source.savefig(buf, format="png", dpi=110, bbox_inches="tight")
            data = buf.getvalue()
        else:
            data = Path(self.source).read_bytes()
        if not data.startswith(PNG_MAGIC):
            raise ValueError(f"not a PNG image: {self.source}")
        return data


@dataclass
class Provenance:
    """Where results come from: one ``run.json`` mapping per result directory (label → run)."""

    runs: dict[str, dict]


@dataclass
class Details:
    """Items shown on demand: a ``<details>`` element whose ``<summary>`` is ``summary`` (inline
    Markdown), closed unless ``open``; ``items`` are rendered like a section's."""

    summary: str
    items: list[Any] = field(default_factory=list)
    open: bool = False


@dataclass
class Table:
    """A table that may be too long for the page: ``frame`` is shown whole up to
    :data:`MAX_TABLE_ROWS` rows, else by its first :data:`TABLE_HEAD_ROWS` rows (``frame`` is ordered by
    what matters most first) and a link to ``csv``, the file holding every row (written by the caller)."""

    frame: pd.DataFrame
    csv: Path


@dataclass
class Section:
    """A titled part of the page; ``items`` are rendered in order (see the module docstring).

    A section without items is left out of the page; its ``reason`` (one sentence), if any, is said in
    one line under the navigation ("Not on this page: <title> — <reason>").
    """

    title: str
    items: list[Any] = field(default_factory=list)
    reason: str = ""


def _fmt(v: Any) -> tuple[str, bool]:
    """Cell text and whether it is numeric (right-aligned)."""
    if isinstance(v, (bool, np.bool_)):
        return ("yes" if v else "no"), False
    if isinstance(v, (int, np.integer)):
        return str(v), True
    if isinstance(v, (float, np.floating)):
        return ("–" if np.isnan(v) else f"{v:.4g}"), True
    return str(v), False


def _header(name: Any) -> str:
    """A column name (or a cell), breakable after its underscores: ``nemenyi_significant`` over two lines
    where the table is too wide (15 such names made the post-hoc table wider than the page)."""
    return html.escape(str(name)).replace("_", "_<wbr>")


def table_html(df: pd.DataFrame, breaks: dict[str, str] | None = None) -> str:
    """An HTML table of ``df`` (index dropped; reset it first to keep it).

    ``breaks`` (column → ``"anywhere"``, ``"underscores"`` or ``"never"``) says where the cells of a
    column may break across lines, rather than widen the table past the page: anywhere (a 64-character
    hash), after underscores (``fig1b_weston_nonlinear_gamma_n_features``) or never (a date, which would
    break at its hyphens); by default at spaces, as text does.
    """
    breaks = breaks or {}
    head = "".join(f'<th class="text">{_header(c)}</th>' for c in df.columns)
    kinds = [breaks.get(str(c), "") for c in df.columns]
    css = {"anywhere": ["any"], "never": ["nowrap"]}
    rows = []
    for row in df.itertuples(index=False):
        cells = []
        for v, kind in zip(row, kinds):
            text, numeric = _fmt(v)
            classes = ([] if numeric else ["text"]) + css.get(kind, [])
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cell = _header(text) if kind == "underscores" else html.escape(text)
            cells.append(f"<td{attr}>{cell}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    # wide tables (stability: 15 columns) scroll sideways instead of widening the page
    body = "".join(rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _long_table_html(table: Table, page_dir: Path) -> str:
    """A :class:`Table`: whole when short, else its first rows and a link (relative to ``page_dir``, the
    page's folder) to the CSV of all of them."""
    n = len(table.frame)
    if n <= MAX_TABLE_ROWS:
        return table_html(table.frame)
    csv = Path(table.csv)
    if not csv.is_file():
        raise ValueError(f"{csv}: the full table of a {n}-row table on the page does not exist")
    href = quote(Path(os.path.relpath(csv.resolve(), Path(page_dir).resolve())).as_posix())
    link = f'<a href="{html.escape(href, quote=True)}"><code>{html.escape(csv.name)}</code></a>'
    note = f"<p>The first {TABLE_HEAD_ROWS} of {n:,} rows; all of them: {link}.</p>"
    return table_html(table.frame.head(TABLE_HEAD_ROWS)) + "\n" + note


def _png_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _png_size(path: Path) -> tuple[int, int] | None:
    """Width and height from a PNG's header (its IHDR chunk), or None if it is not a PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    if not head.startswith(PNG_MAGIC) or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def _find_png(src: str, base: Path | None) -> Path | None:
    """The PNG file an image link names (relative to ``base``), or None if there is none."""
    path = Path(unquote(src))
    path = path if base is None else (Path(base) / path).resolve()
    return path if path.suffix.lower() == ".png" and path.is_file() else None


def _not_found(src: str) -> str:
    return f"(figure not found: <code>{html.escape(src)}</code>)"


def _img_tag(img: Image, alt: str, link_from: Path | None) -> str:
    """``<img>`` of ``img``: linked by its path relative to ``link_from`` (a PNG file on a page written
    with ``link_from``), else embedded as a data URI."""
    alt = html.escape(alt, quote=True)
    if link_from is None or not img.is_file:
        return f'<img alt="{alt}" src="{_png_uri(img.png_bytes())}">'
    path = Path(img.source).resolve()
    size = _png_size(path)
    if size is None:
        raise ValueError(f"not a PNG image: {path}")
    rel = quote(Path(os.path.relpath(path, Path(link_from).resolve())).as_posix())
    # width/height reserve the space before a lazily loaded image arrives (no jumping page)
    return f'<img alt="{alt}" src="{rel}" width="{size[0]}" height="{size[1]}" loading="lazy">'


def _render_image(self, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """An image inside text: embedded or linked when the PNG exists, else a note."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    path = _find_png(src, env.get("base"))
    if path is None:
        return _not_found(src)
    alt = self.renderInlineAsText(token.children, options, env)
    return _img_tag(Image(path), alt, env.get("link_from"))


def _render_link_open(self, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """A relative link of the Markdown, re-pointed from the report's folder to the page's."""
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    base, link_from = env.get("base"), env.get("link_from")
    parts = urlsplit(href)
    local = href and not (parts.scheme or parts.netloc or href.startswith(("/", "#")))
    if local and base is not None and link_from is not None:
        base, link_from = Path(base).resolve(), Path(link_from).resolve()
        if base != link_from:
            rel = Path(os.path.relpath(base / unquote(parts.path), link_from)).as_posix()
            token.attrSet("href", quote(rel) + (f"#{parts.fragment}" if parts.fragment else ""))
    return self.renderToken(tokens, idx, options, env)


def _render_table_open(self, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    # wide tables scroll sideways instead of widening the page
    return '<div class="scroll"><table>\n'


def _render_table_close(self, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return "</table></div>\n"


#: CommonMark (a maintained parser: nested lists, emphasis, links) with GitHub's pipe tables; raw HTML in
#: the text is shown as text, not interpreted; no typographic replacements (the text stays as written).
_MD = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
_MD.add_render_rule("image", _render_image)
_MD.add_render_rule("link_open", _render_link_open)
_MD.add_render_rule("table_open", _render_table_open)
_MD.add_render_rule("table_close", _render_table_close)


def _inline(text: str) -> str:
    """Inline Markdown (code, emphasis, links) of one line, e.g. a caption."""
    return _MD.renderInline(text)


def _adjust(tokens: list[Token], base: Path | None, link_from: Path | None) -> list[Token]:
    """Headings two levels down (the page has the ``<h1>``, sections ``<h2>``), table cells left-aligned
    (text), and an image alone in its paragraph as a figure with its caption."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type in ("heading_open", "heading_close"):
            t.tag = f"h{min(6, int(t.tag[1]) + 2)}"
        elif t.type in ("th_open", "td_open"):
            t.attrSet("class", "text")
        elif t.type == "paragraph_open" and i + 2 < len(tokens) and tokens[i + 2].type == "paragraph_close":
            kids = [c for c in tokens[i + 1].children or [] if c.type != "softbreak"]
            if len(kids) == 1 and kids[0].type == "image":
                src = str(kids[0].attrGet("src") or "")
                path = _find_png(src, base)
                caption = kids[0].content
                block = Token("html_block", "", 0)
                block.content = (
                    image_html(Image(path, caption), link_from)
                    if path is not None
                    else f"<p>{_not_found(src)}</p>"
                ) + "\n"
                out.append(block)
                i += 3
                continue
        out.append(t)
        i += 1
    return out


def markdown_html(text: str, base: Path | None = None, link_from: Path | None = None) -> str:
    """Render Markdown as HTML (CommonMark and pipe tables, see the module docstring).

    Parameters
    ----------
    text : str
        Markdown, e.g. a section of ``REPORT.md``.
    base : Path or None
        Directory that image links are relative to (the report's).
    link_from : Path or None
        Directory of the page: the PNGs are linked relative to it; None: embedded.

    Returns
    -------
    str
        HTML, deterministic for a given text and images.
    """
    env: dict[str, Any] = {"base": base, "link_from": link_from}
    tokens = _adjust(_MD.parse(text, env), base, link_from)
    return _MD.renderer.render(tokens, _MD.options, env).rstrip("\n")


def markdown_images(text: str) -> list[str]:
    """The link of every image (``![caption](link)``) of a Markdown text, in order, as the parser reads
    them (not inside code)."""
    out = []
    for tok in _MD.parse(text):
        for child in tok.children or []:
            if child.type == "image":
                out.append(str(child.attrGet("src") or ""))
    return out


def markdown_sections(text: str) -> list[Section]:
    """Sections of a Markdown report split at its ``## `` headings (text before the first: "Summary");
    the ``# `` title is left out (the page has its own)."""
    sections: list[Section] = []
    title, chunk = "Summary", []
    for line in text.splitlines() + ["## <end>"]:
        if line.startswith("## "):
            body = "\n".join(chunk)
            if body.strip():
                sections.append(Section(title, [body]))
            title, chunk = line[3:].strip(), []
        elif line.startswith("# "):
            continue
        else:
            chunk.append(line)
    return sections


def image_html(img: Image, link_from: Path | None = None) -> str:
    """A figure with its caption: the PNG linked relative to ``link_from`` if it is a file and
    ``link_from`` is given, else embedded (base64 data URI)."""
    cap = f"<figcaption>{_inline(img.caption)}</figcaption>" if img.caption else ""
    return f"<figure>{_img_tag(img, img.caption or 'figure', link_from)}{cap}</figure>"


def provenance_html(prov: Provenance) -> str:
    """Per result directory: experiment, config hash, commit(s), dirty flag and run times, in a table;
    then the package versions, once for every run that shares them (a column of them made the table
    twice as wide as the page)."""
    rows = []
    versions: dict[str, list[str]] = {}  # versions -> the runs that have them
    for label, run in prov.runs.items():
        run = run or {}
        commits = run.get("commits") or ([run["git_commit"]] if run.get("git_commit") else [])
        rows.append(
            {
                "results": label,
                "experiment": run.get("experiment", ""),
                "config hash (sha256)": run.get("config_hash", "–"),
                "fsbench commit(s)": ", ".join(map(str, commits)) or "–",
                "dirty tree": run.get("git_dirty", "–"),
                "started": run.get("first_started") or run.get("started", "–"),
                "finished": run.get("finished", "–"),
            }
        )
        v = ", ".join(f"{k} {v}" for k, v in (run.get("versions") or {}).items()) or "–"
        versions.setdefault(v, []).append(label)
    if not rows:
        return "<p>No run.json found.</p>"
    lines = []
    for v, labels in versions.items():
        runs = (
            "every run" if len(versions) == 1 else ", ".join(f"<code>{html.escape(x)}</code>" for x in labels)
        )
        lines.append(f"<p>Package versions ({runs}): {html.escape(v)}</p>")
    breaks = {"config hash (sha256)": "anywhere", "fsbench commit(s)": "anywhere"}
    breaks |= {"results": "underscores", "experiment": "underscores", "started": "never", "finished": "never"}
    return table_html(pd.DataFrame(rows), breaks) + "\n" + "\n".join(lines)


def _anchor(title: str, i: int) -> str:
    return f"s{i}-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _items_html(
    items: list[Any], where: str, base: Path | None, link_from: Path | None, page_dir: Path
) -> list[str]:
    """The HTML of a section's (or a :class:`Details`'s) items, by type (see the module docstring);
    ``page_dir`` is the folder of the page (links to files are relative to it)."""
    parts = []
    for item in items:
        if isinstance(item, pd.DataFrame):
            parts.append(table_html(item))
        elif isinstance(item, Table):
            parts.append(_long_table_html(item, page_dir))
        elif isinstance(item, Image):
            parts.append(image_html(item, link_from))
        elif isinstance(item, Details):
            inner = "\n".join(_items_html(item.items, where, base, link_from, page_dir))
            tag = "<details open>" if item.open else "<details>"
            parts.append(f"{tag}<summary>{_inline(item.summary)}</summary>\n{inner}\n</details>")
        elif isinstance(item, Provenance):
            parts.append(provenance_html(item))
        elif isinstance(item, str):
            parts.append(markdown_html(item, base, link_from))
        else:
            raise TypeError(f"cannot render a {type(item).__name__} in section {where!r}")
    return parts


def _shows(section: Section) -> bool:
    """Whether ``section`` has anything to show (an item other than blank text)."""
    return any(not isinstance(x, str) or x.strip() for x in section.items)


def write_html(
    path: Path | str,
    sections: list[Section],
    title: str = "fsbench report",
    base: Path | None = None,
    link_from: Path | None = None,
) -> Path:
    """Write one HTML page.

    Parameters
    ----------
    path : Path or str
        Output file (parent directories are created).
    sections : list of Section
        Page content, in order; each with items becomes an ``<h2>`` with an entry in the table of
        contents; one without items is left out, and its ``reason`` said under the table of contents.
    title : str
        Page title and ``<h1>``.
    base : Path or None
        Directory that image links in Markdown items are relative to.
    link_from : Path or None
        The page's directory (``path.parent``): PNG files are linked relative to it instead of embedded
        (see the module docstring); None: every image embedded, one self-contained file.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        If a linked image does not resolve to a file from the written page, or the CSV of a long
        :class:`Table` does not exist.
    """
    body = []
    toc = []
    # a section with nothing to show is no heading over "Not computed": one line under the navigation
    omitted = [
        f'<p class="omitted">Not on this page: <strong>{_inline(s.title)}</strong> — {_inline(s.reason)}</p>'
        for s in sections
        if not _shows(s) and s.reason
    ]
    for i, sec in enumerate(s for s in sections if _shows(s)):
        anchor = _anchor(sec.title, i)
        # titles are Markdown headings of the report: inline code etc. rendered
        toc.append(f'<li><a href="#{anchor}">{_inline(sec.title)}</a></li>')
        parts = [f'<h2 id="{anchor}">{_inline(sec.title)}</h2>']
        parts += _items_html(sec.items, sec.title, base, link_from, Path(path).parent)
        body.append("<section>\n" + "\n".join(parts) + "\n</section>")
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n"
        f"<p>Written by fsbench {html.escape(__version__)}.</p>\n"
        f"<nav><ul>{''.join(toc)}</ul></nav>\n"
        + "".join(f"{line}\n" for line in omitted)
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    missing = unresolved_images(path)
    if missing:
        raise ValueError(f"{path}: {len(missing)} image(s) do not resolve to a file, e.g. {missing[0]}")
    return path


class _ImageSources(HTMLParser):
    """The ``src`` of every ``<img>`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")


def image_sources(page: Path | str) -> list[str]:
    """The ``src`` of every ``<img>`` of the HTML file ``page``, in page order."""
    parser = _ImageSources()
    parser.feed(Path(page).read_text(encoding="utf-8"))
    return parser.sources


def unresolved_images(page: Path | str) -> list[str]:
    """The ``<img>`` references of the HTML file ``page`` that show nothing: a link that is not an
    existing file relative to the page, or a data URI that is not a PNG.

    Parameters
    ----------
    page : Path or str
        A written page.

    Returns
    -------
    list of str
        The failing ``src`` values (a data URI shortened to its first 40 characters); empty if every
        image resolves.
    """
    page = Path(page)
    bad = []
    for src in image_sources(page):
        if src.startswith("data:"):
            ok = src.startswith("data:image/png;base64,") and base64.b64decode(
                src.split(",", 1)[1][:16]
            ).startswith(PNG_MAGIC)
            if not ok:
                bad.append(src[:40])
        elif "://" in src or src.startswith("/") or not (page.parent / unquote(src)).is_file():
            bad.append(src)
    return bad
