"""The native ``tokenizer.json`` engine against ``tokenizers`` itself, and chunking in a
model's own tokens against the peers, on one thread.

Models are trained on the bundled corpus in the standard pipelines (``tests/hf_models.py``):
BERT uncased WordPiece, RoBERTa-style byte-level BPE, a Metaspace Unigram and a
SentencePiece Unigram with a ``Precompiled`` normalizer (as XLM-R-based models have).
``minilm`` is a real model's file, all-MiniLM-L6-v2's (BERT uncased WordPiece), bundled
for the tests; ``tokenizers`` runs it without the file's truncation and padding.

* ``encode``: ``tokenizers``' ``encode`` (ids and offsets) beside ours on the same text;
* ``chunk``: ``Recursive(256)`` in the model's tokens, beside the same config with the
  embedded cl100k, LangChain's recursive splitter measuring with the tokenizer (what its
  ``from_huggingface_tokenizer`` does) and chonkie's ``RecursiveChunker`` given the
  tokenizer.

Run with ``RAYON_NUM_THREADS=1`` (``make bench`` does).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ferrochunk as fc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from hf_models import hf, json_of

# The trained models, and all-MiniLM-L6-v2's own file (bundled for the tests).
MODELS = ("bert", "bpe", "unigram", "spm", "minilm")
BUNDLED = Path(__file__).resolve().parent.parent / "tests" / "data" / "models"
MINILM = BUNDLED / "all-MiniLM-L6-v2.tokenizer.json"
SIZE = 256


def _json(name: str) -> str:
    return MINILM.read_text("utf-8") if name == "minilm" else json_of(name)


def _hf(name: str) -> Any:
    """``tokenizers``' own tokenizer for ``name``, without the file's truncation or padding
    (MiniLM's truncates at 128 tokens), so both sides encode the whole text."""
    if name != "minilm":
        return hf(name)
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(_json(name))
    tok.no_truncation()
    tok.no_padding()
    return tok


def _encoders(name: str) -> dict[str, Callable[[str], Any]]:
    ref, ours = _hf(name), fc.Tokenizer.from_json(_json(name))
    return {
        "tokenizers encode": lambda t: ref.encode(t, add_special_tokens=False),
        "ferrochunk encode_with_offsets": ours.encode_with_offsets,
        "ferrochunk count": ours.count,
    }


@pytest.mark.parametrize("op", ["tokenizers encode", "ferrochunk encode_with_offsets",
                                "ferrochunk count"])  # fmt: skip
@pytest.mark.parametrize("model", MODELS)
def test_encode(benchmark, multilingual: str, model: str, op: str) -> None:
    fn = _encoders(model)[op]
    fn("warm up")
    benchmark.group = f"tokenizer.json encode {model}"
    benchmark.extra_info["bytes"] = len(multilingual.encode("utf-8"))
    out = benchmark(fn, multilingual)
    if op == "ferrochunk encode_with_offsets":
        assert out[0].tolist() == _hf(model).encode(multilingual, add_special_tokens=False).ids


def _chunkers(name: str) -> dict[str, Callable[[], Callable[[str], Any]]]:
    def ours(tokenizer: Any) -> Callable[[str], Any]:
        return lambda t: fc.chunk(t, fc.Recursive(SIZE), tokenizer=tokenizer)

    def langchain() -> Callable[[str], Any]:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        ref = _hf(name)
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=SIZE,
            chunk_overlap=0,
            length_function=lambda t: len(ref.encode(t, add_special_tokens=False).ids),
        )
        return splitter.split_text

    def chonkie() -> Callable[[str], Any]:
        import chonkie

        return chonkie.RecursiveChunker(tokenizer=_hf(name), chunk_size=SIZE).chunk

    return {
        "ferrochunk Recursive (tokenizer.json)": lambda: ours(fc.Tokenizer.from_json(_json(name))),
        "ferrochunk Recursive (embedded cl100k)": lambda: ours(fc.Tokenizer.cl100k()),
        "langchain Recursive (tokenizers length)": langchain,
        "chonkie RecursiveChunker (tokenizers)": chonkie,
    }


@pytest.mark.parametrize("who", ["ferrochunk Recursive (tokenizer.json)",
                                 "ferrochunk Recursive (embedded cl100k)",
                                 "langchain Recursive (tokenizers length)",
                                 "chonkie RecursiveChunker (tokenizers)"])  # fmt: skip
@pytest.mark.parametrize("model", MODELS)
def test_chunk(benchmark, request, documents: list[str], model: str, who: str) -> None:
    if who.startswith("chonkie") and importlib.util.find_spec("chonkie") is None:
        pytest.skip("bench extra: chonkie")
    smoke = request.config.getoption("benchmark_disable") and not request.config.getoption(
        "benchmark_enable"
    )
    docs = documents[:2] if smoke and not who.startswith("ferrochunk") else documents
    fn = _chunkers(model)[who]()
    fn("warm up")
    benchmark.group = f"tokenizer.json chunk {model}"
    benchmark.extra_info["bytes"] = sum(len(d.encode("utf-8")) for d in docs)
    out = benchmark(lambda: [fn(d) for d in docs])
    assert len(out) == len(docs)
