"""RAGFlow, written to read like ``specs/ragflow.md``, counting with tiktoken as upstream does."""

from __future__ import annotations

from typing import Any

from ._tiktoken import cl100k

__all__ = ["num_tokens_from_string"]


def num_tokens_from_string(string: Any) -> int:
    """§1: ``len(encoder.encode(string))``; any exception (special tokens, non-str) -> 0."""
    try:
        return len(cl100k().encode(string))
    except Exception:
        return 0
