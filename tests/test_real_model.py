"""all-MiniLM-L6-v2's own ``tokenizer.json`` (BERT WordPiece; the file pads and truncates
at 128): native ids equal ``tokenizers``' on the bundled corpus, every chunk with the
model's special tokens fits the cap, and the special count is read without the padding."""

from __future__ import annotations

from pathlib import Path

import pytest
from hf_models import corpus

import ferrochunk as fc
from ferrochunk.errors import ConfigError
from ferrochunk.tokenizers import _special_count

tokenizers = pytest.importorskip("tokenizers", reason="test extra: tokenizers")

MINILM = Path(__file__).resolve().parent / "data" / "models" / "all-MiniLM-L6-v2.tokenizer.json"


def _reference(padded: bool = False):  # type: ignore[no-untyped-def]
    ref = tokenizers.Tokenizer.from_file(str(MINILM))
    if not padded:
        ref.no_padding()
        ref.no_truncation()
    return ref


def test_native_ids_equal_tokenizers_on_the_corpus() -> None:
    ref = _reference()
    tok = fc.Tokenizer.from_file(MINILM)
    assert tok.engine == "native"
    assert tok.special_tokens == 2
    for text in corpus():
        sample = text[:30000]
        assert tok.encode(sample).tolist() == ref.encode(sample, add_special_tokens=False).ids


@pytest.mark.parametrize(
    "config",
    [
        fc.TokenWindows(128, overlap_tokens=32),
        fc.Recursive(128, overlap_tokens=16),
        fc.SentenceWindows(128),
        fc.Markdown(128, overlap_tokens=8),
    ],
    ids=lambda c: type(c).__name__,
)
def test_every_chunk_with_the_special_tokens_fits_the_cap(config) -> None:  # type: ignore[no-untyped-def]
    ref = _reference()
    tok = fc.Tokenizer.from_file(MINILM)
    cap = config.safe_max if isinstance(config, fc.SentenceWindows) else config.max_tokens
    for text in corpus():
        for c in fc.chunk(text[:30000], config, tokenizer=tok):
            embedded = c.metadata.get("context", "") + c.text
            assert len(ref.encode(embedded).ids) <= cap or c.metadata["oversize"], c.text


def test_the_special_count_ignores_the_files_padding() -> None:
    padded = _reference(padded=True)
    assert len(padded.encode("").ids) == 128  # what counting on the file as shipped says
    assert _special_count(padded) == 2
    assert padded.padding is not None  # the caller's tokenizer is left as it was


class _Opaque:
    """A tokenizer-like object that can say neither how many special tokens it adds nor
    encode with them."""

    def encode(self, text, add_special_tokens=False):  # type: ignore[no-untyped-def]
        if add_special_tokens:
            raise RuntimeError("no post-processor")
        raise RuntimeError("opaque")


def test_a_special_count_that_fails_raises_rather_than_reserving_none() -> None:
    with pytest.raises(ConfigError, match="special tokens"):
        fc.Tokenizer.from_huggingface(_Opaque())
    tok = fc.Tokenizer.from_huggingface(_Opaque(), reserve_special_tokens=False)
    assert tok.special_tokens == 0
