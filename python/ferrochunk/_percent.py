"""RAGFlow's overlap percentage rule, shared by the native config and the RAGFlow faces."""

from __future__ import annotations

import math
from typing import Any


def normalize_overlapped_percent(value: Any) -> int:
    """A percentage in [0, 90] (RAGFlow ``b1b8cd6``, ``common/float_utils.py``).

    Fractions below 1 are scaled by 100, then truncated. Unparsable values, NaN and ±Inf
    give 0 (the seed contract; upstream raises on NaN/Inf).
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
