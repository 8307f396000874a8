"""The one path for every config: text -> tokens -> cutter -> rows -> :class:`Chunk`.

``chunk`` is a stream of one piece; ``chunk_stream`` and ``chunk_file`` feed the same native
pipeline piece by piece (it keeps only a bounded carry); ``chunk_many`` runs it over many
documents in parallel. Rows come back as arrays plus one string per chunk, and one builder
turns them into chunks for every config, native or reference.
"""

from __future__ import annotations

import codecs
import operator
import os
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from . import _clean_stream, _native, _oracle
from . import _rows as L
from ._rows import Batch
from ._support.gc import gc_paused
from ._support.validate import describe, require_choice, require_int, require_str
from .config import CONFIGS, CleanRules, Code, Config, Markdown, ParentChild, SentenceWindows
from .errors import ConfigError, ConfigTypeError, InputDecodeError, InputTypeError
from .tokenizers import Tokenizer, offset_safe, resolve, utf8_call, utf8_safe
from .types import SPAN_COLUMNS, Chunk, Metadata, SpanArray, Spans

__all__ = [
    "chunk",
    "chunk_file",
    "chunk_items",
    "chunk_many",
    "chunk_spans",
    "chunk_stream",
]

_BACKENDS = ("native", "reference")
_SURROGATE = re.compile("[\ud800-\udfff]")
DEFAULT_BUFFER = 1 << 20
# chunk() cuts a text longer than this many characters as a stream of _STREAM_BYTES
# blocks of its UTF-8 (of _STREAM_PIECE-character slices if it has lone surrogates): the
# same chunks (chunk_stream's contract), with a working set bounded like chunk_file's
# instead of token arrays for the whole text.
_STREAM_FROM = 1 << 23
_STREAM_PIECE = 1 << 20
_STREAM_BYTES = 1 << 20


def _require_config(config: Any) -> Config:
    if not isinstance(config, CONFIGS):
        names = ", ".join(c.__name__ for c in CONFIGS)
        raise ConfigTypeError(f"config must be one of {names}, got {describe(config)}")
    return config


def _tokenizer(config: Config, tokenizer: Tokenizer | str | None) -> Tokenizer:
    """The call's tokenizer, else the config's own (``SentenceWindows.tokenizer``), else cl100k."""
    if tokenizer is None and isinstance(config, SentenceWindows):
        tokenizer = config.tokenizer
    return resolve(tokenizer)


# The field that caps a chunk's tokens, per config.
_CAPS = {
    "TokenWindows": "max_tokens",
    "Recursive": "max_tokens",
    "SentenceWindows": "max_tokens",
    "Markdown": "max_tokens",
    "Code": "max_tokens",
    "DelimiterMerge": "token_size",
}


C = TypeVar("C", bound=Config)


def _reserved(config: C, tok: Tokenizer) -> C:
    """``config`` with each cap lowered by the special tokens ``tok`` reserves, so that a
    chunk plus the model's ``[CLS]``/``[SEP]`` still fits the cap."""
    n = tok.special_tokens
    return lowered(
        config,
        n,
        f"the tokenizer's {n} special tokens",
        "raise the cap or pass reserve_special_tokens=False",
    )


def lowered(config: C, n: int, what: str, fix: str, *, clamp: bool = False) -> C:
    """``config`` with each cap lowered by ``n`` tokens, so that ``what`` fits beside each
    chunk; with ``clamp``, an overlap is clamped below the lowered cap. A ``ConfigError``
    naming the cap, ``what`` and ``fix`` when no room is left."""
    if n <= 0:
        return config
    if isinstance(config, ParentChild):
        parent = config.parent
        if not isinstance(parent, str):
            parent = lowered(parent, n, what, fix, clamp=clamp)
        return replace(
            config, parent=parent, child=lowered(config.child, n, what, fix, clamp=clamp)
        )
    name = type(config).__name__
    field = _CAPS[name]
    cap = getattr(config, field)
    cut = cap - n
    if isinstance(config, SentenceWindows):
        # Its window budget is a share of max_tokens: lower max_tokens until the budget
        # itself has room for the n tokens.
        while cut > 0 and int(cut * config.safety_margin) > config.safe_max - n:
            cut -= 1
    changes: dict[str, Any] = {field: cut}
    overlap = getattr(config, "overlap_tokens", None)
    if clamp and isinstance(overlap, int) and not isinstance(config, SentenceWindows) and cut >= 1:
        changes["overlap_tokens"] = min(overlap, cut - 1)
    try:
        return replace(config, **changes)
    except ConfigError as exc:
        raise ConfigError(
            f"{name}.{field} = {cap} leaves no room for {what} ({exc}); {fix}"
        ) from exc


