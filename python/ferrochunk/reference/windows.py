"""``TokenWindows`` in plain Python (the twin of ``rust/slice.rs`` and ``rust/chunk.rs``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import OffsetsError
from ._offsets import byte_to_char, is_char_boundary
from .rows import Batch, Rows, row

Span = tuple[int, int, int, int, int, int]
"""token_start, token_end, byte_start, byte_end, char_start, char_end"""


def validate_starts(byte_starts: Sequence[int], text_len: int) -> None:
    """Token starts must be non-decreasing and inside the text."""
    prev = 0
    for i, s in enumerate(byte_starts):
        if s < prev:
            raise OffsetsError(
                f"tokenizer offsets[{i}] = {s}: offsets must be non-decreasing, previous is {prev}"
            )
        if s > text_len:
            raise OffsetsError(
                f"tokenizer offsets[{i}] = {s}: is past the end of the text ({text_len})"
            )
        prev = s


def token_windows(
    text: str, byte_starts: Sequence[int], max_tokens: int, overlap_tokens: int
) -> list[Span]:
    """Windows of whole tokens, cut only at token boundaries that are character boundaries.

    Token ``i`` spans ``byte_starts[i]`` up to the next token's start (the first starts
    at 0, the last runs to the end). A window's end moves back to the nearest cuttable
    boundary, or forward when the window holds none; the next window's start moves
    forward, so the overlap never exceeds ``overlap_tokens``.
    """
    data = text.encode("utf-8")
    n = len(byte_starts)
    validate_starts(byte_starts, len(data))

    def start_of(i: int) -> int:
        if i == 0:
            return 0
        return len(data) if i >= n else byte_starts[i]

    words = getattr(byte_starts, "words", None)

    def cuttable(i: int) -> bool:
        if i == 0 or i >= n:
            return True
        return is_char_boundary(data, start_of(i)) and (words is None or words[i])

    if n == 0:
        # No tokens: a non-empty text is kept whole rather than dropped.
        return [(0, 0, 0, len(data), 0, len(text))] if text else []

    windows: list[tuple[int, int]] = []
    start = 0
    while True:
        limit = min(start + max_tokens, n)
        end = next((e for e in range(limit, start, -1) if cuttable(e)), None)
        if end is None:
            end = next(e for e in range(limit + 1, n + 1) if cuttable(e))
        windows.append((start, end))
        if end >= n:
            break
        wanted = max(end - overlap_tokens, start + 1)
        start = next(s for s in range(wanted, end + 1) if cuttable(s))

    byte_starts_w = [start_of(s) for s, _ in windows]
    byte_ends_w = [start_of(e) for _, e in windows]
    char_starts = byte_to_char(data, byte_starts_w)
    char_ends = byte_to_char(data, byte_ends_w)
    return [
        (s, e, bs, be, cs, ce)
        for (s, e), bs, be, cs, ce in zip(
            windows, byte_starts_w, byte_ends_w, char_starts, char_ends, strict=True
        )
    ]


def batch(text: str, byte_starts: Sequence[int], max_tokens: int, overlap_tokens: int) -> Batch:
    """The windows as a batch (see ``rows.py``)."""
    spans = token_windows(text, byte_starts, max_tokens, overlap_tokens)
    table = [
        row(i, -1, (ts, te), (bs, be, cs, ce), oversize=int(te - ts > max_tokens))
        for i, (ts, te, bs, be, cs, ce) in enumerate(spans)
    ]
    return Rows(table, [], [text[r[6] : r[7]] for r in table], None)
