r"""Drop-in for RAGFlow's chunking helpers (``infiniflow/ragflow`` @ b1b8cd6).

Change ``from rag.nlp import naive_merge`` to ``from ferrochunk.compat.ragflow import
naive_merge``: same names, signatures, defaults and outputs, quirks included (``docs/ragflow.md``).

The hot paths run in Rust: token counting (batched, GIL released), delimiter scanning,
merging, overlap and tag handling for ``naive_merge``, ``naive_merge_with_images``,
``merge_paragraphs`` and ``parser_txt``. The bookkeeping around them that counts nothing
itself (titles, ``naive_merge_docx``, the flow component's payload handling) is the
reference's Python, given the native counter. Inputs the native path cannot take (non-str
texts, lone surrogates, exotic number types) take that same Python route, so they raise
or return exactly what upstream does.

>>> from ferrochunk.compat.ragflow import naive_merge
>>> naive_merge("第一句。第二句！Third line.\nFourth.", 4, "\n。！")
['\n第一句', '\n第二句', '\nThird line.\nFourth.']
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import _native
from .._ragflow_rules import is_under_cap
from ..reference.ragflow import (
    BULLET_PATTERN,
    LazyImage,
    MergeStrategy,
    TokenChunkerParam,
    bullets_category,
    compile_delimiter_pattern,
    concat_img,
    normalize_overlapped_percent,
    not_bullet,
    not_title,
    title_frequency,
    tree_merge,
)
from ..reference.ragflow import delim as _delim
from ..reference.ragflow import merge as _merge
from ..reference.ragflow import overlap as _overlap
from ..reference.ragflow import titles as _titles
from ..reference.ragflow import token_chunker as _token_chunker
from ..reference.ragflow import txt_parser as _txt_parser
from ..tokenizers import tiktoken_safe

__all__ = [
    "BULLET_PATTERN",
    "LazyImage",
    "MergeStrategy",
    "RAGFlowTxtParser",
    "TokenChunker",
    "TokenChunkerParam",
    "bullets_category",
    "compile_delimiter_pattern",
    "concat_img",
    "has_wrapped_delimiter",
    "hierarchical_merge",
    "merge_paragraphs",
    "naive_merge",
    "naive_merge_docx",
    "naive_merge_with_images",
    "normalize_overlapped_percent",
    "normalize_text_newlines",
    "not_bullet",
    "not_title",
    "num_tokens_from_string",
    "parse_delimiter_field",
    "remove_tag",
    "title_frequency",
    "tree_merge",
]

_EXACT_FLOAT = 2**53
_DEFAULT_DELIMITER = "\n。；！？"


def num_tokens_from_string(string: Any) -> int:
    """``len(cl100k_base.encode(string))``, or 0 where upstream's tiktoken call raises.

    tiktoken's ``encode`` refuses special-token text (``<|endoftext|>`` and friends), and
    upstream turns every exception into 0, so such a string, ``None`` or any non-string
    counts 0 (RAGFlow ``b1b8cd6``, ``common/token_utils.py``).
    """
    if not isinstance(string, str):
        return 0
    try:
        return _native.num_tokens_from_string(string)
    except UnicodeEncodeError:
        # Lone surrogates: tiktoken re-encodes through UTF-16 with replacement.
        return _native.num_tokens_from_string(tiktoken_safe(string))


# -- §2 delimiter fields and §4 tags: native for strings, Python's own errors otherwise --
def _on_str(native: str, python: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``_native.<native>`` for a non-empty str it can take, else ``python`` (same result or
    error). The binding is looked up per call, so an instrumented extension sees it."""

    @functools.wraps(python)
    def call(value: Any) -> Any:
        if value and isinstance(value, str):
            try:
                return getattr(_native, native)(value)
            except UnicodeEncodeError:  # lone surrogates have no UTF-8 form
                pass
        return python(value)

    return call


