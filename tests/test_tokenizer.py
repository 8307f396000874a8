"""The embedded tokenizer against tiktoken, and the Python tokenizer adapters."""

from __future__ import annotations

import numpy as np
import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.errors import InputTypeError, OffsetsError, UnknownTokenizerError
from ferrochunk.reference._tiktoken import cl100k as tiktoken_cl100k
from ferrochunk.reference._tiktoken import o200k as tiktoken_o200k

TRICKY = st.sampled_from(
    [
        "你好",
        "世界",
        "日本語",
        "한국어",
        "😀",
        "👩‍👩‍👧",
        "🧑🏽‍🚀",
        "\u200d",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\u0085",
        "\ufeff",
        "\u00a0",
        "\u3000",
        "<|endoftext|>",
        "<|fim_prefix|>",
        "<|endofprompt|>",
        "<|",
        "|>",
        "'s",
        "'LL",
        "123456",
        "a",
        "Hello",
        " world",
        "。",
        "！",
        "...",
        "ǅ",
        "é",
        "e\u0301",
        "\x00",
    ]
)
MIXED = st.lists(st.one_of(TRICKY, st.text(max_size=8)), max_size=24).map("".join)


@pytest.fixture(scope="module")
def reference_cl100k() -> tiktoken.Encoding:
    return tiktoken_cl100k()


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_ids_equal_tiktoken_on_the_corpus_sample(path, reference_cl100k):
    text = read_corpus(path)
    expected = reference_cl100k.encode_ordinary(text)
    got = fc.Tokenizer.cl100k().encode(text)
    assert got.dtype == np.uint32
    assert got.tolist() == expected


def test_corpus_sample_is_at_least_2_mb():
    total = sum(len(read_corpus(p).encode()) for p in corpus_files())
    assert total >= 2_000_000


@given(MIXED)
def test_ids_equal_tiktoken_on_tricky_text(text):
    expected = tiktoken_cl100k().encode_ordinary(text)
    tok = fc.Tokenizer.cl100k()
    assert tok.encode(text).tolist() == expected
    assert tok.count(text) == len(expected)


@given(MIXED)
def test_offsets_tile_the_text(text):
    for tok in (fc.Tokenizer.cl100k(), fc.Tokenizer.o200k()):
        ids, starts = tok.encode_with_offsets(text)
        assert len(ids) == len(starts)
        data = text.encode()
        # Every token has at least one byte: starts strictly increase from 0.
        assert all(a < b for a, b in zip(starts.tolist(), starts.tolist()[1:], strict=False))
        assert all(0 <= s < len(data) for s in starts.tolist())
        if len(ids):
            assert starts[0] == 0


