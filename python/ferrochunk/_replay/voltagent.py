"""VoltAgent records (``vectors/voltagent/README.md``): argument names and calls.

A chunker is built with ``args.tokenizer`` and called as ``chunk(args.text, options)``.
Options are upstream's camelCase names, mapped to the snake_case keywords; an option the
chunker does not take (``overlap`` given to RecursiveChunker) is dropped, as upstream
ignores it. ``RecursiveChunker.chunk`` records of the ``patched-token-overlap`` variant use
the whole-token overlap, the ``upstream`` ones the character overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Args = Mapping[str, Any]

_OPTIONS = {
    "maxTokens": "max_tokens",
    "overlap": "overlap",
    "overlapSentences": "overlap_sentences",
    "overlapTokens": "overlap_tokens",
    "label": "label",
    "docId": "doc_id",
    "sourceId": "source_id",
    "baseMetadata": "base_metadata",
}
_METADATA = ("label", "doc_id", "source_id", "base_metadata")
_ACCEPTS = {
    "TokenChunker": ("max_tokens", "overlap", *_METADATA),
    "SentenceChunker": ("max_tokens", "overlap_sentences", *_METADATA),
    "RecursiveChunker": ("max_tokens", "overlap_tokens", *_METADATA),
}


def _chunker(name: str, **init: Any) -> Callable[[Any, Args], Any]:
    def run(m: Any, a: Args) -> Any:
        options = a.get("options") or {}
        kwargs = {
            py: options[js] for js, py in _OPTIONS.items() if js in options and py in _ACCEPTS[name]
        }
        chunker = getattr(m, name)(a["tokenizer"], **init)
        return chunker.chunk(a["text"], **kwargs)

    return run


def _slice(m: Any, a: Args) -> Any:
    tokens = m.tokenize(a["text"], a["tokenizer"])
    return m.slice_by_token_range(a["text"], tokens, a["start"], a["end"])


HANDLERS: dict[str, Callable[[Any, Args], Any]] = {
    "TokenChunker.chunk": _chunker("TokenChunker"),
    "SentenceChunker.chunk": _chunker("SentenceChunker"),
    "RecursiveChunker.chunk": _chunker("RecursiveChunker", overlap_unit="chars"),
    "RecursiveChunker.chunk@patched-token-overlap": _chunker(
        "RecursiveChunker", overlap_unit="tokens"
    ),
    "tokenizer.tokenize": lambda m, a: m.tokenize(a["text"], a["tokenizer"]),
    "tokenizer.countTokens": lambda m, a: m.count_tokens(a["text"], a["tokenizer"]),
    "splitIntoSentences": lambda m, a: m.split_into_sentences(a["text"], a.get("tokenizer")),
    "splitIntoParagraphs": lambda m, a: m.split_into_paragraphs(a["text"], a.get("tokenizer")),
    "normalizeText": lambda m, a: m.normalize_text(a["text"]),
    "sliceByTokenRange": _slice,
    "detectFormat": lambda m, a: m.detect_format(a["text"]),
    "cosineSimilarity": lambda m, a: m.cosine_similarity(a["a"], a["b"]),
}
"""Keyed by record ``fn``; ``fn@variant`` when a record's ``variant`` changes the call."""
