"""The reference twin of each pipeline step: ``ORACLE``, which ``ferrochunk._oracle`` takes.

Which reference module runs which config is decided here, on the reference's side of the
boundary; the product's configs know only their native spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..config import (
    CleanRules,
    Code,
    Config,
    DelimiterMerge,
    Markdown,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from . import (
    _tiktoken,
    clean,
    code,
    delimiter_merge,
    html_render,
    markdown,
    parent_child,
    recursive,
    sentence_windows,
    tokens,
    windows,
)
from .rows import Batch, Encode


def _windows(text: str, config: TokenWindows, encode: Encode) -> Batch:
    return windows.batch(text, encode(text), config.max_tokens, config.overlap_tokens)


def _delimiter_merge(text: str, config: DelimiterMerge, encode: Encode) -> Batch:
    return delimiter_merge.batch(text, config, encode)


def _recursive(text: str, config: Recursive, encode: Encode) -> Batch:
    return recursive.batch(text, encode(text), config)


def _parent_child(text: str, config: ParentChild, encode: Encode) -> Batch:
    return parent_child.batch(text, encode(text), config)


def _sentence_windows(text: str, config: SentenceWindows, encode: Encode) -> Batch:
    return sentence_windows.batch(text, encode(text), config)


def _markdown(text: str, config: Markdown, encode: Encode) -> Batch:
    return markdown.batch(text, encode(text), config, lambda s: len(encode(s)))


def _code(text: str, config: Code, encode: Encode) -> Batch:
    return code.batch(text, encode(text), config, lambda s: len(encode(s)))


class Tokenizer(Protocol):
    """What the reference reads of a ``ferrochunk.Tokenizer`` (it never imports that module,
    which calls the extension)."""

    @property
    def native_encoding(self) -> str | None: ...

    _backend: Any

    def _raw(self, text: str) -> tuple[Any, ...]: ...


TWINS: dict[type, Callable[[str, Any, Encode], Batch]] = {
    TokenWindows: _windows,
    DelimiterMerge: _delimiter_merge,
    Recursive: _recursive,
    ParentChild: _parent_child,
    SentenceWindows: _sentence_windows,
    Markdown: _markdown,
    Code: _code,
}


def starts_of(tok: Tokenizer) -> Encode:
    """The reference's token starts: tiktoken for an embedded encoding, else the tokenizer's
    own output converted in plain Python. Neither touches the extension."""
    name = tok.native_encoding
    if name is not None:
        return lambda text: _tiktoken.byte_starts(name, text)
    joining = getattr(tok._backend, "joining_normalizer", lambda: None)()

    def starts(text: str) -> list[int]:
        raw = tok._raw(text)
        found = tokens.Starts(tokens.byte_starts(text, raw[0], raw[1]))
        if len(raw) == 3:
            found.words = tokens.word_flags(raw[2])
            if joining is not None:
                tokens.unjoin(text.encode("utf-8"), found, found.words, joining)
        return found

    return starts


def run(text: str, config: Config, tok: Tokenizer) -> Batch:
    return TWINS[type(config)](text, config, starts_of(tok))


def clean_text(text: str, rules: CleanRules) -> tuple[str, clean.Spans]:
    return clean.clean(text, rules)


def html(
    text: str, tags: list[str], classes: list[str], ids: list[str]
) -> tuple[str, list[int], list[int], str | None]:
    skip = html_render.Skip(frozenset(tags), frozenset(classes), frozenset(ids))
    r = html_render.render(text, skip)
    return r.text, r.starts, r.ends, r.title


def char_bytes(text: str, chars: list[int]) -> list[int]:
    return tokens.byte_starts(text, "chars", chars)


@dataclass(frozen=True, slots=True)
class Oracle:
    """The reference's twins of the pipeline's steps."""

    run: Callable[[str, Config, Tokenizer], Batch]
    """One UTF-8-safe text chunked by a config, tokenized by the reference's own means."""
    clean: Callable[[str, CleanRules], tuple[str, Any]]
    """The cleaned text and each cleaned character's original span."""
    char_bytes: Callable[[str, list[int]], list[int]]
    """Character offsets of a text as UTF-8 byte offsets."""
    html: Callable[[str, list[str], list[str], list[str]], tuple[str, Any, Any, str | None]]
    """An HTML page rendered: text, each character's source span, the title."""


ORACLE = Oracle(run=run, clean=clean_text, char_bytes=char_bytes, html=html)
