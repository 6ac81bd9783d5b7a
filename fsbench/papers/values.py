"""Paper-values files, experiment configs and dataset cards, read as plain YAML.

The bottom layer of the paper comparison of ``fsbench report --paper`` (imports flow render → claims →
cells → values; this module imports none of the others):

* where a paper's ``configs/<paper>/paper_values.yaml`` lives and how it is read (the file's header
  documents its format and every check ``kind``): :func:`paper_values_path`, :func:`configs_dir`,
  :func:`load_paper_values`;
* what the comparison needs from each experiment config of the paper directory (:class:`ConfigInfo`:
  datasets, ``repeats``, the ``[D]`` defaults and caveats stated in its comments): :func:`read_configs`,
  :func:`config_defaults`;
* a dataset card's fields (:func:`read_card`) and the first sentence of its notes, for the report's
  substitutions list (:func:`card_note`).

Configs and cards are read as YAML text, not through :mod:`fsbench.config.experiment` (which imports
:mod:`fsbench.algorithms`), so that the comparison imports no algorithm; a config that names a ``base:``
is read merged over it (:mod:`fsbench.config.files`), and its ``[D]`` comments are those of its own file
plus the base's on keys it does not set (:func:`layered_defaults`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

import fsbench
from fsbench.config.files import BASE_KEY, ConfigError, config_layers, merge_config
from fsbench.data.cards import cards_dir
from fsbench.results.paper_values import read_paper_values, split_defaults

#: File name of a paper's machine-readable values, in ``configs/<paper>/``.
PAPER_VALUES = "paper_values.yaml"
#: fsbench's default ``protocol.repeats``: the paper's n when no config states it.
DEFAULT_REPEATS = 30


def paper_values_path(paper: str, base: Path | None = None) -> Path:
    """Path of ``configs/<paper>/paper_values.yaml`` (``base`` = the ``configs`` directory).

    Parameters
    ----------
    paper : str
        Paper id: the name of its folder under ``base`` (``configs/<paper>/``).
    base : Path, optional
        Directory holding the paper directories; default ``<repository>/configs``.

    Returns
    -------
    Path
    """
    base = Path(base) if base is not None else configs_dir()
    return base / paper / PAPER_VALUES


def configs_dir() -> Path:
    """The ``configs/`` directory: ``FSBENCH_CONFIGS_DIR``, else ``./configs`` (a checkout or a copy of
    it; configs are not installed with the package), else the source checkout's."""
    env = os.environ.get("FSBENCH_CONFIGS_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    here = Path.cwd() / "configs"
    return here if here.is_dir() else Path(fsbench.__file__).resolve().parents[1] / "configs"


def load_paper_values(paper: str, path: Path | None = None) -> dict[str, Any]:
    """Read a paper's values.

    Parameters
    ----------
    paper : str
        Paper id.
    path : Path, optional
        Explicit ``paper_values.yaml``; default :func:`paper_values_path`.

    Returns
    -------
    dict
        The parsed YAML.

    Raises
    ------
    FileNotFoundError
        If the file does not exist (the message names the path; the CLI prints it as one line).
    """
    path = Path(path) if path is not None else paper_values_path(paper)
    if not path.is_file():
        raise FileNotFoundError(f"no paper values for '{paper}': {path} does not exist")
    return read_paper_values(path)


def _yaml_load(text: str) -> Any:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _cards_dir() -> Path:
    return cards_dir()


_ABBREVIATIONS = {"e.g", "i.e", "cf", "vs", "al", "etc", "approx", "resp", "no", "fig", "eq", "ref", "sec"}


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (whitespace collapsed), whole: a long sentence is never cut.

    A period after a common abbreviation (e.g., i.e., et al., ...) does not end the sentence.

    Parameters
    ----------
    text : str
        Any text (a card's notes, a substitution comment).

    Returns
    -------
    str
        Its first sentence with the closing punctuation, or all of it if it has no sentence end.
    """
    text = " ".join(str(text).split())
    end = len(text)
    for m in re.finditer(r"[.!?](?=\s)", text):
        word = re.search(r"([\w.]*)$", text[: m.start()])
        if word is None or word.group(1).lower() not in _ABBREVIATIONS:
            end = m.start() + 1
            break
    return text[:end]


def _drop_parentheses(text: str) -> str:
    prev = None
    while prev != text:
        prev, text = text, re.sub(r"\s*\([^()]*\)", "", text)
    return text


@dataclass
class ConfigInfo:
    """What the comparison needs from one experiment config (read as plain YAML).

    Attributes
    ----------
    name : str
        Experiment name (the ``experiment`` column of results.csv).
    file : Path
        The config file.
    data : dict
        The parsed YAML.
    datasets : list of str
        Dataset names / labels of the entries, in order (duplicates removed).
    defaults : list of str
        ``# [D]`` comments, ``[D]`` parts of ``notes`` and capitalised caveat paragraphs
        (``NOT EXPRESSIBLE:``, ``DATA CAVEAT``, ``DATASET NOT AVAILABLE:``), one line each.
    unavailable : str
        The config's ``DATASET NOT AVAILABLE`` paragraph (first sentence), or ``""``.
    """

    name: str
    file: Path
    data: dict[str, Any]
    datasets: list[str] = field(default_factory=list)
    defaults: list[str] = field(default_factory=list)
    unavailable: str = ""

    def repeats(self, dataset: str | None = None) -> int:
        """``protocol.repeats`` (of the entry of ``dataset`` if it overrides it; fsbench default 30)."""
        base = (self.data.get("protocol") or {}).get("repeats", DEFAULT_REPEATS)
        for entry in dataset_entries(self.data.get("dataset")):
            if isinstance(entry, dict) and entry_name(entry) == dataset:
                return int((entry.get("protocol") or {}).get("repeats", base))
        return int(base)


def dataset_entries(ds: Any) -> list[Any]:
    """The entries of a config's ``dataset`` field as a list.

    Parameters
    ----------
    ds : Any
        The field: a list of entries, one entry (a name or a mapping), or None.

    Returns
    -------
    list
        The entries; empty for None.
    """
    return ds if isinstance(ds, list) else [ds] if ds is not None else []


def entry_name(entry: Any) -> str:
    """The name of one dataset entry: a mapping's ``name``, else its ``label``, else its ``generator``.

    Parameters
    ----------
    entry : Any
        A dataset entry of a config (a name or a mapping).

    Returns
    -------
    str
        The name; "?" for a mapping with none of the three keys.
    """
    if isinstance(entry, dict):
        return str(entry.get("name") or entry.get("label") or entry.get("generator") or "?")
    return str(entry)


def config_defaults(text: str) -> list[str]:
    """Substitutions and defaults stated in a config's comments, one string each.

    Consecutive full-line comments form a paragraph (a bare ``#`` ends it). A paragraph opening
    with a capitalised tag (``NOT EXPRESSIBLE:``, ``DATA CAVEAT (...)``, ``DATASET NOT
    AVAILABLE:``) is kept whole; otherwise every ``[D]`` in it starts an item that runs to the next
    ``[D]`` or the end of the paragraph. An inline ``key: value  # [D] ...`` comment is one item,
    prefixed with its key.

    Parameters
    ----------
    text : str
        The YAML text.

    Returns
    -------
    list of str
    """
    tag = re.compile(r"^[A-Z][A-Z ]{3,}[A-Z](?=[:( ])")
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            joined = " ".join(para)
            if tag.match(joined):
                out.append(joined)
            else:
                out.extend(split_defaults(joined))
            para.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            if body:
                para.append(body)
            else:
                flush()
            continue
        flush()
        if "#" in line and "[D]" in line.split("#", 1)[1]:
            key, comment = (p.strip() for p in line.split("#", 1))
            out.append(f"`{key}` — {comment[comment.index('[D]') :]}")
    flush()
    return out


def _line_keys(text: str) -> dict[int, str]:
    """Line number -> dotted key path of the outermost key starting on that line (a list's items
    belong to the list's key: a list is replaced whole by an override)."""
    out: dict[int, str] = {}

    def walk(node: yaml.Node, path: str, in_list: bool) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path if in_list else f"{path}.{key.value}" if path else str(key.value)
                out.setdefault(key.start_mark.line, sub)
                walk(value, sub, in_list)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                out.setdefault(item.start_mark.line, path)
                walk(item, path, True)

    root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if root is not None:
        walk(root, "", False)
    return out


def _keyed_chunks(text: str) -> list[tuple[str | None, str]]:
    """``text`` cut after every line that is not a comment, each piece with the key path of that line.

    :func:`config_defaults` ends a comment paragraph at every such line, so it gives the same items
    piece by piece as on the whole text. A blank line takes the key of the next key line (a paragraph
    before a blank line introduces what follows), a continuation line the key of the line above.
    """
    keys = _line_keys(text)
    lines = text.splitlines()
    chunks: list[tuple[str | None, str]] = []
    start, last = 0, None
    for i, line in enumerate(lines):
        if line.strip().startswith("#"):
            continue
        if i in keys:
            last = keys[i]
        key = keys.get(i, last)
        if not line.strip():
            key = next((keys[j] for j in range(i + 1, len(lines)) if j in keys), None)
        chunks.append((key, "\n".join(lines[start : i + 1])))
        start = i + 1
    if start < len(lines):
        chunks.append((None, "\n".join(lines[start:])))
    return chunks


def _replaces(over: dict[str, Any], below: dict[str, Any], path: str) -> bool:
    """Whether merging ``over`` onto ``below`` replaces the value at ``path`` (or a key above it)."""
    for part in path.split("."):
        if part not in over:
            return False
        if not (isinstance(over[part], dict) and isinstance(below.get(part), dict)):
            return True  # replaced whole (a mapping merged key by key is not)
        over, below = over[part], below[part]
    return False


def layered_defaults(layers: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """:func:`config_defaults` of a config read over its ``base:`` chain.

    Parameters
    ----------
    layers : list of (str, dict)
        Each file's text and own mapping, deepest base first (:func:`fsbench.config.files.config_layers`).

    Returns
    -------
    list of str
        A file's items, less those on a key (or under a key) that a file over it replaces; in the order
        of the keys in the merged config (a file's header comment, on ``base:``, first). One file: exactly
        :func:`config_defaults` of its text.
    """
    if len(layers) == 1:
        return config_defaults(layers[0][0])
    merged: dict[str, Any] = {}
    below: list[dict[str, Any]] = []  # the merged mapping under each layer
    for _, raw in layers:
        below.append(merged)
        merged = merge_config(merged, raw)
    order: dict[str, int] = {}

    def walk(m: dict[str, Any], prefix: str) -> None:
        for k, v in m.items():
            order.setdefault(f"{prefix}{k}", len(order))
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")

    walk(merged, "")
    items: list[tuple[int, str]] = []
    for i, (text, _) in enumerate(layers):
        for key, chunk in _keyed_chunks(text):
            over = [(raw, below[j]) for j, (_, raw) in enumerate(layers) if j > i]
            if key == BASE_KEY and over:
                continue  # a base's own header comment (above its `base:`) describes that file only
            if key is not None and any(_replaces(o, b, key) for o, b in over):
                continue
            rank = -1 if key == BASE_KEY else order.get(key or "", len(order))
            items += [(rank, d) for d in config_defaults(chunk)]
    return [d for _, d in sorted(items, key=lambda x: x[0])]


def read_configs(config_dir: Path) -> dict[str, ConfigInfo]:
    """Every experiment config of a paper directory, by experiment name.

    Parameters
    ----------
    config_dir : Path
        ``configs/<paper>``; ``paper_values.yaml`` and unreadable files are skipped.

    Returns
    -------
    dict of str to ConfigInfo
    """
    out: dict[str, ConfigInfo] = {}
    for f in sorted(Path(config_dir).glob("*.yaml")):
        if f.name == PAPER_VALUES:
            continue
        try:
            layers = config_layers(f)  # the file and its base: chain, deepest base first
            texts = [p.read_text(encoding="utf-8") for p, _ in layers]
        except (OSError, ConfigError):
            continue
        data = layers[0][1]
        for _, raw in layers[1:]:
            data = merge_config(data, raw)
        if "name" not in data:
            continue
        datasets = list(dict.fromkeys(entry_name(e) for e in dataset_entries(data.get("dataset"))))
        defaults = layered_defaults([(text, raw) for text, (_, raw) in zip(texts, layers, strict=True)])
        notes = str(data.get("notes") or "")
        defaults += split_defaults(notes)
        unavailable = ""
        text = "\n".join(reversed(texts))  # the file's own paragraph first
        m = re.search(r"DATASET NOT AVAILABLE:\s*(.*)", text)
        if m:
            para = [m.group(1)]
            for ln in text[m.end() :].splitlines()[1:]:
                s = ln.strip()
                if not s.startswith("#") or not s.lstrip("#").strip():
                    break
                para.append(s.lstrip("#").strip())
            unavailable = first_sentence(_drop_parentheses(" ".join(para))).rstrip(".")
        out[str(data["name"])] = ConfigInfo(str(data["name"]), f, data, datasets, defaults, unavailable)
    return out


@lru_cache(maxsize=256)
def _read_card(file: Path, mtime: float) -> Mapping[str, Any]:
    try:
        card = _yaml_load(file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return MappingProxyType({})
    # read-only: the mapping is cached and shared by every caller
    return MappingProxyType(card if isinstance(card, dict) else {})


def read_card(name: str, cards_dir: Path | None = None) -> Mapping[str, Any] | None:
    """A dataset card's fields, read-only ({} if unreadable; ``None`` if there is no card ``name``)."""
    f = Path(cards_dir if cards_dir is not None else _cards_dir()) / f"{name}.yaml"
    if not f.is_file():
        return None
    return _read_card(f, f.stat().st_mtime)


def card_note(name: str, cards_dir: Path | None = None) -> str | None:
    """First sentence of a dataset card's ``notes`` (``None`` if there is no card ``name``)."""
    card = read_card(name, cards_dir)
    if card is None:
        return None
    return first_sentence(card.get("notes") or card.get("description") or "")
