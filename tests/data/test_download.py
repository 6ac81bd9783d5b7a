"""Downloads against a real HTTP server on 127.0.0.1 (no network mocks, no outside address)."""

from __future__ import annotations

import hashlib
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from fsbench.data import DatasetError, DatasetWarning, get_card, open_dataset
from fsbench.data.download import download_url, fetch

CSV = b"1.0,2.0,P\n3.0,4.0,N\n5.0,6.0,P\n"
SHA = hashlib.sha256(CSV).hexdigest()


class Handler(BaseHTTPRequestHandler):
    root: Path

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        name = self.path.lstrip("/")
        path = self.root / name.removeprefix("drop/")
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if name.startswith("drop/"):
            # announce the full length, send half, then the server closes the connection
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "www"
    root.mkdir()
    (root / "toy.csv").write_bytes(CSV)
    (root / "big.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB, several read blocks
    handler = type("H", (Handler,), {"root": root})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    dirs = {k: tmp_path / k for k in ("cards", "data", "cache")}
    for d in dirs.values():
        d.mkdir()
    monkeypatch.setenv("FSBENCH_CARDS_DIR", str(dirs["cards"]))
    monkeypatch.setenv("FSBENCH_DATA_DIR", str(dirs["data"]))
    monkeypatch.setenv("FSBENCH_CACHE_DIR", str(dirs["cache"]))
    return dirs


def write_card(cards: Path, url: str, sha: str | None) -> None:
    (cards / "web.yaml").write_text(
        textwrap.dedent(
            f"""
            name: web
            description: served from 127.0.0.1
            citation: none
            kind: table
            expected: {{n_samples: 3, n_features: 2, class_counts: {{P: 2, N: 1}}}}
            parse: {{format: csv, label: -1}}
            sources:
              - id: upstream
                kind: url
                files:
                  data: {{path: web/uci/toy.csv, url: '{url}', sha256: {sha or "null"}}}
            """
        )
    )


def leftovers(d: Path) -> list[Path]:
    return sorted(p for p in d.rglob("*") if p.is_file())


def test_fetch_lands_in_cache_and_loads(server: str, env: dict[str, Path]) -> None:
    write_card(env["cards"], f"{server}/toy.csv", SHA)
    assert not get_card("web").available()
    paths = fetch("web")
    target = env["cache"] / "web" / "uci" / "toy.csv"
    assert paths == [target] and target.read_bytes() == CSV
    assert leftovers(env["cache"]) == [target]  # no temporary file left behind
    ds = open_dataset("web")
    assert ds.source.startswith("upstream (url)") and str(target) in ds.source
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    assert fetch("web") == [target]  # already present: not downloaded again


def test_open_dataset_download_flag(server: str, env: dict[str, Path]) -> None:
    write_card(env["cards"], f"{server}/toy.csv", SHA)
    with pytest.raises(DatasetError, match="data not found locally"):
        open_dataset("web")
    assert open_dataset("web", download=True).n_samples == 3


def test_wrong_checksum_refused_and_nothing_left(server: str, env: dict[str, Path]) -> None:
    write_card(env["cards"], f"{server}/toy.csv", "ab" * 32)
    with pytest.raises(DatasetError) as exc:
        fetch("web")
    msg = str(exc.value)
    assert "sha256 mismatch" in msg and "ab" * 32 in msg and SHA in msg and "nothing saved" in msg
    assert leftovers(env["cache"]) == []


def test_dropped_connection_leaves_nothing(server: str, env: dict[str, Path]) -> None:
    dest = env["cache"] / "x" / "big.bin"
    with pytest.raises(DatasetError, match=r"big.bin (failed after|truncated: got) \d+"):
        download_url(f"{server}/drop/big.bin", dest, None)
    assert leftovers(env["cache"]) == []


def test_http_error_and_bad_scheme(server: str, env: dict[str, Path]) -> None:
    with pytest.raises(DatasetError, match="404"):
        download_url(f"{server}/absent.csv", env["cache"] / "a.csv", None)
    with pytest.raises(DatasetError, match="only http"):
        download_url("file:///etc/passwd", env["cache"] / "p", None)
    assert leftovers(env["cache"]) == []


def test_unknown_hash_recorded_on_first_download(server: str, env: dict[str, Path]) -> None:
    write_card(env["cards"], f"{server}/toy.csv", None)
    with pytest.warns(DatasetWarning, match="no known sha256"):
        fetch("web")
    side = env["cache"] / "web" / "uci" / "toy.csv.sha256"
    assert side.read_text().split()[0] == SHA
    assert open_dataset("web").n_samples == 3  # verified against the record, no new warning needed


def test_large_file_hash(server: str, env: dict[str, Path]) -> None:
    body = bytes(range(256)) * 4096
    dest = download_url(f"{server}/big.bin", env["cache"] / "b" / "big.bin", hashlib.sha256(body).hexdigest())
    assert dest.read_bytes() == body


def test_fetch_without_downloadable_source(env: dict[str, Path]) -> None:
    (env["cards"] / "syn.yaml").write_text(
        "name: syn\ndescription: d\ncitation: c\nkind: synthetic\n"
        "sources: [{kind: synthetic, generator: weston_linear}]\n"
    )
    with pytest.raises(DatasetError, match="no downloadable"):
        fetch("syn")
