"""The one path for every config: text -> tokens -> cutter -> rows -> :class:`Chunk`.

``chunk`` is a stream of one piece; ``chunk_stream`` and ``chunk_file`` feed the same native
pipeline piece by piece (it keeps only a bounded carry); ``chunk_many`` runs it over many
documents in parallel. Rows come back as arrays plus one string per chunk, and one builder
turns them into chunks for every config, native or reference.
"""

from __future__ import annotations

import codecs
import os
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from . import _native, _oracle, html
from . import _rows as L
from ._build import Restorer, build, restore, surrogates
from ._caps import reserved
from ._cleaning import check_clean, in_original, native_clean
from ._cleaning import stream as clean_stream
from ._files import blocks, decoded
from ._html_encoding import decode as html_decode
from ._rows import Batch
from ._support.gc import gc_paused
from ._support.validate import describe, require_choice, require_int, require_str
from .config import CONFIGS, CleanRules, Code, Config, Html, Markdown, SentenceWindows
from .errors import ConfigError, ConfigTypeError, InputTypeError
from .tokenizers import Tokenizer, offset_safe, resolve, utf8_call, utf8_safe
from .types import SPAN_COLUMNS, Chunk, Metadata, SpanArray

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
    chunks = build(config, batch)
    if safe is text:
        return chunks
    found = surrogates(text)
    joiner = getattr(config, "joiner", "")
    return [restore(c, found, joiner) for c in chunks]


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
        out += build(config, batch)
        while batch.next_start is not None:
            batch = stream.push_block(text, batch.next_start, _STREAM_BYTES)
            out += build(config, batch)
        out += build(config, stream.finish())
    return out


def _checked(
    text: Any, config: Any, tokenizer: Any, backend: Any
) -> tuple[str, Config, Tokenizer, str]:
    require_str("text", text)
    config = _require_config(config)
    require_choice("backend", backend, _BACKENDS)
    tok = _tokenizer(config, tokenizer)
    return text, reserved(config, tok), tok, backend


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
    if isinstance(config, Html):
        return _html(text, config, tokenizer, backend, clean)
    if clean is not None:
        return _cleaned(text, config, tokenizer, backend, clean)
    text, config, tok, backend = _checked(text, config, tokenizer, backend)
    return _chunks_of(text, config, tok, backend)


def _html(text: Any, config: Html, tokenizer: Any, backend: Any, clean: Any) -> list[Chunk]:
    """``Html``: a page as ``str`` (taken as it is) or ``bytes`` (decoded as the HTML
    standard sniffs it)."""
    require_choice("backend", backend, _BACKENDS)
    if clean is not None:
        raise ConfigError("clean cannot be used with Html (the rendering collapses white space)")
    if isinstance(text, bytes | bytearray | memoryview):
        page, name = html_decode(bytes(text))
        return html_chunks(page, config, tokenizer, backend, name)
    require_str("text", text)
    return html_chunks(text, config, tokenizer, backend, None)


def html_chunks(
    text: str, config: Html, tokenizer: Any, backend: str, encoding: str | None
) -> list[Chunk]:
    """A page rendered, its rendering cut as ``Markdown``, the chunks moved back into it
    (``ferrochunk.html``); ``encoding``: the one its bytes were decoded with."""
    rendered = html.render(text, config, backend)
    chunks = chunk(rendered[0], html.markdown_of(config), tokenizer=tokenizer, backend=backend)
    return html.placed(text, chunks, rendered, encoding, backend)


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


def _cleaned(text: Any, config: Any, tokenizer: Any, backend: Any, clean: Any) -> list[Chunk]:
    """Chunks of the cleaned text with character and byte offsets in the original."""
    require_str("text", text)
    clean = check_clean(clean, _require_config(config))
    require_choice("backend", backend, _BACKENDS)
    if backend == "reference":
        cleaned, where = _oracle.oracle().clean(text, clean)
    else:
        cleaned, where = native_clean(text, clean)
    chunks = chunk(cleaned, config, tokenizer=tokenizer, backend=backend)
    if backend == "reference":
        return in_original(text, chunks, where, _oracle.oracle().char_bytes)
    return in_original(text, chunks, where)


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
    if isinstance(config, Html):
        workers = min(_threads(threads) or os.cpu_count() or 1, 32)
        if workers == 1:
            return [chunk(t, config, tokenizer=tokenizer) for t in texts]
        # The rendering and the cutting release the GIL.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda t: chunk(t, config, tokenizer=tokenizer), texts))
    config = _require_config(config)
    threads = _threads(threads)
    tok = _tokenizer(config, tokenizer)
    config = reserved(config, tok)
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
        chunks = build(config, batch)
        if clean_text is not text:
            found = surrogates(text)
            chunks = [restore(c, found, joiner) for c in chunks]
        out.append(chunks)
    return out