# One unit repeated to about 1 MB: runs of letters, emoji and CJK characters are single
# pieces far over the 4 096 bytes the short merge takes, so they go through the long-piece
# encoder (`rust/tokenizer/long.rs`); digit runs split into threes and check the rest.
LONG_UNITS = st.one_of(
    st.text(st.characters(categories=("Lu", "Ll")), min_size=1, max_size=6),
    st.text(st.characters(categories=("Nd",), max_codepoint=0x7F), min_size=1, max_size=4),
    st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF, categories=("So",)),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
)


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=LONG_UNITS, encoding=st.sampled_from(["cl100k", "o200k"]))
def test_one_megabyte_runs_equal_tiktoken(unit, encoding):
    text = unit * (1_000_000 // len(unit.encode()))
    reference = tiktoken_cl100k() if encoding == "cl100k" else tiktoken_o200k()
    tok = fc.Tokenizer.cl100k() if encoding == "cl100k" else fc.Tokenizer.o200k()
    assert tok.encode(text).tolist() == reference.encode_ordinary(text)


def test_offsets_match_tiktoken_token_bytes(reference_cl100k):
    text = "naïve café 😀 你好 <|endoftext|>"
    ids, starts = fc.Tokenizer.cl100k().encode_with_offsets(text)
    pieces = reference_cl100k.decode_tokens_bytes(ids.tolist())
    assert starts.tolist() == np.cumsum([0] + [len(p) for p in pieces[:-1]]).tolist()


def test_o200k_is_its_own_vocabulary():
    # Reference ids of o200k_base (GPT-4o) for a fixed string.
    assert fc.Tokenizer.o200k().encode("hello world").tolist() == [24912, 2375]
    assert fc.Tokenizer.cl100k().encode("hello world").tolist() == [15339, 1917]


def test_special_token_text_is_ordinary_text(reference_cl100k):
    text = "a <|endoftext|> b"
    assert fc.Tokenizer.cl100k().encode(text).tolist() == reference_cl100k.encode_ordinary(text)


def test_surrogates_read_as_replacement_characters(reference_cl100k):
    """One rule everywhere: each surrogate code point is U+FFFD (as tiktoken reads a lone one)."""
    tok = fc.Tokenizer.cl100k()
    for text in ["a\ud800b", "\udfff", "ok"]:
        assert tok.encode(text).tolist() == reference_cl100k.encode(text)
    pair = "x\ud83d\ude00y"  # two code points; tiktoken would join them into one emoji
    assert tok.encode(pair).tolist() == reference_cl100k.encode("x\ufffd\ufffdy")
    assert tok.count(pair) == len(tok.encode_with_offsets(pair)[0])
    assert tok.count_batch([pair]).tolist() == [tok.count(pair)]
    chunks = fc.chunk(pair * 20, fc.TokenWindows(7, overlap_tokens=0))
    assert sum(c.token_count for c in chunks) == tok.count(pair * 20)


def test_one_text_without_utf8_form_among_clean_ones():
    """Native calls read text as is and make it safe only when the extension refuses it:
    a batch with one surrogate text among clean ones still counts and chunks each exactly."""
    tok = fc.Tokenizer.cl100k()
    texts = ["plain text", "a\ud800b c", "你好 😀"]
    safe = ["plain text", "a\ufffdb c", "你好 😀"]
    assert tok.count_batch(texts).tolist() == [tok.count(t) for t in safe]
    assert [tok.encode(t).tolist() for t in texts] == [tok.encode(t).tolist() for t in safe]
    config = fc.TokenWindows(2)
    many = fc.chunk_many(texts, config, threads=1)
    assert many == [fc.chunk(t, config) for t in texts]
    assert "".join(c.text for c in many[1]) == texts[1]


def test_count_batch_matches_count_across_batches():
    tok = fc.Tokenizer.cl100k()
    texts = [f"chunk {i} 你好 😀" for i in range(10_000)]
    counts = tok.count_batch(texts, batch_size=777)
    assert counts.dtype == np.int64
    assert counts.tolist() == [tok.count(t) for t in texts]
    assert tok.count_batch(iter([])).tolist() == []
    assert tok.count_batch(t for t in ["a b", "c"]).tolist() == [2, 1]


def test_from_tiktoken_matches_native(reference_cl100k):
    adapted = fc.Tokenizer.from_tiktoken(reference_cl100k)
    text = "Tokenizers agree: 你好, 😀 and <|endoftext|>."
    native = fc.Tokenizer.cl100k()
    for a, b in zip(
        adapted.encode_with_offsets(text), native.encode_with_offsets(text), strict=True
    ):
        assert a.tolist() == b.tolist()


def _tiny_huggingface_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "hello": 1, "world": 2, "你好": 3, ",": 4}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return tok


def test_from_huggingface_converts_char_offsets_to_bytes():
    tok = fc.Tokenizer.from_huggingface(_tiny_huggingface_tokenizer())
    ids, starts = tok.encode_with_offsets("你好 hello, world")
    assert ids.tolist() == [3, 1, 4, 2]
    assert starts.tolist() == [0, 7, 12, 14]


def test_from_callable_and_its_validation():
    def words(text):
        import re

        matches = list(re.finditer(r"\S+", text))
        return [len(m.group()) for m in matches], [m.start() for m in matches]

    tok = fc.Tokenizer.from_callable(words)
    assert tok.encode_with_offsets("é ab")[1].tolist() == [0, 3]
    with pytest.raises(OffsetsError, match="pair up"):
        fc.Tokenizer.from_callable(lambda t: ([1, 2], [0])).encode_with_offsets("ab")
    with pytest.raises(OffsetsError, match="non-decreasing"):
        fc.Tokenizer.from_callable(lambda t: ([1, 2], [1, 0])).encode_with_offsets("ab")
    with pytest.raises(OffsetsError, match=">= 0"):
        fc.Tokenizer.from_callable(lambda t: ([1], [-1])).encode_with_offsets("ab")
    with pytest.raises(OffsetsError, match="past the end"):
        fc.Tokenizer.from_callable(lambda t: ([1], [5])).encode_with_offsets("ab")
    with pytest.raises(OffsetsError, match=r"\(ids, char_starts\)"):
        fc.Tokenizer.from_callable(lambda t: [1]).encode("ab")
    for bad in ([0, 1.5], ["0", "1"], [0, None], [0, 2**64]):
        with pytest.raises(OffsetsError, match="integers"):
            fc.Tokenizer.from_callable(lambda t, b=bad: ([1, 2], b)).encode_with_offsets("abc")
    generated = fc.Tokenizer.from_callable(lambda t: (iter([7, 8]), (i for i in (0, 1))))
    assert generated.encode_with_offsets("ab")[1].tolist() == [0, 1]


