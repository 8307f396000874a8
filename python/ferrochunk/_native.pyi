"""The compiled core (``rust/python/``). Each function extracts its arguments, releases the
GIL for the work, and returns numpy arrays or plain values. Errors are ``ferrochunk.errors``
classes. ``encoding`` is ``"cl100k"``, ``"cl100k_base"``, ``"o200k"`` or ``"o200k_base"``.
"""

from collections.abc import Callable, Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt

ROW_COLUMNS: tuple[str, ...]
"""The columns of a batch's row table, in order (``rust/contracts/stream.rs``)."""
SPAN_ROW_COLUMNS: tuple[str, ...]
"""The columns of a batch's spans table, in order."""

# A native config object (``ferrochunk.config``), read by attribute name (see
# ``rust/python/spec.rs``).
_Spec = Any

@final
class RowMeta:
    """A row's structure (``Markdown``, ``Code``)."""

    @property
    def headings(self) -> tuple[tuple[int, str], ...]:
        """``(level, title)`` pairs, outermost first (``Markdown``)."""
    @property
    def truncated(self) -> bool:
        """A heading (``Markdown``) or a header (``Code``) was cut to 1 000 characters."""
    @property
    def context(self) -> str:
        """The text set in front of the chunk's own, counted in the cap."""
    @property
    def scopes(self) -> tuple[tuple[str, str], ...]:
        """``(kind, name)`` pairs, outermost first (``Code``)."""

@final
class ChunkBatch:
    """The rows of one text (or of one stream step)."""

    @property
    def table(self) -> npt.NDArray[np.int64]:
        """One row per chunk, in the columns of ``ROW_COLUMNS``."""
    @property
    def spans(self) -> npt.NDArray[np.int64]:
        """The spans of joined chunks, in the columns of ``SPAN_ROW_COLUMNS``."""
    @property
    def texts(self) -> list[str]:
        """Each row's text."""
    @property
    def meta(self) -> list[RowMeta] | None:
        """Each row's ``RowMeta`` for ``Markdown`` and ``Code``, else None."""
    @property
    def ids(self) -> list[str]:
        """Each row's chunk id (``ferrochunk.ids``), as 32 hex digits."""
    @property
    def next_start(self) -> int | None:
        """``Stream.push_block`` only: the byte where the next block starts (None after the
        last block, and for every other call)."""

@final
class ArrowPart:
    """One side of a ``chunk_arrow`` result."""

    @property
    def docs(self) -> npt.NDArray[np.int64]:
        """Each row's document, counted from the first row given."""
    @property
    def table(self) -> npt.NDArray[np.int64]:
        """One row per chunk, in the columns of ``ROW_COLUMNS``."""
    @property
    def text(self) -> npt.NDArray[np.uint8]:
        """The rows' texts as one UTF-8 buffer."""
    @property
    def ids(self) -> npt.NDArray[np.uint8]:
        """The rows' chunk ids, 32 hex digits each, one after another."""
    @property
    def offsets(self) -> npt.NDArray[np.int64]:
        """Where each row's text starts in ``text``, and where the last ends."""

@final
class ArrowChunks:
    """What ``chunk_arrow`` returns."""

    @property
    def top(self) -> ArrowPart:
        """The top-level chunks."""
    @property
    def spans(self) -> npt.NDArray[np.int64]:
        """The spans of joined chunks (a top row owns ``spans[span_start:span_end]``)."""
    @property
    def children(self) -> ArrowPart:
        """The child chunks (``ParentChild``), after their parent."""
    @property
    def meta(self) -> list[RowMeta] | None:
        """The top-level chunks' ``RowMeta`` for ``Markdown`` and ``Code``, else None."""