normalize_text_newlines = _on_str("ragflow_normalize_text_newlines", _delim.normalize_text_newlines)
has_wrapped_delimiter = _on_str("ragflow_has_wrapped_delimiter", _delim.has_wrapped_delimiter)
parse_delimiter_field = _on_str("ragflow_parse_delimiter_field", _delim.parse_delimiter_field)
remove_tag = _on_str("ragflow_remove_tag", _overlap.remove_tag)


def _percent(value: Any) -> int | float:
    """The overlap percentage as the native arithmetic takes it (§4.2).

    Ints beyond 2^53 become floats: their cut lies far outside any text, so the slice is
    the same. Other types go through Python's own arithmetic first, raising as upstream.
    """
    if isinstance(value, bool | int) and -_EXACT_FLOAT < value < _EXACT_FLOAT:
        return int(value)
    if not isinstance(value, float):
        _ = 1 * (100 - value) / 100.0
    return float(value)


def _compute_overlap_prefix(prev_text: Any, overlapped_percent: Any) -> tuple[str, int]:
    """§4.2: the last part of ``prev_text`` (tags removed) and its token count."""
    if isinstance(prev_text, str) and remove_tag(prev_text):
        try:
            tail, count = _native.ragflow_compute_overlap_prefix(
                prev_text, _percent(overlapped_percent)
            )
            return tail, count
        except UnicodeEncodeError:
            pass
    return _overlap.compute_overlap_prefix(
        prev_text, overlapped_percent, count=num_tokens_from_string
    )


# -- §5 merge_paragraphs ----------------------------------------------------------------
def _native_sizes(sizes: list[Any]) -> bool:
    return all(type(s) is int and 0 <= s < _EXACT_FLOAT for s in sizes)


def _counts(texts: list[Any]) -> list[int]:
    """Native batch counts (``num_tokens_from_string`` semantics) of many texts."""
    try:
        return [int(n) for n in _native.ragflow_num_tokens_batch(texts)]
    except (TypeError, UnicodeEncodeError):
        return [num_tokens_from_string(t) for t in texts]


def merge_paragraphs(
    paragraphs: Any,
    token_size: Any,
    strategy: Any = MergeStrategy.OVER_CAP,
    size: Any = None,
    overlapped_percent: Any = 0,
) -> list[list[str]]:
    """§5: groups of the original strings; nothing is split, stripped or dropped."""
    sizes = _counts(list(paragraphs)) if size is None else [size(p) for p in paragraphs]
    threshold = token_size * (100 - overlapped_percent) / 100.0
    # The core compares counts with a float cap exactly; an int cap past 2**53 has no
    # exact float, so Python's int comparison runs it.
    exact_cap = isinstance(token_size, float) or (
        isinstance(token_size, int) and abs(token_size) <= 2**53
    )
    if _native_sizes(sizes) and exact_cap:
        groups = _native.ragflow_merge_groups(
            sizes, float(token_size), threshold, is_under_cap(strategy)
        )
    else:
        groups = _merge.merge_groups(sizes, token_size, strategy, overlapped_percent)
    return [[paragraphs[i] for i in g] for g in groups]


# -- §6 naive_merge and §7 naive_merge_with_images --------------------------------------
def _native_merge(
    secs: list[tuple[Any, Any]],
    chunk_token_num: Any,
    delimiter: Any,
    overlapped_percent: Any,
    strategy: Any,
) -> tuple[list[str], list[list[int]]] | None:
    """The Rust merge, or None when the input needs the Python route."""
    if not isinstance(delimiter, str) or not all(
        isinstance(t, str) and isinstance(p, str) for t, p in secs
    ):
        return None
    percent: int | float = 0
    if has_wrapped_delimiter(delimiter):
        # §6.2: size, strategy and overlap are ignored on the hard-split path.
        cap, threshold = 0.0, 0.0
    else:
        threshold = chunk_token_num * (100 - overlapped_percent) / 100.0
        if not isinstance(chunk_token_num, int | float):
            return None
        cap, percent = float(chunk_token_num), _percent(overlapped_percent)
    try:
        return _native.ragflow_naive_merge(
            [t for t, _ in secs],
            [p for _, p in secs],
            delimiter,
            cap,
            threshold,
            is_under_cap(strategy),
            percent,
        )
    except UnicodeEncodeError:
        return None


