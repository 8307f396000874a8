"""CleanRules (offsets stay in the original text) and from_process_rule (Dify's JSON)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ferrochunk as fc
from ferrochunk.errors import ConfigError, ConfigTypeError

ALL = fc.CleanRules(remove_extra_spaces=True, remove_urls_emails=True)
TEXT = st.lists(
    st.sampled_from(
        [
            "word ",
            "   ",
            "\n\n\n\n",
            "\x00",
            "<|",
            "|>",
            "https://x.io/a?b=1 ",
            "a.b@c.io ",
            "[doc](https://d.io/p)",
            "![pic](https://i.io/p.png)",
            "你好",
            "\t\t",
            "\u3000\u3000",
        ]
    ),
    max_size=30,
).map("".join)


@given(TEXT, st.sampled_from([fc.CleanRules(), ALL]))
def test_offsets_tile_the_original_and_backends_agree(text, rules):
    config = fc.Recursive(6)
    native = fc.chunk(text, config, clean=rules)
    assert native == fc.chunk(text, config, clean=rules, backend="reference")
    at = 0
    data = text.encode()
    for c in native:
        assert c.char_start >= at
        assert c.char_end >= c.char_start
        assert data[c.byte_start : c.byte_end].decode() == text[c.char_start : c.char_end]
        at = c.char_end
    if native:
        assert native[-1].char_end <= len(text)


def test_cleaning_rules(backend):
    text = (
        "Hello   world\x00 see https://x.com/a, mail a.b@c.io [doc](https://d.io/p)\n\n\n\nok <|x|>"
    )
    (chunk,) = fc.chunk(text, fc.Recursive(200), clean=ALL, backend=backend)
    assert chunk.text == "Hello world see  mail  [doc](https://d.io/p)\n\nok <x>"
    assert (chunk.char_start, chunk.char_end) == (0, len(text))
    (plain,) = fc.chunk(text, fc.Recursive(200), clean=fc.CleanRules(), backend=backend)
    assert plain.text == text.replace("\x00", "").replace("<|", "<").replace("|>", ">")


def test_parent_child_children_point_into_the_original():
    text = "Para   one.\n\nPara   two is here.\n\n"
    config = fc.ParentChild(fc.Recursive(6), child=fc.Recursive(3))
    for parent in fc.chunk(text, config, clean=ALL):
        for kid in parent.metadata["children"]:
            assert parent.char_start <= kid.char_start <= kid.char_end <= parent.char_end


def test_bad_clean_rules():
    with pytest.raises(ConfigTypeError, match="remove_extra_spaces"):
        fc.CleanRules(remove_extra_spaces="true")  # type: ignore[arg-type]
    with pytest.raises(ConfigTypeError, match="clean must be a CleanRules"):
        fc.chunk("x", fc.Recursive(5), clean={"remove_extra_spaces": True})  # type: ignore[arg-type]


def test_from_process_rule():
    config, clean = fc.from_process_rule({"mode": "automatic"})
    assert config == fc.Recursive(500, overlap_tokens=50, separators=("\n\n", "。", ". ", " ", ""))
    assert clean == fc.CleanRules(remove_extra_spaces=True)
    custom = {
        "mode": "custom",
        "rules": {
            "pre_processing_rules": [
                {"id": "remove_extra_spaces", "enabled": False},
                {"id": "remove_urls_emails", "enabled": True},
            ],
            "segmentation": {"separator": "\\n\\n", "max_tokens": 300, "chunk_overlap": 30},
        },
    }
    config, clean = fc.from_process_rule(custom)
    assert isinstance(config, fc.Recursive)
    assert (config.max_tokens, config.overlap_tokens, config.fixed_separator) == (300, 30, "\n\n")
    assert clean == fc.CleanRules(remove_urls_emails=True)
    hierarchical = {
        "mode": "hierarchical",
        "rules": {
            "parent_mode": "full-doc",
            "subchunk_segmentation": {"delimiter": "\\n", "max_tokens": 100},
        },
    }
    config, _ = fc.from_process_rule(hierarchical)
    assert isinstance(config, fc.ParentChild)
    assert config.parent == "full-doc"
    assert config.child.max_tokens == 100
    chunks = fc.chunk("line one\nline two", config)
    # The child's fixed separator ("\n") makes segments that are never merged.
    assert [k.text for k in chunks[0].metadata["children"]] == ["line one\n", "line two"]


@pytest.mark.parametrize(
    ("rule", "error", "needle"),
    [
        ({"mode": "manual"}, ConfigError, "process_rule.mode"),
        ([], ConfigTypeError, "process_rule must be an object"),
        ({"mode": "custom", "rules": None}, ConfigTypeError, "process_rule.rules"),
        (
            {"mode": "custom", "rules": {"segmentation": {"max_tokens": 49}}},
            ConfigError,
            "segmentation.max_tokens must be an integer >= 50, got 49",
        ),
        (
            {"mode": "custom", "rules": {"segmentation": {"max_tokens": 4001}}},
            ConfigError,
            "between 50 and 4000, got 4001",
        ),
        (
            {"mode": "custom", "rules": {"segmentation": {"max_tokens": "500"}}},
            ConfigTypeError,
            "segmentation.max_tokens",
        ),
        (
            {
                "mode": "custom",
                "rules": {"segmentation": {"max_tokens": 100, "chunk_overlap": 100}},
            },
            ConfigError,
            "chunk_overlap must be < max_tokens",
        ),
        (
            {"mode": "hierarchical", "rules": {"parent_mode": "page", "segmentation": {}}},
            ConfigError,
            "parent_mode",
        ),
        (
            {"mode": "custom", "rules": {"pre_processing_rules": [{"id": "x"}]}},
            ConfigTypeError,
            r"pre_processing_rules\[0\].enabled",
        ),
    ],
)
def test_bad_process_rules(rule, error, needle):
    with pytest.raises(error, match=needle):
        fc.from_process_rule(rule)


CLEAN_PIECES = st.sampled_from(
    [
        "a",
        "é",
        "你",
        " ",
        "\t",
        "\u3000",
        "\u00a0",
        "\n",
        "<",
        "|",
        ">",
        "\x01",
        "\x7f",
        "\ufffe",
        "\ud800",
        "x@y.io",
        "@",
        ".",
        "https://u.io/p",
        "http://",
        "[t](https://l.io)",
        "![i](https://m.io/x.png)",
        ")",
        "]",
        "(",
    ]
)


@given(
    st.lists(CLEAN_PIECES, max_size=40).map("".join),
    st.booleans(),
    st.booleans(),
)
def test_rust_cleaning_equals_the_reference(text, spaces, urls):
    """The pipeline cleans in Rust (`rust/text/clean.rs`); the reference with Python's `re`
    and numpy. Same text, same original span for every cleaned character."""
    import numpy as np

    from ferrochunk import _cleaning
    from ferrochunk.reference import clean

    rules = fc.CleanRules(remove_extra_spaces=spaces, remove_urls_emails=urls)
    ours, (starts, ends) = _cleaning.native_clean(text, rules)
    theirs, (ref_starts, ref_ends) = clean.clean(text, rules)
    assert ours == theirs
    assert np.array_equal(starts, ref_starts)
    assert np.array_equal(ends, ref_ends)


STREAM_TEXT = st.lists(
    st.one_of(CLEAN_PIECES, st.sampled_from(["word ", "x\n", "a b ", "[a b](https://c.d/e f) "])),
    max_size=60,
).map("".join)
STREAM_CONFIGS = st.sampled_from(
    [
        fc.TokenWindows(5, overlap_tokens=1),
        fc.Recursive(6),
        fc.DelimiterMerge(6, delimiters=("\n", " ")),
        fc.ParentChild(fc.Recursive(12), child=fc.Recursive(4)),
        fc.Markdown(16),
    ]
)


@given(
    STREAM_TEXT,
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    st.booleans(),
    st.booleans(),
    STREAM_CONFIGS,
)
def test_a_cleaned_stream_equals_the_cleaned_text(text, cuts, spaces, urls, config):
    """`chunk_stream(..., clean=)` cleans as the pieces arrive, cut anywhere (inside words,
    links and URLs too), and gives `chunk(..., clean=)`'s chunks, offsets in the original."""
    if isinstance(config, fc.Markdown):
        spaces = False  # refused for Markdown (it would flatten code)
    rules = fc.CleanRules(remove_extra_spaces=spaces, remove_urls_emails=urls)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    whole = fc.chunk(text, config, clean=rules)
    assert list(fc.chunk_stream(pieces, config, clean=rules)) == whole


def test_chunk_file_cleans_as_it_reads(tmp_path):
    text = ("see https://x.io/a and [t](https://l.io/p)   \n\n\n\nnext\x01 line " * 400) + "end"
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    rules = fc.CleanRules(remove_extra_spaces=True, remove_urls_emails=True)
    config = fc.Recursive(32, overlap_tokens=4)
    streamed = list(fc.chunk_file(path, config, clean=rules, buffer_bytes=97))
    assert streamed == fc.chunk(text, config, clean=rules)
    data = path.read_bytes()
    for c in streamed[:50]:
        assert data[c.byte_start : c.byte_end].decode() == text[c.char_start : c.char_end]
    with pytest.raises(ConfigTypeError, match="clean must be a CleanRules"):
        list(fc.chunk_file(path, config, clean="yes"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="remove_extra_spaces"):
        list(fc.chunk_stream(["x"], fc.Markdown(64), clean=rules))
