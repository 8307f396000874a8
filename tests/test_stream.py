"""chunk_stream and chunk_file: identical to chunk() on the joined text, at any split."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.errors import ConfigTypeError, InputDecodeError, InputTypeError

CONFIGS = [
    fc.TokenWindows(6, overlap_tokens=2),
    fc.Recursive(7, overlap_tokens=2),
    fc.Recursive(6, fixed_separator="\n\n", keep_separator="start"),
    fc.Recursive(7, overlap_tokens=2, boundaries="content"),
    fc.Recursive(9, fixed_separator="\n\n", keep_separator="start", boundaries="content"),
    fc.SentenceWindows(9, overlap_ratio=0.3),
    fc.DelimiterMerge(
        6,
        delimiters=("\n", "。", ". "),
        hard_delimiters=("##",),
        overlap=30,
        child_delimiters=(",",),
    ),
    fc.DelimiterMerge(5, delimiters=(" ",), strategy=fc.MergeStrategy.UNDER_CAP, joiner="|"),
    fc.ParentChild(fc.Recursive(12, overlap_tokens=1), child=fc.Recursive(5)),
    fc.ParentChild("full-doc", child=fc.Recursive(5, fixed_separator="\n")),
]
IDS = [f"{type(c).__name__}-{i}" for i, c in enumerate(CONFIGS)]

# Splits land mid-word, mid-token, between CR and LF, inside ZWJ sequences and CJK runs.
PARTS = st.sampled_from(
    [
        "one ",
        "two",
        "\r\n",
        "\r",
        "\n",
        "\n\n",
        "你好",
        "世界。",
        "👩‍👩‍👧",
        "😀",
        "é",
        "co",
        "de",
        ", ",
        ". ",
        "##",
        "  ",
        "\t",
        "don'",
        "t",
        "'ll",
        "123",
        "4567",
    ]
)
TEXT = st.lists(PARTS, max_size=40).map("".join)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces, at = [], 0
    for p in points:
        pieces.append(text[at:p])
        at = p
    pieces.append(text[at:])
    return pieces


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("tokenizer", ["cl100k", "o200k"])
@given(text=TEXT, cuts=st.lists(st.integers(0, 400), max_size=8))
def test_stream_equals_the_joined_text(config, tokenizer, text, cuts):
    whole = fc.chunk(text, config, tokenizer=tokenizer)
    streamed = list(fc.chunk_stream(_split(text, cuts), config, tokenizer=tokenizer))
    assert streamed == whole


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@given(text=TEXT, size=st.integers(1, 9))
def test_file_equals_the_text_at_any_buffer_size(config, text, size, tmp_path_factory):
    path = tmp_path_factory.mktemp("f") / "doc.txt"
    path.write_bytes(text.encode("utf-8"))  # buffers of 1-9 bytes split characters
    assert list(fc.chunk_file(path, config, buffer_bytes=size)) == fc.chunk(text, config)


def test_every_character_split_point_of_a_mixed_text():
    text = "Grüße, 世界!\r\n\r\nEmoji 👩‍👩‍👧 and don't stop.  Next\tline。最后"
    for config in CONFIGS:
        whole = fc.chunk(text, config)
        for cut in range(len(text) + 1):
            assert list(fc.chunk_stream([text[:cut], text[cut:]], config)) == whole


def test_file_offsets_index_the_file_as_stored(tmp_path):
    text = "line one\r\nline two\rline three\n" * 50
    path = tmp_path / "crlf.txt"
    path.write_bytes(text.encode())
    data = path.read_bytes()
    chunks = list(fc.chunk_file(path, fc.TokenWindows(7), buffer_bytes=13))
    assert "".join(c.text for c in chunks) == text
    for c in chunks:
        assert data[c.byte_start : c.byte_end].decode() == c.text


def test_other_encodings_decode_incrementally(tmp_path):
    text = "Grüße aus Köln — €5 " * 40
    path = tmp_path / "latin.txt"
    path.write_bytes(text.encode("cp1252"))
    chunks = list(fc.chunk_file(path, fc.TokenWindows(5), encoding="cp1252", buffer_bytes=7))
    assert chunks == fc.chunk(text, fc.TokenWindows(5))
    replaced = list(fc.chunk_file(path, fc.TokenWindows(5), errors="replace"))
    assert "".join(c.text for c in replaced) == text.encode("cp1252").decode("utf-8", "replace")


def test_an_undecodable_byte_reports_its_offset(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine text " * 10 + b"\xff rest")
    with pytest.raises(InputDecodeError) as info:
        list(fc.chunk_file(path, fc.TokenWindows(4), buffer_bytes=16))
    assert info.value.byte_offset == 100
    assert "100" in str(info.value)
    path.write_bytes("é".encode()[:1])  # the file ends inside a character
    with pytest.raises(InputDecodeError) as info:
        list(fc.chunk_file(path, fc.TokenWindows(4)))
    assert info.value.byte_offset == 0
    path.write_bytes(b"ok \xe9 latin")
    with pytest.raises(InputDecodeError) as info:
        list(fc.chunk_file(path, fc.TokenWindows(4), encoding="ascii"))
    assert info.value.byte_offset == 3


def test_progress_counts_bytes(tmp_path):
    path = tmp_path / "p.txt"
    path.write_bytes(b"abc " * 100)
    seen: list[int] = []
    list(fc.chunk_file(path, fc.TokenWindows(4), buffer_bytes=64, progress=seen.append))
    assert seen == [64, 128, 192, 256, 320, 384, 400]


def test_a_non_str_piece_names_its_index():
    with pytest.raises(InputTypeError, match=r"pieces\[2\] must be a str"):
        list(fc.chunk_stream(["a", "b", b"c"], fc.TokenWindows(4)))
    with pytest.raises(InputTypeError, match="pieces must be an iterable"):
        fc.chunk_stream("abc", fc.TokenWindows(4))
    with pytest.raises(ConfigTypeError, match="config must be one of"):
        fc.chunk_stream(["abc"], {"max_tokens": 4})


def test_an_error_in_the_source_propagates():
    def pieces():
        yield "one two three four five six "
        raise OSError("disk gone")

    stream = fc.chunk_stream(pieces(), fc.TokenWindows(2))
    with pytest.raises(OSError, match="disk gone"):
        list(stream)


def test_a_stopped_generator_releases_the_native_state():
    def pieces():
        while True:
            yield "word " * 100

    stream = fc.chunk_stream(pieces(), fc.TokenWindows(4))
    first = next(stream)
    assert first.index == 0
    frame = stream.gi_frame
    native = weakref.ref(frame.f_locals["stream"]) if frame and "stream" in frame.f_locals else None
    stream.close()
    del stream, frame
    gc.collect()
    assert native is None or native() is None


def test_surrogates_survive_a_stream():
    text = "a\ud800b c\udfffd " * 10
    config = fc.TokenWindows(3, overlap_tokens=1)
    whole = fc.chunk(text, config)
    assert "\ud800" in whole[0].text
    assert list(fc.chunk_stream([text[:5], text[5:11], text[11:]], config)) == whole


def test_python_tokenizers_see_the_joined_text():
    tok = fc.Tokenizer.from_callable(lambda t: (list(range(len(t))), list(range(len(t)))))
    text = "abcdefghij"
    assert list(fc.chunk_stream(["abc", "defg", "hij"], fc.TokenWindows(3), tokenizer=tok)) == (
        fc.chunk(text, fc.TokenWindows(3), tokenizer=tok)
    )


def test_chunk_many_clamps_threads():
    texts = ["one two three"] * 5
    expected = [fc.chunk(t, fc.TokenWindows(2)) for t in texts]
    assert fc.chunk_many(texts, fc.TokenWindows(2), threads=10**6) == expected
    assert fc.chunk_many(texts, fc.TokenWindows(2), threads=1) == expected


def test_chunk_many_on_threads_keeps_text_order():
    # Long and short texts mixed, so the background workers finish them out of order.
    texts = [("word " * (4000 if i % 5 == 0 else 3)) + str(i) for i in range(60)]
    texts[7] = "lone \ud800 surrogate, kept as it was"
    config = fc.Recursive(50, overlap_tokens=5)
    expected = [fc.chunk(t, config) for t in texts]
    assert fc.chunk_many(texts, config, threads=2) == expected
    assert fc.chunk_many(texts, config) == expected


def test_a_dropped_chunk_many_iterator_leaves_the_next_call_whole():
    from ferrochunk import _native

    spec = fc.TokenWindows(8)
    texts = ["one two three four five six seven eight nine ten " * 200] * 40
    batches = _native.chunk_many_iter(texts, spec, "cl100k_base", 2)
    first = next(batches)
    del batches
    gc.collect()
    # The pool is free for the next call, whose results are whole.
    again = list(_native.chunk_many_iter(texts[:3], spec, "cl100k_base", 2))
    assert len(again) == 3
    assert again[0].table.tolist() == first.table.tolist()
    assert again[0].spans.tolist() == first.spans.tolist()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_chunk_many_equals_chunk_for_every_config(config):
    texts = ["", "one two three. four, five six.\n\nseven", "你好，世界。" * 5]
    assert fc.chunk_many(texts, config) == [fc.chunk(t, config) for t in texts]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@given(text=TEXT, piece=st.integers(1, 40), lone=st.booleans())
def test_chunk_streams_a_long_text_with_the_same_chunks(config, text, piece, lone):
    """chunk() cuts a text past _STREAM_FROM characters as a stream of UTF-8 blocks (of
    character slices when it has a lone surrogate); shrinking the threshold sends these
    short texts that way, against the in-memory path, in blocks of a few bytes (each
    moved on to the end of a character)."""
    from ferrochunk import pipeline

    if lone:
        text += "\ud800 tail"  # a lone surrogate: the stream reads it as U+FFFD and restores it
    with pytest.MonkeyPatch.context() as m:
        m.setattr(pipeline, "_STREAM_FROM", 1 << 62)
        whole = fc.chunk(text, config)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(pipeline, "_STREAM_FROM", 0)
        m.setattr(pipeline, "_STREAM_PIECE", piece)
        m.setattr(pipeline, "_STREAM_BYTES", piece)
        assert fc.chunk(text, config) == whole


@pytest.mark.parametrize(
    ("start", "size", "field"),
    [(-1, 4, "start"), (9, 4, "start"), (2, 4, "start"), (0, 0, "size"), (0, -3, "size")],
)
def test_push_block_refuses_a_start_off_a_character_or_an_empty_size(start, size, field):
    from ferrochunk import _native

    stream = _native.Stream(fc.Recursive(8), "cl100k_base")
    text = "aé€b"  # 1 + 2 + 3 + 1 bytes: offset 2 is inside é
    with pytest.raises(fc.errors.ConfigError, match=rf"^{field} must be ") as e:
        stream.push_block(text, start, size)
    assert str(start if field == "start" else size) in str(e.value)
    # Nothing was pushed: the stream goes on as if the call had not been made.
    assert stream.bytes_seen == 0


def test_push_block_ends_on_a_character_and_says_where_the_next_starts():
    from ferrochunk import _native

    stream = _native.Stream(fc.Recursive(8), "cl100k_base")
    text = "aé€b"
    assert stream.push_block(text, 0, 2).next_start == 3  # 2 is inside é: runs on to 3
    assert stream.push_block(text, 3, 1).next_start == 6  # € is 3 bytes
    assert stream.push_block(text, 6, 100).next_start is None  # the last block
    assert stream.bytes_seen == len(text.encode())
