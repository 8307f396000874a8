"""``Html``: a page rendered as light Markdown, cut as ``Markdown`` cuts it, and each
chunk's offsets moved back into the page.

The rendering (``rust/structure/html``; ``reference/html_render.py`` is its twin) gives
each rendered character the source span it came from, or none for what the rendering
adds and for white space. A chunk's ``char_start`` is the span start of its first
character that has one, ``char_end`` the span end of its last: the page from the chunk's
first visible character to its last (``docs/html.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from . import _native, _oracle
from .config import Html, Markdown
from .tokenizers import utf8_safe
from .types import Chunk, Metadata

__all__ = ["markdown_of", "placed", "render"]


def markdown_of(config: Html) -> Markdown:
    """The ``Markdown`` config that cuts an ``Html`` config's rendering."""
    return Markdown(
        config.max_tokens, overlap_tokens=config.overlap_tokens, boundaries=config.boundaries
    )


def _skip_lists(config: Html) -> tuple[list[str], list[str], list[str]]:
    tags = [s for s in config.skip if s[:1] not in (".", "#")]
    classes = [s[1:] for s in config.skip if s.startswith(".")]
    ids = [s[1:] for s in config.skip if s.startswith("#")]
    return tags, classes, ids


def render(text: str, config: Html, backend: str = "native") -> tuple[str, Any, Any, str | None]:
    """The rendering of ``text``: the rendered text, each rendered character's source
    start and end (code points; ``-1`` for none), and the page's title.

    >>> import ferrochunk as fc
    >>> rendered, starts, ends, title = render("<h2>A &amp; B</h2>", fc.Html(16))
    >>> rendered, list(starts[3:6]), list(ends[3:6]), title
    ('## A & B', [4, -1, 6], [5, -1, 11], None)
    """
    tags, classes, ids = _skip_lists(config)
    if backend == "reference":
        return _oracle.oracle().html(text, tags, classes, ids)
    return _native.html_render(text, tags, classes, ids)


def _mapper(starts: Any, ends: Any, length: int) -> Any:
    """``(a, b) -> (char_start, char_end)`` for rendered ranges, from the spans."""
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    n = len(starts)
    idx = np.arange(n, dtype=np.int64)
    has = starts >= 0
    # The first character with a span at or after k, and the last at or before k.
    first = np.minimum.accumulate(np.where(has, idx, n)[::-1])[::-1] if n else idx
    last = np.maximum.accumulate(np.where(has, idx, -1)) if n else idx

    def where(a: int, b: int) -> tuple[int, int]:
        f = int(first[a]) if a < n else n
        if f >= b:  # nothing of the page in the chunk: an empty range where it would be
            at = int(starts[f]) if f < n else length
            return at, at
        return int(starts[f]), int(ends[int(last[b - 1])])

    return where


def _placed(
    text: str,
    chunks: Sequence[Chunk],
    where: Any,
    title: str | None,
    encoding: str | None,
    char_bytes: Any,
) -> list[Chunk]:
    pairs = [where(c.char_start, c.char_end) for c in chunks]
    chars = sorted({x for p in pairs for x in p})
    byte_of = dict(zip(chars, char_bytes(text, chars), strict=True))
    out = []
    for c, (cs, ce) in zip(chunks, pairs, strict=True):
        metadata = Metadata({**c.metadata, "title": title, "encoding": encoding})
        out.append(
            replace(
                c,
                char_start=cs,
                char_end=ce,
                byte_start=byte_of[cs],
                byte_end=byte_of[ce],
                metadata=metadata,
                chunk_id=c.chunk_id,
            )
        )
    return out


def _native_char_bytes(text: str, chars: list[int]) -> list[int]:
    positions = np.asarray(chars, dtype=np.uint64)
    return _native.char_to_byte_offsets(utf8_safe(text), positions).tolist()  # type: ignore[no-any-return]


def placed(
    text: str,
    chunks: Sequence[Chunk],
    rendered: tuple[str, Any, Any, str | None],
    encoding: str | None,
    backend: str,
) -> list[Chunk]:
    """``chunks`` of ``rendered`` (the rendering of page ``text``) with their offsets in the
    page, ``metadata["title"]`` and ``metadata["encoding"]`` (the one bytes were decoded
    with; ``None`` for text)."""
    _, starts, ends, title = rendered
    where = _mapper(starts, ends, len(text))
    char_bytes = _oracle.oracle().char_bytes if backend == "reference" else _native_char_bytes
    return _placed(text, chunks, where, title, encoding, char_bytes)
