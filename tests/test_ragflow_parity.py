"""RAGFlow compat (native) against the reference on generated inputs: same output or
the same exception type, including upstream's quirky raw overlap values."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ferrochunk.compat import ragflow as native
from ferrochunk.reference import ragflow as reference

ALPHABET = st.sampled_from(
    [*"ab ,.。！？；#`\n\r\t", "@@1\t2##", "你好", "😀", "word ", "<|endoftext|>", "\xa0"]
)
TEXT = st.lists(ALPHABET, max_size=40).map("".join)
DELIMITER = st.one_of(
    st.sampled_from(["\n。；！？", "\n!?;。；！？", "`##`", "\n`##`", "##", "", "`\n\n`", "。"]),
    st.lists(st.sampled_from(list("#`\n。ab")), max_size=6).map("".join),
)
PERCENT = st.one_of(
    st.integers(-50, 250),
    st.floats(-10, 300),
    st.sampled_from([0, 0.2, 50, 100, 150, math.nan, math.inf, -math.inf, "20", None, 2**60]),
)
SIZE = st.one_of(st.integers(-2, 200), st.sampled_from([0, 1, 8, 128, 0.5, math.nan]))
STRATEGY = st.sampled_from(list(reference.MergeStrategy))


def outcome(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except Exception as exc:
        return ("raised", type(exc).__name__)


def same(name: str, *args: Any) -> None:
    got = outcome(getattr(native, name), *args)
    want = outcome(getattr(reference, name), *args)
    assert got == want, f"{name}{args!r}"


@given(
    st.one_of(TEXT, st.lists(TEXT, max_size=5), st.lists(st.tuples(TEXT, TEXT), max_size=5)),
    SIZE,
    DELIMITER,
    PERCENT,
    STRATEGY,
)
def test_naive_merge(sections, size, delimiter, percent, strategy):
    same("naive_merge", sections, size, delimiter, percent, strategy)


# Raw NaN and ±Inf overlap with a size of 0 or 0.5: the threshold and the first prefix
# raise or not by §4.3's rules, so these draws get their own, denser, test.
RAW_NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=600)
@given(
    st.one_of(TEXT, st.lists(TEXT, max_size=5), st.lists(st.tuples(TEXT, TEXT), max_size=5)),
    st.sampled_from([0, 0.5, 1]),
    DELIMITER,
    RAW_NON_FINITE,
    STRATEGY,
)
@example(["ab", "cd\n", "ef"], 0, "\n", math.nan, reference.MergeStrategy.OVER_CAP)
@example(["ab", "cd\n", "ef"], 0.5, "\n", math.nan, reference.MergeStrategy.UNDER_CAP)
@example(["@@1\t2##", "ab"], 0, "\n", math.nan, reference.MergeStrategy.OVER_CAP)
@example("a\nb", 128, "\n", math.nan, reference.MergeStrategy.OVER_CAP)
@example(["a", "b"], 128, "\n", math.inf, reference.MergeStrategy.OVER_CAP)
def test_naive_merge_with_non_finite_overlap(sections, size, delimiter, percent, strategy):
    same("naive_merge", sections, size, delimiter, percent, strategy)


@settings(max_examples=300)
@given(st.lists(TEXT, max_size=8), st.sampled_from([0, 0.5, 1]), STRATEGY, RAW_NON_FINITE)
def test_merge_paragraphs_with_non_finite_overlap(paragraphs, size, strategy, percent):
    same("merge_paragraphs", paragraphs, size, strategy, None, percent)


@given(
    st.lists(st.tuples(TEXT, st.sampled_from(["", "P1", "P2"])), max_size=5),
    SIZE,
    DELIMITER,
    PERCENT,
)
def test_naive_merge_with_images(pairs, size, delimiter, percent):
    images = [reference.LazyImage([b"x"]), None, reference.LazyImage([b"y"])]
    texts = [p for p in pairs]
    chosen = [images[i % 3] for i in range(len(texts))]
    got = outcome(native.naive_merge_with_images, texts, chosen, size, delimiter, percent)
    want = outcome(reference.naive_merge_with_images, texts, chosen, size, delimiter, percent)
    if got[0] == "ok" and want[0] == "ok":
        got = (got[1][0], [i._blobs if i else None for i in got[1][1]])
        want = (want[1][0], [i._blobs if i else None for i in want[1][1]])
    assert got == want


@given(st.lists(TEXT, max_size=8), SIZE, STRATEGY, PERCENT)
def test_merge_paragraphs(paragraphs, size, strategy, percent):
    same("merge_paragraphs", paragraphs, size, strategy, None, percent)


@given(TEXT, SIZE, DELIMITER, st.booleans())
def test_parser_txt(txt, size, delimiter, keep):
    got = outcome(native.RAGFlowTxtParser.parser_txt, txt, size, delimiter, keep)
    want = outcome(reference.RAGFlowTxtParser.parser_txt, txt, size, delimiter, keep)
    assert got == want


@given(TEXT, PERCENT)
def test_overlap_prefix(prev, percent):
    same("_compute_overlap_prefix", prev, percent)


@given(st.one_of(TEXT, st.none()))
def test_fields_and_tags(text):
    for name in (
        "remove_tag",
        "normalize_text_newlines",
        "parse_delimiter_field",
        "has_wrapped_delimiter",
    ):
        same(name, text)


def test_lone_surrogates_take_the_python_route():
    text = "a\ud800b\nc@@1##"
    for name in ("remove_tag", "normalize_text_newlines", "parse_delimiter_field"):
        same(name, text)
    same("naive_merge", [text, "d"], 1, "\n", 50)
    assert native.naive_merge([text], 128, "\n")[0].startswith("\na\ud800b")


@given(
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6),
    st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 10**30]),
    st.sampled_from(list(native.MergeStrategy)),
    st.data(),
)
def test_merge_paragraphs_with_huge_sizes(paragraphs, size, strategy, data):
    """Sizes and counts near 2**53 and 2**63 compare exactly, as Python ints do."""
    counts = {p: data.draw(st.sampled_from([0, 1, 2, 2**53 - 1, 2**53, 2**63 - 1])) for p in "abc"}
    for native_merge, reference_merge in ((native.merge_paragraphs, reference.merge_paragraphs),):
        got = native_merge(paragraphs, size, strategy, lambda p: counts[p])
        assert got == reference_merge(paragraphs, size, strategy, lambda p: counts[p])


def test_merge_paragraphs_regression():
    counts = {"a": 2**53 - 1, "b": 2}
    for merge in (native.merge_paragraphs, reference.merge_paragraphs):
        assert merge(["a", "b"], 2**53, native.MergeStrategy.UNDER_CAP, counts.__getitem__) == [
            ["a"],
            ["b"],
        ]