# -- streams --------------------------------------------------------------------------


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
    if isinstance(pieces, str) or not isinstance(pieces, Iterable):
        raise InputTypeError(f"pieces must be an iterable of str, got {describe(pieces)}")
    if isinstance(config, Html):
        # Not streamed yet: the page is joined, then chunked whole.
        return iter(
            chunk("".join(_checked_pieces(pieces)), config, tokenizer=tokenizer, clean=clean)
        )
    config = _require_config(config)
    tok = _tokenizer(config, tokenizer)
    config = reserved(config, tok)
    if clean is not None:
        return _cleaned_stream(_checked_pieces(pieces), config, tok, check_clean(clean, config))
    return _stream(pieces, config, tok)


def _cleaned_stream(
    pieces: Iterable[str], config: Config, tok: Tokenizer, clean: CleanRules
) -> Iterator[Chunk]:
    return clean_stream(pieces, clean, native_clean, lambda cleaned: _stream(cleaned, config, tok))


def _stream(pieces: Iterable[str], config: Config, tok: Tokenizer) -> Iterator[Chunk]:
    encoding = tok._native_source
    if encoding is None:
        yield from _chunks_of("".join(_checked_pieces(pieces)), config, tok, "native")
        return
    stream = _native_stream(config, encoding)
    restorer = Restorer(getattr(config, "joiner", ""))
    chars = 0
    for piece in _checked_pieces(pieces):
        try:
            batch = stream.push(piece)
        except UnicodeEncodeError:
            restorer.found.update(surrogates(piece, chars))
            batch = stream.push(offset_safe(piece))
        chars += len(piece)
        yield from restorer.apply(build(config, batch))
    yield from restorer.apply(build(config, stream.finish()))


def _checked_pieces(pieces: Iterable[Any]) -> Iterator[str]:
    for i, piece in enumerate(pieces):
        if not isinstance(piece, str):
            raise InputTypeError(f"pieces[{i}] must be a str, got {describe(piece)}")
        yield piece


def chunk_file(
    path: str | os.PathLike[str],
    config: Config,
    *,
    encoding: str | None = None,
    errors: str = "strict",
    tokenizer: Tokenizer | str | None = None,
    buffer_bytes: int = DEFAULT_BUFFER,
    progress: Callable[[int], None] | None = None,
    clean: CleanRules | None = None,
) -> Iterator[Chunk]:
    r"""Chunks a file read in buffers of ``buffer_bytes``, in bounded memory.

    With ``clean``, the text is cleaned as it is read (see :func:`chunk_stream`); offsets
    index the file as without it. ``encoding`` defaults to UTF-8; for :class:`Html`, to the
    encoding the HTML standard's sniffing finds (``docs/html.md``), and the page is read
    whole.

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
    if isinstance(config, Html):
        return _html_file(path, config, encoding, tokenizer, clean)
    encoding = "utf-8" if encoding is None else encoding
    config = _require_config(config)
    tok = _tokenizer(config, tokenizer)
    config = reserved(config, tok)
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
        rules = check_clean(clean, config)
        text = decoded(blocks(os.fspath(path), size, progress), codec, errors)
        return _cleaned_stream(text, config, tok, rules)
    return _file(os.fspath(path), config, tok, codec, errors, size, progress)


def _html_file(
    path: Any, config: Html, encoding: Any, tokenizer: Any, clean: Any
) -> Iterator[Chunk]:
    if encoding is not None and not isinstance(encoding, str):
        raise ConfigTypeError(f"encoding must be a str or None, got {describe(encoding)}")
    if not isinstance(path, str | os.PathLike):
        raise InputTypeError(f"path must be a str or os.PathLike, got {describe(path)}")
    if clean is not None:
        raise ConfigError("clean cannot be used with Html (the rendering collapses white space)")
    with open(os.fspath(path), "rb") as f:
        page, name = html_decode(f.read(), encoding)
    return iter(html_chunks(page, config, tokenizer, "native", name))


def _file(
    path: str,
    config: Config,
    tok: Tokenizer,
    codec: codecs.CodecInfo,
    errors: str,
    size: int,
    progress: Callable[[int], None] | None,
) -> Iterator[Chunk]:
    yield from _chunk_blocks(blocks(path, size, progress), config, tok, codec, errors)


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
            yield from build(config, stream.push_bytes(block))
        yield from build(config, stream.finish())
        return
    yield from _stream(decoded(blocks, codec, errors), config, tok)


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
