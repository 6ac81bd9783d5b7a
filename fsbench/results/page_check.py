"""Checks of a written HTML page's structure, and screenshots of pages in headless Chromium.

What a reader of ``REPORT.html`` relies on, checked on the written file with the standard library's
:mod:`html.parser` (no browser needed, :func:`page_problems`):

* every entry of the navigation is there once, and every ``id`` of the page is unique;
* no section is empty: each shows more than its heading — a table, a figure, a list, a code block, a
  closed group, or text beyond a single sentence-long paragraph (a section with nothing to show is left
  out by the writer, with one line of reason under the navigation: :class:`fsbench.results.html.Section`);
* no table on the page is longer than :data:`fsbench.results.html.MAX_TABLE_ROWS` body rows (a longer one
  is summarised, with a link to its full CSV);
* every link to a file (a CSV, a figure, another page) and every ``<img>`` resolves to an existing file
  relative to the page, and every in-page link (``#id``) to an element of the page.

``python -m fsbench.results.page_check PAGE... [--screenshots DIR]`` prints the problems of each page and,
with ``--screenshots`` (``make screenshots``), renders each page in headless Chromium. The browser first
lays the page out (:func:`probe_layout`), which gives the page's height and what a screenshot shows only
in part — a table wider than the page (read only by scrolling sideways), an image that did not load, a
page wider than the window — then draws its first screen, ``DIR/<name>.png`` (1280 × 4000 px), and the
whole page in tiles of :data:`TILE_HEIGHT` pixels, ``DIR/<name>/01.png``, ... (:func:`page_tiles`),
readable at full size in an image viewer.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np

from fsbench.results.html import MAX_TABLE_ROWS

#: Elements that make a section show something besides its heading and prose.
_CONTENT = {"table", "img", "figure", "ul", "ol", "pre", "details"}
#: A section of nothing but one paragraph this short says only that it has nothing (e.g. "Not computed").
_ONE_LINE = 200
#: Height (px) of the tiles a page's screenshot is cut into: readable at full size in an image viewer.
TILE_HEIGHT = 1600
#: Height (px) of the parts a long page is drawn in (a whole tiles each).
PART_HEIGHT = 12 * TILE_HEIGHT
#: Height (px) of a page's first screen, ``<name>.png``.
FIRST_SCREEN = 4000
#: Chromium's flags for a screenshot that touches no network and no profile of the user's.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


@dataclass
class SectionInfo:
    """One ``<section>`` of a page: its heading, the content elements under it and its paragraphs' text."""

    title: str
    id: str
    elements: dict[str, int] = field(default_factory=dict)
    paragraphs: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether the section shows nothing but its heading (and at most one short paragraph)."""
        if any(self.elements.get(tag) for tag in _CONTENT):
            return False
        text = " ".join(p for p in self.paragraphs if p)
        return len(self.paragraphs) <= 1 and len(text) <= _ONE_LINE


@dataclass
class PageStructure:
    """What :func:`page_structure` reads from a page."""

    nav: list[tuple[str, str]] = field(default_factory=list)  # (text, href) of the navigation's links
    ids: list[str] = field(default_factory=list)
    sections: list[SectionInfo] = field(default_factory=list)
    tables: list[tuple[str, int]] = field(default_factory=list)  # (section title, body rows)
    links: list[str] = field(default_factory=list)  # href of every <a>
    images: list[str] = field(default_factory=list)  # src of every <img>


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = PageStructure()
        self._nav = self._h2 = self._p = False
        self._a: list[str] | None = None  # text of the open navigation link
        self._href = ""
        self._rows: list[int] = []  # body rows of the open tables (nested tables: a stack)
        self._in_body: list[bool] = []
        self._text: list[str] = []

    @property
    def _section(self) -> SectionInfo | None:
        return self.page.sections[-1] if self.page.sections else None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.page.ids.append(a["id"])
        if tag == "nav":
            self._nav = True
        elif tag == "section":
            self.page.sections.append(SectionInfo("", ""))
        elif tag == "h2" and self._section is not None:
            self._h2, self._text = True, []
            self._section.id = a.get("id", "")
        elif tag == "a":
            self.page.links.append(a.get("href", ""))
            if self._nav:
                self._a, self._href = [], a.get("href", "")
        elif tag == "img":
            self.page.images.append(a.get("src", ""))
        elif tag == "table":
            self._rows.append(0)
            self._in_body.append(False)
        elif tag == "tbody" and self._in_body:
            self._in_body[-1] = True
        elif tag == "tr" and self._in_body and self._in_body[-1]:
            self._rows[-1] += 1
        elif tag == "p" and not self._nav:
            self._p, self._text = True, []
        sec = self._section
        if sec is not None and not self._h2 and tag != "h2":
            sec.elements[tag] = sec.elements.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self._nav = False
        elif tag == "h2" and self._h2:
            self._h2 = False
            if self._section is not None:
                self._section.title = " ".join("".join(self._text).split())
        elif tag == "a" and self._a is not None:
            self.page.nav.append((" ".join("".join(self._a).split()), self._href))
            self._a = None
        elif tag == "table" and self._rows:
            title = self._section.title if self._section is not None else ""
            self.page.tables.append((title, self._rows.pop()))
            self._in_body.pop()
        elif tag == "tbody" and self._in_body:
            self._in_body[-1] = False
        elif tag == "p" and self._p:
            self._p = False
            if self._section is not None:
                self._section.paragraphs.append(" ".join("".join(self._text).split()))

    def handle_data(self, data: str) -> None:
        if self._a is not None:
            self._a.append(data)
        if self._h2 or self._p:
            self._text.append(data)


def page_structure(page: Path | str) -> PageStructure:
    """Read the navigation, ids, sections, tables, links and images of the HTML file ``page``.

    Parameters
    ----------
    page : Path or str
        A page written by :func:`fsbench.results.html.write_html`.

    Returns
    -------
    PageStructure
        Navigation entries (text, target), every ``id``, per ``<section>`` its ``<h2>`` title and the
        elements under it, every table's body rows (by section), every link and image source.
    """
    reader = _Reader()
    reader.feed(Path(page).read_text(encoding="utf-8"))
    reader.close()
    return reader.page


def _local_target(ref: str) -> tuple[str, str] | None:
    """(path, fragment) of a reference within the page's files; None for a URL elsewhere or data."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith("/"):
        return None
    return unquote(parts.path), parts.fragment


