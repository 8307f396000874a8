"""``ParentChild``: one tokenization, parents by ``Recursive`` (or the whole text), then
children by ``Recursive`` inside each parent, offsets shifted back into the text."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _native
from .config import ParentChild, Recursive
from .reference import recursive as reference
from .tokenizers import Tokenizer
from .types import Chunk

Rows = np.ndarray[Any, np.dtype[np.int64]]


def _recursive_rows(text: str, starts: list[int], config: Recursive, backend: str) -> Rows:
    args = (config.max_tokens, config.overlap_tokens, config.fixed_separator)
    seps = list(config.separators)
    if backend == "reference":
        rows = reference.recursive_rows(text, starts, *args, seps, config.keep_separator)
        return np.asarray(rows, dtype=np.int64).reshape(len(rows), 7)
    array = np.asarray(starts, dtype=np.uint32)
    return _native.recursive(text, None, array, *args, seps, config.keep_separator == "end")


def rows(text: str, config: ParentChild, tok: Tokenizer, backend: str) -> tuple[Rows, list[Rows]]:
    """Parent rows and, per parent, child rows in document coordinates (7 columns each)."""
    _, starts_array = tok.encode_with_offsets(text)
    starts = [int(s) for s in starts_array]
    data = text.encode("utf-8")
    if isinstance(config.parent, Recursive):
        parents = _recursive_rows(text, starts, config.parent, backend)
    elif text:
        parents = np.asarray([[0, len(starts), 0, len(data), 0, len(text), 0]], dtype=np.int64)
    else:
        parents = np.zeros((0, 7), dtype=np.int64)
    children = []
    for ts, _, bs, be, cs, ce, _ in parents.tolist():
        # The parent's own token starts, relative to it; token 0 starts at its first byte.
        inside = [s - bs for s in starts if bs < s < be]
        local = _recursive_rows(text[cs:ce], [0, *inside] if be > bs else [], config.child, backend)
        shift = np.asarray([ts, ts, bs, bs, cs, cs, 0], dtype=np.int64)
        children.append(local + shift if len(local) else local)
    return parents, children


def build(source: str, parents: Rows, children: list[Rows]) -> list[Chunk]:
    """Parent chunks with their child chunks in ``metadata["children"]``."""
    out = []
    for i, (row, kids) in enumerate(zip(parents.tolist(), children, strict=True)):
        child_chunks = tuple(
            Chunk.from_span(source, kid, j, {"parent": i, "oversize": bool(kid[6])})
            for j, kid in enumerate(kids.tolist())
        )
        metadata = {"oversize": bool(row[6]), "children": child_chunks}
        out.append(Chunk.from_span(source, row, i, metadata))
    return out
