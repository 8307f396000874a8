"""Recursive: the Dify contract in real tokens, on both backends, with its invariants."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.reference._tiktoken import cl100k

ALPHABET = st.sampled_from(
    [*"ab .\n。 ", "\n\n", ". ", "你好世界", "한국어 ", "😀", "👩‍👩‍👧", "word ", "\t", "——"]
)
TEXT = st.lists(ALPHABET, max_size=60).map("".join)
CONFIG = st.integers(1, 24).flatmap(
    lambda m: st.builds(
        fc.Recursive,
        max_tokens=st.just(m),
        overlap_tokens=st.integers(0, m - 1),
        fixed_separator=st.sampled_from([None, "\n\n", "。"]),
        separators=st.sampled_from([("\n\n", "\n", "。", ". ", " ", ""), (" ",), ("\n", ""), ()]),
        keep_separator=st.sampled_from(["end", "start"]),
        boundaries=st.sampled_from(["greedy", "content"]),
    )
)
GREEDY = CONFIG.map(lambda c: dataclasses.replace(c, boundaries="greedy"))


def _check(text: str, config: fc.Recursive, chunks: list[fc.Chunk]) -> None:
    data = text.encode()
    for c in chunks:
        assert c.text == text[c.char_start : c.char_end]
        assert data[c.byte_start : c.byte_end].decode("utf-8") == c.text
        assert c.token_count <= config.max_tokens or c.metadata["oversize"]
        assert c.metadata["oversize"] == (c.token_count > config.max_tokens)
    if config.overlap_tokens == 0:
        assert "".join(c.text for c in chunks) == text


@given(TEXT, CONFIG)
def test_invariants(text, config):
    for backend in ("native", "reference"):
        _check(text, config, fc.chunk(text, config, backend=backend))


@given(TEXT, CONFIG, st.sampled_from(["cl100k", "o200k"]))
def test_native_equals_reference(text, config, tokenizer):
    native = fc.chunk(text, config, tokenizer=tokenizer)
    assert native == fc.chunk(text, config, tokenizer=tokenizer, backend="reference")


@given(TEXT, CONFIG)
def test_native_equals_reference_with_a_python_tokenizer(text, config):
    tok = fc.Tokenizer.from_tiktoken(cl100k())
    native = fc.chunk(text, config, tokenizer=tok)
    assert native == fc.chunk(text, config, tokenizer=tok, backend="reference")
    assert native == fc.chunk(text, config)


def test_keeps_spaces_newlines_and_cjk(backend):
    text = "여름철에는 항상 기상상황에 주목하며\n\n주변 사람들과 함께 정보를 공유합니다."
    chunks = fc.chunk(text, fc.Recursive(8), backend=backend)
    assert "".join(c.text for c in chunks) == text
    assert all(c.token_count <= 8 for c in chunks)
    cjk = "人工智能正在改变世界的每一个角落" * 5
    assert "".join(c.text for c in fc.chunk(cjk, fc.Recursive(5), backend=backend)) == cjk


def test_fixed_separator_segments_are_never_merged(backend):
    config = fc.Recursive(100, fixed_separator="##")
    chunks = fc.chunk("a##b##c", config, backend=backend)
    assert [c.text for c in chunks] == ["a##", "b##", "c"]


def test_overlap_stays_within_the_cap(backend):
    text = "one two three four five six seven eight nine ten " * 4
    chunks = fc.chunk(text, fc.Recursive(6, overlap_tokens=2), backend=backend)
    assert all(c.token_count <= 6 for c in chunks)
    assert any(a.char_end > b.char_start for a, b in itertools.pairwise(chunks))


@pytest.mark.parametrize("boundaries", ["greedy", "content"])
def test_native_equals_reference_on_the_corpus(boundaries):
    config = fc.Recursive(512, overlap_tokens=51, boundaries=boundaries)
    for path in corpus_files()[::3]:
        text = read_corpus(path)[:100_000]
        assert fc.chunk(text, config) == fc.chunk(text, config, backend="reference")


def test_a_long_line_without_separators_finishes():
    text = "x" * 2_000_000  # one BPE piece, no separator at any level
    chunks = fc.chunk(text, fc.Recursive(512, separators=("\n\n", " ")))
    assert "".join(c.text for c in chunks) == text
    assert max(c.token_count for c in chunks) <= 512


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"max_tokens": 0}, ConfigError, "Recursive.max_tokens"),
        (
            {"max_tokens": 8, "overlap_tokens": 8},
            ConfigError,
            "overlap_tokens must be < max_tokens",
        ),
        ({"max_tokens": 8, "overlap_tokens": -1}, ConfigError, "overlap_tokens"),
        ({"max_tokens": 8, "separators": "\n"}, ConfigTypeError, "separators must be a sequence"),
        ({"max_tokens": 8, "keep_separator": "middle"}, ConfigError, "keep_separator"),
        ({"max_tokens": 8, "fixed_separator": 3}, ConfigTypeError, "fixed_separator"),
        ({"max_tokens": 8, "boundaries": "rabin"}, ConfigError, "boundaries must be 'greedy'"),
        ({"max_tokens": 8, "boundaries": None}, ConfigError, "got None"),
    ],
)
def test_bad_config(kwargs, error, needle):
    with pytest.raises(error, match=needle):
        fc.Recursive(**kwargs)


PARENT_CHILD = st.builds(
    fc.ParentChild,
    parent=st.one_of(st.just("full-doc"), GREEDY),
    child=GREEDY,
)


@given(TEXT, PARENT_CHILD)
def test_parent_child_invariants_and_parity(text, config):
    native = fc.chunk(text, config)
    assert native == fc.chunk(text, config, backend="reference")
    for parent in native:
        assert parent.text == text[parent.char_start : parent.char_end]
        kids = parent.metadata["children"]
        for kid in kids:
            assert kid.text == text[kid.char_start : kid.char_end]
            assert parent.char_start <= kid.char_start <= kid.char_end <= parent.char_end
            assert kid.token_count <= config.child.max_tokens or kid.metadata["oversize"]
        if config.child.overlap_tokens == 0:
            assert "".join(k.text for k in kids) == parent.text
    if config.parent == "full-doc":
        assert [p.text for p in native] == ([text] if text else [])


def test_parent_child_paragraph_mode(backend):
    text = "Intro line one.\nIntro line two.\n\nSecond para. It runs on for a while.\n\n"
    config = fc.ParentChild(
        fc.Recursive(12, separators=("\n\n", " ", "")),
        child=fc.Recursive(6, separators=("\n", ". ", " ", "")),
    )
    parents = fc.chunk(text, config, backend=backend)
    assert [p.text for p in parents] == [
        "Intro line one.\nIntro line two.\n\n",
        "Second para. It runs on for a while.\n\n",
    ]
    kids = parents[0].metadata["children"]
    assert [k.text for k in kids] == ["Intro line one.\n", "Intro line two.\n\n"]
    assert all(k.metadata["parent"] == 0 for k in kids)


def test_parent_child_bad_config():
    with pytest.raises(ConfigError, match=r"ParentChild\.parent"):
        fc.ParentChild("paragraph", child=fc.Recursive(8))
    with pytest.raises(ConfigTypeError, match=r"ParentChild\.child"):
        fc.ParentChild("full-doc", child=8)  # type: ignore[arg-type]
    content = fc.Recursive(8, boundaries="content")
    with pytest.raises(ConfigError, match=r"ParentChild\.child\.boundaries must be 'greedy'"):
        fc.ParentChild("full-doc", child=content)
    with pytest.raises(ConfigError, match=r"ParentChild\.parent\.boundaries"):
        fc.ParentChild(content, child=fc.Recursive(4))


@pytest.mark.slow
def test_a_20_mb_line_without_separators():
    """Issue #4: a 20 MB single line finishes (run with -m slow)."""
    from ferrochunk.compat import dify

    text = "x" * 20_000_000
    chunks = fc.chunk(text, fc.Recursive(512))
    assert "".join(c.text for c in chunks) == text
    pieces = dify.FixedRecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50).split_text(
        text
    )
    assert all(len(p) <= 500 for p in pieces)