# -- building chunks ------------------------------------------------------------------


# What each metadata key reads: a chunk row (the columns of ``contracts/stream.rs``'s
# table), the spans as an (n, 2) array of (char_start, char_end), the chunk's children,
# and the row's meta (a structure-aware config's ``_rows.Meta``).
Read = Callable[[Sequence[int], Any, tuple[Chunk, ...], Any], Any]
_READ: dict[str, Read] = {
    "oversize": lambda row, spans, kids, meta: bool(row[L.OVERSIZE]),
    "overlap_tokens": lambda row, spans, kids, meta: row[L.OVERLAP_TOKENS],
    "overlap_chars": lambda row, spans, kids, meta: row[L.OVERLAP_CHARS],
    "overlap_spans": lambda row, spans, kids, meta: row[L.OVERLAP_SPANS],
    "spans": lambda row, spans, kids, meta: Spans._of(spans[row[L.SPAN_START] : row[L.SPAN_END]]),
    "parent": lambda row, spans, kids, meta: row[L.PARENT],
    "children": lambda row, spans, kids, meta: kids,
    "headings": lambda row, spans, kids, meta: meta.headings,
    "headings_truncated": lambda row, spans, kids, meta: meta.truncated,
    "context": lambda row, spans, kids, meta: meta.context,
    "context_truncated": lambda row, spans, kids, meta: meta.truncated,
    "scopes": lambda row, spans, kids, meta: meta.scopes,
}


def _metadata(
    keys: Sequence[str], row: Sequence[int], spans: Any, kids: tuple[Chunk, ...], meta: Any
) -> Metadata:
    return Metadata._of({key: _READ[key](row, spans, kids, meta) for key in keys})


# Metadata is read-only, so chunks whose only key is "oversize" share one of these.
_OVERSIZE = {flag: Metadata({"oversize": flag}) for flag in (False, True)}


_CHUNK_FIELDS = operator.itemgetter(
    L.CHAR_START, L.CHAR_END, L.BYTE_START, L.BYTE_END, L.TOKEN_START, L.TOKEN_END, L.INDEX
)

# A top-level row after the last: it closes the last parent in `_build`.
_END_ROW = [-1] * len(L.ROW_COLUMNS)


def _chunk(row: Sequence[int], text: str, metadata: Metadata) -> Chunk:
    # Positional, and the row read with one C call: this runs once per chunk.
    cs, ce, bs, be, ts, te, index = _CHUNK_FIELDS(row)
    return Chunk(text, cs, ce, bs, be, ts, te, te - ts, index, metadata)


def _build(config: Config, batch: Batch) -> list[Chunk]:
    """Chunks from a batch: top-level rows, each followed by its children's rows."""
    table, spans, texts, metas = batch.table, batch.spans, batch.texts, batch.meta
    rows = table.tolist() if isinstance(table, np.ndarray) else table
    # Only each span's (char_start, char_end) is kept, as one array the chunks' Spans view.
    if isinstance(spans, np.ndarray):
        spans = np.ascontiguousarray(spans[:, [L.SPAN_CHAR_START, L.SPAN_CHAR_END]], dtype=np.int64)
    else:
        pairs = [(s[L.SPAN_CHAR_START], s[L.SPAN_CHAR_END]) for s in spans]
        spans = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    keys, child_keys = config._metadata, config._child_metadata
    with gc_paused():
        if keys == ("oversize",) and not child_keys:
            oversize = L.OVERSIZE
            return [
                _chunk(row, text, _OVERSIZE[bool(row[oversize])])
                for row, text in zip(rows, texts, strict=True)
            ]
        out: list[Chunk] = []
        parent: tuple[list[int], str, Any] | None = None
        kids: list[Chunk] = []
        meta_of = metas if metas is not None else [None] * len(rows)
        for row, text, meta in [*zip(rows, texts, meta_of, strict=True), (_END_ROW, "", None)]:
            if row[L.PARENT] >= 0:
                kids.append(_chunk(row, text, _metadata(child_keys, row, spans, (), meta)))
                continue
            if parent is not None:  # a new top-level row (or the end) closes the last one
                prow, ptext, pmeta = parent
                md = _metadata(keys, prow, spans, tuple(kids), pmeta)
                out.append(_chunk(prow, ptext, md))
            parent, kids = (row, text, meta), []
        return out


