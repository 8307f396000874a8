"""Compat against upstream's own code at the pinned commits, one thread, outputs compared.

The other compat tables measure compat against the pure-Python reference; a user compares
compat with the code they run today. This file imports that code from checkouts the user
makes (``benches/upstream.py`` says which and how; ``make bench-upstream`` runs it, Dify's
under Python 3.12, the syntax it is written in). Without a checkout its rows are skipped.
Every compat result is checked against upstream's in the same run.
"""

from __future__ import annotations

from typing import Any

import pytest
import upstream
from bench_dify import BOTH_RULES, CASES, PROCESSOR_SEPARATORS, splitter
from bench_ragflow import DELIMITERS

from ferrochunk.compat import dify as compat_dify
from ferrochunk.compat import ragflow as compat_ragflow
from ferrochunk.reference._tiktoken import cl100k as tiktoken_cl100k

RAGFLOW = upstream.ragflow()
DIFY = upstream.dify()
need_ragflow = pytest.mark.skipif(
    RAGFLOW is None, reason=f"set {upstream.RAGFLOW} to a checkout of RAGFlow at b1b8cd6"
)
need_dify = pytest.mark.skipif(
    DIFY is None,
    reason=f"set {upstream.DIFY} to a checkout of Dify at e738086 (and run Python >= 3.12)",
)


def _run(benchmark, side: str, fn, *args):
    if side == "upstream":
        return benchmark.pedantic(fn, args, rounds=3, iterations=1)
    return benchmark(fn, *args)


@need_ragflow
@pytest.mark.parametrize("side", ["compat", "upstream"])
@pytest.mark.parametrize("delimiter", list(DELIMITERS))
@pytest.mark.parametrize("overlap", [0, 10])
@pytest.mark.parametrize("size", [128, 512])
def test_ragflow_naive_merge(benchmark, multilingual, side, delimiter, overlap, size):
    benchmark.group = f"upstream-naive_merge-{size}-{delimiter}-overlap{overlap}"
    benchmark.extra_info["bytes"] = len(multilingual.encode("utf-8"))
    module = compat_ragflow if side == "compat" else RAGFLOW
    args = (multilingual, size, DELIMITERS[delimiter], overlap)
    chunks = _run(benchmark, side, module.naive_merge, *args)
    if side == "compat":
        assert chunks == RAGFLOW.naive_merge(*args)


@need_dify
@pytest.mark.parametrize("side", ["compat", "upstream"])
@pytest.mark.parametrize("lengths", ["chars", "cl100k"])
@pytest.mark.parametrize("case", list(CASES))
def test_dify_split_text(benchmark, multilingual, case, lengths, side):
    kind, kwargs = CASES[case]
    tokens = lengths == "cl100k"
    text = multilingual[: len(multilingual) // 4] if tokens else multilingual
    benchmark.group = f"upstream-dify-{case}-{lengths}"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    assert DIFY is not None
    module = compat_dify if side == "compat" else DIFY[0]
    chunks = _run(benchmark, side, splitter(module, kind, kwargs, tokens).split_text, text)
    if side == "compat":
        assert chunks == splitter(DIFY[0], kind, kwargs, tokens).split_text(text)


@need_dify
@pytest.mark.parametrize("side", ["compat", "upstream"])
@pytest.mark.parametrize("fixed", ["\\n", "\\n\\n"])
@pytest.mark.parametrize("source", ["multilingual", "held_out"])
def test_dify_custom_cl100k_1mb(benchmark, request, source, fixed, side):
    """#53's setup: custom mode 500/50 with the processor's separators on the whole 1 MB of
    the bench text and of text the benches were not tuned on; upstream counts with
    tiktoken, compat with its own length_function."""
    assert DIFY is not None
    text = request.getfixturevalue(source)
    benchmark.group = f"upstream-dify-custom-{fixed}-500-50-cl100k-{source}"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    kwargs = {"fixed_separator": fixed, "chunk_size": 500, "chunk_overlap": 50}

    def split(of: str) -> Any:
        if of == "compat":
            lengths = compat_dify.length_function("cl100k_base")
            cls = compat_dify.FixedRecursiveCharacterTextSplitter
        else:
            enc = tiktoken_cl100k()
            lengths = lambda ts: [len(enc.encode(t)) for t in ts]  # noqa: E731
            cls = DIFY[0].FixedRecursiveCharacterTextSplitter
        return cls(separators=PROCESSOR_SEPARATORS, length_function=lengths, **kwargs).split_text

    chunks = _run(benchmark, side, split(side), text)
    if side == "compat":
        assert chunks == split("upstream")(text)


@need_dify
@pytest.mark.parametrize("side", ["compat", "upstream"])
def test_dify_clean_both_rules(benchmark, multilingual, side):
    benchmark.group = "upstream-dify-clean-both-rules"
    benchmark.extra_info["bytes"] = len(multilingual.encode("utf-8"))
    assert DIFY is not None
    clean = (compat_dify if side == "compat" else DIFY[1]).CleanProcessor.clean
    cleaned = _run(benchmark, side, clean, multilingual, BOTH_RULES)
    if side == "compat":
        assert cleaned == DIFY[1].CleanProcessor.clean(multilingual, BOTH_RULES)
