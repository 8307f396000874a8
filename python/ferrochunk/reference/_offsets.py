"""UTF-8 byte offsets and code-point offsets, in plain Python."""

from __future__ import annotations


def is_char_boundary(data: bytes, at: int) -> bool:
    """True when ``at`` does not fall on a UTF-8 continuation byte (0b10xxxxxx)."""
    return at >= len(data) or (data[at] & 0xC0) != 0x80


def byte_to_char(data: bytes, positions: list[int]) -> list[int]:
    """Code-point offsets of byte offsets (any order), in one pass over ``data``."""
    ordered = sorted(set(positions))
    found = {}
    chars = 0
    at = 0
    for p in ordered:
        while at < p:
            if (data[at] & 0xC0) != 0x80:
                chars += 1
            at += 1
        found[p] = chars
    return [found[p] for p in positions]
