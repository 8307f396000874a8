"""DelimiterMerge: the contract on both backends, its invariants, and native/reference parity."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.reference._tiktoken import cl100k

UNDER, OVER = fc.MergeStrategy.UNDER_CAP, fc.MergeStrategy.OVER_CAP


def texts(chunks: list[fc.Chunk]) -> list[str]:
    return [c.text for c in chunks]


def test_consecutive_delimiters_lose_no_text(backend):
    hard = fc.DelimiterMerge(10, delimiters=(), hard_delimiters=("##",))
    assert texts(fc.chunk("A####B", hard, backend=backend)) == ["A", "B"]
    soft = fc.DelimiterMerge(10, delimiters=("##",), joiner="")
    assert texts(fc.chunk("A####B", soft, backend=backend)) == ["AB"]


def test_delimiter_text_never_enters_a_chunk(backend):
    config = fc.DelimiterMerge(100, delimiters=("。", "\n"), joiner="")
    chunks = fc.chunk("第一句。第二句\n第三句", config, backend=backend)
    assert texts(chunks) == ["第一句第二句第三句"]
    assert chunks[0].metadata["spans"] == ((0, 3), (4, 7), (8, 11))


def test_the_default_joiner_keeps_lines_and_sentences_apart(backend):
    lines = fc.DelimiterMerge(100, delimiters=("\n",))
    assert lines.joiner == "\n"
    assert texts(fc.chunk("first line\nsecond line", lines, backend=backend)) == [
        "first line\nsecond line"
    ]
    sentences = fc.DelimiterMerge(100, delimiters=(". ", "。"))
    assert sentences.joiner == " "
    assert texts(fc.chunk("One. Two.", sentences, backend=backend)) == ["One Two."]
    assert fc.DelimiterMerge(100, delimiters=("\r\n",)).joiner == "\n"
    assert fc.DelimiterMerge(100, joiner="").joiner == ""
    assert fc.DelimiterMerge(100, delimiters=(" ",)) == fc.DelimiterMerge(
        100, delimiters=(" ",), joiner=" "
    )


def test_whitespace_delimiters_are_honoured_not_stripped(backend):
    config = fc.DelimiterMerge(1, delimiters=(" ",), strategy=UNDER)
    assert texts(fc.chunk(" a  b\n", config, backend=backend)) == ["a", "b\n"]


def test_hard_delimiters_are_always_boundaries(backend):
    config = fc.DelimiterMerge(1000, delimiters=("\n",), hard_delimiters=("---",))
    chunks = fc.chunk("a\nb---c\nd", config, backend=backend)
    assert texts(chunks) == ["a\nb", "c\nd"]


def test_under_cap_is_a_cap_and_oversize_stands_alone(backend):
    text = "one two three\nfour five six seven eight nine ten\nx\ny"
    chunks = fc.chunk(
        text, fc.DelimiterMerge(4, delimiters=("\n",), strategy=UNDER), backend=backend
    )
    assert texts(chunks) == ["one two three", "four five six seven eight nine ten", "x\ny"]
    assert [c.metadata["oversize"] for c in chunks] == [False, True, False]
    assert [c.token_count for c in chunks] == [3, 7, 2]


def test_over_cap_takes_one_boundary_overflow_piece(backend):
    text = "a b\nc d\ne f\ng h"
    chunks = fc.chunk(text, fc.DelimiterMerge(3, delimiters=("\n",)), backend=backend)
    # 2 tokens <= 3 so the next piece joins (4 > 3), then the group closes.
    assert texts(chunks) == ["a b\nc d", "e f\ng h"]


def test_overlap_is_whole_tokens_of_the_previous_chunks_own_pieces(backend):
    text = "one two three\nfour five six\nseven eight nine"
    config = fc.DelimiterMerge(3, delimiters=("\n",), overlap=34)
    chunks = fc.chunk(text, config, backend=backend)
    assert texts(chunks) == ["one two three", " three\nfour five six", " six\nseven eight nine"]
    assert [c.metadata["overlap_tokens"] for c in chunks] == [0, 1, 1]
    assert [c.token_count for c in chunks] == [3, 4, 4]
    assert fc.DelimiterMerge(3, overlap=0.2).overlap == 20
    assert fc.DelimiterMerge(3, overlap="nan").overlap == 0


def test_children_point_into_the_source(backend):
    text = "alpha|beta\ngamma|delta"
    config = fc.DelimiterMerge(100, delimiters=("\n",), child_delimiters=("|",))
    (parent,) = fc.chunk(text, config, backend=backend)
    kids = parent.metadata["children"]
    assert [k.text for k in kids] == ["alpha", "beta", "gamma", "delta"]
    assert all(text[k.char_start : k.char_end] == k.text for k in kids)
    assert all(k.metadata["parent"] == 0 for k in kids)
    assert sum(k.token_count for k in kids) <= parent.token_count


def test_empty_and_delimiter_only_input(backend):
    config = fc.DelimiterMerge(10, delimiters=("\n",))
    assert fc.chunk("", config, backend=backend) == []
    assert fc.chunk("\n" * 1000, config, backend=backend) == []


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"token_size": 0}, ConfigError, "token_size must be an integer >= 1, got 0"),
        ({"token_size": -3}, ConfigError, "got -3"),
        ({"token_size": "8"}, ConfigTypeError, "token_size"),
        ({"token_size": 8, "strategy": "sideways"}, ConfigError, "strategy"),
        ({"token_size": 8, "delimiters": "\n。"}, ConfigTypeError, "delimiters must be a sequence"),
        ({"token_size": 8, "delimiters": ["\n", 3]}, ConfigTypeError, r"delimiters\[1\]"),
        ({"token_size": 8, "hard_delimiters": [""]}, ConfigError, "must not be empty"),
    ],
)
def test_bad_config(kwargs, error, needle):
    with pytest.raises(error, match=re.escape(needle) if "[" not in needle else needle):
        fc.DelimiterMerge(**kwargs)


def test_strategy_by_name_or_value():
    assert fc.DelimiterMerge(8, strategy="UNDER_CAP").strategy is UNDER
    assert fc.DelimiterMerge(8, strategy="over_cap").strategy is OVER


ALPHABET = st.sampled_from([*"ab \n。|#", "你好", "😀", "word ", "—", "\r\n"])
TEXT = st.lists(ALPHABET, max_size=60).map("".join)
CONFIG = st.builds(
    fc.DelimiterMerge,
    token_size=st.integers(1, 12),
    delimiters=st.lists(st.sampled_from(["\n", "。", " ", "ab", "|"]), max_size=3).map(tuple),
    hard_delimiters=st.lists(st.sampled_from(["#", "##", "\n\n"]), max_size=2).map(tuple),
    strategy=st.sampled_from([UNDER, OVER]),
    overlap=st.sampled_from([0, 10, 50, 90, 0.3]),
    child_delimiters=st.lists(st.sampled_from([" ", "|", "你"]), max_size=2).map(tuple),
)


@given(TEXT, CONFIG)
def test_invariants(text, config):
    for backend in ("native", "reference"):
        chunks = fc.chunk(text, config, backend=backend)
        covered = []
        for c in chunks:
            spans = c.metadata["spans"]
            assert c.text == config.joiner.join(text[a:b] for a, b in spans)
            assert (c.char_start, c.char_end) == (spans[0][0], spans[-1][1])
            if config.strategy == UNDER and not c.metadata["oversize"]:
                assert c.token_count <= config.token_size
            own = spans[c.metadata["overlap_spans"] :]
            covered.extend(own)
        # Own spans plus delimiter matches tile the text.
        rest = text
        for a, b in sorted(covered, reverse=True):
            rest = rest[:a] + "\0" * (b - a) + rest[b:]
        delims = sorted({*config.delimiters, *config.hard_delimiters}, key=len, reverse=True)
        leftover = rest.replace("\0", "")
        if delims:
            leftover = re.sub("|".join(re.escape(d) for d in delims), "", leftover)
        assert leftover == ""


@given(TEXT, CONFIG)
def test_native_equals_reference(text, config):
    assert fc.chunk(text, config) == fc.chunk(text, config, backend="reference")


@given(TEXT, CONFIG)
def test_native_equals_reference_with_a_python_tokenizer(text, config):
    tok = fc.Tokenizer.from_tiktoken(cl100k())
    native = fc.chunk(text, config, tokenizer=tok)
    assert native == fc.chunk(text, config, tokenizer=tok, backend="reference")
    assert native == fc.chunk(text, config)


def test_native_equals_reference_on_the_corpus():
    config = fc.DelimiterMerge(128, overlap=10, child_delimiters=("。", ". "))
    for path in corpus_files()[::3]:
        text = read_corpus(path)[:100_000]
        assert fc.chunk(text, config) == fc.chunk(text, config, backend="reference")


def test_huge_inputs_finish():
    no_delimiter = "a" * 2_000_000
    (chunk,) = fc.chunk(no_delimiter, fc.DelimiterMerge(512))
    assert chunk.metadata["oversize"]
    assert chunk.text == no_delimiter
    only_delimiters = "\n" * 1_000_000
    assert fc.chunk(only_delimiters, fc.DelimiterMerge(512)) == []


def test_items_join_with_newline_and_keep_their_own_metadata(backend):
    items = [
        {"text": "alpha beta", "positions": [[1, 0, 0, 0, 0]], "image": "I1"},
        {"text": "gamma", "positions": [[2, 0, 0, 0, 0]]},
        "delta epsilon",
    ]
    config = fc.DelimiterMerge(3, delimiters=("\n",), strategy=UNDER)
    chunks = fc.chunk_items(items, config, backend=backend)
    assert texts(chunks) == ["alpha beta\ngamma", "delta epsilon"]
    assert [c.metadata["items"] for c in chunks] == [(0, 1), (2,)]
    first = chunks[0].metadata["item_metadata"]
    assert [m.get("image") for m in first] == ["I1", None]
    assert chunks[1].metadata["item_metadata"] == ({},)
    windows = fc.chunk_items(["a b c", "d e f"], fc.TokenWindows(3), backend=backend)
    # The second window is "\nd e": the joining newline belongs to no item.
    assert [c.metadata["items"] for c in windows] == [(0,), (1,), (1,)]
    with pytest.raises(fc.errors.InputTypeError, match=r"items\[0\]"):
        fc.chunk_items([{"txt": "x"}], config)
