"""Drop-in for VoltAgent's ``@voltagent/rag`` 1.0.2 chunkers (``VoltAgent/voltagent`` @ 3377f6d).

``TokenChunker``, ``SentenceChunker`` and ``RecursiveChunker`` with snake_case options,
upstream's chunk dicts (``id, content, start, end, metadata, tokens, label``) and UTF-16
offsets, quirks included (README table). ``RecursiveChunker(overlap_unit="tokens")``, the
default, takes its overlap in whole tokens; ``"chars"`` reproduces upstream's character
slice.

The default tokenizer is js-tiktoken's ``cl100k_base`` as upstream sees it, run in Rust:
one encoding per text with the js-tiktoken split (JavaScript ``\\s``), offsets as running
decoded lengths (§2.2 drift included), batch counts, and every prefix count a sentence
group needs from one pass. The chunkers' orchestration is the reference's Python with
this tokenizer injected, so both backends share one reading of the spec.

>>> from ferrochunk.compat.voltagent import TokenChunker
>>> chunks = TokenChunker().chunk("One two three four five.", max_tokens=3, overlap=1)
>>> [(c["content"], c["start"], c["end"], c["tokens"]) for c in chunks]
[('One two three', 0, 13, 3), (' three four five', 7, 23, 3), (' five.', 18, 24, 2)]
"""

from __future__ import annotations

import numpy as np

from .. import _native
from ..reference import voltagent as _ref
from ..reference.voltagent import chunkers as _chunkers
from ..reference.voltagent._js import from_js, js_slice, to_js
from ..reference.voltagent.tokenizers import JsTokenizer, check_encoding
from ..tokenizers import utf8_safe
from ..types import VoltAgentSegment, VoltAgentToken

__all__ = [
    "JsTokenizer",
    "NativeTiktokenizer",
    "OverlapUnit",
    "RecursiveChunker",
    "SentenceChunker",
    "TokenChunker",
    "WhitespaceTokenizer",
    "cosine_similarity",
    "count_tokens",
    "create_tiktokenizer",
    "default_tokenizer",
    "detect_format",
    "normalize_text",
    "resolve_tokenizer",
    "slice_by_token_range",
    "split_into_paragraphs",
    "split_into_sentences",
    "tokenize",
    "whitespace_tokenizer",
]

OverlapUnit = _ref.OverlapUnit
WhitespaceTokenizer = _ref.WhitespaceTokenizer
whitespace_tokenizer = _ref.whitespace_tokenizer
slice_by_token_range = _ref.slice_by_token_range
normalize_text = _ref.normalize_text
detect_format = _ref.detect_format
cosine_similarity = _ref.cosine_similarity


def _utf8(text: str) -> str:
    """JS-form text as the encoder sees it: pairs joined, lone surrogates as U+FFFD
    (JS ``TextEncoder``), so UTF-16 lengths do not change."""
    return utf8_safe(from_js(text))


class NativeTiktokenizer:
    """js-tiktoken ``cl100k_base`` (``createTikTokenizer()``) in Rust; a ``JsTokenizer``."""

    def spans(self, text: str) -> tuple[list[int], list[int]]:
        ends: list[int] = _native.voltagent_token_ends(_utf8(text)).tolist()
        return [0, *ends[:-1]] if ends else [], ends

    def values(self, text: str) -> list[str]:
        return [to_js(v) for v in _native.voltagent_token_values(_utf8(text))]

    def count(self, text: str) -> int:
        return int(_native.voltagent_counts([_utf8(text)])[0])

    def counts(self, texts: list[str]) -> list[int]:
        counts: list[int] = _native.voltagent_counts([_utf8(t) for t in texts]).tolist()
        return counts

    def prefix_counts(self, text: str, ends: list[int]) -> list[int]:
        try:
            positions = np.asarray(ends, dtype=np.uint64)
            counts: list[int] = _native.voltagent_prefix_counts(_utf8(text), positions).tolist()
        except ValueError:
            # A cut inside a surrogate pair (OffsetsError), or a special token anywhere in
            # the text: count each prefix on its own, as upstream, so only a prefix that
            # holds a special token raises.
            return [self.count(js_slice(text, 0, k)) for k in ends]
        return counts


_DEFAULT = NativeTiktokenizer()


def default_tokenizer() -> NativeTiktokenizer:
    """Upstream's shared ``defaultTokenizer`` (cl100k_base), native."""
    return _DEFAULT


def create_tiktokenizer(model: str | None = None, encoding: str | None = None) -> JsTokenizer:
    """``createTikTokenizer({model, encoding})``: cl100k_base only, as in the reference."""
    check_encoding(model, encoding)  # the same checks and errors, without loading tiktoken
    return _DEFAULT


def resolve_tokenizer(tokenizer: JsTokenizer | str | None) -> JsTokenizer:
    """``None``/``"cl100k_base"`` -> the native default, ``"whitespace"`` -> whitespace."""
    if tokenizer is None or tokenizer == "cl100k_base":
        return _DEFAULT
    return _ref.resolve_tokenizer(tokenizer)


def tokenize(text: str, tokenizer: JsTokenizer | str | None = None) -> list[VoltAgentToken]:
    """``tokenizer.tokenize(text)``: ``[{value, start, end}]`` (default cl100k_base)."""
    return _ref.tokenize(text, resolve_tokenizer(tokenizer))


def count_tokens(text: str, tokenizer: JsTokenizer | str | None = None) -> int:
    """``tokenizer.countTokens(text)`` (default cl100k_base)."""
    return _ref.count_tokens(text, resolve_tokenizer(tokenizer))


def split_into_sentences(
    text: str, tokenizer: JsTokenizer | str | None = None
) -> list[VoltAgentSegment]:
    """§3.2 ``splitIntoSentences`` (default whitespace tokenizer, as upstream)."""
    return _ref.split_into_sentences(
        text, None if tokenizer is None else resolve_tokenizer(tokenizer)
    )


def split_into_paragraphs(
    text: str, tokenizer: JsTokenizer | str | None = None
) -> list[VoltAgentSegment]:
    """§3.3 ``splitIntoParagraphs`` (default whitespace tokenizer, as upstream)."""
    return _ref.split_into_paragraphs(
        text, None if tokenizer is None else resolve_tokenizer(tokenizer)
    )


class TokenChunker(_chunkers.TokenChunker):
    """§5 ``TokenChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)


class SentenceChunker(_chunkers.SentenceChunker):
    """§6 ``SentenceChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)


class RecursiveChunker(_chunkers.RecursiveChunker):
    """§7 ``RecursiveChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)
