"""The product's one door to its oracle, for ``backend="reference"``.

The native API never imports ``ferrochunk.reference``. When a caller asks for the
reference backend, this module imports ``ferrochunk.reference._twins`` by name, once, and
that module registers the reference's twin of each step here. So the reference may use
the product's configs, and nothing in the product depends on the oracle that checks it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._rows import Batch
    from .config import CleanRules, Config
    from .tokenizers import Tokenizer


@dataclass(frozen=True, slots=True)
class Oracle:
    """The reference's twins of the pipeline's steps."""

    run: Callable[[str, Config, Tokenizer], Batch]
    """One UTF-8-safe text chunked by a config, tokenized by the reference's own means."""
    clean: Callable[[str, CleanRules], tuple[str, Any]]
    """The cleaned text and each cleaned character's original span."""
    char_bytes: Callable[[str, list[int]], list[int]]
    """Character offsets of a text as UTF-8 byte offsets."""


_registered: list[Oracle] = []


def register(oracle: Oracle) -> None:
    """Called by ``ferrochunk.reference._twins`` when it is imported."""
    _registered[:] = [oracle]


def oracle() -> Oracle:
    """The reference's twins (importing the reference the first time)."""
    if not _registered:
        importlib.import_module("ferrochunk.reference._twins")
    return _registered[0]