def page_problems(page: Path | str, max_rows: int = MAX_TABLE_ROWS) -> list[str]:
    """What is wrong with the structure of the HTML file ``page`` (see the module docstring).

    Parameters
    ----------
    page : Path or str
        A written page.
    max_rows : int
        The longest table (body rows) allowed on the page.

    Returns
    -------
    list of str
        One line per problem (a repeated navigation entry or id, an empty section, a table over
        ``max_rows`` rows, a link or image that does not resolve); empty if there is none.
    """
    page = Path(page)
    s = page_structure(page)
    out = []
    for what, values in (("navigation entry", [t for t, _ in s.nav]), ("id", s.ids)):
        seen: set[str] = set()
        for v in values:
            if v in seen:
                out.append(f"{what} {v!r} appears more than once")
            seen.add(v)
    for sec in s.sections:
        if sec.empty:
            said = f": {sec.paragraphs[0]!r}" if sec.paragraphs else ""
            out.append(f"section {sec.title!r} shows nothing{said}")
    for title, rows in s.tables:
        if rows > max_rows:
            out.append(f"a table of {rows} rows (over {max_rows}) in section {title!r}")
    ids = set(s.ids)
    for ref in s.links + [i for i in s.images if not i.startswith("data:")]:
        target = _local_target(ref)
        if target is None:
            continue
        path, fragment = target
        if not path:
            if fragment and fragment not in ids:
                out.append(f"link {ref!r}: no element with that id on the page")
        elif not (page.parent / path).is_file():
            out.append(f"link {ref!r}: no such file beside the page")
    return out


