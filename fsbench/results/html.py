"""One self-contained HTML file of tables, figures and provenance.

Self-contained means: images are embedded as ``data:image/png;base64,...`` URIs, the style sheet is
inline, and there is no script and no reference to anything outside the file — it can be mailed,
archived or opened offline and shows the same thing.

A page is a list of :class:`Section`; a section holds items, each rendered by type:

* ``pandas.DataFrame`` → an HTML table (floats with 4 significant digits);
* ``str`` → Markdown-lite: ``#`` headings, pipe tables, paragraphs, inline ``code`` and ``**bold**``;
* :class:`Image` (a PNG file or a matplotlib figure, with a caption) → an embedded PNG;
* :class:`Provenance` (``run.json`` contents) → config hash, commit(s), package versions, times.
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #bbb; padding-bottom: .15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: right; }
th { background: #f0f0f0; }
td.text, th.text { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .85em; color: #555; }
code { background: #f4f4f4; padding: 0 .2em; }
nav ul { columns: 2; }
.scroll { overflow-x: auto; }
"""


@dataclass
class Image:
    """A figure to embed: a PNG file or a matplotlib figure, with an optional caption."""

    source: Any  # pathlib.Path / str of a .png file, or a matplotlib.figure.Figure
    caption: str = ""

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
class Section:
    """A titled part of the page; ``items`` are rendered in order (see the module docstring)."""

    title: str
    items: list[Any] = field(default_factory=list)


def _fmt(v: Any) -> tuple[str, bool]:
    """Cell text and whether it is numeric (right-aligned)."""
    if isinstance(v, (bool, np.bool_)):
        return ("yes" if v else "no"), False
    if isinstance(v, (int, np.integer)):
        return str(v), True
    if isinstance(v, (float, np.floating)):
        return ("–" if np.isnan(v) else f"{v:.4g}"), True
    return str(v), False


def table_html(df: pd.DataFrame) -> str:
    """An HTML table of ``df`` (index dropped; reset it first to keep it)."""
    head = "".join(f'<th class="text">{html.escape(str(c))}</th>' for c in df.columns)
    rows = []
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            text, numeric = _fmt(v)
            cls = "" if numeric else ' class="text"'
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    # wide tables (stability: 15 columns) scroll sideways instead of widening the page
    body = "".join(rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _inline(text: str) -> str:
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def markdown_html(text: str) -> str:
    """Render the Markdown subset the analyses write: headings, pipe tables, paragraphs, inline code."""
    out, para, table = [], [], []

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if table:
            rows = [r for r in table if not re.fullmatch(r"\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?", r)]
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
            head = "".join(f'<th class="text">{_inline(c)}</th>' for c in cells[0])
            body = "".join(
                "<tr>" + "".join(f'<td class="text">{_inline(c)}</td>' for c in r) + "</tr>"
                for r in cells[1:]
            )
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
            table.clear()

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("|"):
            if para:
                flush()
            table.append(s)
            continue
        if table:
            flush()
        m = re.match(r"(#{1,4})\s+(.*)", s)
        if m:
            flush()
            level = min(6, len(m.group(1)) + 2)  # page h1, sections h2: Markdown headings go below
            out.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
        elif not s:
            flush()
        else:
            para.append(s)
    flush()
    return "\n".join(out)


def image_html(img: Image) -> str:
    """An embedded PNG (base64 data URI) with its caption."""
    data = base64.b64encode(img.png_bytes()).decode("ascii")
    alt = html.escape(img.caption or "figure", quote=True)
    cap = f"<figcaption>{_inline(img.caption)}</figcaption>" if img.caption else ""
    return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">{cap}</figure>'


def provenance_html(prov: Provenance) -> str:
    """Per result directory: experiment, config hash, commit(s), dirty flag, run times, package versions."""
    rows = []
    for label, run in prov.runs.items():
        run = run or {}
        versions = run.get("versions") or {}
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
                "package versions": ", ".join(f"{k} {v}" for k, v in versions.items()) or "–",
            }
        )
    if not rows:
        return "<p>No run.json found.</p>"
    return table_html(pd.DataFrame(rows))


def _anchor(title: str, i: int) -> str:
    return f"s{i}-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def write_html(path: Path | str, sections: list[Section], title: str = "fsbench report") -> Path:
    """Write one self-contained HTML file.

    Parameters
    ----------
    path : Path or str
        Output file (parent directories are created).
    sections : list of Section
        Page content, in order; each becomes an ``<h2>`` with an entry in the table of contents.
    title : str
        Page title and ``<h1>``.

    Returns
    -------
    Path
        ``path``.
    """
    from fsbench import __version__

    body = []
    toc = []
    for i, sec in enumerate(sections):
        anchor = _anchor(sec.title, i)
        toc.append(f'<li><a href="#{anchor}">{html.escape(sec.title)}</a></li>')
        parts = [f'<h2 id="{anchor}">{html.escape(sec.title)}</h2>']
        for item in sec.items:
            if isinstance(item, pd.DataFrame):
                parts.append(table_html(item))
            elif isinstance(item, Image):
                parts.append(image_html(item))
            elif isinstance(item, Provenance):
                parts.append(provenance_html(item))
            elif isinstance(item, str):
                parts.append(markdown_html(item))
            else:
                raise TypeError(f"cannot render a {type(item).__name__} in section {sec.title!r}")
        body.append("<section>\n" + "\n".join(parts) + "\n</section>")
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n"
        f"<p>Written by fsbench {html.escape(__version__)} on {stamp}.</p>\n"
        f"<nav><ul>{''.join(toc)}</ul></nav>\n" + "\n".join(body) + "\n</body></html>\n"
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
