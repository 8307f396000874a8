"""Chunks travel: pickle, copy, asdict, to_dict/from_dict, and a real process pool."""

from __future__ import annotations

import copy
import dataclasses
import json
import multiprocessing
import pickle

import pytest

import ferrochunk as fc

TEXT = "First line, with a comma.\nSecond line。第三行，有逗号。\n\n" * 20
CONFIGS = [
    fc.TokenWindows(16, overlap_tokens=4),
    fc.Recursive(20, overlap_tokens=3),
    fc.SentenceWindows(24),
    fc.DelimiterMerge(12, child_delimiters=(",", "，"), overlap=20),
    fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10)),
]


def _chunks(config: object) -> list[fc.Chunk]:
    return fc.chunk(TEXT, config)  # type: ignore[arg-type]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
def test_pickle_copy_and_deepcopy(config):
    chunks = _chunks(config)
    assert chunks
    assert pickle.loads(pickle.dumps(chunks)) == chunks
    assert copy.copy(chunks) == chunks
    deep = copy.deepcopy(chunks)
    assert deep == chunks
    assert all(type(c.metadata) is fc.Metadata for c in deep)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
def test_dict_round_trips(config):
    for c in _chunks(config):
        assert fc.Chunk(**dataclasses.asdict(c)) == c
        plain = json.loads(json.dumps(c.to_dict()))
        assert fc.Chunk.from_dict(plain) == c


def test_metadata_is_read_only_hashable_and_equal_to_a_dict():
    c = _chunks(CONFIGS[3])[0]
    with pytest.raises(TypeError):
        c.metadata["oversize"] = True  # type: ignore[index]
    with pytest.raises(AttributeError):
        c.metadata._data = {}  # type: ignore[attr-defined]
    assert c.metadata == dict(c.metadata)
    assert hash(c) == hash(copy.deepcopy(c))
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.text = "x"  # type: ignore[misc]


def _chunk_in_worker(text: str) -> list[fc.Chunk]:
    return fc.chunk(text, fc.DelimiterMerge(8, child_delimiters=(",",)))


def test_a_process_pool_returns_chunks():
    texts = [TEXT[i : i + 200] for i in range(0, 1000, 200)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_chunk_in_worker, texts)
    assert results == [_chunk_in_worker(t) for t in texts]


def test_spans_behave_as_the_tuple_of_pairs_they_stand_for():
    chunk = next(c for c in _chunks(fc.DelimiterMerge(12)) if len(c.metadata["spans"]) > 1)
    spans = chunk.metadata["spans"]
    pairs = tuple((a, b) for a, b in spans)
    assert type(spans) is fc.Spans
    assert spans == pairs
    assert pairs == spans
    assert spans != list(pairs)
    assert hash(spans) == hash(pairs)
    assert repr(spans) == repr(pairs)
    assert spans[0] == pairs[0]
    assert spans[-1] == pairs[-1]
    assert spans[1:] == pairs[1:]
    assert all(type(v) is int for pair in spans for v in pair)
    assert pickle.loads(pickle.dumps(spans)) == spans
    assert chunk.text == "\n".join(TEXT[a:b] for a, b in spans)
    with pytest.raises(AttributeError):
        spans._pairs = None  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        spans._pairs[0, 0] = 1  # the array under it is read-only too
    assert fc.Spans() == ()
    assert len(fc.Spans()) == 0
    with pytest.raises(ValueError, match="pairs"):
        fc.Spans([1, 2])  # type: ignore[list-item]