#: Run in a copy of the page by :func:`probe_layout`: loads every lazy image, then writes what the
#: browser laid out badly, and the page's height, into ``<pre id="fsbench-layout">`` (read back from
#: ``--dump-dom``).
_PROBE = """<script>
document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; });
window.addEventListener('load', () => {
  const out = [];
  const where = e => (e.closest('section')?.querySelector('h2')?.textContent || '(top)').trim();
  document.querySelectorAll('div.scroll').forEach(d => {
    if (d.scrollWidth > d.clientWidth + 1)
      out.push(`a table wider than the page (${d.scrollWidth} > ${d.clientWidth} px), '${where(d)}'`);
  });
  document.querySelectorAll('img').forEach(i => {
    if (!i.complete || i.naturalWidth === 0)
      out.push(`image '${(i.getAttribute('src') || '').slice(0, 80)}' did not load (section '${where(i)}')`);
  });
  if (document.documentElement.scrollWidth > window.innerWidth)
    out.push(`the page is wider than the window (${document.documentElement.scrollWidth} px)`);
  const height = document.documentElement.scrollHeight;
  const pre = document.createElement('pre');
  pre.id = 'fsbench-layout';
  pre.textContent = JSON.stringify({problems: out, height: height});
  document.body.appendChild(pre);
});
</script>"""


@dataclass
class Layout:
    """What headless Chromium made of a page (:func:`probe_layout`)."""

    problems: list[str]  # one line per problem: a table wider than the page, an image that did not load
    height: int  # of the page, in pixels, at the probe's window width


def probe_layout(page: Path | str, chromium: str, width: int = 1280) -> Layout:
    """What headless Chromium lays out badly on ``page`` — tables wider than the page, images that do
    not load, a page wider than a ``width``-pixel window — and how tall the page is.

    The page is copied to a temporary folder with a ``<base>`` pointing at its own folder (its links
    resolve as in place; nothing is written beside it) and a script that writes its findings into the
    document, which ``--dump-dom`` returns.

    Parameters
    ----------
    page : Path or str
        The HTML file.
    chromium : str
        The Chromium executable.
    width : int
        Window width (pixels).

    Returns
    -------
    Layout
        The problems (empty if there is none) and the page's height.

    Raises
    ------
    RuntimeError
        If Chromium fails or the script's result is not in the document.
    """
    page = Path(page).resolve()
    with tempfile.TemporaryDirectory(prefix="fsbench-layout-") as tmp:
        probe = _copy_with_base(page, Path(tmp), _PROBE)
        res = subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={Path(tmp) / 'profile'}",
                f"--window-size={width},1000",
                "--virtual-time-budget=30000",  # virtual time: until every image has loaded
                "--dump-dom",
                probe.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    m = re.search(r'<pre id="fsbench-layout">(.*?)</pre>', res.stdout, re.S)
    if res.returncode != 0 or m is None:
        raise RuntimeError(f"{chromium} failed on {page}: {res.stderr[-1000:]}")
    found = json.loads(html.unescape(m.group(1)))
    # the probe's own <pre> (one line of JSON) is not part of the page
    return Layout(list(found["problems"]), int(found["height"]))


def _read_png(png: Path) -> np.ndarray:
    """The pixels of ``png`` (rows, columns, channels; floats in [0, 1])."""
    import matplotlib.image as mpimg  # lazy: matplotlib is heavy, and only the screenshots need it

    return mpimg.imread(png)


def _write_png(png: Path, pixels: np.ndarray) -> None:
    import matplotlib.image as mpimg  # lazy: matplotlib is heavy, and only the screenshots need it

    mpimg.imsave(png, pixels)


def _copy_with_base(page: Path, folder: Path, extra: str) -> Path:
    """A copy of ``page`` in ``folder`` whose links resolve as in place (a ``<base>`` of the page's own
    folder), with ``extra`` (a script or a style) at the end of its body."""
    text = page.read_text(encoding="utf-8")
    text = text.replace("<head>", f'<head><base href="{page.parent.as_uri()}/">', 1)
    copy = folder / "page.html"
    copy.write_text(text.replace("</body>", extra + "</body>", 1), encoding="utf-8")
    return copy


