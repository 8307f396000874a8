"""Entry points: tokenize once, then cut in the core (native) or in the oracle (reference)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _native
from ._validate import describe, require_choice, require_int, require_str
from .config import TokenWindows
from .errors import ConfigTypeError, InputTypeError
from .reference import windows as ref_windows
from .tokenizers import Tokenizer, offset_safe, resolve, utf8_safe
from .types import Chunk, SpanArray

__all__ = ["chunk", "chunk_many", "chunk_spans"]

Config = TokenWindows
_BACKENDS = ("native", "reference")


def _require_config(config: Any) -> Config:
    if not isinstance(config, TokenWindows):
        raise ConfigTypeError(f"config must be a TokenWindows, got {describe(config)}")
    return config


def _native_spans(text: str, config: Config, tokenizer: Tokenizer) -> SpanArray:
    encoding = tokenizer.native_encoding
    if encoding is not None:
        return _native.token_windows(text, encoding, config.max_tokens, config.overlap_tokens)
    _, starts = tokenizer.encode_with_offsets(text)
    return _native.token_windows_from_starts(text, starts, config.max_tokens, config.overlap_tokens)


def _reference_spans(text: str, config: Config, tokenizer: Tokenizer) -> SpanArray:
    _, starts = tokenizer.encode_with_offsets(text)
    rows = ref_windows.token_windows(
        text, starts.tolist(), config.max_tokens, config.overlap_tokens
    )
    return np.asarray(rows, dtype=np.int64).reshape(len(rows), 6)


def _build(source: str, spans: SpanArray) -> list[Chunk]:
    return [
        Chunk(
            text=source[cs:ce],
            char_start=cs,
            char_end=ce,
            byte_start=bs,
            byte_end=be,
            token_start=ts,
            token_end=te,
            token_count=te - ts,
            index=i,
        )
        for i, (ts, te, bs, be, cs, ce) in enumerate(spans.tolist())
    ]


def chunk_spans(
    text: str,
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
) -> SpanArray:
    """The chunks of ``text`` as an ``(n, 6)`` int64 array, without Python objects.

    Columns: ``token_start, token_end, byte_start, byte_end, char_start, char_end``.
    """
    require_str("text", text)
    config = _require_config(config)
    require_choice("backend", backend, _BACKENDS)
    tok = resolve(tokenizer)
    if backend == "reference":
        return _reference_spans(utf8_safe(text), config, tok)
    try:
        return _native_spans(text, config, tok)
    except UnicodeEncodeError:  # lone surrogates: retry on same-length text
        return _native_spans(offset_safe(text), config, tok)


def chunk(
    text: str,
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
) -> list[Chunk]:
    """Cuts ``text`` by ``config``; empty text gives ``[]``.

    ``tokenizer`` defaults to the embedded cl100k. ``backend="reference"`` runs the
    pure-Python oracle on the same tokenizer output.
    """
    spans = chunk_spans(text, config, tokenizer=tokenizer, backend=backend)
    return _build(text, spans)


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
    tok = resolve(tokenizer)
    encoding = tok.native_encoding
    if encoding is None:
        all_spans = [_native_spans(utf8_safe(t), config, tok) for t in texts]
    else:
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
    return [_build(t, s) for t, s in zip(texts, all_spans, strict=True)]
