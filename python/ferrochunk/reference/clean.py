"""``CleanRules``: Dify's cleaning, keeping a map from cleaned characters to the original.

Each cleaned character carries the original span it stands for: itself for a kept
character; for a replacement, one original character each, the last one reaching the end
of what was replaced; deleted characters map nowhere. Chunks are cut on the cleaned text
(what gets embedded) and their offsets are mapped back, so they index the original text.

Everything is found with Python's ``re`` (the three patterns that can backtrack are
quadratic on some hostile text); the native pipeline runs ``rust/text/clean.rs``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..config import CleanRules


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe]")
_SPECIAL_OPEN = re.compile(r"<\|")
_SPECIAL_CLOSE = re.compile(r"\|>")
_NEWLINES = re.compile(r"\n{3,}")
_SPACES = re.compile("[\t\f\r\x20\u00a0\u1680\u180e\u2000-\u200a\u202f\u205f\u3000]{2,}")
_PATTERNS = {
    "email": re.compile(r"[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+"),
    "link_or_image": re.compile(r"!?\[([^\]]*)\]\((https?://[^)]+)\)"),
    "url": re.compile(r"https?://\S+"),
}


Index = np.ndarray[Any, np.dtype[np.int64]]


Spans = tuple[Index, Index]
"""(original start, original end) of each cleaned character."""


def _replaced(start: int, end: int, length: int) -> Spans:
    starts = np.minimum(start + np.arange(length, dtype=np.int64), end - 1)
    ends = starts + 1
    if length:
        ends[-1] = end
    return starts, ends


def _sub(text: str, where: Spans, matches: list[tuple[int, int]], repl: str) -> tuple[str, Spans]:
    """Replaces each match, carrying the original span of every surviving character."""
    parts: list[str] = []
    starts: list[Index] = []
    ends: list[Index] = []
    at = 0
    for a, b in matches:
        new_starts, new_ends = _replaced(int(where[0][a]), int(where[1][b - 1]), len(repl))
        parts += [text[at:a], repl]
        starts += [where[0][at:a], new_starts]
        ends += [where[1][at:a], new_ends]
        at = b
    if not parts:
        return text, where
    parts.append(text[at:])
    starts.append(where[0][at:])
    ends.append(where[1][at:])
    return "".join(parts), (np.concatenate(starts), np.concatenate(ends))


def _remove_urls(text: str, where: Spans) -> tuple[str, Spans]:
    """Deletes bare URLs, leaving Markdown links and images (text and URL) whole."""
    protected = _spans(_PATTERNS["link_or_image"], text)  # sorted, not overlapping
    link_starts = [a for a, _ in protected]
    cuts = []
    for start, end in _spans(_PATTERNS["url"], text):
        k = bisect_right(link_starts, start) - 1
        if k >= 0 and start < protected[k][1]:
            continue  # inside a link
        # A URL that runs into a link stops where the link starts.
        nxt = bisect_right(link_starts, start)
        if nxt < len(link_starts) and link_starts[nxt] < end:
            end = link_starts[nxt]
        cuts.append((start, end))
    if not cuts:
        return text, where
    keep = np.ones(len(text), dtype=bool)
    for a, b in cuts:
        keep[a:b] = False
    kept = "".join(text[a:b] for a, b in _runs(keep))
    return kept, (where[0][keep], where[1][keep])


def _runs(keep: np.ndarray[Any, Any]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each run of True."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], keep.astype(np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def clean(text: str, rules: CleanRules) -> tuple[str, Spans]:
    """The cleaned text and, for each of its characters, its original span in ``text``."""
    index = np.arange(len(text), dtype=np.int64)
    where: Spans = (index, index + 1)
    text, where = _sub(text, where, _spans(_SPECIAL_OPEN, text), "<")
    text, where = _sub(text, where, _spans(_SPECIAL_CLOSE, text), ">")
    text, where = _sub(text, where, _spans(_CONTROL, text), "")
    if rules.remove_extra_spaces:
        text, where = _sub(text, where, _spans(_NEWLINES, text), "\n\n")
        text, where = _sub(text, where, _spans(_SPACES, text), " ")
    if rules.remove_urls_emails:
        text, where = _sub(text, where, _spans(_PATTERNS["email"], text), "")
        text, where = _remove_urls(text, where)
    return text, where


def to_original(where: Spans, original_len: int, char_start: int, char_end: int) -> tuple[int, int]:
    """A cleaned ``[char_start, char_end)`` as original character offsets."""
    if char_start >= len(where[0]):
        return original_len, original_len
    start = int(where[0][char_start])
    end = int(where[1][char_end - 1]) if char_end > char_start else start
    return start, end
