"""The compiled core (``rust/python/``). Each function extracts its arguments, releases the
GIL for the work, and returns numpy arrays or plain values. Errors are ``ferrochunk.errors``
classes. ``encoding`` is ``"cl100k"``, ``"cl100k_base"``, ``"o200k"`` or ``"o200k_base"``.
"""

import numpy as np
import numpy.typing as npt

__all__ = [
    "char_to_byte_offsets",
    "count",
    "count_batch",
    "delimiter_merge",
    "delimiter_merge_pieces",
    "delimiter_pieces",
    "dify_fixed_recursive_split",
    "dify_merge_splits",
    "dify_recursive_split",
    "dify_split_text_with_regex",
    "encode",
    "encode_with_offsets",
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
    "recursive",
    "sentence_windows",
    "token_windows",
    "token_windows_from_starts",
    "token_windows_many",
    "voltagent_counts",
    "voltagent_prefix_counts",
    "voltagent_token_ends",
    "voltagent_token_values",
]

def encode(encoding: str, text: str) -> npt.NDArray[np.uint32]:
    """Token ids, equal to tiktoken's ``encode_ordinary``."""

def encode_with_offsets(
    encoding: str, text: str
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """Token ids and the UTF-8 byte offset where each token starts."""

def count(encoding: str, text: str) -> int:
    """Number of tokens ``encode`` returns."""

def count_batch(
    encoding: str, texts: list[str], threads: int | None = None
) -> npt.NDArray[np.int64]:
    """Token counts of many texts, counted in parallel."""

def char_to_byte_offsets(text: str, char_offsets: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]:
    """UTF-8 byte offsets of non-decreasing code-point offsets (``OffsetsError`` otherwise)."""

def token_windows(
    text: str, encoding: str, max_tokens: int, overlap_tokens: int
) -> npt.NDArray[np.int64]:
    """Tokenizes ``text`` and cuts whole-token windows: ``(n, 6)`` span rows."""

def token_windows_from_starts(
    text: str, byte_starts: npt.NDArray[np.uint32], max_tokens: int, overlap_tokens: int
) -> npt.NDArray[np.int64]:
    """Whole-token windows over a user tokenizer's token start offsets (bytes)."""

def token_windows_many(
    texts: list[str],
    encoding: str,
    max_tokens: int,
    overlap_tokens: int,
    threads: int | None = None,
) -> list[npt.NDArray[np.int64]]:
    """``token_windows`` for many texts, in parallel across documents."""

def num_tokens_from_string(text: str) -> int:
    """RAGFlow's count: cl100k tokens, or 0 if the text holds special-token text."""

# DelimiterMerge: rows of chunks (token_start, token_end, overlap_tokens, oversize,
# overlap_spans), spans
# (chunk, byte_start, byte_end, char_start, char_end) and children (chunk, byte_start,
# byte_end, char_start, char_end, token_start, token_end).
_Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]

def delimiter_merge(
    text: str,
    encoding: str,
    hard: list[str],
    soft: list[str],
    child: list[str],
    token_size: int,
    under_cap: bool,
    overlap_percent: int,
) -> _Rows:
    """Finds, tokenizes (in parallel) and merges the pieces of ``text``."""

def delimiter_pieces(text: str, hard: list[str], soft: list[str]) -> npt.NDArray[np.int64]:
    """``(byte_start, byte_end, segment)`` of every non-empty piece."""

def delimiter_merge_pieces(
    text: str,
    pieces: npt.NDArray[np.int64],
    token_starts: npt.NDArray[np.uint32],
    token_counts: npt.NDArray[np.int64],
    child: list[str],
    token_size: int,
    under_cap: bool,
    overlap_percent: int,
) -> _Rows:
    """Merges pieces a Python tokenizer encoded (token starts relative to each piece)."""

def recursive(
    text: str,
    encoding: str | None,
    byte_starts: npt.NDArray[np.uint32] | None,
    max_tokens: int,
    overlap_tokens: int,
    fixed_separator: str | None,
    separators: list[str],
    keep_end: bool,
) -> npt.NDArray[np.int64]:
    """``Recursive``: ``(n, 7)`` rows (the six span columns, then ``oversize``), tokenizing
    with ``encoding`` or taking a user tokenizer's ``byte_starts``."""

# Dify compat (``ferrochunk.compat.dify``), character lengths; spec sections in brackets.
def dify_merge_splits(
    splits: list[str], lengths: list[int], separator: str, chunk_size: int, chunk_overlap: int
) -> list[str]:
    """[4.2] ``_merge_splits``; a negative overlap raises IndexError as upstream."""

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

def sentence_windows(
    text: str,
    encoding: str | None,
    byte_starts: npt.NDArray[np.uint32] | None,
    safe_max: int,
    overlap_tokens: int,
    break_classes: list[list[str]],
) -> npt.NDArray[np.int64]:
    """``SentenceWindows``: ``(n, 8)`` rows (the six span columns, ``overlap_tokens``,
    ``oversize``), tokenizing with ``encoding`` or taking a user tokenizer's
    ``byte_starts``. A break entry is a character, or a character and a space (the
    character when white space or the end follows); classes are best first."""

# VoltAgent compat (``ferrochunk.compat.voltagent``): js-tiktoken cl100k_base as upstream
# sees it. Texts holding special-token strings raise ValueError, as js-tiktoken does.
def voltagent_token_ends(text: str) -> npt.NDArray[np.uint64]:
    """Each token's end in UTF-16 units: the running sum of decoded token lengths."""

def voltagent_token_values(text: str) -> list[str]:
    """Each token's bytes decoded on their own (WHATWG ``TextDecoder``)."""

def voltagent_counts(texts: list[str]) -> npt.NDArray[np.int64]:
    """``countTokens`` of each text, in parallel."""

def voltagent_prefix_counts(text: str, positions: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """``countTokens(text.slice(0, k))`` for each UTF-16 position, from one pass
    (``OffsetsError`` for a position inside a surrogate pair or past the end)."""