def chunk(
    text: str,
    spec: _Spec,
    encoding: str | HfTokenizer | None = None,
    starts: npt.NDArray[np.uint32] | None = None,
    counts: npt.NDArray[np.uint32] | None = None,
    words: npt.NDArray[np.bool_] | None = None,
    count: Callable[[str], int] | None = None,
) -> ChunkBatch:
    """One whole text through the pipeline, tokenized with ``encoding``, or with a Python
    tokenizer's byte ``starts`` and its ``count`` of the strings a cutter builds (Markdown's
    context), called back with the GIL (per piece, with ``counts``, for a delimiter spec; with
    ``words``, whether each token begins a word, where alone chunks may start)."""

@final
class HfTokenizer:
    """A ``tokenizer.json`` run natively (frozen; calls release the GIL)."""

    def __new__(cls, json: str, unigram_scores: list[float] | None = None) -> HfTokenizer: ...
    @property
    def special_tokens(self) -> int: ...
    def encode(self, text: str) -> npt.NDArray[np.uint32]: ...
    def encode_with_offsets(
        self, text: str
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
    def chunk_tokens(self, text: str) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.bool_]]: ...
    def count(self, text: str) -> int: ...
    def count_batch(
        self, texts: list[str], threads: int | None = None
    ) -> npt.NDArray[np.int64]: ...

def chunk_many(
    texts: list[str], spec: _Spec, encoding: str | HfTokenizer, threads: int | None = None
) -> list[ChunkBatch]:
    """``chunk`` for many texts, in parallel (``threads`` clamped to the cores)."""

@final
class ChunkManyIter:
    """Batches of ``chunk_many_iter`` in text order, cut by helpers and by the caller."""

    def __iter__(self) -> ChunkManyIter: ...
    def __next__(self) -> ChunkBatch: ...

def chunk_many_iter(
    texts: list[str], spec: _Spec, encoding: str | HfTokenizer, threads: int | None = None
) -> ChunkManyIter:
    """``chunk_many`` whose batches arrive while helpers cut later texts."""

def delimiter_pieces(text: str, spec: _Spec) -> npt.NDArray[np.int64]:
    """``(byte_start, byte_end)`` of the pieces a delimiter spec tokenizes one by one."""

def _debug_panic() -> None:
    """Test-only: panics inside the core, which must arrive as ``InternalError``."""

def grammar_abi(capsule: object) -> int:
    """The ABI version of a grammar capsule; ``ConfigError`` for anything else, or for an
    ABI the runtime does not read."""

def chunk_arrow(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int32] | npt.NDArray[np.int64],
    validity: npt.NDArray[np.uint8] | None,
    offset: int,
    length: int,
    spec: _Spec,
    encoding: str | HfTokenizer,
    threads: int | None = None,
) -> ArrowChunks:
    """Rows ``offset..offset + length`` of an Arrow string array, read in place."""

@final
class Stream:
    """Text pieces through the pipeline; each call returns the chunks that became final."""

    def __new__(cls, spec: _Spec, encoding: str | HfTokenizer) -> Stream: ...
    def push(self, piece: str) -> ChunkBatch: ...
    def push_bytes(self, data: bytes) -> ChunkBatch:
        """UTF-8 bytes, split anywhere (``InputDecodeError`` with the offset if invalid)."""
    def push_block(self, text: str, start: int, size: int) -> ChunkBatch:
        """``text``'s UTF-8 from byte ``start`` (a character boundary) to the first
        boundary at or after ``start + size``, read in place from the UTF-8 CPython keeps
        on the ``str``; the batch's ``next_start`` is where the next block starts (``None``
        after the last)."""
    def finish(self) -> ChunkBatch: ...
    @property
    def bytes_seen(self) -> int: ...

