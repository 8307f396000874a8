"""§1 token counting."""

from __future__ import annotations

from typing import Any

from .._tiktoken import cl100k


def num_tokens_from_string(string: Any) -> int:
    """``len(encoder.encode(string))``; any exception (special tokens, non-str) -> 0."""
    try:
        return len(cl100k().encode(string))
    except Exception:
        return 0
