"""SentenceWindows (native contract) and TokenAwareChunker (the plan's surface)."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.compat.token_aware import TokenAwareChunker
from ferrochunk.errors import ConfigError, ConfigTypeError
from ferrochunk.reference._tiktoken import cl100k

ALPHABET = st.sampled_from(
    [
        *"ab .,;!?\n。，！？ ",
        "\n\n",
        ". ",
        "3.14",
        "e.g.x",
        "你好世界",
        "한국어 ",
        "😀",
        "👩‍👩‍👧",
        "word ",
        "Hello",
        "\t",
        "… ",
        "；",
        "x" * 40,
    ]
)
TEXT = st.lists(ALPHABET, max_size=80).map("".join)
CONFIG = st.builds(
    fc.SentenceWindows,
    max_tokens=st.integers(2, 40),
    safety_margin=st.sampled_from([0.85, 1.0, 0.5]),
    overlap_ratio=st.sampled_from([0.0, 0.1, 0.3, 0.6]),
).filter(lambda c: c.safe_max >= 1)
WORD = re.compile(r"\w")


def _fresh(chunks: list[fc.Chunk]) -> list[str]:
    return [c.text[c.metadata["overlap_chars"] :] for c in chunks]


def _check(text: str, config: fc.SentenceWindows, chunks: list[fc.Chunk]) -> None:
    data = text.encode()
    assert "".join(_fresh(chunks)) == text, "without the overlaps, chunks tile the text"
    for i, c in enumerate(chunks):
        assert c.text == text[c.char_start : c.char_end]
        assert data[c.byte_start : c.byte_end].decode("utf-8") == c.text
        assert "\ufffd" not in c.text or "\ufffd" in text
        assert c.token_count <= config.safe_max or c.metadata["oversize"]
        assert c.metadata["overlap_tokens"] <= config.overlap_tokens
        if i:
            assert c.metadata["overlap_chars"] < len(chunks[i - 1].text), "a proper tail"
            assert c.metadata["overlap_tokens"] < chunks[i - 1].token_count


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


@given(st.lists(st.sampled_from(["word", " ", ". ", ", ", "\n", "longerword"]), max_size=120))
def test_no_cut_inside_a_word_when_the_window_has_a_break(parts):
    text = "".join(parts)
    config = fc.SentenceWindows(12, overlap_ratio=0.0)
    chunks = fc.chunk(text, config)
    for c in chunks[:-1]:
        cut = c.char_end
        inside_word = WORD.match(text[cut - 1]) and WORD.match(text[cut])
        window = text[c.char_start : cut]
        # A break char at the window's first position credits the window's own start.
        has_break = bool(re.search(r"[\s,.]", window[1:-1]))
        assert not (inside_word and has_break), (window, text[cut:])


def test_sentences_pack_and_overlap_starts_at_a_break(backend):
    text = "One two three. Four five six. Seven eight nine."
    config = fc.SentenceWindows(10, safety_margin=0.7, overlap_ratio=0.2)
    chunks = fc.chunk(text, config, backend=backend)
    assert [c.text for c in chunks] == [
        "One two three.",
        " three. Four five six.",
        " six. Seven eight nine.",
    ]
    assert [c.metadata["overlap_tokens"] for c in chunks] == [0, 2, 2]


def test_corpus_native_equals_reference():
    config = fc.SentenceWindows(256, overlap_ratio=0.1)
    for path in corpus_files()[:6]:
        text = read_corpus(path)[:20_000]
        native = fc.chunk(text, config)
        assert native == fc.chunk(text, config, backend="reference")
        _check(text, config, native)


def test_a_long_run_without_breaks_is_cut_at_token_boundaries():
    text = "a" * 2_000_000
    chunks = fc.chunk(text, fc.SentenceWindows(512))
    assert "".join(_fresh(chunks)) == text
    assert all(c.token_count <= 435 for c in chunks)


@pytest.mark.slow
def test_ten_megabytes_of_letters():
    text = "abcdefghij" * 1_000_000
    chunks = fc.chunk(text, fc.SentenceWindows(512))
    assert "".join(_fresh(chunks)) == text


def test_empty_and_blank_text(backend):
    assert fc.chunk("", fc.SentenceWindows(10), backend=backend) == []
    (only,) = fc.chunk("   ", fc.SentenceWindows(10), backend=backend)
    assert only.text == "   "


def test_config_tokenizer_is_used():
    text = "Hello world. " * 50
    config = fc.SentenceWindows(20, tokenizer="o200k")
    assert fc.chunk(text, config) == fc.chunk(text, config, tokenizer="o200k")
    assert fc.chunk_spans(text, config).shape[1] == 6


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": -5}, "max_tokens"),
        ({"max_tokens": 10, "overlap_ratio": 1.0}, "overlap_ratio"),
        ({"max_tokens": 10, "overlap_ratio": -0.1}, "overlap_ratio"),
        ({"max_tokens": 10, "overlap_ratio": math.nan}, "overlap_ratio"),
        ({"max_tokens": 10, "safety_margin": 0.0}, "safety_margin"),
        ({"max_tokens": 10, "safety_margin": 1.5}, "safety_margin"),
        ({"max_tokens": 10, "safety_margin": math.nan}, "safety_margin"),
        ({"max_tokens": 1, "safety_margin": 0.5}, "safety_margin"),
        ({"max_tokens": 10, "break_classes": [["ab"]]}, "break_classes"),
    ],
)
def test_bad_config_names_the_field(kwargs, field):
    with pytest.raises(ConfigError, match=field):
        fc.SentenceWindows(**kwargs)


def test_bad_config_types():
    with pytest.raises(ConfigTypeError, match="max_tokens"):
        fc.SentenceWindows("10")  # type: ignore[arg-type]
    with pytest.raises(ConfigTypeError, match="break_classes"):
        fc.SentenceWindows(10, break_classes="\n")
    with pytest.raises(ConfigTypeError, match="tokenizer"):
        fc.SentenceWindows(10, tokenizer=3)  # type: ignore[arg-type]


def test_custom_break_classes(backend):
    text = "alpha|beta|gamma|delta|epsilon|zeta"
    config = fc.SentenceWindows(6, safety_margin=1.0, overlap_ratio=0.0, break_classes=[["|"]])
    chunks = fc.chunk(text, config, backend=backend)
    assert all(c.text.endswith("|") for c in chunks[:-1])
    assert "".join(c.text for c in chunks) == text


# -- the plan's tests (the tests the ingestion plan asks for) -----------------
def test_plan_count_is_exact():
    chunker = TokenAwareChunker()
    assert chunker.count_tokens("Hello, world!") > 0
    assert chunker.count_tokens("Hello, world!") == len(cl100k().encode_ordinary("Hello, world!"))
    assert chunker.count_tokens("<|endoftext|>") == len(cl100k().encode_ordinary("<|endoftext|>"))


def test_plan_budget_and_overlap():
    chunker = TokenAwareChunker(max_tokens=100, overlap_ratio=0.1)
    assert chunker.overlap_tokens == 10
    assert chunker.safe_max == 85


def test_plan_best_breakpoint():
    text = "Hello, world! How are you?"
    p = TokenAwareChunker().find_best_breakpoint(text, 15)
    assert text[p - 1] in ",!?。！？"
    assert p == 13


def test_plan_overlap_on_a_long_sentence():
    chunks = TokenAwareChunker(max_tokens=50, overlap_ratio=0.2).chunk_with_overlap(
        "A" * 200 + "." + "B" * 200
    )
    assert len(chunks) >= 2
    for a, b in itertools.pairwise(chunks):
        assert a["end"] > b["start"], "consecutive chunks share text"
        assert a["content"][b["start"] - a["start"] :] == b["content"][: a["end"] - b["start"]]


def test_breakpoints_rank_and_respect_decimals():
    chunker = TokenAwareChunker()
    assert chunker.find_best_breakpoint("pi is 3.14 and more", 12) == 11  # after a space
    assert chunker.find_best_breakpoint("line one\nline, two three", 20) == 9
    assert chunker.find_best_breakpoint("第一句。第二句，第三", 10) == 4
    assert chunker.find_best_breakpoint("nobreakhere", 8) == 8


def test_chunk_with_overlap_fits_and_skips_blank_chunks():
    chunker = TokenAwareChunker(max_tokens=40, overlap_ratio=0.1)
    text = ("First sentence here. Second one, with a clause! " * 20) + "\n\n   \n\n"
    chunks = chunker.chunk_with_overlap(text)
    assert chunks
    for c in chunks:
        assert c["tokens"] <= chunker.safe_max
        assert c["content"] == text[c["start"] : c["end"]]
        assert c["content"].strip()


def test_chunk_document_tags_nodes():
    chunker = TokenAwareChunker(max_tokens=30)
    out = chunker.chunk_document("A summary. " * 10, ["Node zero. " * 10, "Node one."])
    assert out[0]["node"] is None
    assert {c["node"] for c in out} == {None, 0, 1}
    nodes = [c["node"] for c in out if c["node"] is not None]
    assert nodes == sorted(nodes)


def test_token_aware_bad_input():
    with pytest.raises(ValueError, match="max_tokens"):
        TokenAwareChunker(max_tokens=0)
    with pytest.raises(ValueError, match="overlap_ratio"):
        TokenAwareChunker(overlap_ratio=1.0)
    with pytest.raises(TypeError, match="text"):
        TokenAwareChunker().chunk_with_overlap(None)  # type: ignore[arg-type]
