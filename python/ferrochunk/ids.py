"""Content ids and record ids: what an incremental index keys its vectors by.

A **chunk id** names exactly the text that is embedded: ``context + text`` (a
``DelimiterMerge`` chunk's text is already the joined text). Scheme ``xxh3-128/v1``:
XXH3-128 (seed 0) of that text's UTF-8, as the 32 lowercase hex digits ``xxhsum -H2``
prints, so any language can recompute it (``docs/incremental.md``). The same text has the
same id on every run, process, machine and release; an edit elsewhere in a document
leaves it alone.

A **record id** names one chunk in one document: the same hash over the document id's
UTF-8, a NUL, the chunk id, a NUL, and the occurrence of that chunk id in the document (0
for the first chunk with that text, 1 for the next, ...) in decimal. It is unique in a
corpus, and a chunk that survives an edit keeps it.

The Rust core computes the ids (``rust/contracts/chunk_id.rs``); the reference backend's
come from a pure-Python twin (``_support/xxh3.py``), and the tests hold the two equal.

>>> chunk_id("abc")
'06b05ab6733a618578af5f94892f3950'
>>> chunk_id("Body.", context="# Title\\n\\n") == chunk_id("# Title\\n\\nBody.")
True
>>> record_id("guide.md", chunk_id("abc"), 0)
'32910f714a34601fbc2816925a488b77'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from . import _native
from ._support.validate import describe
from ._support.xxh3 import utf8
from .errors import FerrochunkError, InputTypeError

__all__ = ["SCHEME", "chunk_id", "record_id", "record_ids", "text_record_ids", "utf8"]

SCHEME = "xxh3-128/v1"
"""The version of both schemes; a new scheme gets a new name."""


def chunk_id(text: str, context: str = "") -> str:
    """The id of the chunk whose embedded text is ``context + text``."""
    if not isinstance(text, str) or not isinstance(context, str):
        bad = text if not isinstance(text, str) else context
        raise InputTypeError(f"chunk_id takes str text and context, got {describe(bad)}")
    return _native.hash_ids([utf8(context + text)])[0]


def _is_hex_id(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value)
    )


def record_key(doc_id: str, chunk_id: str, occurrence: int) -> bytes:
    """The bytes a record id hashes (checked)."""
    if not isinstance(doc_id, str):
        raise InputTypeError(f"doc_id must be a str, got {describe(doc_id)}")
    if not _is_hex_id(chunk_id):
        raise FerrochunkError(f"chunk_id must be 32 lowercase hex digits, got {chunk_id!r}")
    if isinstance(occurrence, bool) or not isinstance(occurrence, int):
        raise InputTypeError(f"occurrence must be an int, got {describe(occurrence)}")
    if occurrence < 0:
        raise FerrochunkError(f"occurrence must be >= 0, got {occurrence}")
    return b"%s\x00%s\x00%d" % (utf8(doc_id), chunk_id.encode("ascii"), occurrence)


def record_id(doc_id: str, chunk_id: str, occurrence: int) -> str:
    """The id of the ``occurrence``-th chunk (from 0) with ``chunk_id`` in ``doc_id``."""
    return _native.hash_ids([record_key(doc_id, chunk_id, occurrence)])[0]


class _HasId(Protocol):
    @property
    def chunk_id(self) -> str: ...


def record_ids(doc_id: str, chunks: Iterable[_HasId]) -> list[str]:
    """The record id of each of a document's chunks, in order.

    >>> import ferrochunk as fc
    >>> chunks = fc.chunk("same. same. same.", fc.TokenWindows(2))
    >>> [c.text for c in chunks], len(set(record_ids("doc", chunks)))
    (['same.', ' same.', ' same.'], 3)
    """
    return _numbered(doc_id, [c.chunk_id for c in chunks])


def text_record_ids(doc_id: str, texts: Iterable[str]) -> list[str]:
    """The record id of each of a document's embedded texts, in order: what an
    integration keys a framework's nodes by when the framework embeds more than
    ``context + text`` (LlamaIndex's metadata) or less (Haystack's ``content``).

    >>> text_record_ids("guide.md", ["abc"]) == [record_id("guide.md", chunk_id("abc"), 0)]
    True
    """
    texts = list(texts)
    if not all(isinstance(t, str) for t in texts):
        bad = next(t for t in texts if not isinstance(t, str))
        raise InputTypeError(f"text_record_ids takes str texts, got {describe(bad)}")
    return _numbered(doc_id, _native.hash_ids([utf8(t) for t in texts]))


def _numbered(doc_id: str, chunk_ids: list[str]) -> list[str]:
    """Record ids of chunk ids in document order, each numbered by its occurrence."""
    seen: dict[str, int] = {}
    keys = []
    for cid in chunk_ids:
        n = seen.get(cid, 0)
        seen[cid] = n + 1
        keys.append(record_key(doc_id, cid, n))
    return _native.hash_ids(keys)
