"""``CleanRules``: the text cleaned in Rust with each character's original span, chunks
mapped back to the original's offsets, and text that arrives in pieces cleaned as it
comes (:func:`stream`).

A stream gives the same cleaned text and original spans as cleaning it whole, holding
only the text since the last place it can be cut.

The text is cut only at a single space or newline between two characters that no step
touches (no white space, control character or U+180E), outside any Markdown link or
image (after the last ``[`` a ``]``, after the last ``](`` a ``)``). No step matches
across such a place: ``<|``, ``|>`` and controls are within characters on one side,
the newline and space runs it could join are one character long, e-mails and bare URLs
hold no white space, and a link's text or URL could only span it from an open bracket.
So each side cleans alone to the same result. A text without such a place is held whole.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import _native
from ._build import surrogates
from ._support.validate import describe
from .config import CleanRules, Config, Markdown
from .errors import ConfigError, ConfigTypeError
from .tokenizers import utf8_safe
from .types import Chunk, Metadata, Spans

# A place to cut: a space or newline with an untouched character on each side.
_STABLE = r"[^\s\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\u180e]"
_CUT = re.compile(rf"(?<={_STABLE})[ \n](?={_STABLE})")
_BRACKETS = re.compile(r"\]\(|[\[\])]")
# The tail of the text first looked at for a place to cut.
_WINDOW = 1 << 16

Cleaner = Callable[[str, CleanRules], tuple[str, tuple[Any, Any]]]


@dataclass
class _Segment:
    """One cleaned stretch: where it starts in the cleaned and in the original text, the
    original span of each cleaned character (relative), and the original text itself (to
    turn character offsets into bytes)."""

    cleaned_at: int
    original_at: int
    original_byte_at: int
    starts: Any
    ends: Any
    original: str
    byte_of: Any = None


class CleanStream:
    """Cleans pieces; ``segments`` keeps what later chunks may still point into."""

    def __init__(self, rules: CleanRules, clean: Cleaner) -> None:
        self.rules = rules
        self.clean = clean
        self.pending = ""
        self.original_at = 0
        self.original_byte_at = 0
        self.cleaned_at = 0
        # Inside a link's text (an open "[") or URL (an open "](") at the end of `pending`.
        self.open_text = False
        self.open_url = False
        self.segments: deque[_Segment] = deque()

    def push(self, piece: str) -> Iterator[str]:
        """The cleaned text that can no longer change, once ``piece`` is added."""
        scan_from = max(len(self.pending) - 1, 0)
        self.pending += piece
        cut = self._last_cut(scan_from)
        if cut is not None:
            yield from self._emit(self.pending[:cut])
            self.pending = self.pending[cut:]

    def finish(self) -> Iterator[str]:
        if self.pending:
            yield from self._emit(self.pending)
            self.pending = ""

    def _last_cut(self, start: int) -> int | None:
        """The last safe cut in ``pending[start:]``. Brackets are rare, so the whole region
        is walked for them; places to cut are looked for from the end, in a window that
        doubles until one is found or the region is covered."""
        text = self.pending
        events = [(m.start(), m.group()) for m in _BRACKETS.finditer(text, start)]
        # The bracket state before each event, and after the last.
        states = [(self.open_text, self.open_url)]
        for _, kind in events:
            self._see(kind)
            states.append((self.open_text, self.open_url))
        positions = [at for at, _ in events]
        window = _WINDOW
        while True:
            lo = max(start, len(text) - window)
            for m in reversed(list(_CUT.finditer(text, lo))):
                if not any(states[bisect_left(positions, m.start())]):
                    return m.start()
            if lo == start:
                return None
            window *= 2

    def _see(self, kind: str) -> None:
        if kind == "[":
            self.open_text = True
        elif kind == "](":
            self.open_text, self.open_url = False, True
        elif kind == "]":
            self.open_text = False
        else:  # ")"
            self.open_url = False

    def _emit(self, original: str) -> Iterator[str]:
        cleaned, (starts, ends) = self.clean(original, self.rules)
        if cleaned:  # all of it deleted: nothing will point into it
            self.segments.append(
                _Segment(
                    self.cleaned_at,
                    self.original_at,
                    self.original_byte_at,
                    np.asarray(starts, dtype=np.int64),
                    np.asarray(ends, dtype=np.int64),
                    original,
                )
            )
        self.cleaned_at += len(cleaned)
        self.original_at += len(original)
        self.original_byte_at += len(utf8_safe(original).encode("utf-8"))
        if cleaned:
            yield cleaned

    def drop_before(self, cleaned: int) -> None:
        """Forgets segments that end at or before cleaned offset ``cleaned``."""
        while len(self.segments) > 1 and (
            self.segments[0].cleaned_at + len(self.segments[0].starts) <= cleaned
        ):
            self.segments.popleft()

    def _segment(self, cleaned: int) -> _Segment:
        for segment in reversed(self.segments):
            if segment.cleaned_at <= cleaned:
                return segment
        return self.segments[0]

    def original(self, start: int, end: int) -> tuple[int, int, int, int]:
        """A cleaned ``[start, end)`` as original (char start, char end, byte start,
        byte end); an empty range at the end maps to the original's end."""
        if start >= self.cleaned_at:
            return self.original_at, self.original_at, self.original_byte_at, self.original_byte_at
        first = self._segment(start)
        cs = first.original_at + int(first.starts[start - first.cleaned_at])
        if end > start:
            last = self._segment(end - 1)
            ce = last.original_at + int(last.ends[end - 1 - last.cleaned_at])
        else:
            last, ce = first, cs
        return cs, ce, self._byte(first, cs), self._byte(last, ce)

    @staticmethod
    def _byte(segment: _Segment, char: int) -> int:
        local = char - segment.original_at
        if segment.byte_of is None:
            # The UTF-8 offset of every character of the segment, once: chunks ask often.
            safe = utf8_safe(segment.original)
            segment.byte_of = (
                False
                if safe.isascii()
                else _native.char_to_byte_offsets(safe, np.arange(len(safe) + 1, dtype=np.uint64))
            )
        if segment.byte_of is False:
            return segment.original_byte_at + local
        return segment.original_byte_at + int(segment.byte_of[local])


