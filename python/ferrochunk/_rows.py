"""What a backend returns for one text, shared by the native pipeline and the reference.

A batch has named fields (the native one is ``_native.ChunkBatch``; the reference builds
``reference.rows.Rows``): ``table``, the rows in the columns of ``rust/contracts/stream.rs``;
``spans``, the spans of joined chunks; ``texts``, each row's text; ``meta``, each row's
structure for a structure-aware config (``_native.RowMeta`` or ``reference.rows.RowMeta``),
else None; and ``next_start``, where a stream's next block starts (``Stream.push_block``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

Encode = Callable[[str], list[int]]
"""A text -> the UTF-8 byte offset (within it) where each of its tokens starts."""


class Meta(Protocol):
    """A row's structure: Markdown's headings, Code's scopes, and the context from them."""

    @property
    def headings(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def context(self) -> str: ...
    @property
    def scopes(self) -> tuple[tuple[str, str], ...]: ...


class Batch(Protocol):
    """The rows of one text, as either backend returns them."""

    @property
    def table(self) -> Any: ...
    @property
    def spans(self) -> Any: ...
    @property
    def texts(self) -> list[str]: ...
    @property
    def meta(self) -> Sequence[Meta] | None: ...
    @property
    def next_start(self) -> int | None: ...
