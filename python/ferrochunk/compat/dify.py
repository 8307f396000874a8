r"""Drop-in for Dify's segmentation (``langgenius/dify`` @ e738086).

Change ``from core.rag.splitter.fixed_text_splitter import FixedRecursiveCharacterTextSplitter``
to ``from ferrochunk.compat.dify import FixedRecursiveCharacterTextSplitter``: same classes,
signatures, defaults and outputs, quirks included (``docs/dify.md``).

With character lengths (upstream's only real mode) the splitting, the regex-equivalent
separator scanning and the merging run in Rust. A token length function is accepted too
(``length_function=Tokenizer.cl100k().count`` or upstream's batch protocol). Anything the
native path cannot take (a token length function, regex separators beyond literals and
``.``, lone surrogates, non-int sizes) runs the reference's Python, so results and errors
match upstream exactly.

>>> from ferrochunk.compat.dify import FixedRecursiveCharacterTextSplitter
>>> splitter = FixedRecursiveCharacterTextSplitter(
...     fixed_separator="\n", chunk_size=20, chunk_overlap=0
... )
>>> splitter.split_text("first line\nsecond line\nthird line that is longer than twenty")
['first line', 'second line', 'third line that is', 'longer than twenty']
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import _native
from ..reference.dify import cleaner as _cleaner
from ..reference.dify import processors as _processors
from ..reference.dify import text_splitter as _ts
from ..tokenizers import Tokenizer, _is_utf8

__all__ = [
    "ChildDocument",
    "CleanProcessor",
    "Document",
    "EnhanceRecursiveCharacterTextSplitter",
    "FixedRecursiveCharacterTextSplitter",
    "ParagraphIndexProcessor",
    "ParentChildIndexProcessor",
    "RecursiveCharacterTextSplitter",
    "TextSplitter",
    "_split_text_with_regex",
    "get_splitter",
    "length_function",
    "paragraph_transform",
    "parent_child_transform",
    "remove_leading_symbols",
]


class CleanProcessor:
    """§7 ``CleanProcessor``: the cleaning runs in Rust, in linear time (Dify's regexes
    backtrack quadratically on long runs); text Rust cannot take (not a ``str``, lone
    surrogates) runs the reference's Python, so it fails or succeeds as upstream does."""

    @classmethod
    def clean(cls, text: Any, process_rule: Any) -> Any:
        if not isinstance(text, str) or not _is_utf8(text):
            return _cleaner.CleanProcessor.clean(text, process_rule)
        steps = []
        rules = process_rule["rules"] if process_rule else {}
        if "pre_processing_rules" in rules:
            for rule in rules["pre_processing_rules"]:
                if rule["id"] == "remove_extra_spaces" and rule["enabled"] is True:
                    steps.append("remove_extra_spaces")
                elif rule["id"] == "remove_urls_emails" and rule["enabled"] is True:
                    steps.append("remove_urls_emails")
        return _native.dify_clean(text, steps)


Document = _ts.Document
ChildDocument = _ts.ChildDocument
remove_leading_symbols = _processors.remove_leading_symbols

_REGEX_META = set("\\^$*+?{}[]|()")
_NATIVE_INT = 2**62
_SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|endofprompt|>",
)


def _simple(separators: Any) -> bool:
    """Separators the native scanner reads exactly as Python's ``re`` does."""
    return all(isinstance(s, str) and not (_REGEX_META & set(s)) for s in separators)


def _mark(fn: Callable[[list[str]], list[int]], mode: str) -> Callable[[list[str]], list[int]]:
    """Tags a batch length function with the native length mode it equals."""
    fn._ferrochunk_length = mode  # type: ignore[attr-defined]
    return fn


def _batch_lengths(length_function: Any) -> Any:
    """A ``Tokenizer.count`` becomes upstream's batch protocol; others pass through."""
    owner = getattr(length_function, "__self__", None)
    if isinstance(owner, Tokenizer) and getattr(length_function, "__name__", "") == "count":

        def counts(texts: list[str]) -> list[int]:
            return [int(n) for n in owner.count_batch(texts)]

        encoding = owner.native_encoding
        return _mark(counts, encoding) if encoding else counts
    return length_function


def _length_mode(length_function: Any) -> str | None:
    """``"chars"``, a native token mode, or None when only Python can measure."""
    if length_function is _ts._characters:
        return "chars"
    mode = getattr(length_function, "_ferrochunk_length", None)
    return mode if isinstance(mode, str) else None


def length_function(name: str) -> Callable[[list[str]], list[int]]:
    """``"cl100k_base_offline"``: exact cl100k counts, natively; like tiktoken's ``encode``,
    special-token text is refused with a ValueError."""
    if name not in ("cl100k_base_offline", "cl100k_base", "cl100k"):
        raise LookupError(f"no offline tokenizer for length {name!r}")
    tok = Tokenizer.cl100k()

    def lengths(texts: list[str]) -> list[int]:
        for t in texts:
            if any(s in t for s in _SPECIAL_TOKENS):
                raise ValueError(
                    f"Encountered text corresponding to a disallowed special token: {t!r}"
                )
        return [int(n) for n in tok.count_batch(texts)]

    return _mark(lengths, "cl100k_base:strict")