def clean_rules(
    text: str, remove_extra_spaces: bool, remove_urls_emails: bool
) -> tuple[str, npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """``CleanRules`` on ``text``: the cleaned text and, for each of its characters, the
    original ``[start, end)`` in characters (``rust/text/clean.rs``)."""

def html_render(
    text: str, skip_tags: list[str], skip_classes: list[str], skip_ids: list[str]
) -> tuple[str, npt.NDArray[np.int64], npt.NDArray[np.int64], str | None]:
    """An HTML page rendered as light Markdown (``rust/structure/html``): the text, each
    character's source ``[start, end)`` in characters (``-1``: added by the rendering, or
    white space), and the page's title."""

__all__ = [
    "ROW_COLUMNS",
    "SPAN_ROW_COLUMNS",
    "ArrowChunks",
    "ArrowPart",
    "ChunkBatch",
    "ChunkManyIter",
    "HfTokenizer",
    "RowMeta",
    "Stream",
    "_debug_panic",
    "char_to_byte_offsets",
    "chunk",
    "chunk_arrow",
    "chunk_many",
    "chunk_many_iter",
    "clean_rules",
    "count",
    "count_batch",
    "delimiter_pieces",
    "dify_clean",
    "dify_fixed_recursive_split",
    "dify_fixed_split",
    "dify_merge_splits",
    "dify_recursive_split",
    "dify_split_text_with_regex",
    "encode",
    "encode_list",
    "encode_with_offsets",
    "grammar_abi",
    "hash_ids",
    "html_render",
    "num_tokens_from_string",
    "ragflow_compute_overlap_prefix",
    "ragflow_has_wrapped_delimiter",
    "ragflow_merge_groups",
    "ragflow_naive_merge",
    "ragflow_normalize_text_newlines",
    "ragflow_num_tokens_batch",
    "ragflow_parse_delimiter_field",
    "ragflow_parser_txt",
    "ragflow_remove_tag",
    "voltagent_chunks",
    "voltagent_counts",
    "voltagent_prefix_counts",
    "voltagent_token_ends",
    "voltagent_token_values",
]

def encode(encoding: str, text: str) -> npt.NDArray[np.uint32]:
    """Token ids, equal to tiktoken's ``encode_ordinary``."""

def encode_list(encoding: str, text: str) -> list[int]:
    """The ids of ``encode`` as a list; each id's int is made once per process and shared."""

def encode_with_offsets(
    encoding: str, text: str
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """Token ids and the UTF-8 byte offset where each token starts."""

def count(encoding: str, text: str) -> int:
    """Number of tokens ``encode`` returns."""

def hash_ids(data: Sequence[bytes]) -> list[str]:
    """The id scheme's hash (XXH3-128, as 32 hex digits) of each bytes object."""

def count_batch(
    encoding: str, texts: list[str], threads: int | None = None
) -> npt.NDArray[np.int64]:
    """Token counts of many texts, counted in parallel."""

def char_to_byte_offsets(text: str, char_offsets: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]:
    """UTF-8 byte offsets of non-decreasing code-point offsets (``OffsetsError`` otherwise)."""

def num_tokens_from_string(text: str) -> int:
    """RAGFlow's count: cl100k tokens, or 0 if the text holds special-token text."""

# Dify compat (``ferrochunk.compat.dify``), character lengths; spec sections in brackets.
def dify_merge_splits(
    splits: list[str], lengths: list[int], separator: str, chunk_size: int, chunk_overlap: int
) -> list[str]:
    """[4.2] ``_merge_splits``; a negative overlap raises IndexError as upstream."""

def dify_clean(text: str, steps: list[str]) -> str:
    """[7] ``CleanProcessor.clean``: the always-on part, then each step
    (``"remove_extra_spaces"``, ``"remove_urls_emails"``) in order, in linear time."""

def dify_split_text_with_regex(text: str, separator: str, keep_separator: bool) -> list[str]:
    """[4.4] for simple separators (literals and ``.``)."""

def dify_recursive_split(
    text: str,
    separators: list[str],
    chunk_size: int,
    chunk_overlap: int,
    keep_separator: bool,
    length: str,
) -> list[str]:
    """[4.5] ``RecursiveCharacterTextSplitter.split_text``. ``length``: ``"chars"``, an
    encoding name (ordinary counts) or ``"<name>:strict"`` (special-token text raises)."""

def dify_fixed_recursive_split(
    text: str,
    separators: list[str],
    chunk_size: int,
    chunk_overlap: int,
    keep_separator: bool,
    length: str,
) -> list[str]:
    """[6.3] ``FixedRecursiveCharacterTextSplitter.recursive_split_text``."""

def dify_fixed_split(
    text: str,
    fixed_separator: str,
    separators: list[str],
    chunk_size: int,
    chunk_overlap: int,
    keep_separator: bool,
    length: str,
) -> list[str]:
    """[6.2] ``FixedRecursiveCharacterTextSplitter.split_text``, in one call."""

# RAGFlow compat (``ferrochunk.compat.ragflow``); spec sections in brackets.
def ragflow_num_tokens_batch(texts: list[str]) -> npt.NDArray[np.uint64]:
    """``num_tokens_from_string`` of many texts, counted in parallel."""

def ragflow_parse_delimiter_field(field: str) -> list[str]:
    """[2.3] Wrapped tokens whole, other characters alone; deduplicated, longest first."""

def ragflow_has_wrapped_delimiter(field: str) -> bool:
    """[2.2] The field holds a backtick-wrapped token."""

def ragflow_normalize_text_newlines(text: str) -> str:
    """[2.1] CRLF, then lone CR, become LF."""

def ragflow_remove_tag(text: str) -> str:
    """[4.1] Deletes ``@@...##`` position tags."""

def ragflow_compute_overlap_prefix(prev_text: str, percent: int | float) -> tuple[str, int]:
    """[4.2] The tail of ``prev_text`` (tags removed) and its count; NaN/Inf raise as upstream."""

def ragflow_merge_groups(
    sizes: list[int], cap: float, threshold: float, under_cap: bool
) -> list[list[int]]:
    """[5] Index groups of pieces with these token counts."""

def ragflow_naive_merge(
    texts: list[str],
    positions: list[str],
    delimiter: str,
    cap: float,
    threshold: float,
    under_cap: bool,
    percent: int | float,
) -> tuple[list[str], list[list[int]]]:
    """[6] The chunks and, for each, the section index of each of its paragraphs."""

def ragflow_parser_txt(
    txt: str, delimiter: str, keep_delimiters: bool, cap: float, threshold: float
) -> list[str]:
    """[9] The merged chunks of ``parser_txt`` (without the ``""`` second element)."""

# VoltAgent compat (``ferrochunk.compat.voltagent``): js-tiktoken cl100k_base as upstream
# sees it. Texts holding special-token strings raise ValueError, as js-tiktoken does.
def voltagent_token_ends(text: str) -> npt.NDArray[np.uint64]:
    """Each token's end in UTF-16 units: the running sum of decoded token lengths."""

def voltagent_token_values(text: str) -> list[str]:
    """Each token's bytes decoded on their own (WHATWG ``TextDecoder``)."""

def voltagent_counts(texts: list[str]) -> npt.NDArray[np.int64]:
    """``countTokens`` of each text, in parallel."""

def voltagent_chunks(
    chunker: str, text: str | bytes, max_tokens: int, overlap: int
) -> npt.NDArray[np.int64] | None:
    """VoltAgent's ``"token"``, ``"sentence"``, ``"recursive-tokens"`` or
    ``"recursive-chars"`` chunker with whole-number options: one row of 16 numbers per
    chunk (``rust/compat/voltagent/chunkers.rs``), or ``None`` when the text holds a
    special token. ``text`` is a ``str``, or the UTF-16-LE bytes of a JS-form string."""

def voltagent_prefix_counts(text: str, positions: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """``countTokens(text.slice(0, k))`` for each UTF-16 position, from one pass
    (``OffsetsError`` for a position inside a surrogate pair or past the end)."""
