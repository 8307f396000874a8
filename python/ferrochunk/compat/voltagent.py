"""Drop-in for VoltAgent's ``@voltagent/rag`` 1.0.2 chunkers (``VoltAgent/voltagent`` @ 3377f6d).

``TokenChunker``, ``SentenceChunker`` and ``RecursiveChunker`` with snake_case options,
upstream's chunk dicts (``id, content, start, end, metadata, tokens, label``) and UTF-16
offsets, quirks included (``docs/voltagent.md``). ``RecursiveChunker(overlap_unit="tokens")``, the
default, takes its overlap in whole tokens; ``"chars"`` reproduces upstream's character
slice.

The default tokenizer is js-tiktoken's ``cl100k_base`` as upstream sees it, run in Rust:
one encoding per text with the js-tiktoken split (JavaScript ``\\s``), offsets as running
decoded lengths (§2.2 drift included), batch counts, and every prefix count a sentence
group needs from one pass.

With that tokenizer and whole-number options (the usual call), the chunkers run in Rust
(``rust/compat/voltagent/``): windows, sentence packing, paragraphs, overlap and line
positions come back as rows of numbers, and Python only slices the text and builds
upstream's dicts. Fractional, NaN or huge options, an injected tokenizer, and text that
holds a special token take the reference's orchestration with the native tokenizer, so
JS number quirks and upstream's errors stay in one place.

>>> from ferrochunk.compat.voltagent import TokenChunker
>>> chunks = TokenChunker().chunk("One two three four five.", max_tokens=3, overlap=1)
>>> [(c["content"], c["start"], c["end"], c["tokens"]) for c in chunks]
[('One two three', 0, 13, 3), (' three four five', 7, 23, 3), (' five.', 18, 24, 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from .. import _native
from .._support.gc import gc_paused
from ..reference import voltagent as _ref
from ..reference.voltagent import chunkers as _chunkers
from ..reference.voltagent._js import from_js, js_slice, to_js
from ..reference.voltagent.text import MetadataInput, build_metadata
from ..reference.voltagent.tokenizers import JsTokenizer, check_encoding
from ..tokenizers import utf8_safe
from ..types import VoltAgentChunk, VoltAgentSegment, VoltAgentToken

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


# -- the chunkers: Rust for the usual call, the reference's orchestration otherwise ------
_JS_SAFE = 2**53  # beyond it a JS number is not a whole number we can mirror exactly
# Row columns (rust/compat/voltagent/chunkers.rs, Row::columns) and kinds.
_WINDOW, _GROUP, _PARAGRAPH, _PARAGRAPH_GROUP, _GROUP_WINDOW, _OVERLAP = range(6)


def _whole(*values: Any) -> bool:
    """True when every option is a whole number that Rust reads as JS would."""
    return all(type(v) is int and -_JS_SAFE <= v <= _JS_SAFE for v in values)


def _native_rows(chunker: str, text: Any, size: Any, overlap: Any) -> _Rows | None:
    """The rows of ``text``, or ``None`` for the general path."""
    if not (isinstance(text, str) and _whole(size, overlap)):
        return None
    js = None
    try:
        rows = _native.voltagent_chunks(chunker, text, size, overlap)
    except UnicodeEncodeError:  # lone surrogates: Rust reads the JS form's UTF-16 instead
        js = to_js(text)
        rows = _native.voltagent_chunks(
            chunker, js.encode("utf-16-le", "surrogatepass"), size, overlap
        )
    return None if rows is None else _Rows(text, js, rows.tolist())


class _Rows(NamedTuple):
    """Rust's rows for ``text``; ``js`` is its JS form once a row needed it."""

    text: str
    js: str | None
    rows: list[list[int]]


def _build(found: _Rows, label: str, meta: MetadataInput) -> list[VoltAgentChunk]:
    """Upstream's dicts from the rows, key order included (see ``reference.chunkers``).

    A content is sliced from the text by code points; only where a drifted offset cuts a
    surrogate pair (or the text has lone surrogates) is it cut from the JS form, and the
    lone half kept, as upstream returns it."""
    with gc_paused():
        return _dicts(found, label, meta)