def _surrogates(text: str, offset: int = 0) -> dict[int, str]:
    """Surrogate code points of ``text`` by absolute character offset."""
    return {offset + m.start(): m.group() for m in _SURROGATE.finditer(text)}


def _restore(chunk: Chunk, found: dict[int, str], joiner: str) -> Chunk:
    """Puts back surrogates the native side read as U+FFFD (same length, one for one)."""
    if not found:
        return chunk
    parts = chunk.metadata.get("spans") or ((chunk.char_start, chunk.char_end),)
    chars = list(chunk.text)
    at = 0
    changed = False
    for a, b in parts:
        for pos in sorted(p for p in found if a <= p < b):
            chars[at + pos - a] = found[pos]
            changed = True
        at += (b - a) + len(joiner)
    metadata = chunk.metadata
    if "children" in metadata:
        kids = tuple(_restore(k, found, "") for k in metadata["children"])
        metadata = Metadata({**metadata, "children": kids})
        changed = True
    if not changed:
        return chunk
    return replace(chunk, text="".join(chars), metadata=metadata)


# -- running one text -----------------------------------------------------------------


def _given_tokens(text: str, config: Config, tok: Tokenizer) -> dict[str, Any]:
    """A Python tokenizer's output for the native pipeline: whole text or each piece."""
    if not config._tokenizes_pieces:
        given: dict[str, Any] = {"starts": tok.encode_with_offsets(text)[1]}
        if isinstance(config, Markdown | Code):
            given["count"] = tok.count  # the cutter counts its context strings too
        return given
    data = text.encode("utf-8")
    lists = [
        tok.encode_with_offsets(data[a:b].decode("utf-8"))[1]
        for a, b in _native.delimiter_pieces(text, config).tolist()
    ]
    counts = np.fromiter((len(s) for s in lists), dtype=np.uint32, count=len(lists))
    starts = np.concatenate(lists) if lists else np.zeros(0, dtype=np.uint32)
    return {"starts": starts.astype(np.uint32), "counts": counts}


def _run(text: str, config: Config, tok: Tokenizer, backend: str) -> Batch:
    """The batch of one UTF-8-safe text on the chosen backend."""
    if backend == "reference":
        return _oracle.oracle().run(text, config, tok)
    source = tok._native_source
    if source is not None:
        return _native.chunk(text, config, encoding=source)
    return _native.chunk(text, config, **_given_tokens(text, config, tok))


def _chunks_of(text: str, config: Config, tok: Tokenizer, backend: str) -> list[Chunk]:
    source = tok._native_source
    if backend == "native" and source is not None and len(text) > _STREAM_FROM:
        return _long(text, config, tok, source)
    if backend == "native" and source is not None:
        batch, safe = utf8_call(lambda t: _run(t, config, tok, backend), text)
    else:
        safe = utf8_safe(text)
        batch = _run(safe, config, tok, backend)
    chunks = _build(config, batch)
    if safe is text:
        return chunks
    found = _surrogates(text)
    joiner = getattr(config, "joiner", "")
    return [_restore(c, found, joiner) for c in chunks]


def _long(
    text: str, config: Config, tok: Tokenizer, source: str | _native.HfTokenizer
) -> list[Chunk]:
    """A long text as a stream, read a block at a time in place from the UTF-8 CPython
    keeps on the ``str`` (as for any text ``chunk()`` reads). A text with lone surrogates
    has no UTF-8 form; it streams as character slices, each put back."""
    stream = _native_stream(config, source)
    out: list[Chunk] = []
    # Paused for the whole run, not per block: between blocks, collections would traverse
    # the chunks kept so far again and again.
    with gc_paused():
        try:
            batch = stream.push_block(text, 0, _STREAM_BYTES)
        except UnicodeEncodeError:
            step = _STREAM_PIECE
            return list(
                _stream((text[i : i + step] for i in range(0, len(text), step)), config, tok)
            )
        out += _build(config, batch)
        while batch.next_start is not None:
            batch = stream.push_block(text, batch.next_start, _STREAM_BYTES)
            out += _build(config, batch)
        out += _build(config, stream.finish())
    return out