def _native_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Constructor kwargs with a ``Tokenizer.count`` turned into the batch protocol."""
    if "length_function" in kwargs:
        kwargs["length_function"] = _batch_lengths(kwargs["length_function"])
    return kwargs


class _Native:
    """What decides whether a splitter can run natively, and in which length mode."""

    _length_function: Any
    _chunk_size: Any
    _chunk_overlap: Any
    _keep_separator: Any
    _separators: Any

    def _native_mode(self, text: Any) -> str | None:
        ok = (
            isinstance(text, str)
            and type(self._chunk_size) is int
            and type(self._chunk_overlap) is int
            and abs(self._chunk_size) < _NATIVE_INT
            and abs(self._chunk_overlap) < _NATIVE_INT
            and _simple(self._separators)
        )
        return _length_mode(self._length_function) if ok else None

    def _native_split(self, split: Callable[..., list[str]], text: str) -> list[str] | None:
        """``split`` run natively, or None when the Python route must take it."""
        mode = self._native_mode(text)
        if mode is None:
            return None
        try:
            return split(
                text,
                list(self._separators),
                self._chunk_size,
                self._chunk_overlap,
                bool(self._keep_separator),
                mode,
            )
        except UnicodeEncodeError:  # lone surrogates have no UTF-8 form
            return None


class TextSplitter(_ts.TextSplitter, _Native):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_native_kwargs(kwargs))

    _separators: Any = ()

    def _merge_splits(self, splits: Any, separator: str, lengths: list[int]) -> list[str]:
        if self._native_mode("") == "chars" and isinstance(separator, str):
            try:
                return _native.dify_merge_splits(
                    list(splits),
                    list(lengths),
                    separator,
                    self._chunk_size,
                    self._chunk_overlap,
                )
            except (UnicodeEncodeError, TypeError, OverflowError):
                pass
        return super()._merge_splits(splits, separator, lengths)


class RecursiveCharacterTextSplitter(_ts.RecursiveCharacterTextSplitter, _Native):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_native_kwargs(kwargs))

    def split_text(self, text: str) -> list[str]:
        chunks = self._native_split(_native.dify_recursive_split, text)
        return super().split_text(text) if chunks is None else chunks


class EnhanceRecursiveCharacterTextSplitter(
    RecursiveCharacterTextSplitter, _ts.EnhanceRecursiveCharacterTextSplitter
):
    pass


class FixedRecursiveCharacterTextSplitter(_ts.FixedRecursiveCharacterTextSplitter, _Native):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_native_kwargs(kwargs))

    _fixed_separator: Any

    def split_text(self, text: str) -> list[str]:
        # One native call: the fixed split, the lengths and the recursive splits.
        if isinstance(self._fixed_separator, str):

            def split(text: str, *rest: Any) -> list[str]:
                return _native.dify_fixed_split(text, self._fixed_separator, *rest)

            chunks = self._native_split(split, text)
            if chunks is not None:
                return chunks
        return super().split_text(text)

    def recursive_split_text(self, text: str) -> list[str]:
        chunks = self._native_split(_native.dify_fixed_recursive_split, text)
        return super().recursive_split_text(text) if chunks is None else chunks


def _split_text_with_regex(text: str, separator: str, keep_separator: bool) -> list[str]:
    if isinstance(text, str) and _simple([separator]):
        try:
            return _native.dify_split_text_with_regex(text, separator, bool(keep_separator))
        except UnicodeEncodeError:
            pass
    return _ts._split_text_with_regex(text, separator, keep_separator)


get_splitter = functools.partial(
    _processors.get_splitter,
    fixed=FixedRecursiveCharacterTextSplitter,
    enhance=EnhanceRecursiveCharacterTextSplitter,
)


class ParagraphIndexProcessor(_processors.ParagraphIndexProcessor):
    """Dify's ``ParagraphIndexProcessor().transform(documents, process_rule=...)`` over the
    native splitters and cleaner."""

    _splitter = staticmethod(get_splitter)
    _cleaner = CleanProcessor


class ParentChildIndexProcessor(_processors.ParentChildIndexProcessor):
    """Dify's ``ParentChildIndexProcessor().transform(documents, process_rule=...)`` over
    the native splitters and cleaner."""

    _splitter = staticmethod(get_splitter)
    _cleaner = CleanProcessor


def paragraph_transform(texts: list[str], process_rule: Any, preview: bool = False) -> list[str]:
    """§8.2 over the native splitters."""
    return _processors.paragraph_transform(
        texts, process_rule, preview, splitter=get_splitter, cleaner=CleanProcessor
    )


def parent_child_transform(
    texts: list[str], process_rule: Any, preview: bool = False
) -> list[dict[str, Any]]:
    """§8.4 over the native splitters."""
    return _processors.parent_child_transform(
        texts, process_rule, preview, splitter=get_splitter, cleaner=CleanProcessor
    )