def _dicts(found: _Rows, label: str, meta: MetadataInput) -> list[VoltAgentChunk]:
    text, js, rows = found
    token, sentence, paragraph, sentence_token = (
        build_metadata("text", kind, meta)
        for kind in ("token", "sentence", "paragraph", "sentence-token")
    )
    out: list[VoltAgentChunk] = []
    append = out.append
    overlap_label = f"{label}-overlap"
    for kind, ident, c0, c1, start, end, tokens, a, b, para, sl, sc, el, ec, p0, p1 in rows:
        if p0 >= 0 and p1 >= 0:
            content = text[p0:p1]
        else:
            js = to_js(text) if js is None else js
            content = from_js(js[c0:c1])
        chunk: Any
        # One literal per dict, keys in upstream's order (about half the rows are overlaps).
        if kind == _OVERLAP:
            chunk = {
                "id": f"{overlap_label}-{ident}",
                "content": content,
                "start": start,
                "end": end,
                "label": overlap_label,
            }
        elif kind == _PARAGRAPH:
            chunk = {
                "id": f"recursive-{ident}",
                "content": content,
                "start": start,
                "end": end,
                "tokens": tokens,
                "label": label,
                "metadata": {**paragraph, "paragraphIndex": para},
            }
        else:
            position = {"start": {"line": sl, "column": sc}, "end": {"line": el, "column": ec}}
            if kind in (_WINDOW, _GROUP_WINDOW):
                metadata = {**token, "tokenStart": a, "tokenEnd": b, "position": position}
            else:
                metadata = {**sentence, "chunkIndex": a, "sentenceCount": b, "position": position}
            if kind == _WINDOW:
                key, name = f"token-{ident}", label
            elif kind == _GROUP:
                key, name = f"sentence-{ident}", label
            elif kind == _PARAGRAPH_GROUP:  # tagged over the group's own metadata
                key, name = f"recursive-{ident}", f"{label}-sentence"
                metadata = {**metadata, **sentence, "paragraphIndex": para}
            else:
                key, name = f"recursive-{ident}", f"{label}-token"
                metadata = {**metadata, **sentence_token, "paragraphIndex": para}
            chunk = {"id": key, "content": content, "start": start, "end": end}
            chunk["metadata"] = metadata
            chunk["tokens"] = tokens
            chunk["label"] = name
        append(chunk)
    return out


def _rust_first(
    chunker: _chunkers.TokenChunker | _chunkers.SentenceChunker | _chunkers.RecursiveChunker,
    general: Callable[..., list[VoltAgentChunk]],
    rust_name: str,
    text: Any,
    overlap_name: str,
    defaults: tuple[int, int, str],
    options: dict[str, Any],
) -> list[VoltAgentChunk]:
    """``chunker.chunk(text, **options)`` in Rust when the call allows it (the module
    notes), else by ``general``, the reference's method."""
    size, overlap = options["max_tokens"], options[overlap_name]
    found = (
        _native_rows(
            rust_name,
            text,
            defaults[0] if size is None else size,
            defaults[1] if overlap is None else overlap,
        )
        if isinstance(text, str) and chunker._pick(options["tokenizer"]) is _DEFAULT
        else None
    )
    if found is None:
        return general(text, **options)
    meta = MetadataInput(options["doc_id"], options["source_id"], options["base_metadata"])
    label = options["label"]
    return _build(found, defaults[2] if label is None else label, meta)


class TokenChunker(_chunkers.TokenChunker):
    """§5 ``TokenChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[VoltAgentChunk]:
        options: dict[str, Any] = {"max_tokens": max_tokens, "overlap": overlap}
        options.update(tokenizer=tokenizer, label=label, doc_id=doc_id, source_id=source_id)
        options["base_metadata"] = base_metadata
        defaults = (200, 0, "token")
        return _rust_first(self, super().chunk, "token", text, "overlap", defaults, options)


class SentenceChunker(_chunkers.SentenceChunker):
    """§6 ``SentenceChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap_sentences: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[VoltAgentChunk]:
        options: dict[str, Any] = {"max_tokens": max_tokens}
        options["overlap_sentences"] = overlap_sentences
        options.update(tokenizer=tokenizer, label=label, doc_id=doc_id, source_id=source_id)
        options["base_metadata"] = base_metadata
        defaults = (200, 0, "sentence")
        return _rust_first(
            self, super().chunk, "sentence", text, "overlap_sentences", defaults, options
        )


class RecursiveChunker(_chunkers.RecursiveChunker):
    """§7 ``RecursiveChunker``; the default tokenizer is native."""

    default_tokenizer = staticmethod(default_tokenizer)

    def chunk(
        self,
        text: str,
        *,
        max_tokens: float | None = None,
        overlap_tokens: float | None = None,
        tokenizer: JsTokenizer | str | None = None,
        label: str | None = None,
        doc_id: Any = None,
        source_id: Any = None,
        base_metadata: Mapping[str, Any] | None = None,
    ) -> list[VoltAgentChunk]:
        options: dict[str, Any] = {"max_tokens": max_tokens, "overlap_tokens": overlap_tokens}
        options.update(tokenizer=tokenizer, label=label, doc_id=doc_id, source_id=source_id)
        options["base_metadata"] = base_metadata
        name = f"recursive-{self.overlap_unit}"
        defaults = (300, 0, "recursive")
        return _rust_first(self, super().chunk, name, text, "overlap_tokens", defaults, options)