def test_bad_tokenizer_inputs():
    with pytest.raises(UnknownTokenizerError, match="'gpt2'"):
        fc.Tokenizer.from_name("gpt2")
    with pytest.raises(UnknownTokenizerError):
        fc.Tokenizer.from_callable("not callable")  # type: ignore[arg-type]
    with pytest.raises(UnknownTokenizerError):
        fc.Tokenizer.from_tiktoken(object())
    with pytest.raises(InputTypeError, match="text must be a str"):
        fc.Tokenizer.cl100k().encode(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"texts\[1\]"):
        fc.Tokenizer.cl100k().count_batch(["a", 2])  # type: ignore[list-item]
    with pytest.raises(InputTypeError, match="iterable of str"):
        fc.Tokenizer.cl100k().count_batch("abc")
    with pytest.raises(InputTypeError, match="iterable of str"):
        fc.Tokenizer.cl100k().count_batch(5)  # type: ignore[arg-type]


def test_count_batch_handles_100k_chunks_in_bounded_batches():
    """Dify #39560: counting every chunk in one request falls over; batches do not."""
    tok = fc.Tokenizer.cl100k()
    texts = (f"segment {i} 段落 {i % 97}" for i in range(100_000))
    counts = tok.count_batch(texts, batch_size=8192)
    assert len(counts) == 100_000
    assert counts[0] == tok.count("segment 0 段落 0")
    assert counts[99_999] == tok.count("segment 99999 段落 89")


# -- encode_list: ids as a Python list, built in Rust from shared ints ----------------


@pytest.mark.parametrize("path", corpus_files()[:3], ids=lambda p: p.name)
def test_encode_list_equals_tiktoken_on_the_corpus_sample(path):
    text = read_corpus(path)
    for tok, reference in ((fc.Tokenizer.cl100k(), tiktoken_cl100k()),
                           (fc.Tokenizer.o200k(), tiktoken_o200k())):  # fmt: skip
        got = tok.encode_list(text)
        assert type(got) is list
        assert got == reference.encode_ordinary(text)


@given(MIXED)
def test_encode_list_equals_tiktoken_on_tricky_text(text):
    for tok, reference in ((fc.Tokenizer.cl100k(), tiktoken_cl100k()),
                           (fc.Tokenizer.o200k(), tiktoken_o200k())):  # fmt: skip
        got = tok.encode_list(text)
        assert got == reference.encode_ordinary(text)
        assert all(type(i) is int for i in got)


def test_encode_list_reads_surrogates_like_encode():
    tok = fc.Tokenizer.o200k()
    for text in ["a\ud800b", "x\ud83d\ude00y", ""]:
        assert tok.encode_list(text) == tok.encode(text).tolist()


def test_encode_list_returns_a_new_list_every_call():
    """The ints are shared, the lists are not: changing one list leaves the next intact."""
    tok = fc.Tokenizer.cl100k()
    first = tok.encode_list("hello world hello")
    expected = list(first)
    first[0] = -1
    first.append(7)
    assert tok.encode_list("hello world hello") == expected
    assert first != expected


def test_encode_list_of_other_tokenizers_is_encode_as_a_list():
    words = fc.Tokenizer.from_callable(lambda t: ([len(w) for w in t.split()], [0, 4]))
    assert words.encode_list("abc defgh") == [3, 5] == words.encode("abc defgh").tolist()
    with pytest.raises(InputTypeError, match="text must be a str"):
        fc.Tokenizer.o200k().encode_list(None)  # type: ignore[arg-type]


def test_encode_list_from_many_threads():
    from concurrent.futures import ThreadPoolExecutor

    tok = fc.Tokenizer.o200k()
    texts = [f"document {i}: {'日本語のテキスト ' * (i % 7)} words {i * 31}" for i in range(200)]
    expected = [tok.encode(t).tolist() for t in texts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(tok.encode_list, texts)) == expected
