"""Entry points: tokenize once, then cut in the core (native) or in the oracle (reference)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import numpy as np

from . import _clean, _contract, _native, _parent_child
from ._validate import describe, require_choice, require_int, require_str
from .config import (
    CleanRules,
    DelimiterMerge,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from .errors import ConfigTypeError, InputTypeError
from .reference import recursive as ref_recursive
from .reference import sentence_windows as ref_sentences
from .reference import windows as ref_windows
from .tokenizers import Tokenizer, offset_safe, resolve, utf8_safe
from .types import Chunk, SpanArray

__all__ = ["Config", "chunk", "chunk_items", "chunk_many", "chunk_spans"]

Config = TokenWindows | DelimiterMerge | Recursive | ParentChild | SentenceWindows
_BACKENDS = ("native", "reference")


def _require_config(config: Any) -> Config:
    if not isinstance(
        config, TokenWindows | DelimiterMerge | Recursive | ParentChild | SentenceWindows
    ):
        raise ConfigTypeError(
            "config must be a TokenWindows, DelimiterMerge, Recursive, ParentChild or "
            f"SentenceWindows, got {describe(config)}"
        )
    return config


def _tokenizer(config: Config, tokenizer: Tokenizer | str | None) -> Tokenizer:
    """The call's tokenizer, else the config's own (``SentenceWindows.tokenizer``), else cl100k."""
    if tokenizer is None and isinstance(config, SentenceWindows):
        tokenizer = config.tokenizer
    return resolve(tokenizer)


def _window_spans(text: str, config: TokenWindows, tok: Tokenizer, backend: str) -> SpanArray:
    if backend == "reference":
        _, starts = tok.encode_with_offsets(text)
        rows = ref_windows.token_windows(
            text, starts.tolist(), config.max_tokens, config.overlap_tokens
        )
        return np.asarray(rows, dtype=np.int64).reshape(len(rows), 6)
    encoding = tok.native_encoding
    if encoding is not None:
        return _native.token_windows(text, encoding, config.max_tokens, config.overlap_tokens)
    _, starts = tok.encode_with_offsets(text)
    return _native.token_windows_from_starts(text, starts, config.max_tokens, config.overlap_tokens)


def _recursive_rows(text: str, config: Recursive, tok: Tokenizer, backend: str) -> Any:
    """``(n, 7)`` rows: the six span columns, then ``oversize``."""
    args = (
        config.max_tokens,
        config.overlap_tokens,
        config.fixed_separator,
        list(config.separators),
    )
    if backend == "reference":
        _, starts = tok.encode_with_offsets(text)
        rows = ref_recursive.recursive_rows(text, starts.tolist(), *args, config.keep_separator)
        return np.asarray(rows, dtype=np.int64).reshape(len(rows), 7)
    keep_end = config.keep_separator == "end"
    if tok.native_encoding is not None:
        return _native.recursive(text, tok.native_encoding, None, *args, keep_end)
    _, starts = tok.encode_with_offsets(text)
    return _native.recursive(text, None, starts, *args, keep_end)


def _sentence_rows(text: str, config: SentenceWindows, tok: Tokenizer, backend: str) -> Any:
    """``(n, 8)`` rows: the six span columns, then ``overlap_tokens`` and ``oversize``."""
    args = (config.safe_max, config.overlap_tokens, [list(c) for c in config.break_classes])
    if backend == "reference":
        _, starts = tok.encode_with_offsets(text)
        rows = ref_sentences.sentence_windows(text, starts.tolist(), *args)
        return np.asarray(rows, dtype=np.int64).reshape(len(rows), 8)
    if tok.native_encoding is not None:
        return _native.sentence_windows(text, tok.native_encoding, None, *args)
    _, starts = tok.encode_with_offsets(text)
    return _native.sentence_windows(text, None, starts, *args)


def _build_sentence_windows(source: str, rows: Any) -> list[Chunk]:
    out = []
    prev_end = 0
    for i, row in enumerate(rows.tolist()):
        metadata = {
            "overlap_tokens": row[6],
            "overlap_chars": prev_end - row[4] if i else 0,
            "oversize": bool(row[7]),
        }
        out.append(Chunk.from_span(source, row, i, metadata))
        prev_end = row[5]
    return out


def _build_windows(source: str, spans: SpanArray) -> list[Chunk]:
    return [Chunk.from_span(source, row, i) for i, row in enumerate(spans.tolist())]


def _with_utf8(run: Any, text: str, tok: Tokenizer, backend: str) -> Any:
    """Runs ``run(text)``; text with lone surrogates runs as same-length U+FFFD text.

    The embedded path finds out from the native call's own UTF-8 check (no extra scan);
    a Python tokenizer must only ever see the safe text, so it is made safe first.
    """
    if backend == "reference" or tok.native_encoding is None:
        return run(utf8_safe(text))
    try:
        return run(text)
    except UnicodeEncodeError:
        return run(offset_safe(text))


def _compute(text: str, config: Config, tok: Tokenizer, backend: str) -> Any:
    """Span rows (TokenWindows) or contract rows (DelimiterMerge) on the chosen backend."""
    if isinstance(config, DelimiterMerge):
        merge = config
        return _with_utf8(lambda t: _contract.rows(t, merge, tok, backend), text, tok, backend)
    if isinstance(config, Recursive):
        recursive = config
        return _with_utf8(lambda t: _recursive_rows(t, recursive, tok, backend), text, tok, backend)
    if isinstance(config, ParentChild):
        pc = config
        return _with_utf8(lambda t: _parent_child.rows(t, pc, tok, backend), text, tok, backend)
    if isinstance(config, SentenceWindows):
        sw = config
        return _with_utf8(lambda t: _sentence_rows(t, sw, tok, backend), text, tok, backend)
    windows = config
    return _with_utf8(lambda t: _window_spans(t, windows, tok, backend), text, tok, backend)


def _checked(
    text: Any, config: Any, tokenizer: Any, backend: Any
) -> tuple[str, Config, Tokenizer, str]:
    require_str("text", text)
    config = _require_config(config)
    require_choice("backend", backend, _BACKENDS)
    return text, config, _tokenizer(config, tokenizer), backend


def chunk_spans(
    text: str,
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
) -> SpanArray:
    """The chunks of ``text`` as an ``(n, 6)`` int64 array, without Python objects.

    Columns: ``token_start, token_end, byte_start, byte_end, char_start, char_end``. For a
    ``DelimiterMerge`` chunk joined from several spans, the offsets are its extent.
    """
    text, config, tok, backend = _checked(text, config, tokenizer, backend)
    result = _compute(text, config, tok, backend)
    if isinstance(config, DelimiterMerge):
        return _contract.extents(result[0], result[1])
    if isinstance(config, ParentChild):
        parents: SpanArray = result[0][:, :6]
        return parents
    spans: SpanArray = result[:, :6] if isinstance(config, Recursive | SentenceWindows) else result
    return spans


def chunk(
    text: str,
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
    clean: CleanRules | None = None,
) -> list[Chunk]:
    """Cuts ``text`` by ``config``; empty text gives ``[]``.

    ``tokenizer`` defaults to the embedded cl100k. ``backend="reference"`` runs the
    pure-Python oracle on the same tokenizer output. With ``clean``, the text is cleaned
    first: chunks hold cleaned text, and their offsets index the original ``text``.
    """
    if clean is not None:
        return _cleaned(text, config, tokenizer, backend, clean)
    text, config, tok, backend = _checked(text, config, tokenizer, backend)
    result = _compute(text, config, tok, backend)
    if isinstance(config, DelimiterMerge):
        return _contract.build(text, config, *result)
    if isinstance(config, ParentChild):
        return _parent_child.build(text, *result)
    if isinstance(config, Recursive):
        return [
            Chunk.from_span(text, row, i, {"oversize": bool(row[6])})
            for i, row in enumerate(result.tolist())
        ]
    if isinstance(config, SentenceWindows):
        return _build_sentence_windows(text, result)
    return _build_windows(text, result)


def _cleaned(text: Any, config: Any, tokenizer: Any, backend: Any, clean: Any) -> list[Chunk]:
    """Chunks of the cleaned text with character and byte offsets in the original."""
    require_str("text", text)
    if not isinstance(clean, CleanRules):
        raise ConfigTypeError(f"clean must be a CleanRules or None, got {describe(clean)}")
    cleaned, where = _clean.clean(text, clean)
    chunks = chunk(cleaned, config, tokenizer=tokenizer, backend=backend)
    spans: dict[tuple[int, int], tuple[int, int]] = {}

    def collect(c: Chunk) -> None:
        spans[(c.char_start, c.char_end)] = (0, 0)
        for a, b in c.metadata.get("spans", ()):
            spans[(a, b)] = (0, 0)
        for kid in c.metadata.get("children", ()):
            collect(kid)

    for c in chunks:
        collect(c)
    for key in spans:
        spans[key] = _clean.to_original(where, len(text), *key)
    chars = sorted({x for pair in spans.values() for x in pair})
    as_bytes = _native.char_to_byte_offsets(
        utf8_safe(text), np.asarray(chars, dtype=np.uint64)
    ).tolist()
    byte_of = dict(zip(chars, as_bytes, strict=True))

    def remap(c: Chunk) -> Chunk:
        cs, ce = spans[(c.char_start, c.char_end)]
        metadata = dict(c.metadata)
        if "spans" in metadata:
            metadata["spans"] = tuple(spans[s] for s in metadata["spans"])
        if "children" in metadata:
            metadata["children"] = tuple(remap(k) for k in metadata["children"])
        return replace(
            c,
            char_start=cs,
            char_end=ce,
            byte_start=byte_of[cs],
            byte_end=byte_of[ce],
            metadata=MappingProxyType(metadata),
        )

    return [remap(c) for c in chunks]


def chunk_many(
    texts: Sequence[str],
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    threads: int | None = None,
) -> list[list[Chunk]]:
    """:func:`chunk` for many documents, in parallel with the GIL released.

    ``threads=None`` uses every core; ``threads=1`` runs on one thread.
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise InputTypeError(f"texts must be a sequence of str, got {describe(texts)}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputTypeError(f"texts[{i}] must be a str, got {describe(text)}")
    config = _require_config(config)
    if threads is not None:
        threads = require_int("threads", threads, minimum=1)
    tok = _tokenizer(config, tokenizer)
    encoding = tok.native_encoding
    if not isinstance(config, TokenWindows) or encoding is None:
        # The native calls release the GIL, so Python threads run them in parallel.
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(lambda t: chunk(t, config, tokenizer=tok), texts))
    try:
        all_spans = _native.token_windows_many(
            list(texts), encoding, config.max_tokens, config.overlap_tokens, threads
        )
    except UnicodeEncodeError:  # lone surrogates somewhere: retry on same-length texts
        all_spans = _native.token_windows_many(
            [utf8_safe(t) for t in texts],
            encoding,
            config.max_tokens,
            config.overlap_tokens,
            threads,
        )
    return [_build_windows(t, s) for t, s in zip(texts, all_spans, strict=True)]