def naive_merge(
    sections: Any,
    chunk_token_num: Any = 128,
    delimiter: str = _DEFAULT_DELIMITER,
    overlapped_percent: Any = 0,
    strategy: Any = MergeStrategy.OVER_CAP,
) -> list[str]:
    """§6: split sections on the delimiters, then merge the paragraphs by token count."""
    if not sections:
        return []
    merged = _native_merge(
        _merge.section_pairs(sections), chunk_token_num, delimiter, overlapped_percent, strategy
    )
    if merged is None:
        return _merge.naive_merge(
            sections,
            chunk_token_num,
            delimiter,
            overlapped_percent,
            strategy,
            count=num_tokens_from_string,
        )
    return merged[0]


def naive_merge_with_images(
    texts: Any,
    images: Any,
    chunk_token_num: Any = 128,
    delimiter: str = _DEFAULT_DELIMITER,
    overlapped_percent: Any = 0,
    strategy: Any = MergeStrategy.OVER_CAP,
) -> tuple[list[str], list[Any]]:
    """§7: ``naive_merge`` where every section carries an image; a chunk's image stacks
    the images of its paragraphs."""
    if not texts or len(texts) != len(images):
        return [], []
    secs = _merge.image_sections(texts)
    merged = _native_merge(secs, chunk_token_num, delimiter, overlapped_percent, strategy)
    if merged is None:
        return _merge.naive_merge_with_images(
            texts,
            images,
            chunk_token_num,
            delimiter,
            overlapped_percent,
            strategy,
            count=num_tokens_from_string,
        )
    chunks, sources = merged
    return chunks, [_merge.fold_images([images[k] for k in ks]) for ks in sources]


def naive_merge_docx(
    sections: Any,
    chunk_token_num: Any = 128,
    delimiter: str = _DEFAULT_DELIMITER,
    table_context_size: Any = 0,
    image_context_size: Any = 0,
) -> tuple[list[dict[str, Any]], list[int]]:
    """§8: ``(text, image, table)`` sections into text, table and image chunks."""
    return _merge.naive_merge_docx(
        sections,
        chunk_token_num,
        delimiter,
        table_context_size,
        image_context_size,
        count=num_tokens_from_string,
    )


# -- §9 parser_txt ----------------------------------------------------------------------
class RAGFlowTxtParser(_txt_parser.RAGFlowTxtParser):
    """Upstream's plain-text parser with the native ``parser_txt``."""

    @classmethod
    def parser_txt(
        cls,
        txt: Any,
        chunk_token_num: Any = 128,
        delimiter: str = "\n!?;。；！？",
        keep_delimiters: bool = False,
        **_: Any,
    ) -> list[list[str]]:
        """Split on the delimiters (backticks are soft here), merge by tokens, join by ``\\n``."""
        if not isinstance(txt, str):
            raise TypeError("txt type should be str!")
        if isinstance(chunk_token_num, int | float) and isinstance(delimiter, str | None):
            threshold = chunk_token_num * (100 - 0) / 100.0
            try:
                chunks = _native.ragflow_parser_txt(
                    txt, delimiter or "", bool(keep_delimiters), float(chunk_token_num), threshold
                )
                return [[c, ""] for c in chunks]
            except UnicodeEncodeError:
                pass
        return super().parser_txt(
            txt, chunk_token_num, delimiter, keep_delimiters, count=num_tokens_from_string
        )


# -- §10 the flow component and §11 titles ----------------------------------------------
class TokenChunker(_token_chunker.TokenChunker):
    """The flow component over the native counter and ``naive_merge``."""

    _count = staticmethod(num_tokens_from_string)
    _naive_merge = staticmethod(naive_merge)


def hierarchical_merge(bull: int, sections: Any, depth: int) -> list[list[str]]:
    """§11.5, counting natively."""
    return _titles.hierarchical_merge(bull, sections, depth, count=num_tokens_from_string)
