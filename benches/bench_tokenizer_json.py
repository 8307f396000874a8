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
from bench_tokenizer import SHARED
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


# #53's CJK case: a 20 000-piece Unigram behind NFKC + Replace("  ", " ") + Metaspace,
# trained on the first 700 000 characters of four corpus files, then Chinese and Japanese
# from files no bench reads (first_pass.py's unbenched slices). As a smoke test, or without
# the shared corpus, the tests' small ``t5`` model of the same pipeline and the bundled text.
_CJK_TRAIN = ["en/shakespeare-comedies.md", "zh/debian-handbook-zh-cn.txt",
              "mixed/debian-handbook-ko.txt", "mixed/rust-book.md"]  # fmt: skip
_CJK_TEXT = {"zh": ["zh/debian-reference-zh-cn.txt"], "ja": ["mixed/debian-faq-ja.txt"]}


@pytest.fixture(scope="session")
def cjk_unigram(request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    """(tokenizer.json, {language: its text, up to 1 MB})."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    smoke = request.config.getoption("benchmark_disable") and not request.config.getoption(
        "benchmark_enable"
    )
    if smoke or not SHARED.exists():
        from hf_models import corpus

        text = "\n".join(corpus())
        return json_of("t5"), {"zh": text[:20_000], "ja": text[20_000:40_000]}
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("  ", " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=20_000, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False
    )
    lines = [
        line
        for name in _CJK_TRAIN
        for line in (SHARED / name).read_text("utf-8")[:700_000].splitlines()
        if line.strip()
    ]
    tok.train_from_iterator(lines, trainer)
    texts = {
        lang: "".join((SHARED / n).read_text("utf-8") for n in names)
        .encode("utf-8")[:1_000_000]
        .decode("utf-8", "ignore")
        for lang, names in _CJK_TEXT.items()
    }
    return tok.to_str(), texts


@pytest.mark.parametrize("who", ["tokenizers encode", "ferrochunk Recursive(512)"])
@pytest.mark.parametrize("lang", list(_CJK_TEXT))
def test_cjk_unigram_chunk(benchmark, cjk_unigram, lang: str, who: str) -> None:
    """Chunking in the model's tokens beside ``tokenizers``' bare encode (#53's goal: 10×)."""
    from tokenizers import Tokenizer

    spec, texts = cjk_unigram
    text = texts[lang]
    benchmark.group = f"tokenizer.json unigram cjk {lang}"
    benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
    if who == "tokenizers encode":
        ref = Tokenizer.from_str(spec)
        out = benchmark(lambda: ref.encode(text, add_special_tokens=False))
        assert len(out.ids) > 0
    else:
        config, tok = fc.Recursive(512), fc.Tokenizer.from_json(spec)
        chunks = benchmark(lambda: fc.chunk(text, config, tokenizer=tok))
        assert "".join(c.text for c in chunks) == text
        assert all(c.token_count <= 512 for c in chunks)