def remap(chunk: Chunk, where: Callable[[int, int], tuple[int, int, int, int]]) -> Chunk:
    """A chunk of cleaned text with its offsets (and its spans' and children's) in the
    original text."""
    cs, ce, bs, be = where(chunk.char_start, chunk.char_end)
    metadata = dict(chunk.metadata)
    if "spans" in metadata:
        metadata["spans"] = Spans([where(a, b)[:2] for a, b in metadata["spans"]])
    if "children" in metadata:
        metadata["children"] = tuple(remap(k, where) for k in metadata["children"])
    return replace(
        chunk,
        char_start=cs,
        char_end=ce,
        byte_start=bs,
        byte_end=be,
        metadata=Metadata(metadata),
    )


def stream(
    pieces: Iterable[str],
    rules: CleanRules,
    clean: Cleaner,
    chunker: Callable[[Iterable[str]], Iterator[Chunk]],
) -> Iterator[Chunk]:
    """Chunks the cleaned stream with ``chunker``; chunks come back in original offsets."""
    cleaner = CleanStream(rules, clean)

    def cleaned() -> Iterator[str]:
        for piece in pieces:
            yield from cleaner.push(piece)
        yield from cleaner.finish()

    for chunk in chunker(cleaned()):
        out = remap(chunk, cleaner.original)
        # Later chunks never start before this one.
        cleaner.drop_before(chunk.char_start)
        yield out


def native_clean(text: str, rules: CleanRules) -> tuple[str, tuple[Any, Any]]:
    """``rules`` in Rust (``rust/text/clean.rs``): the cleaned text and each character's
    original span. A lone surrogate is read as U+FFFD (one character for one) and put back
    where it was kept."""
    safe = utf8_safe(text)
    cleaned, starts, ends = _native.clean_rules(
        safe, rules.remove_extra_spaces, rules.remove_urls_emails
    )
    if safe is not text:
        chars = list(cleaned)
        for pos, surrogate in surrogates(text).items():
            k = int(np.searchsorted(starts, pos))
            if k < len(chars) and starts[k] == pos and ends[k] == pos + 1:
                chars[k] = surrogate
        cleaned = "".join(chars)
    return cleaned, (starts, ends)


def to_original(where: tuple[Any, Any], length: int, start: int, end: int) -> tuple[int, int]:
    """A cleaned ``[start, end)`` as original character offsets (an empty range at the
    cleaned text's end maps to the original's end)."""
    if start >= len(where[0]):
        return length, length
    first = int(where[0][start])
    return first, (int(where[1][end - 1]) if end > start else first)


def check_clean(clean: Any, config: Config) -> CleanRules:
    if not isinstance(clean, CleanRules):
        raise ConfigTypeError(f"clean must be a CleanRules or None, got {describe(clean)}")
    if isinstance(config, Markdown) and clean.remove_extra_spaces:
        # Collapsing spaces would flatten indented code and lists before the scan sees them.
        raise ConfigError(
            "clean.remove_extra_spaces cannot be used with Markdown (it would flatten "
            "indented code and lists), got CleanRules(remove_extra_spaces=True)"
        )
    return clean


def in_original(
    text: str,
    chunks: list[Chunk],
    where: tuple[Any, Any],
    char_bytes: Callable[[str, list[int]], list[int]] | None = None,
) -> list[Chunk]:
    """``chunks`` of the cleaned text with their offsets (and their spans' and children's)
    in the original ``text``; ``char_bytes`` converts character offsets to UTF-8 bytes
    (the core's by default)."""
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
        spans[key] = to_original(where, len(text), *key)
    chars = sorted({x for pair in spans.values() for x in pair})
    if char_bytes is not None:
        as_bytes = char_bytes(text, chars)
    else:
        as_bytes = _native.char_to_byte_offsets(
            utf8_safe(text), np.asarray(chars, dtype=np.uint64)
        ).tolist()
    byte_of = dict(zip(chars, as_bytes, strict=True))

    def original(start: int, end: int) -> tuple[int, int, int, int]:
        cs, ce = spans[(start, end)]
        return cs, ce, byte_of[cs], byte_of[ce]

    return [remap(c, original) for c in chunks]
