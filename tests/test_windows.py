"""TokenWindows behaviour on both backends, their parity, and the batch entry point."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.errors import FerrochunkError

TEXT = st.lists(
    st.one_of(
        st.text(max_size=12),
        st.sampled_from(["你好世界", "😀", "👩‍👩‍👧", " ", "\n\n", "\r\n", "word ", "é"]),
    ),
    max_size=30,
).map("".join)
SIZES = st.integers(1, 16).flatmap(lambda m: st.tuples(st.just(m), st.integers(0, m - 1)))


def _check_invariants(text: str, chunks: list[fc.Chunk], max_tokens: int, overlap: int) -> None:
    data = text.encode("utf-8", "surrogatepass")
    _, starts = fc.Tokenizer.cl100k().encode_with_offsets(text)
    covered = 0
    for i, c in enumerate(chunks):
        assert c.index == i
        assert c.text == text[c.char_start : c.char_end]
        assert data[c.byte_start : c.byte_end].decode("utf-8", "surrogatepass") == c.text
        assert c.token_count == c.token_end - c.token_start
        assert c.metadata["oversize"] == (c.token_count > max_tokens)
        assert c.byte_start <= covered, "gap between chunks"
        covered = c.byte_end
        if i:
            prev = chunks[i - 1]
            assert c.token_start > prev.token_start
            assert prev.token_end - c.token_start <= overlap
        if c.token_count > max_tokens:
            # Only when no token boundary inside the window is a character boundary.
            inner = starts[c.token_start + 1 : c.token_start + max_tokens + 1].tolist()
            assert all(0x80 <= data[s] < 0xC0 for s in inner)
    assert covered == len(data)


def test_empty_text_gives_no_chunks(backend):
    assert fc.chunk("", fc.TokenWindows(8), backend=backend) == []


def test_windows_of_plain_text(backend):
    text = "one two three four five six seven eight nine ten"
    chunks = fc.chunk(text, fc.TokenWindows(4, overlap_tokens=1), backend=backend)
    assert [c.text for c in chunks] == [
        "one two three four",
        " four five six seven",
        " seven eight nine ten",
    ]
    assert [c.token_count for c in chunks] == [4, 4, 4]
    assert "".join(c.text for c in fc.chunk(text, fc.TokenWindows(3), backend=backend)) == text


def test_offsets_are_exact_on_multilingual_text(backend):
    text = "Grüße, 世界! 😀 Ünïcödé — ok.\r\nΚαλημέρα 🧑🏽‍🚀"
    chunks = fc.chunk(text, fc.TokenWindows(3, overlap_tokens=1), backend=backend)
    _check_invariants(text, chunks, 3, 1)


def test_a_window_over_the_cap_is_flagged(backend):
    # Found by atheris: a character over more tokens than the cap was an unflagged window.
    chunks = fc.chunk("a🦀b", fc.TokenWindows(1), backend=backend)
    assert [(c.text, c.token_count, c.metadata["oversize"]) for c in chunks] == [
        ("a", 1, False),
        ("🦀", 3, True),
        ("b", 1, False),
    ]


def test_a_window_is_never_cut_inside_a_character(backend):
    text = "😀😀😀 你好 👩‍👩‍👧"
    for max_tokens in range(1, 6):
        chunks = fc.chunk(text, fc.TokenWindows(max_tokens), backend=backend)
        assert "".join(c.text for c in chunks) == text
        data = text.encode()
        for c in chunks:  # every cut is a character boundary: each slice decodes strictly
            assert data[c.byte_start : c.byte_end].decode("utf-8") == c.text


@given(TEXT, SIZES)
def test_invariants_hold(text, sizes):
    max_tokens, overlap = sizes
    for backend in ("native", "reference"):
        chunks = fc.chunk(
            text, fc.TokenWindows(max_tokens, overlap_tokens=overlap), backend=backend
        )
        _check_invariants(text, chunks, max_tokens, overlap)


@given(TEXT, SIZES, st.sampled_from(["cl100k", "o200k"]))
def test_native_equals_reference(text, sizes, tokenizer):
    max_tokens, overlap = sizes
    config = fc.TokenWindows(max_tokens, overlap_tokens=overlap)
    native = fc.chunk(text, config, tokenizer=tokenizer, backend="native")
    assert native == fc.chunk(text, config, tokenizer=tokenizer, backend="reference")


@given(
    st.lists(st.integers(0, 12), max_size=12),
    st.text(alphabet="ab é", max_size=12),
    SIZES,
)
def test_native_equals_reference_on_user_offsets_including_errors(starts, text, sizes):
    """Arbitrary (often malformed) user offsets: same chunks or the same exception type."""
    tok = fc.Tokenizer.from_callable(lambda t: (list(range(len(starts))), starts))
    config = fc.TokenWindows(sizes[0], overlap_tokens=sizes[1])
    outcomes = []
    for backend in ("native", "reference"):
        try:
            outcomes.append(fc.chunk(text, config, tokenizer=tok, backend=backend))
        except FerrochunkError as exc:
            outcomes.append(type(exc))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("path", corpus_files()[::3], ids=lambda p: p.name)
def test_native_equals_reference_on_the_corpus(path):
    text = read_corpus(path)[:200_000]
    config = fc.TokenWindows(512, overlap_tokens=51)
    native = fc.chunk(text, config)
    assert native == fc.chunk(text, config, backend="reference")
    _check_invariants(text, native, 512, 51)


def test_lone_surrogates_are_kept_in_chunk_text(backend):
    text = "ab\ud800cd \udfff end"
    chunks = fc.chunk(text, fc.TokenWindows(2), backend=backend)
    assert "".join(c.text for c in chunks) == text


def test_user_tokenizer_gaps_stay_in_chunks(backend):
    # A tokenizer that skips spaces: the spaces still belong to a chunk.
    def words(text):
        starts = [i for i, ch in enumerate(text) if ch != " " and (i == 0 or text[i - 1] == " ")]
        return list(range(len(starts))), starts

    text = "  alpha beta  gamma"
    chunks = fc.chunk(
        text, fc.TokenWindows(2), tokenizer=fc.Tokenizer.from_callable(words), backend=backend
    )
    assert [c.text for c in chunks] == ["  alpha beta  ", "gamma"]
    empty = fc.chunk(
        "   ", fc.TokenWindows(2), tokenizer=fc.Tokenizer.from_callable(words), backend=backend
    )
    assert [(c.text, c.token_count) for c in empty] == [("   ", 0)]


def test_chunk_spans_is_the_array_form():
    text = "alpha beta gamma delta " * 50
    config = fc.TokenWindows(16, overlap_tokens=4)
    spans = fc.chunk_spans(text, config)
    assert spans.dtype == np.int64
    assert spans.shape[1] == len(fc.SPAN_COLUMNS)
    chunks = fc.chunk(text, config)
    assert spans.tolist() == [
        [c.token_start, c.token_end, c.byte_start, c.byte_end, c.char_start, c.char_end]
        for c in chunks
    ]
    assert fc.chunk_spans("", config).shape == (0, 6)


def test_chunk_many_equals_chunk_one_by_one():
    texts = [read_corpus(p)[:50_000] for p in corpus_files()[:4]] + ["", "x", "😀\ud800"]
    config = fc.TokenWindows(64, overlap_tokens=8)
    expected = [fc.chunk(t, config) for t in texts]
    for threads in (None, 1, 2):
        assert fc.chunk_many(texts, config, threads=threads) == expected
    tok = fc.Tokenizer.from_tiktoken(
        __import__("ferrochunk.reference._tiktoken").reference._tiktoken.cl100k()
    )
    assert fc.chunk_many(texts[:2], config, tokenizer=tok) == expected[:2]


def test_concurrent_calls_give_identical_results():
    text = read_corpus(corpus_files()[0])[:300_000]
    config = fc.TokenWindows(128, overlap_tokens=16)
    expected = fc.chunk(text, config)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: fc.chunk(text, config), range(8)))
    assert all(r == expected for r in results)


def test_the_event_loop_keeps_ticking_while_a_worker_chunks():
    text = read_corpus(corpus_files()[0]) * 3
    ticks = 0
    done = threading.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0.001)

    def work() -> Any:
        # Long enough (a few hundred ms) that a loaded machine still shows the ticks.
        for _ in range(9):
            spans = fc.chunk_spans(text, fc.TokenWindows(256))
        return spans

    async def main() -> Any:
        tick_task = asyncio.create_task(ticker())
        try:
            return await asyncio.to_thread(work)
        finally:
            done.set()
            await tick_task

    spans = asyncio.run(main())
    assert len(spans) > 100
    # The GIL is released while Rust works, so the loop ran many times meanwhile.
    assert ticks > 5