def screenshot(
    page: Path | str, out: Path | str, chromium: str, height: int, top: int = 0, width: int = 1280
) -> Path:
    """A PNG of ``height`` pixels of the page ``page`` from ``top`` pixels down, as headless Chromium
    draws it in a ``width``-pixel window.

    Chromium draws only its window, and a window as tall as a long page (Ramona 2012's: 150,000 px) is
    too large an image: a long page is drawn in parts, each from a copy of the page moved up by ``top``
    pixels (its links resolve as in place).

    Parameters
    ----------
    page : Path or str
        The HTML file.
    out : Path or str
        The PNG to write.
    chromium : str
        The Chromium executable.
    height, top, width : int
        The part's height, its distance from the top of the page and the window's width (pixels).

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    RuntimeError
        If Chromium fails or writes no image.
    """
    page, out = Path(page).resolve(), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shift = f"<style>body {{ position: relative; top: -{int(top)}px; }}</style>"
    with tempfile.TemporaryDirectory(prefix="fsbench-chromium-") as tmp:
        copy = _copy_with_base(page, Path(tmp), shift)
        res = subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={Path(tmp) / 'profile'}",
                f"--screenshot={out.resolve()}",
                f"--window-size={width},{height}",
                copy.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
    if res.returncode != 0 or not out.is_file():
        raise RuntimeError(f"{chromium} failed on {page}: {res.stderr[-1000:]}")
    return out


def page_tiles(page: Path | str, folder: Path | str, chromium: str, height: int) -> list[Path]:
    """The whole page ``page`` (``height`` pixels tall, :func:`probe_layout`) in tiles of
    :data:`TILE_HEIGHT` pixels, ``folder/01.png``, ``02.png``, ... (earlier tiles there are removed).

    Parameters
    ----------
    page : Path or str
        The HTML file.
    folder : Path or str
        Where the tiles go.
    chromium : str
        The Chromium executable.
    height : int
        The page's height (pixels).

    Returns
    -------
    list of Path
        The tiles, top to bottom.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("[0-9][0-9].png"):
        old.unlink()
    out: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="fsbench-shot-") as tmp:
        for top in range(0, height, PART_HEIGHT):
            part = screenshot(page, Path(tmp) / "part.png", chromium, min(PART_HEIGHT, height - top), top)
            pixels = _read_png(part)
            for y in range(0, pixels.shape[0], TILE_HEIGHT):
                out.append(folder / f"{len(out) + 1:02d}.png")
                _write_png(out[-1], pixels[y : y + TILE_HEIGHT])
    return out


def _name(page: Path) -> str:
    """A screenshot's name: the page's folder (``results/benchmark/REPORT.html`` → ``benchmark``)."""
    return page.resolve().parent.name if page.stem == "REPORT" else page.stem


def main(argv: list[str] | None = None) -> int:
    """Print each page's problems; with ``--screenshots DIR`` also its layout problems in Chromium
    (:func:`probe_layout`), and write its screenshot and tiles there.

    Returns 1 when a page has a problem, 2 when Chromium is needed and missing, else 0.
    """
    ap = argparse.ArgumentParser(prog="python -m fsbench.results.page_check", description=__doc__)
    ap.add_argument("pages", nargs="+", type=Path, help="HTML pages (REPORT.html)")
    ap.add_argument("--screenshots", type=Path, help="write <page folder>.png and <page folder>/NN.png here")
    ap.add_argument("--chromium", default=None, help="Chromium executable (default: chromium on PATH)")
    args = ap.parse_args(argv)
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if args.screenshots is not None and chromium is None:
        print("no chromium on PATH (Debian: apt-get install -y chromium); --chromium PATH", file=sys.stderr)
        return 2
    failed = False
    for page in args.pages:
        problems = page_problems(page)
        failed |= bool(problems)
        size = page.stat().st_size
        rows = sum(r for _, r in page_structure(page).tables)
        line = f"{page}: {size:,} bytes, {rows:,} table rows, {len(problems)} problem(s)"
        if args.screenshots is not None:
            layout = probe_layout(page, chromium)
            failed |= bool(layout.problems)
            problems += layout.problems
            name = _name(page)
            first = screenshot(
                page, args.screenshots / f"{name}.png", chromium, min(FIRST_SCREEN, layout.height)
            )
            parts = page_tiles(page, args.screenshots / name, chromium, layout.height)
            line += (
                f"; {first}, the whole page ({layout.height:,} px) in {len(parts)} tiles: {parts[0].parent}/"
            )
        print(line)
        for p in problems:
            print(f"  {p}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