@given(
    st.lists(
        st.sampled_from(["word ", "more words. ", "你好世界", "\n"]), min_size=40, max_size=80
    ),
    st.sampled_from(["\n\n", "\n\nTail after a paragraph break.", "。"]),
)
def test_decisions_are_local(parts, tail):
    """What comes far after a chunk cannot change it: a separator near the end of a file
    does not change how its start is cut."""
    head = "".join(parts)
    config = fc.Recursive(12, overlap_tokens=2)
    alone = fc.chunk(head, config)
    joined = fc.chunk(head + tail, config)
    # Chunks that end a window (12 tokens, at most 4 bytes each) before the end agree.
    settled = [c for c in alone if c.byte_end + 48 < len(head.encode())]
    assert joined[: len(settled)] == settled


def test_separator_level_is_chosen_inside_the_window(backend):
    # The window from the start holds a ". " but no "\n\n": it cuts at the ". ", even
    # though the text has a "\n\n" further on.
    text = "one two. three four five six seven eight nine ten eleven\n\nlast"
    chunks = fc.chunk(text, fc.Recursive(6), backend=backend)
    assert chunks[0].text == "one two. "
    assert "".join(c.text for c in chunks) == text
    # A rest that fits the budget is one chunk, separators and all.
    assert chunks[1:] == fc.chunk(text, fc.Recursive(6), backend=backend)[1:]
    assert chunks[-1].text == "eight nine ten eleven\n\nlast"


def test_parent_child_on_two_megabytes_equals_reference_children():
    text = (read_corpus(corpus_files()[0]) * 3)[:2_000_000]
    config = fc.ParentChild(fc.Recursive(512, overlap_tokens=20), child=fc.Recursive(64))
    parents = fc.chunk(text, config)
    assert parents[-1].char_end == len(text)
    for p in parents[:: max(1, len(parents) // 20)]:
        kids = p.metadata["children"]
        assert "".join(k.text for k in kids) == p.text
        assert all(k.metadata["parent"] == p.index for k in kids)
