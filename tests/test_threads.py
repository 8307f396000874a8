"""Concurrent calls: 8 Python threads x 500 calls on mixed configs equal the sequential run."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import ferrochunk as fc

CONFIGS = [
    fc.TokenWindows(16, overlap_tokens=3),
    fc.Recursive(20, overlap_tokens=2),
    fc.SentenceWindows(24),
    fc.DelimiterMerge(12, child_delimiters=(",",), overlap=20, joiner="\n"),
    fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10)),
]
TEXTS = [
    f"Document {i}: first sentence, with a comma. 第二句，中文。\nLine {i} ends here. "
    * (1 + i % 7)
    for i in range(40)
]


def _call(k: int) -> object:
    config = CONFIGS[k % len(CONFIGS)]
    text = TEXTS[k % len(TEXTS)]
    kind = k % 4
    if kind == 0:
        return fc.chunk(text, config)
    if kind == 1:
        return list(fc.chunk_stream([text[:17], text[17:]], config, tokenizer="o200k"))
    if kind == 2:
        return fc.chunk_many([text, text[::-1]], config, threads=2)
    return fc.chunk_spans(text, config).tolist()


def test_threads_equal_sequential():
    calls = range(8 * 500)
    sequential = [_call(k) for k in calls]
    with ThreadPoolExecutor(max_workers=8) as pool:
        concurrent = list(pool.map(_call, calls))
    assert concurrent == sequential


def test_two_threads_share_one_chunk_many_iter():
    """next() waits for the iterator's lock without the GIL: a second thread calling it
    at the same time neither deadlocks nor loses or repeats a batch."""
    import threading

    from ferrochunk import _native

    texts = [f"Document {i}. " + "Words and more words. " * 300 for i in range(64)]
    config = fc.Recursive(32)
    batches = _native.chunk_many_iter(texts, config, "cl100k_base", 2)
    taken: list[object] = []

    def take() -> None:
        while (batch := next(batches, None)) is not None:
            taken.append(batch)

    workers = [threading.Thread(target=take, daemon=True) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert not any(w.is_alive() for w in workers)
    assert len(taken) == len(texts)


def _plain(batch: Any) -> tuple:
    return batch.table.tolist(), batch.spans.tolist(), batch.texts, batch.meta


def test_chunk_many_iter_cuts_on_the_caller_alone_and_beside_a_helper():
    """threads=1 starts no helper: the caller cuts every text as it asks for it. threads=2
    adds one helper that claims texts in order beside it. Both give chunk_many's batches
    in text order; a thread count of 0 is refused."""
    from ferrochunk import _native

    config = fc.Recursive(20, overlap_tokens=2)
    expected = [_plain(b) for b in _native.chunk_many(TEXTS, config, "cl100k_base", 1)]
    for threads in (1, 2, None):
        got = _native.chunk_many_iter(TEXTS, config, "cl100k_base", threads)
        assert [_plain(b) for b in got] == expected
    with pytest.raises(fc.errors.ConfigError, match="threads must be None or an integer >= 1"):
        _native.chunk_many_iter(TEXTS, config, "cl100k_base", 0)
