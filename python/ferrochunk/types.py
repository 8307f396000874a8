"""The chunk type, its read-only metadata, and the array aliases of the public API."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from ._support.xxh3 import utf8, xxh3_128_hex
from .errors import FerrochunkError

__all__ = [
    "SPAN_COLUMNS",
    "Chunk",
    "IdArray",
    "Metadata",
    "OffsetArray",
    "SpanArray",
    "Spans",
    "TokenAwareChunk",
    "VoltAgentChunk",
    "VoltAgentSegment",
    "VoltAgentToken",
]

IdArray = npt.NDArray[np.uint32]
"""Token ids."""
OffsetArray = npt.NDArray[np.uint32]
"""Byte offsets into the UTF-8 text."""
SpanArray = npt.NDArray[np.int64]
"""``(n, 6)`` rows of ``SPAN_COLUMNS``."""

SPAN_COLUMNS = ("token_start", "token_end", "byte_start", "byte_end", "char_start", "char_end")


class Metadata(Mapping[str, Any]):
    """A read-only mapping that pickles, copies and compares like a dict.

    >>> m = Metadata({"oversize": False})
    >>> m["oversize"], dict(m) == {"oversize": False}
    (False, True)
    """

    __slots__ = ("_data",)
    _data: dict[str, Any]

    def __init__(self, data: Mapping[str, Any] | Sequence[tuple[str, Any]] = ()) -> None:
        object.__setattr__(self, "_data", dict(data))

    @classmethod
    def _of(cls, data: dict[str, Any]) -> Metadata:
        """Wraps a dict nobody else holds, without copying it (the pipeline's builder)."""
        made = object.__new__(cls)
        object.__setattr__(made, "_data", data)
        return made

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Metadata({self._data!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._data.items()))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Metadata is read-only")

    def __reduce__(self) -> tuple[type[Metadata], tuple[dict[str, Any]]]:
        return (Metadata, (self._data,))


EMPTY = Metadata()


class Spans(Sequence[tuple[int, int]]):
    """The ``(char_start, char_end)`` source spans of a ``DelimiterMerge`` chunk.

    A read-only sequence of pairs that compares, hashes, prints and pickles like the tuple
    of tuples it stands for, but holds them as one small integer array: a tuple per span
    cost about 120 bytes, three bytes per input byte on text of short lines.

    >>> spans = Spans([(0, 8), (9, 17)])
    >>> spans, spans[1], list(spans) == [(0, 8), (9, 17)], spans == ((0, 8), (9, 17))
    (((0, 8), (9, 17)), (9, 17), True, True)
    """

    __slots__ = ("_pairs",)
    _pairs: npt.NDArray[np.int64]

    def __init__(self, pairs: Sequence[Sequence[int]] = ()) -> None:
        array = np.array(pairs, dtype=np.int64)
        if array.size == 0:
            array = array.reshape(0, 2)
        elif array.ndim != 2 or array.shape[1] != 2:
            raise ValueError(
                f"Spans takes (char_start, char_end) pairs, got an array of shape {array.shape}"
            )
        array.flags.writeable = False
        object.__setattr__(self, "_pairs", array)

    @classmethod
    def _of(cls, pairs: npt.NDArray[np.int64]) -> Spans:
        """Wraps ``(n, 2)`` int64 pairs (a view is fine) without copying them."""
        made = object.__new__(cls)
        view = pairs.view()
        view.flags.writeable = False
        object.__setattr__(made, "_pairs", view)
        return made

    def __len__(self) -> int:
        return len(self._pairs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Spans._of(self._pairs[index])
        a, b = self._pairs[index].tolist()
        return (a, b)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter([(a, b) for a, b in self._pairs.tolist()])

    def _tuple(self) -> tuple[tuple[int, int], ...]:
        return tuple((a, b) for a, b in self._pairs.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Spans):
            return np.array_equal(self._pairs, other._pairs)
        if isinstance(other, tuple):
            return self._tuple() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._tuple())

    def __repr__(self) -> str:
        return repr(self._tuple())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Spans is read-only")

    def __reduce__(self) -> tuple[type[Spans], tuple[tuple[tuple[int, int], ...]]]:
        return (Spans, (self._tuple(),))


def _plain(value: Any) -> Any:
    """Metadata values as plain data: chunks as dicts, tuples as lists."""
    if isinstance(value, Chunk):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list | Spans):
        return [_plain(v) for v in value]
    return value


