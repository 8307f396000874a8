"""VoltAgent compat and the token-aware chunker against their pure-Python counterparts.

* compat ``TokenChunker`` / ``SentenceChunker`` / ``RecursiveChunker`` (Rust for whole-number
  options) against the reference (its own orchestration over tiktoken with js-tiktoken's
  split and a Python decode). ``SentenceChunker`` runs on 100 KB: the reference counts every
  group's prefix of the text afresh, as upstream does, so it is quadratic;
* native ``SentenceWindows(512)`` against its reference twin and chonkie's SentenceChunker;
* ``TokenAwareChunker.chunk_with_overlap`` against the plan's algorithm in plain Python,
  which counts every sentence (and every candidate piece) with tiktoken.

Native results are checked against the reference in the same run.
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

import ferrochunk as fc
from ferrochunk.compat import voltagent as native
from ferrochunk.compat.token_aware import TokenAwareChunker
from ferrochunk.reference import voltagent as reference
from ferrochunk.reference._tiktoken import cl100k

BACKENDS = {"native": native, "reference": reference}


def _bytes(benchmark, group: str, text: str) -> None:
    benchmark.group = group
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))


def _run(benchmark, backend: str, fn, *args):
    if backend == "reference":
        return benchmark.pedantic(fn, args, rounds=3, iterations=1)
    return benchmark(fn, *args)


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_voltagent_token_chunker(benchmark, multilingual, backend):
    _bytes(benchmark, "voltagent-token-200-20", multilingual)
    chunker = BACKENDS[backend].TokenChunker()
    chunks = _run(
        benchmark, backend, lambda t: chunker.chunk(t, max_tokens=200, overlap=20), multilingual
    )
    if backend == "native":
        expected = reference.TokenChunker().chunk(multilingual, max_tokens=200, overlap=20)
        assert _same(chunks, expected)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_voltagent_sentence_chunker(benchmark, multilingual, backend):
    text = multilingual[: len(multilingual) // 10]
    _bytes(benchmark, "voltagent-sentence-200-1 (100 KB)", text)
    chunker = BACKENDS[backend].SentenceChunker()
    chunks = _run(
        benchmark,
        backend,
        lambda t: chunker.chunk(t, max_tokens=200, overlap_sentences=1),
        text,
    )
    if backend == "native":
        expected = reference.SentenceChunker().chunk(text, max_tokens=200, overlap_sentences=1)
        assert _same(chunks, expected)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_voltagent_recursive_chunker(benchmark, multilingual, backend):
    _bytes(benchmark, "voltagent-recursive-300-30", multilingual)
    chunker = BACKENDS[backend].RecursiveChunker()
    chunks = _run(
        benchmark,
        backend,
        lambda t: chunker.chunk(t, max_tokens=300, overlap_tokens=30),
        multilingual,
    )
    if backend == "native":
        expected = reference.RecursiveChunker().chunk(
            multilingual, max_tokens=300, overlap_tokens=30
        )
        assert _same(chunks, expected)


SENTENCES = fc.SentenceWindows(512)


@pytest.mark.parametrize("backend", ["native", "reference"])
def test_sentence_windows(benchmark, multilingual, backend):
    _bytes(benchmark, "sentence-windows-512", multilingual)
    chunks = _run(
        benchmark, backend, lambda t: fc.chunk(t, SENTENCES, backend=backend), multilingual
    )
    assert all(c.token_count <= SENTENCES.safe_max for c in chunks)
    if backend == "native":
        assert chunks == fc.chunk(multilingual, SENTENCES, backend="reference")


@pytest.mark.skipif(importlib.util.find_spec("chonkie") is None, reason="bench extra: chonkie")
def test_chonkie_sentence_chunker(benchmark, multilingual):
    from chonkie import SentenceChunker

    chunker = SentenceChunker(
        tokenizer=cl100k(), chunk_size=SENTENCES.safe_max, chunk_overlap=SENTENCES.overlap_tokens
    )
    _bytes(benchmark, "sentence-windows-512", multilingual)
    assert benchmark(chunker.chunk, multilingual)


# -- the plan's algorithm in plain Python (the pure-Python counterpart) -----------------
_SENTENCE = re.compile(r"[^\n。！？!?]*(?:[\n。！？!?]+|\.(?=\s)|…(?=\s)|；(?=\s)|$)\s*")


def plan_chunk_with_overlap(text: str, max_tokens: int, overlap_ratio: float) -> list[str]:
    """Sentences packed while tiktoken counts the packed text within ``safe_max``; long
    sentences cut at the plan's break points; the overlap re-encodes the previous tail."""
    enc = cl100k()
    safe_max = int(max_tokens * 0.85)
    overlap = int(max_tokens * overlap_ratio)
    chunker = TokenAwareChunker(max_tokens, overlap_ratio)
    count = enc.encode_ordinary

    def pieces(sentence: str) -> list[str]:
        out = []
        while len(count(sentence)) > safe_max:
            ids = count(sentence)[:safe_max]
            cut = len(enc.decode(ids))
            cut = chunker.find_best_breakpoint(sentence, cut) or cut
            out.append(sentence[:cut])
            sentence = sentence[cut:]
        return [*out, sentence] if sentence else out

    chunks: list[str] = []
    current = ""
    for match in _SENTENCE.finditer(text):
        for piece in pieces(match.group()):
            if current and len(count(current + piece)) > safe_max:
                chunks.append(current)
                tail = enc.decode(count(current)[-overlap:]) if overlap else ""
                current = tail if len(count(tail + piece)) <= safe_max else ""
            current += piece
    if current.strip():
        chunks.append(current)
    return chunks


@pytest.mark.parametrize("backend", ["native", "plan-python"])
def test_token_aware_chunk_with_overlap(benchmark, multilingual, backend):
    # The plan re-counts the packed text for every sentence: keep its input smaller.
    text = multilingual[: len(multilingual) // 10]
    _bytes(benchmark, "token-aware-512-0.1", text)
    if backend == "native":
        chunker = TokenAwareChunker(512, 0.1)
        chunks = benchmark(chunker.chunk_with_overlap, text)
        assert all(c["tokens"] <= chunker.safe_max for c in chunks)
    else:
        chunks = _run(benchmark, "reference", plan_chunk_with_overlap, text, 512, 0.1)
        assert chunks
