"""What a backend returns for one text, shared by the native pipeline and the reference.

A batch is ``(table, spans, texts, meta)``: the row table (the columns of
``rust/contracts/stream.rs``), the spans of joined chunks, each row's text, and the
per-row metadata of a structure-aware config (or None). ``reference/rows.py`` builds
rows in plain Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Encode = Callable[[str], list[int]]
"""A text -> the UTF-8 byte offset (within it) where each of its tokens starts."""

Batch = tuple[Any, Any, list[str], Any]
"""``(table, spans, texts, meta)``."""
