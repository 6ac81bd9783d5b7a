"""Reading a paper's ``paper_values.yaml`` and small cell helpers (mean ± std cells, ``[D]`` items), shared by
the paper reports and by the diagnostics that print a paper's numbers beside theirs (Markdown tables:
:func:`fsbench.results.tables.md_table`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import yaml


def mean_std(values: pd.Series, fmt: str = "{:.3f}") -> str:
    """``mean ± std`` (sample std) of a series, or the mean alone for one value; "–" if empty."""
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return "–"
    if v.size == 1:
        return fmt.format(float(v.iloc[0]))
    return f"{fmt.format(float(v.mean()))} ± {fmt.format(float(v.std(ddof=1)))}"


def pm(v: float, s: float | None, nd: int = 1) -> str:
    """``v ± s`` with ``nd`` decimals, ``v`` alone where there is no std (None or NaN), "–" for NaN ``v``."""
    if v != v:
        return "–"
    return f"{v:.{nd}f}" if s is None or s != s else f"{v:.{nd}f} ± {s:.{nd}f}"


def split_defaults(text: str) -> list[str]:
    """The ``[D]``-tagged items of a text: each ``[D]`` starts one, up to the next ``[D]``.

    A tag that closes a sentence (``... D = 6 [D]; a true ...``) stays with the preceding item; before
    any item, the sentence it closes becomes the item (``... the protocol is §8.5's proposal [D].``).
    """
    items: list[str] = []
    parts = " ".join(str(text).split()).split("[D]")
    for i, part in enumerate(parts):
        part = part.strip()
        if i == 0 or not part:
            continue
        if part[0] in ";,.:)":
            if items:
                items[-1] += f" [D]{part}"
            else:
                # the last sentence: a full stop followed by a capital ("et al. 2012" does not end one)
                sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", parts[i - 1].strip())[-1]
                items.append(f"[D] {sentence}{part}")
        else:
            items.append(f"[D] {part}")
    return items


def read_paper_values(path: str | Path) -> dict[str, Any]:
    """A ``configs/<paper>/paper_values.yaml`` file as a mapping (the one reader of paper values;
    :func:`fsbench.papers.values.load_paper_values` finds a paper's file and calls it).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If its top level is not a mapping.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def paper_cells(pv: dict[str, Any], table_id: str) -> pd.DataFrame:
    """The ``cells`` of one table of a paper-values mapping as a DataFrame."""
    for t in pv.get("tables", []):
        if t.get("id") == table_id:
            return pd.DataFrame(t.get("cells", []))
    raise KeyError(f"no table {table_id!r} in the paper values")
