"""The step Spark and Dask ship to their workers: built once per process, not per task."""

from __future__ import annotations

import pickle

import pytest

import ferrochunk as fc

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
from ferrochunk import _worker  # noqa: E402
from ferrochunk._worker import ChunkStep  # noqa: E402


def test_tasks_of_one_step_share_one_build(monkeypatch):
    monkeypatch.setattr(_worker, "_BUILT", {})
    loads = []
    real = pickle.loads
    monkeypatch.setattr(_worker.pickle, "loads", lambda b: loads.append(1) or real(b))
    step = ChunkStep(fc.Recursive(8), fc.Tokenizer.o200k(), "text", ("id",), threads=1)
    table = pa.table({"id": [1, 2], "text": ["One two three. Four five six seven.", None]})
    want = step(table)
    # Each task unpickles its own copy of the step, as an engine does.
    for _ in range(3):
        task = real(pickle.dumps(step))
        assert task(table).equals(want)
    assert len(loads) == 1
    assert list(_worker._BUILT) == [step.digest]


def test_a_worker_keeps_a_bounded_number_of_steps(monkeypatch):
    monkeypatch.setattr(_worker, "_BUILT", {})
    table = pa.table({"text": ["a b c"]})
    for n in range(1, 2 * _worker._KEEP + 1):
        ChunkStep(fc.TokenWindows(n), fc.Tokenizer.cl100k(), "text", (), threads=1)(table)
    assert len(_worker._BUILT) == _worker._KEEP