def _checked(
    text: Any, config: Any, tokenizer: Any, backend: Any
) -> tuple[str, Config, Tokenizer, str]:
    require_str("text", text)
    config = _require_config(config)
    require_choice("backend", backend, _BACKENDS)
    tok = _tokenizer(config, tokenizer)
    return text, _reserved(config, tok), tok, backend


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
    pure-Python oracle. With ``clean``, the text is cleaned first: chunks hold cleaned
    text, and their offsets index the original ``text``.

    >>> import ferrochunk as fc
    >>> [c.text for c in fc.chunk("one two three four", fc.TokenWindows(2))]
    ['one two', ' three four']
    """
    if clean is not None:
        return _cleaned(text, config, tokenizer, backend, clean)
    text, config, tok, backend = _checked(text, config, tokenizer, backend)
    return _chunks_of(text, config, tok, backend)


def chunk_spans(
    text: str,
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    backend: str = "native",
) -> SpanArray:
    """The top-level chunks of ``text`` as an ``(n, 6)`` int64 array, without ``Chunk`` objects.

    Columns: ``token_start, token_end, byte_start, byte_end, char_start, char_end`` (a
    ``DelimiterMerge`` chunk joined from several spans reports its extent).

    >>> import ferrochunk as fc
    >>> fc.chunk_spans("one two three", fc.TokenWindows(2)).tolist()
    [[0, 2, 0, 7, 0, 7], [2, 3, 7, 13, 7, 13]]
    """
    text, config, tok, backend = _checked(text, config, tokenizer, backend)
    table = np.asarray(_run(utf8_safe(text), config, tok, backend).table, dtype=np.int64)
    table = table.reshape(-1, len(L.ROW_COLUMNS))
    top = table[table[:, L.PARENT] < 0]
    spans: SpanArray = np.ascontiguousarray(top[:, [L.COL[name] for name in SPAN_COLUMNS]])
    return spans


def _native_clean(text: str, rules: CleanRules) -> tuple[str, tuple[Any, Any]]:
    """``rules`` in Rust (``rust/text/clean.rs``): the cleaned text and each character's
    original span. A lone surrogate is read as U+FFFD (one character for one) and put back
    where it was kept."""
    safe = utf8_safe(text)
    cleaned, starts, ends = _native.clean_rules(
        safe, rules.remove_extra_spaces, rules.remove_urls_emails
    )
    if safe is not text:
        chars = list(cleaned)
        for pos, surrogate in _surrogates(text).items():
            k = int(np.searchsorted(starts, pos))
            if k < len(chars) and starts[k] == pos and ends[k] == pos + 1:
                chars[k] = surrogate
        cleaned = "".join(chars)
    return cleaned, (starts, ends)


def _to_original(where: tuple[Any, Any], length: int, start: int, end: int) -> tuple[int, int]:
    """A cleaned ``[start, end)`` as original character offsets (an empty range at the
    cleaned text's end maps to the original's end)."""
    if start >= len(where[0]):
        return length, length
    first = int(where[0][start])
    return first, (int(where[1][end - 1]) if end > start else first)


def _check_clean(clean: Any, config: Config) -> CleanRules:
    if not isinstance(clean, CleanRules):
        raise ConfigTypeError(f"clean must be a CleanRules or None, got {describe(clean)}")
    if isinstance(config, Markdown) and clean.remove_extra_spaces:
        # Collapsing spaces would flatten indented code and lists before the scan sees them.
        raise ConfigError(
            "clean.remove_extra_spaces cannot be used with Markdown (it would flatten "
            "indented code and lists), got CleanRules(remove_extra_spaces=True)"
        )
    return clean


def _cleaned(text: Any, config: Any, tokenizer: Any, backend: Any, clean: Any) -> list[Chunk]:
    """Chunks of the cleaned text with character and byte offsets in the original."""
    require_str("text", text)
    clean = _check_clean(clean, _require_config(config))
    require_choice("backend", backend, _BACKENDS)
    if backend == "reference":
        cleaned, where = _oracle.oracle().clean(text, clean)
    else:
        cleaned, where = _native_clean(text, clean)
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
        spans[key] = _to_original(where, len(text), *key)
    chars = sorted({x for pair in spans.values() for x in pair})
    if backend == "reference":
        as_bytes = _oracle.oracle().char_bytes(text, chars)
    else:
        as_bytes = _native.char_to_byte_offsets(
            utf8_safe(text), np.asarray(chars, dtype=np.uint64)
        ).tolist()
    byte_of = dict(zip(chars, as_bytes, strict=True))

    def original(start: int, end: int) -> tuple[int, int, int, int]:
        cs, ce = spans[(start, end)]
        return cs, ce, byte_of[cs], byte_of[ce]

    return [_clean_stream.remap(c, original) for c in chunks]


# -- many texts -----------------------------------------------------------------------


def _threads(threads: Any) -> int | None:
    """``None`` (every core) or a count >= 1; the native side clamps it to the cores."""
    return None if threads is None else require_int("threads", threads, minimum=1)


def chunk_many(
    texts: Sequence[str],
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    threads: int | None = None,
) -> list[list[Chunk]]:
    """:func:`chunk` for many documents, in parallel with the GIL released.

    ``threads=None`` uses every core; ``threads=1`` runs on one thread; a count above the
    number of cores is clamped to it.

    >>> import ferrochunk as fc
    >>> [len(c) for c in fc.chunk_many(["a b c", ""], fc.TokenWindows(2), threads=1)]
    [2, 0]
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise InputTypeError(f"texts must be a sequence of str, got {describe(texts)}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputTypeError(f"texts[{i}] must be a str, got {describe(text)}")
    config = _require_config(config)
    threads = _threads(threads)
    tok = _tokenizer(config, tokenizer)
    config = _reserved(config, tok)
    encoding = tok._native_source
    if encoding is None:
        # Python tokenizers hold the GIL; the native cutting releases it between calls.
        with ThreadPoolExecutor(max_workers=min(threads or os.cpu_count() or 1, 32)) as pool:
            return list(pool.map(lambda t: _chunks_of(t, config, tok, "native"), texts))
    # On more than one thread, helpers cut texts in the background while this thread
    # builds Chunks (serial, under the GIL) and cuts too whenever it would wait. On one
    # thread they are all cut first: nothing runs beside the caller.
    many = _native.chunk_many if threads == 1 else _native.chunk_many_iter
    safe = list(texts)
    try:
        batches: Iterable[Batch] = many(safe, config, encoding, threads)
    except UnicodeEncodeError:  # some text has no UTF-8 form: only then look for surrogates
        safe = [utf8_safe(t) for t in texts]
        batches = many(safe, config, encoding, threads)
    out = []
    joiner = getattr(config, "joiner", "")
    for text, clean_text, batch in zip(texts, safe, batches, strict=True):
        chunks = _build(config, batch)
        if clean_text is not text:
            found = _surrogates(text)
            chunks = [_restore(c, found, joiner) for c in chunks]
        out.append(chunks)
    return out


# -- streams --------------------------------------------------------------------------


class _Restorer:
    """Surrogates seen in a stream, by absolute character offset, kept until every chunk
    that could hold them has gone by (a chunk never starts before the previous one)."""

    def __init__(self, joiner: str) -> None:
        self.joiner = joiner
        self.found: dict[int, str] = {}

    def apply(self, chunks: list[Chunk]) -> list[Chunk]:
        if not self.found:
            return chunks
        out = [_restore(c, self.found, self.joiner) for c in chunks]
        if chunks:
            floor = chunks[-1].char_start
            keys = sorted(self.found)
            for key in keys[: bisect_left(keys, floor)]:
                del self.found[key]
        return out


def _native_stream(config: Config, encoding: str | _native.HfTokenizer) -> Any:
    return _native.Stream(config, encoding)


def chunk_stream(
    pieces: Iterable[str],
    config: Config,
    *,
    tokenizer: Tokenizer | str | None = None,
    clean: CleanRules | None = None,
) -> Iterator[Chunk]:
    """Chunks text that arrives in pieces, as soon as each chunk can no longer change.

    The chunks equal ``chunk("".join(pieces), config)``, offsets counted over the whole
    stream; a piece may end anywhere, even inside a word or a CRLF. Only a bounded carry
    is held (``docs/streaming.md``). A Python tokenizer sees whole documents, so with one the
    pieces are joined first. With ``clean``, the chunks equal ``chunk(..., clean=clean)``:
    the text is cleaned as it arrives (held back only to the last space or newline that
    no cleaning step can match across) and offsets index the original.

    >>> import ferrochunk as fc
    >>> [c.text for c in fc.chunk_stream(["one tw", "o three"], fc.TokenWindows(2))]
    ['one two', ' three']
    """
    config = _require_config(config)
    tok = _tokenizer(config, tokenizer)
    config = _reserved(config, tok)
    if isinstance(pieces, str) or not isinstance(pieces, Iterable):
        raise InputTypeError(f"pieces must be an iterable of str, got {describe(pieces)}")
    if clean is not None:
        return _cleaned_stream(_checked_pieces(pieces), config, tok, _check_clean(clean, config))
    return _stream(pieces, config, tok)


def _cleaned_stream(
    pieces: Iterable[str], config: Config, tok: Tokenizer, clean: CleanRules
) -> Iterator[Chunk]:
    return _clean_stream.stream(
        pieces, clean, _native_clean, lambda cleaned: _stream(cleaned, config, tok)
    )


def _stream(pieces: Iterable[str], config: Config, tok: Tokenizer) -> Iterator[Chunk]:
    encoding = tok._native_source
    if encoding is None:
        yield from _chunks_of("".join(_checked_pieces(pieces)), config, tok, "native")
        return
    stream = _native_stream(config, encoding)
    restorer = _Restorer(getattr(config, "joiner", ""))
    chars = 0
    for piece in _checked_pieces(pieces):
        try:
            batch = stream.push(piece)
        except UnicodeEncodeError:
            restorer.found.update(_surrogates(piece, chars))
            batch = stream.push(offset_safe(piece))
        chars += len(piece)
        yield from restorer.apply(_build(config, batch))
    yield from restorer.apply(_build(config, stream.finish()))


def _checked_pieces(pieces: Iterable[Any]) -> Iterator[str]:
    for i, piece in enumerate(pieces):
        if not isinstance(piece, str):
            raise InputTypeError(f"pieces[{i}] must be a str, got {describe(piece)}")
        yield piece


def chunk_file(
    path: str | os.PathLike[str],
    config: Config,
    *,
    encoding: str = "utf-8",
    errors: str = "strict",
    tokenizer: Tokenizer | str | None = None,
    buffer_bytes: int = DEFAULT_BUFFER,
    progress: Callable[[int], None] | None = None,
    clean: CleanRules | None = None,
) -> Iterator[Chunk]:
    r"""Chunks a file read in buffers of ``buffer_bytes``, in bounded memory.

    With ``clean``, the text is cleaned as it is read (see :func:`chunk_stream`); offsets
    index the file as without it.

    Bytes are read as stored (no newline translation), so offsets index the file: for a
    UTF-8 file, ``byte_start``/``byte_end`` are file offsets. A buffer may end inside a
    character. With ``errors="strict"``, undecodable bytes raise
    :class:`~ferrochunk.errors.InputDecodeError` with their ``byte_offset``. Other
    encodings are decoded incrementally; offsets then index the decoded text.
    ``progress(bytes_read)`` is called after each buffer.

    >>> import os, tempfile
    >>> import ferrochunk as fc
    >>> path = os.path.join(tempfile.mkdtemp(), "doc.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("First paragraph.\n\nSecond paragraph.")
    >>> [(c.text, c.byte_start) for c in fc.chunk_file(path, fc.Recursive(4))]
    [('First paragraph.\n\n', 0), ('Second paragraph.', 18)]
    """
    config = _require_config(config)
    tok = _tokenizer(config, tokenizer)
    config = _reserved(config, tok)
    size = require_int("buffer_bytes", buffer_bytes, minimum=1)
    for field, value in (("encoding", encoding), ("errors", errors)):
        if not isinstance(value, str):
            raise ConfigTypeError(f"{field} must be a str, got {describe(value)}")
    try:
        codec = codecs.lookup(encoding)
    except LookupError as exc:
        raise ConfigError(f"encoding must be a known codec, got {describe(encoding)}") from exc
    if not isinstance(path, str | os.PathLike):
        raise InputTypeError(f"path must be a str or os.PathLike, got {describe(path)}")
    if clean is not None:
        rules = _check_clean(clean, config)
        decoded = _decoded(_blocks(os.fspath(path), size, progress), codec, errors)
        return _cleaned_stream(decoded, config, tok, rules)
    return _file(os.fspath(path), config, tok, codec, errors, size, progress)


def _blocks(path: str, size: int, progress: Callable[[int], None] | None) -> Iterator[bytes]:
    read = 0
    with open(path, "rb") as f:
        while block := f.read(size):
            read += len(block)
            yield block
            if progress is not None:
                progress(read)


def _file(
    path: str,
    config: Config,
    tok: Tokenizer,
    codec: codecs.CodecInfo,
    errors: str,
    size: int,
    progress: Callable[[int], None] | None,
) -> Iterator[Chunk]:
    yield from _chunk_blocks(_blocks(path, size, progress), config, tok, codec, errors)


def _chunk_blocks(
    blocks: Iterable[bytes],
    config: Config,
    tok: Tokenizer,
    codec: codecs.CodecInfo,
    errors: str,
) -> Iterator[Chunk]:
    """Chunks bytes read in blocks (a file, stdin): UTF-8 goes to Rust undecoded."""
    source = tok._native_source
    if codec.name == "utf-8" and errors == "strict" and source is not None:
        stream = _native_stream(config, source)
        for block in blocks:
            yield from _build(config, stream.push_bytes(block))
        yield from _build(config, stream.finish())
        return
    yield from _stream(_decoded(blocks, codec, errors), config, tok)


def _decoded(blocks: Iterable[bytes], codec: codecs.CodecInfo, errors: str) -> Iterator[str]:
    decoder = codec.incrementaldecoder(errors)
    at = 0
    try:
        for block in blocks:
            yield decoder.decode(block)
            at += len(block)
        yield decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        offset = at + exc.start
        raise InputDecodeError(
            f"cannot decode the input as {codec.name} at byte {offset}: {exc.reason}", offset
        ) from exc


# -- items ----------------------------------------------------------------------------


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

    >>> import ferrochunk as fc
    >>> items = [{"text": "first", "page": 1}, {"text": "second", "page": 2}]
    >>> [(c.text, c.metadata["items"]) for c in fc.chunk_items(items, fc.TokenWindows(1))]
    [('first', (0,)), ('\\n', ()), ('second', (1,))]
    """
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise InputTypeError(f"items must be a sequence, got {describe(items)}")
    texts: list[str] = []
    extras: list[Metadata] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            texts.append(item)
            extras.append(Metadata())
        elif isinstance(item, Mapping) and isinstance(item.get("text"), str):
            texts.append(item["text"])
            extras.append(Metadata({k: v for k, v in item.items() if k != "text"}))
        else:
            raise InputTypeError(
                f'items[{i}] must be a str or a mapping with a "text" str, got {describe(item)}'
            )
    starts, ends = [], []
    at = 0
    for text in texts:
        starts.append(at)
        ends.append(at + len(text))
        at += len(text) + 1
    out = []
    for c in chunk("\n".join(texts), config, tokenizer=tokenizer, backend=backend):
        found: set[int] = set()
        for s, e in c.metadata.get("spans", ((c.char_start, c.char_end),)):
            # Items are sorted and disjoint: those overlapping s..e follow the first
            # that ends after s.
            i = bisect_right(ends, s)
            while i < len(starts) and starts[i] < e:
                found.add(i)
                i += 1
        used = tuple(sorted(found))
        metadata = {**c.metadata, "items": used, "item_metadata": tuple(extras[i] for i in used)}
        out.append(replace(c, metadata=Metadata(metadata)))
    return out
