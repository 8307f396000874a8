"""The bad-input matrix: every field, entry point and tokenizer misuse gets a typed error.

Each case expects a ``ferrochunk.errors`` class whose message names the field (or, on the
compat face, what upstream raises), and the native and reference backends agree.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

import ferrochunk as fc
from ferrochunk.cli import main
from ferrochunk.errors import (
    ConfigError,
    FerrochunkError,
    InputTypeError,
    OffsetsError,
    TokenizerError,
)

# -- config fields ---------------------------------------------------------------------

BAD_NUMBERS: dict[str, Any] = {
    "str": "8",
    "None": None,
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "negative": -3,
    "zero": 0,
    "huge": 10**400,
    "bool": True,
    "float": 2.5,
    "Decimal": Decimal("2.5"),
    "list": [8],
    "numpy array": np.array([8, 9]),
}

# (config factory taking the field's value, the field's name in messages, the bad values
# that a valid count would reject; 0 is valid for overlaps)
INT_FIELDS: list[tuple[str, Any, str]] = [
    ("TokenWindows.max_tokens", lambda v: fc.TokenWindows(v), "max_tokens"),
    (
        "TokenWindows.overlap_tokens",
        lambda v: fc.TokenWindows(8, overlap_tokens=v),
        "overlap_tokens",
    ),
    ("Recursive.max_tokens", lambda v: fc.Recursive(v), "max_tokens"),
    ("Recursive.overlap_tokens", lambda v: fc.Recursive(8, overlap_tokens=v), "overlap_tokens"),
    ("DelimiterMerge.token_size", lambda v: fc.DelimiterMerge(v), "token_size"),
    ("SentenceWindows.max_tokens", lambda v: fc.SentenceWindows(v), "max_tokens"),
    ("Markdown.max_tokens", lambda v: fc.Markdown(v), "max_tokens"),
    ("Markdown.overlap_tokens", lambda v: fc.Markdown(64, overlap_tokens=v), "overlap_tokens"),
]
OVERLAP_ZERO_OK = {
    "TokenWindows.overlap_tokens",
    "Recursive.overlap_tokens",
    "Markdown.overlap_tokens",
}


@pytest.mark.parametrize("value_name", list(BAD_NUMBERS))
@pytest.mark.parametrize(("name", "build", "field"), INT_FIELDS, ids=[f[0] for f in INT_FIELDS])
def test_count_fields(name, build, field, value_name):
    value = BAD_NUMBERS[value_name]
    if name in OVERLAP_ZERO_OK and value_name == "zero":
        assert build(value) is not None
        return
    with pytest.raises(FerrochunkError, match=field):
        build(value)


@pytest.mark.parametrize("value", [np.int64(3), np.uint16(3), 3])
@pytest.mark.parametrize(("name", "build", "field"), INT_FIELDS, ids=[f[0] for f in INT_FIELDS])
def test_count_fields_accept_integers(name, build, field, value):
    if name == "Markdown.max_tokens":
        value = value * 8  # its minimum is 16; the same integer types
    config = build(value)
    assert type(getattr(config, field.split(".")[-1])) is int


RATIO_FIELDS = [
    ("safety_margin", lambda v: fc.SentenceWindows(64, safety_margin=v)),
    ("overlap_ratio", lambda v: fc.SentenceWindows(64, overlap_ratio=v)),
]
BAD_RATIOS = {**BAD_NUMBERS, "two": 2.0, "negative float": -0.5, "zero": 0.0}


@pytest.mark.parametrize("value_name", list(BAD_RATIOS))
@pytest.mark.parametrize(("field", "build"), RATIO_FIELDS, ids=[f[0] for f in RATIO_FIELDS])
def test_ratio_fields(field, build, value_name):
    value = BAD_RATIOS[value_name]
    if field == "overlap_ratio" and value_name == "zero":
        assert build(value).overlap_tokens == 0
        return
    if value_name in ("float", "Decimal"):  # 2.5 is out of range too
        pass
    with pytest.raises(FerrochunkError, match=field):
        build(value)


BAD_STRINGS: dict[str, Any] = {
    "None": None,
    "int": 3,
    "bytes": b"\n",
    "bare str": "\n",
    "empty entry": ("",),
    "surrogate": ("\ud800",),
    "non-str entry": ("\n", 5),
    "numpy array": np.array(["\n"]),
}
STRING_FIELDS = [
    ("delimiters", lambda v: fc.DelimiterMerge(8, delimiters=v)),
    ("hard_delimiters", lambda v: fc.DelimiterMerge(8, hard_delimiters=v)),
    ("child_delimiters", lambda v: fc.DelimiterMerge(8, child_delimiters=v)),
    ("separators", lambda v: fc.Recursive(8, separators=v)),
    ("break_classes", lambda v: fc.SentenceWindows(64, break_classes=v)),
]
# A few are fine for some fields: an empty separator means "characters".
ACCEPTED = {("separators", "empty entry")}


@pytest.mark.parametrize("value_name", list(BAD_STRINGS))
@pytest.mark.parametrize(("field", "build"), STRING_FIELDS, ids=[f[0] for f in STRING_FIELDS])
def test_string_list_fields(field, build, value_name):
    value = BAD_STRINGS[value_name]
    if (field, value_name) in ACCEPTED:
        assert build(value) is not None
        return
    with pytest.raises(FerrochunkError, match=field):
        build(value)


SCALAR_FIELDS: list[tuple[str, Any, Any]] = [
    (
        "strategy",
        lambda v: fc.DelimiterMerge(8, strategy=v),
        ["sideways", 1, None, np.array(["x", "y"])],
    ),
    ("joiner", lambda v: fc.DelimiterMerge(8, joiner=v), [1, b"\n", ["\n"], "\udc80"]),
    ("fixed_separator", lambda v: fc.Recursive(8, fixed_separator=v), [1, b"x", "\ud800"]),
    (
        "keep_separator",
        lambda v: fc.Recursive(8, keep_separator=v),
        ["middle", None, 1, np.array(["end"])],
    ),
    (
        "parent",
        lambda v: fc.ParentChild(v, child=fc.Recursive(4)),
        ["paragraph", None, 4, np.array(["full-doc", "x"])],
    ),
    (
        "child",
        lambda v: fc.ParentChild("full-doc", child=v),
        [None, "full-doc", fc.TokenWindows(4)],
    ),
    ("tokenizer", lambda v: fc.SentenceWindows(64, tokenizer=v), [4, b"cl100k", object()]),
    ("remove_extra_spaces", lambda v: fc.CleanRules(remove_extra_spaces=v), [1, "yes", None]),
    ("overlap", lambda v: fc.DelimiterMerge(8, overlap=v), [10**400, -(10**400)]),
]
SCALAR_CASES = [(f, b, v) for f, b, values in SCALAR_FIELDS for v in values]


@pytest.mark.parametrize(
    ("field", "build", "value"),
    SCALAR_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(SCALAR_CASES)],
)
def test_scalar_fields(field, build, value):
    with pytest.raises(FerrochunkError, match=field):
        build(value)


# -- entry points ----------------------------------------------------------------------

CONFIG = fc.TokenWindows(8)
BAD_TEXTS = {"bytes": b"text", "None": None, "list": ["text"], "int": 3, "numpy str": np.str_}


class Text(str):
    """A str subclass: accepted as the str it is."""


ENTRY_POINTS: dict[str, Any] = {
    "chunk": lambda t, b: fc.chunk(t, CONFIG, backend=b),
    "chunk_spans": lambda t, b: fc.chunk_spans(t, CONFIG, backend=b),
    "chunk_many": lambda t, b: fc.chunk_many([t], CONFIG),
    "chunk_stream": lambda t, b: list(fc.chunk_stream([t], CONFIG)),
    "chunk_items": lambda t, b: fc.chunk_items([t], CONFIG, backend=b),
    "chunk cleaned": lambda t, b: fc.chunk(t, CONFIG, backend=b, clean=fc.CleanRules()),
    "count": lambda t, b: fc.Tokenizer.cl100k().count(t),
    "encode": lambda t, b: fc.Tokenizer.o200k().encode(t),
}


@pytest.mark.parametrize("backend", ["native", "reference"])
@pytest.mark.parametrize("text_name", list(BAD_TEXTS))
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_bad_text_types(entry, text_name, backend):
    with pytest.raises(InputTypeError):
        ENTRY_POINTS[entry](BAD_TEXTS[text_name], backend)


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_str_subclasses_are_str(entry):
    text = "A str subclass, chunked like the str it is."
    got, want = ENTRY_POINTS[entry](Text(text), "native"), ENTRY_POINTS[entry](text, "native")
    if isinstance(want, np.ndarray):
        assert np.array_equal(got, want)
    else:
        assert got == want


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: fc.chunk("x", CONFIG, backend="gpu"), ConfigError),
        (lambda: fc.chunk("x", {"max_tokens": 8}), ConfigError),
        (lambda: fc.chunk("x", CONFIG, tokenizer="gpt2"), TokenizerError),
        (lambda: fc.chunk("x", CONFIG, tokenizer=4), TokenizerError),
        (lambda: fc.chunk("x", CONFIG, clean={"remove_urls_emails": True}), ConfigError),
        (lambda: fc.chunk_many("text", CONFIG), InputTypeError),
        (lambda: fc.chunk_many(["a", 5], CONFIG), InputTypeError),
        (lambda: fc.chunk_many(["a"], CONFIG, threads=0), ConfigError),
        (lambda: fc.chunk_many(["a"], CONFIG, threads=-1), ConfigError),
        (lambda: fc.chunk_many(["a"], CONFIG, threads=1.5), ConfigError),
        (lambda: fc.chunk_many(["a"], CONFIG, threads="2"), ConfigError),
        (lambda: fc.chunk_stream(5, CONFIG), InputTypeError),
        (lambda: list(fc.chunk_stream([b"a"], CONFIG)), InputTypeError),
        (lambda: fc.chunk_file(5, CONFIG), InputTypeError),
        (lambda: fc.chunk_file("x", CONFIG, buffer_bytes=0), ConfigError),
        (lambda: fc.chunk_file("x", CONFIG, encoding="klingon"), ConfigError),
        (lambda: fc.chunk_file("x", CONFIG, encoding=5), ConfigError),
        (lambda: fc.chunk_items("text", CONFIG), InputTypeError),
        (lambda: fc.chunk_items([{"body": "x"}], CONFIG), InputTypeError),
        (lambda: fc.chunk_items([{"text": 5}], CONFIG), InputTypeError),
        (lambda: fc.Tokenizer.cl100k().count_batch("text"), InputTypeError),
        (lambda: fc.Tokenizer.cl100k().count_batch(["a"], batch_size=0), ConfigError),
        (lambda: fc.Tokenizer.from_name("gpt2"), TokenizerError),
        (lambda: fc.Tokenizer.from_tiktoken(object()), TokenizerError),
        (lambda: fc.Tokenizer.from_huggingface(object()), TokenizerError),
        (lambda: fc.Tokenizer.from_callable(5), TokenizerError),
    ],
)
def test_entry_point_arguments(call, error):
    with pytest.raises(error):
        call()


# -- misbehaving tokenizers -------------------------------------------------------------


def _callable(result: Any) -> fc.Tokenizer:
    return fc.Tokenizer.from_callable(lambda text: result() if callable(result) else result)


def _raises() -> Any:
    raise KeyError("vocabulary")


BAD_TOKENIZERS: dict[str, tuple[Any, type[Exception]]] = {
    "not a tuple": ([1, 2], OffsetsError),
    "three items": (([1], [0], [1]), OffsetsError),
    "unequal lengths": (([1, 2], [0]), OffsetsError),
    "decreasing starts": (([1, 2, 3], [0, 5, 2]), OffsetsError),
    "past the end": (([1, 2], [0, 99]), OffsetsError),
    "negative start": (([1, 2], [0, -1]), OffsetsError),
    "float starts": (([1, 2], [0.0, 1.5]), OffsetsError),
    "float array": ((np.array([1.0]), np.array([0.0])), OffsetsError),
    "2-D array": ((np.zeros((2, 2), dtype=int), np.zeros((2, 2), dtype=int)), OffsetsError),
    "strings": ((["a"], ["0"]), OffsetsError),
    "None offsets": (([1], None), OffsetsError),
    "ids over uint32": (([2**40], [0]), OffsetsError),
    "negative id": (([-1], [0]), OffsetsError),
    "raises": (_raises, TokenizerError),
}


@pytest.mark.parametrize("backend", ["native", "reference"])
@pytest.mark.parametrize(
    "config",
    [fc.TokenWindows(4), fc.Recursive(4), fc.SentenceWindows(8), fc.DelimiterMerge(4)],
    ids=lambda c: type(c).__name__,
)
@pytest.mark.parametrize("case", list(BAD_TOKENIZERS))
def test_misbehaving_tokenizers(case, config, backend):
    result, error = BAD_TOKENIZERS[case]
    with pytest.raises(error):
        fc.chunk("some text to cut", config, tokenizer=_callable(result), backend=backend)


def test_generators_are_sequences():
    tok = fc.Tokenizer.from_callable(lambda t: ((i for i in range(len(t))), iter(range(len(t)))))
    assert fc.chunk("abcdef", fc.TokenWindows(2), tokenizer=tok) == fc.chunk(
        "abcdef", fc.TokenWindows(2), tokenizer=tok, backend="reference"
    )


def test_tokenizer_adapters_reject_impostors():
    class HalfTiktoken:
        name = "x"
        max_token_value = 10**12

        def encode_ordinary(self, text):
            return [1]

        def decode_single_token_bytes(self, i):
            return b"a"

    with pytest.raises(TokenizerError, match="max_token_value"):
        fc.chunk("abc", CONFIG, tokenizer=fc.Tokenizer.from_tiktoken(HalfTiktoken()))

    class NotAnEncoding:
        def encode(self, text, add_special_tokens=False):
            return 5

    # Its special tokens cannot be counted: that raises, rather than reserving none.
    with pytest.raises(ConfigError, match="cannot count the special tokens"):
        fc.Tokenizer.from_huggingface(NotAnEncoding())
    plain = fc.Tokenizer.from_huggingface(NotAnEncoding(), reserve_special_tokens=False)
    with pytest.raises(TokenizerError, match="Encoding with ids"):
        fc.chunk("abc", CONFIG, tokenizer=plain)


# -- rules ------------------------------------------------------------------------------

BAD_PROCESS_RULES: list[tuple[Any, str]] = [
    (None, "process_rule"),
    ([], "process_rule"),
    ({"mode": "fancy"}, "mode"),
    ({"mode": "custom"}, "rules"),
    ({"mode": "custom", "rules": {"segmentation": {"max_tokens": 10}}}, "max_tokens"),
    ({"mode": "custom", "rules": {"segmentation": {"max_tokens": 5000}}}, "max_tokens"),
    ({"mode": "custom", "rules": {"segmentation": {"max_tokens": "500"}}}, "max_tokens"),
    (
        {"mode": "custom", "rules": {"segmentation": {"max_tokens": 500, "chunk_overlap": 500}}},
        "chunk_overlap",
    ),
    (
        {"mode": "custom", "rules": {"segmentation": {"max_tokens": 500, "separator": ""}}},
        "separator",
    ),
    ({"mode": "custom", "rules": {"segmentation": [500]}}, "segmentation"),
    (
        {
            "mode": "custom",
            "rules": {"pre_processing_rules": "all", "segmentation": {"max_tokens": 500}},
        },
        "pre_processing_rules",
    ),
    (
        {
            "mode": "custom",
            "rules": {
                "pre_processing_rules": [{"id": "x", "enabled": 1}],
                "segmentation": {"max_tokens": 500},
            },
        },
        "enabled",
    ),
    (
        {
            "mode": "hierarchical",
            "rules": {"parent_mode": "chapter", "subchunk_segmentation": {"max_tokens": 100}},
        },
        "parent_mode",
    ),
    ({"mode": "hierarchical", "rules": {"parent_mode": "full-doc"}}, "subchunk_segmentation"),
    # Values from numpy or JSON that are not what a field holds: a ferrochunk error naming
    # the field, never a bare TypeError or ValueError from a comparison or a dict key.
    ({"mode": np.array(["custom"])}, r"process_rule\.mode"),
    (
        {
            "mode": "hierarchical",
            "rules": {
                "parent_mode": np.array(["paragraph", "full-doc"]),
                "subchunk_segmentation": {"max_tokens": 100},
            },
        },
        "parent_mode",
    ),
    (
        {
            "mode": "custom",
            "rules": {
                "pre_processing_rules": [{"id": ["remove_urls_emails"], "enabled": True}],
                "segmentation": {"max_tokens": 100},
            },
        },
        r"pre_processing_rules\[0\]\.id",
    ),
    (
        {
            "mode": "custom",
            "rules": {
                "pre_processing_rules": [{"id": {"a": 1}, "enabled": True}],
                "segmentation": {"max_tokens": 100},
            },
        },
        r"pre_processing_rules\[0\]\.id",
    ),
    (
        {"mode": "custom", "rules": {"segmentation": {"max_tokens": np.array([100, 200])}}},
        "max_tokens",
    ),
]


@pytest.mark.parametrize(("rule", "field"), BAD_PROCESS_RULES)
def test_malformed_process_rules(rule, field):
    with pytest.raises(FerrochunkError, match=field):
        fc.from_process_rule(rule)


BAD_PARSER_CONFIGS: list[tuple[Any, str]] = [
    ("512", "parser_config"),
    ({"chunk_token_num": 0}, "chunk_token_num"),
    ({"chunk_token_num": "512"}, "chunk_token_num"),
    ({"chunk_token_num": 512.5}, "chunk_token_num"),
    ({"delimiter": 5}, "delimiter"),
    ({"delimiter": None}, "delimiter"),
    ({"overlapped_percent": "10"}, "overlapped_percent"),
    ({"overlapped_percent": math.nan}, "overlapped_percent"),
    ({"overlapped_percent": 100}, "overlapped_percent"),
    ({"overlapped_percent": -1}, "overlapped_percent"),
    ({"overlapped_percent": True}, "overlapped_percent"),
    ({"children_delimiter": 3}, "children_delimiter"),
]


@pytest.mark.parametrize(("config", "field"), BAD_PARSER_CONFIGS)
def test_malformed_parser_configs(config, field):
    with pytest.raises(FerrochunkError, match=field):
        fc.from_parser_config(config)


BAD_MAPPINGS: list[tuple[Any, str]] = [
    ({"chunker": "laser"}, "chunker"),
    ({"chunker": "windows"}, "max_tokens"),
    ({"chunker": "windows", "max_tokens": 8, "colour": "red"}, "colour"),
    ({"chunker": "parent-child", "child": None}, "child"),
    (
        {
            "chunker": "parent-child",
            "parent": {"chunker": "windows", "max_tokens": 8},
            "child": {"max_tokens": 4},
        },
        "recursive",
    ),
    ({"nothing": "here"}, "config"),
]


@pytest.mark.parametrize(("mapping", "field"), BAD_MAPPINGS)
def test_malformed_native_mappings(mapping, field):
    with pytest.raises(FerrochunkError, match=field):
        fc.config_from_mapping(mapping)


# -- the command line ---------------------------------------------------------------------

CLI_MISUSE = [
    ["chunk", "--max-tokens", "0"],
    ["chunk", "--max-tokens", "-5"],
    ["chunk", "--chunker", "windows", "--delimiter", ","],
    ["chunk", "--chunker", "sentence", "--overlap-ratio", "2"],
    ["chunk", "--chunker", "delimiter", "--overlap-tokens", "3"],
    ["chunk", "--format", "parquet"],
    ["chunk", "--encoding", "nope"],
    ["chunk", "--threads", "0"],
    ["chunk", "--config", "/nonexistent/config.toml"],
]


@pytest.mark.parametrize("argv", CLI_MISUSE, ids=[" ".join(a[1:]) for a in CLI_MISUSE])
def test_cli_misuse_exits_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ferrochunk: ")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv", [["chunk", "--chunker", "laser"], ["chunk", "--max-tokens", "x"], ["frobnicate"]]
)
def test_cli_argument_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_given_starts_without_piece_counts_are_refused_for_a_delimiter_contract():
    """A delimiter contract counts each piece's tokens: whole-text starts alone cannot
    say them, and nothing falls back to counting with another tokenizer."""
    import numpy as np

    from ferrochunk import _native

    spec = fc.DelimiterMerge(10)
    with pytest.raises(fc.errors.ConfigError, match="per-piece counts"):
        _native.chunk("one. two. three.", spec, starts=np.array([0, 4], dtype=np.uint32))