def chunk_items(
    items: Sequence[Mapping[str, Any] | str],
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
) -> list[Chunk]:
    """Chunks a list of items (JSON chunks, PDF blocks) as one text joined with ``"\\n"``.

    An item is a str or a mapping with a ``"text"`` str; its other keys are its metadata
    (PDF positions, images, ...). Chunk offsets index the joined text. Each chunk's
    ``metadata["items"]`` holds the indices of the items it draws text from, and
    ``metadata["item_metadata"]`` their metadata, and nothing from any other item.
    """
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise InputTypeError(f"items must be a sequence, got {describe(items)}")
    texts: list[str] = []
    extras: list[Mapping[str, Any]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            texts.append(item)
            extras.append(MappingProxyType({}))
        elif isinstance(item, Mapping) and isinstance(item.get("text"), str):
            texts.append(item["text"])
            extras.append(MappingProxyType({k: v for k, v in item.items() if k != "text"}))
        else:
            raise InputTypeError(
                f'items[{i}] must be a str or a mapping with a "text" str, got {describe(item)}'
            )
    ranges = []
    at = 0
    for text in texts:
        ranges.append((at, at + len(text)))
        at += len(text) + 1
    out = []
    for c in chunk("\n".join(texts), config, tokenizer=tokenizer, backend=backend):
        spans = c.metadata.get("spans", ((c.char_start, c.char_end),))
        used = tuple(i for i, (a, b) in enumerate(ranges) if any(a < e and s < b for s, e in spans))
        metadata = {**c.metadata, "items": used, "item_metadata": tuple(extras[i] for i in used)}
        out.append(replace(c, metadata=MappingProxyType(metadata)))
    return out