def _restore(key: str, value: Any) -> Any:
    """The inverse of :func:`_plain` for the keys ferrochunk writes."""
    if key == "children":
        return tuple(Chunk.from_dict(c) for c in value)
    if key == "spans":
        return Spans(value)
    if key == "items":
        return tuple(value)
    if key == "item_metadata":
        return tuple(Metadata(m) for m in value)
    return value


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk and where it came from.

    ``text == source[char_start:char_end]`` and the UTF-8 bytes of the source from
    ``byte_start`` to ``byte_end`` are the chunk's (a ``DelimiterMerge`` chunk joins the
    spans in ``metadata["spans"]``). Tokens ``token_start:token_end`` of the source's
    tokenization make up the chunk; ``token_count`` is its size in tokens. ``chunk_id``
    names exactly what is embedded, ``metadata["context"] + text`` (:mod:`ferrochunk.ids`);
    left out (or ``""``), it is computed, so ``dataclasses.replace`` with a new text takes
    ``chunk_id=""`` too. Chunks pickle, copy, and round-trip through :meth:`to_dict` /
    :meth:`from_dict`.

    >>> import pickle, ferrochunk as fc
    >>> c = fc.chunk("Hello world.", fc.TokenWindows(8))[0]
    >>> pickle.loads(pickle.dumps(c)) == c, Chunk.from_dict(c.to_dict()) == c
    (True, True)
    >>> c.chunk_id
    '1c95225ac4b1353e73b47bf1a3f7cb52'
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
    metadata: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    chunk_id: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.metadata, Metadata):
            object.__setattr__(self, "metadata", Metadata(self.metadata))
        if not self.chunk_id:
            object.__setattr__(self, "chunk_id", self._own_id())

    def _own_id(self) -> str:
        # The pure-Python twin of the core's hash: chunks need no extension (the reference).
        context = self.metadata.get("context", "")
        return xxh3_128_hex(utf8((context if isinstance(context, str) else "") + self.text))

    def __getstate__(self) -> list[Any]:
        return [getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: Sequence[Any]) -> None:
        # A chunk pickled before chunk ids existed has no last field: compute it.
        for f, value in zip(fields(self), state, strict=False):
            object.__setattr__(self, f.name, value)
        if len(state) < len(fields(self)) or not self.chunk_id:
            object.__setattr__(self, "chunk_id", self._own_id())

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready): metadata as a dict, child chunks as dicts."""
        return {
            "text": self.text,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "byte_start": self.byte_start,
            "byte_end": self.byte_end,
            "token_start": self.token_start,
            "token_end": self.token_end,
            "token_count": self.token_count,
            "index": self.index,
            "metadata": _plain(self.metadata),
            "chunk_id": self.chunk_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Chunk:
        """The chunk :meth:`to_dict` describes; a dict without ``chunk_id`` (written before
        ids existed) gets its id computed, and one with an id that is not its text's raises."""
        given = {k: v for k, v in data.items() if k not in ("metadata", "chunk_id")}
        metadata = {k: _restore(k, v) for k, v in data.get("metadata", {}).items()}
        made = cls(**given, metadata=Metadata(metadata))
        stated = data.get("chunk_id")
        if stated is not None and stated != made.chunk_id:
            raise FerrochunkError(
                f"chunk_id {stated!r} is not the id of the chunk's text ({made.chunk_id!r})"
            )
        return made


# -- compat results: upstream's dict shapes, typed ------------------------------------


# VoltAgent's numbers are JavaScript numbers: ``int`` when integral, as upstream prints them.


class VoltAgentToken(TypedDict):
    """A token of ``compat.voltagent.tokenize``: its text and UTF-16 offsets."""

    value: str
    start: float
    end: float


class VoltAgentSegment(TypedDict):
    """A sentence or paragraph of ``split_into_sentences`` / ``split_into_paragraphs``."""

    text: str
    start: float
    end: float
    tokens: float


class _VoltAgentChunkKeys(TypedDict):
    id: str
    content: str
    start: float
    end: float
    label: str


class VoltAgentChunk(_VoltAgentChunkKeys, total=False):
    """A chunk of VoltAgent's chunkers (UTF-16 offsets). A ``RecursiveChunker`` overlap
    chunk has no ``metadata`` and no ``tokens``, as upstream."""

    metadata: dict[str, Any]
    tokens: float


class _TokenAwareChunkKeys(TypedDict):
    content: str
    start: int
    end: int
    tokens: int


class TokenAwareChunk(_TokenAwareChunkKeys, total=False):
    """A chunk of ``TokenAwareChunker`` (code-point offsets); ``chunk_document`` adds
    ``node``, the index of the node it came from (``None`` for the summary)."""

    node: int | None
