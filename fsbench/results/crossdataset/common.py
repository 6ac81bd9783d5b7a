"""Shared pieces of the cross-dataset report: where its files go, number formats, links."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Where the analyses' tables and figures go, under the results folder.
ANALYSIS = "analysis"
#: Significance level of every test and interval of the report.
ALPHA = 0.05


def pct(x: float) -> str:
    """An error rate in %, one decimal ("–" for NaN)."""
    return "–" if x != x else f"{100 * x:.1f}"


def frac(f: float) -> str:
    """A fraction of D as a percentage ("5 %")."""
    return f"{100 * f:g} %"


def names_or_count(joined: str, most: int = 4) -> str:
    """Tied winners as named, or their count where more than ``most`` tie (a small D: S = 1 or 2)."""
    names = joined.split(", ")
    return joined if len(names) <= most else f"{len(names)} selectors tie"


def fig(ctx: Links, png: Path, alt: str) -> list[str]:
    """Markdown lines showing a figure, linked relative to the page."""
    return [f"![{alt}]({ctx.rel(png)})", ""]


def demote(lines: list[str]) -> list[str]:
    """Headings one level down (a track's sections under its own heading)."""
    return [f"#{ln}" if ln.startswith("#") else ln for ln in lines]


def group_label(by: str, v: float) -> str:
    """A block's label: a fraction of D or an absolute S."""
    return f"{frac(v)} of D" if by == "fraction" else f"S = {int(v)}"


def secs(t: float) -> str:
    """Seconds, three significant digits ("–" for NaN)."""
    return "–" if t != t else f"{t:.3g} s"


@dataclass(frozen=True)
class Links:
    """Where the page goes: links in its Markdown are relative to ``root`` (the report's directory)."""

    root: Path

    def rel(self, path: Path) -> str:
        """``path`` relative to :attr:`root`, else as it is."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).as_posix()
