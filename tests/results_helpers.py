"""Builders of small result directories (results.csv, rankings.csv, run.json) for the analysis tests."""

from __future__ import annotations

import base64
import csv
import hashlib
import json
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

from fsbench.results.html import unresolved_images

RESULT_COLUMNS = [
    "schema_version",
    "experiment",
    "dataset",
    "kernel",
    "selector",
    "selector_name",
    "n_train",
    "n_test",
    "repeat",
    "split_seed",
    "n_features",
    "error",
    "balanced_error",
    "fit_cpu_s",
    "status",
    "message",
    "git_commit",
    "task_id",
]


def write_result_dir(
    path: Path,
    *,
    experiment: str,
    dataset: str,
    d: int,
    selectors: dict[str, Callable[[int, int, np.random.Generator], np.ndarray]],
    error: Callable[[str, int, int, int, np.random.Generator], float],
    n_train: tuple[int, ...] = (50,),
    s_values: tuple[int, ...] = (2, 4),
    repeats: int = 6,
    kernel: str = "linear",
    baseline: bool = True,
    effective_dataset: object | None = None,
    seed: int = 0,
) -> Path:
    """Write a result directory.

    ``selectors[name](n_train, repeat, rng)`` returns the ranking (feature indices best first);
    ``error(selector, n_train, repeat, S, rng)`` the test error. With ``baseline`` the all-features
    selector ``all`` gets rows at S = d only and an arbitrary order, as ``fsbench run`` writes them.
    """
    rng = np.random.default_rng(seed)
    path.mkdir(parents=True, exist_ok=True)
    res_rows, rank_rows = [], []
    sels = dict(selectors)
    if baseline:
        sels = {"all": lambda n, r, g: g.permutation(d), **sels}
    for n in n_train:
        for r in range(repeats):
            for name, ranker in sels.items():
                task = hashlib.sha1(f"{experiment}{dataset}{name}{n}{r}".encode()).hexdigest()[:16]
                order = np.asarray(ranker(n, r, rng))
                rank_rows.append(
                    [task, experiment, dataset, kernel, name, n, r, " ".join(map(str, order)), ""]
                )
                for s in [d] if name == "all" else s_values:
                    e = error(name, n, r, s, rng)
                    res_rows.append(
                        [1, experiment, dataset, kernel, name, name, n, 100, r, 1000 + r, s, e, e, 0.01]
                        + ["ok", "", "abc123", task]
                    )
    with open(path / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(RESULT_COLUMNS)
        w.writerows(res_rows)
    with open(path / "rankings.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "experiment", "dataset", "kernel", "selector", "n_train", "repeat", "order"])
        w.writerows([row[:8] for row in rank_rows])
    run = {
        "schema_version": 1,
        "experiment": experiment,
        "config_hash": hashlib.sha256(experiment.encode()).hexdigest(),
        "git_commit": "abc123",
        "commits": ["abc123"],
        "git_dirty": False,
        "versions": {"python": "3.11", "fsbench": "0.1.0", "numpy": np.__version__},
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:01:00+00:00",
        "effective_config": {"name": experiment, "dataset": effective_dataset or dataset, "kernel": kernel},
    }
    (path / "run.json").write_text(json.dumps(run, indent=1))
    return path


def fixed_ranker(order: list[int], d: int) -> Callable[[int, int, np.random.Generator], np.ndarray]:
    """Always the same ranking: ``order`` first, the other features after it in index order."""
    rest = [f for f in range(d) if f not in order]
    return lambda n, r, rng: np.array(list(order) + rest)


def random_ranker(d: int) -> Callable[[int, int, np.random.Generator], np.ndarray]:
    """A fresh random permutation every repeat."""
    return lambda n, r, rng: rng.permutation(d)


class HtmlPage(HTMLParser):
    """The ``<h2>`` headings, ``<img>`` sources (all, and the number under each heading), the number of
    lists, list items and tables, and references to anything outside the page's folder."""

    def __init__(self):
        super().__init__()
        self.headings, self.images, self.external = [], [], []
        self.images_under: dict[str, int] = {}
        self.tags: dict[str, int] = {}
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "h2":
            self._in_h2 = True
        if tag == "img":
            self.images.append(a.get("src", ""))
            if self.headings:
                self.images_under[self.headings[-1]] = self.images_under.get(self.headings[-1], 0) + 1
        if tag in ("script", "link"):
            self.external.append(a.get("src") or a.get("href") or tag)
        src = a.get("src") or ""
        if tag == "img" and ("://" in src or src.startswith("/")):
            self.external.append(src)

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._in_h2 and data.strip():
            self.headings.append(data.strip())


def read_report_page(path: Path) -> HtmlPage:
    """Parse an HTML page and check what a browser would show: no script, nothing outside its folder,
    every image an embedded PNG (its signature) or a file beside the page
    (:func:`fsbench.results.html.unresolved_images`)."""
    page = HtmlPage()
    page.feed(Path(path).read_text(encoding="utf-8"))
    assert page.external == [], page.external
    assert unresolved_images(path) == []
    for src in page.images:
        if src.startswith("data:"):
            assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    return page
