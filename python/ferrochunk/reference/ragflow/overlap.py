"""§3 overlap percentages and §4 tags and overlap prefixes."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from .tokens import num_tokens_from_string

_TAG = re.compile(r"@@[\t0-9.-]+?##")


def normalize_overlapped_percent(value: Any) -> int:
    """§3: a percentage in [0, 90]; fractions below 1 are scaled by 100, then truncated.

    Unparsable values, NaN and ±Inf give 0 (the seed contract; upstream raises on NaN/Inf).
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        return 0
    if 0 < x < 1:
        x *= 100
    if math.isnan(x) or math.isinf(x):
        return 0
    return max(0, min(int(x), 90))


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
