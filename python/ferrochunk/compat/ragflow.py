"""Drop-in for RAGFlow's chunking helpers (``infiniflow/ragflow`` @ b1b8cd6).

Built so far: ``num_tokens_from_string``. The rest of the family arrives with issue #3.
"""

from __future__ import annotations

from typing import Any

from .. import _native
from ..tokenizers import tiktoken_safe

__all__ = ["num_tokens_from_string"]


def num_tokens_from_string(string: Any) -> int:
    """``len(cl100k_base.encode(string))``, or 0 where upstream's tiktoken call raises.

    tiktoken's ``encode`` refuses special-token text (``<|endoftext|>`` and friends), and
    upstream turns every exception into 0, so such a string, ``None`` or any non-string
    counts 0 (spec ``ragflow.md`` §1).
    """
    if not isinstance(string, str):
        return 0
    try:
        return _native.num_tokens_from_string(string)
    except UnicodeEncodeError:
        # Lone surrogates: tiktoken re-encodes through UTF-16 with replacement.
        return _native.num_tokens_from_string(tiktoken_safe(string))
