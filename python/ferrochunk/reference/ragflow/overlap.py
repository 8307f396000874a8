"""§3 overlap percentages and §4 tags and overlap prefixes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..._ragflow_rules import normalize_overlapped_percent
from .tokens import num_tokens_from_string

__all__ = ["apply_overlap", "compute_overlap_prefix", "normalize_overlapped_percent", "remove_tag"]

_TAG = re.compile(r"@@[\t0-9.-]+?##")


def remove_tag(text: Any) -> str:
    """§4.1: deletes ``@@<tab, digits, '.', '-'>##`` position tags; None -> ''."""
    if text is None:
        return ""
    return _TAG.sub("", text)


def compute_overlap_prefix(
    prev_text: str,
    overlapped_percent: Any,
    *,
    count: Callable[[str], int] = num_tokens_from_string,
) -> tuple[str, int]:
    """§4.2: the last part of ``prev_text`` (tags removed) and its token count.

    The cut is ``int(len * (100 - p) / 100.0)`` with Python slice semantics, so
    ``p > 100`` gives a negative start (a partial tail) until ``p >= 200``.
    """
    visible = remove_tag(prev_text)
    if not visible:
        return "", 0
    start = int(len(visible) * (100 - overlapped_percent) / 100.0)
    tail = visible[start:]
    return tail, count(tail)


def apply_overlap(chunks: list[str], overlapped_percent: Any) -> list[str]:
    """§4.3: each chunk after the first gets the prefix of the previous *output* chunk."""
    if overlapped_percent <= 0:
        return chunks
    out = chunks[:1]
    for chunk in chunks[1:]:
        prefix, _ = compute_overlap_prefix(out[-1], overlapped_percent)
        out.append(prefix + chunk)
    return out
