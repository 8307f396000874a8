"""VoltAgent ``@voltagent/rag`` 1.0.2 (``VoltAgent/voltagent`` @ 3377f6d) in plain Python,
written to read like its ``packages/rag``: TokenChunker, SentenceChunker, RecursiveChunker and
the text utilities.

Strings go in and come out as normal Python strings; every offset counts UTF-16 code
units, as upstream's JavaScript does (§0.1). Option names are snake_case, chunk and
metadata keys stay upstream's camelCase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...types import VoltAgentSegment, VoltAgentToken
from . import text as _text
from ._js import from_js, to_js
from .chunkers import OverlapUnit, RecursiveChunker, SentenceChunker, TokenChunker
from .tokenizers import (
    JsTokenizer,
    TiktokenTokenizer,
    WhitespaceTokenizer,
    create_tiktokenizer,
    default_tokenizer,
    resolve_tokenizer,
    whitespace_tokenizer,
)

__all__ = [
    "JsTokenizer",
    "OverlapUnit",
    "RecursiveChunker",
    "SentenceChunker",
    "TiktokenTokenizer",
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

TokenizerArg = JsTokenizer | str | None


def tokenize(text: str, tokenizer: TokenizerArg = None) -> list[VoltAgentToken]:
    """``tokenizer.tokenize(text)``: ``[{value, start, end}]`` (default cl100k_base, §2)."""
    resolved = resolve_tokenizer(tokenizer)
    js = to_js(text)
    starts, ends = resolved.spans(js)
    values = resolved.values(js)
    return [
        {"value": from_js(v), "start": s, "end": e}
        for v, s, e in zip(values, starts, ends, strict=True)
    ]


def count_tokens(text: str, tokenizer: TokenizerArg = None) -> int:
    """``tokenizer.countTokens(text)`` (default cl100k_base)."""
    return resolve_tokenizer(tokenizer).count(to_js(text))


def slice_by_token_range(
    text: str, tokens: Sequence[Mapping[str, Any]], start: float, end: float
) -> str:
    """§3.1 ``sliceByTokenRange`` over tokens as :func:`tokenize` returns them."""
    starts = [t["start"] for t in tokens]
    ends = [t["end"] for t in tokens]
    return from_js(_text.slice_by_token_range(to_js(text), starts, ends, start, end))


def _segment_tokenizer(tokenizer: TokenizerArg) -> JsTokenizer:
    """The segment helpers default to the whitespace tokenizer, not cl100k (as upstream)."""
    return whitespace_tokenizer if tokenizer is None else resolve_tokenizer(tokenizer)


def split_into_sentences(text: str, tokenizer: TokenizerArg = None) -> list[VoltAgentSegment]:
    """§3.2 ``splitIntoSentences``: ``[{text, start, end, tokens}]`` (default whitespace)."""
    segments = _text.split_into_sentences(to_js(text), _segment_tokenizer(tokenizer))
    return [s.as_dict() for s in segments]


def split_into_paragraphs(text: str, tokenizer: TokenizerArg = None) -> list[VoltAgentSegment]:
    """§3.3 ``splitIntoParagraphs``: ``[{text, start, end, tokens}]`` (default whitespace)."""
    segments = _text.split_into_paragraphs(to_js(text), _segment_tokenizer(tokenizer))
    return [s.as_dict() for s in segments]


def normalize_text(text: str) -> str:
    """§3.4 ``normalizeText``."""
    return _text.normalize_text(text)


def detect_format(text: str) -> str:
    """§8.12 ``detectFormat``: json, html, latex, code, table, markdown or text."""
    return _text.detect_format(text)


def cosine_similarity(a: Sequence[float | None], b: Sequence[float | None]) -> float:
    """§8.9 ``cosineSimilarity``."""
    return _text.cosine_similarity(a, b)
