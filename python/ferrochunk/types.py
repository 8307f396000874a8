"""The chunk type and the array aliases of the public API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SPAN_COLUMNS", "Chunk", "IdArray", "OffsetArray", "SpanArray"]

IdArray = npt.NDArray[np.uint32]
"""Token ids."""
OffsetArray = npt.NDArray[np.uint32]
"""Byte offsets into the UTF-8 text."""
SpanArray = npt.NDArray[np.int64]
"""``(n, 6)`` rows of ``SPAN_COLUMNS``."""

SPAN_COLUMNS = ("token_start", "token_end", "byte_start", "byte_end", "char_start", "char_end")

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk and where it came from.

    ``text == source[char_start:char_end]`` and the UTF-8 bytes of the source from
    ``byte_start`` to ``byte_end`` are the chunk's. Tokens ``token_start:token_end`` of
    the source's tokenization make up the chunk; ``token_count`` is its size in tokens.
    """

    text: str
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    token_start: int
    token_end: int
    token_count: int
    index: int
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)

    @classmethod
    def from_span(
        cls,
        source: str,
        span: Sequence[int],
        index: int,
        metadata: Mapping[str, Any] | None = None,
    ) -> Chunk:
        """The chunk of ``source`` at a span row (``SPAN_COLUMNS`` order)."""
        ts, te, bs, be, cs, ce = span[:6]
        return cls(
            text=source[cs:ce],
            char_start=cs,
            char_end=ce,
            byte_start=bs,
            byte_end=be,
            token_start=ts,
            token_end=te,
            token_count=te - ts,
            index=index,
            metadata=MappingProxyType(dict(metadata)) if metadata else _EMPTY,
        )
