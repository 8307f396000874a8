"""Bad input: a clear ferrochunk error naming the field and the value, on both backends."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ferrochunk as fc
from ferrochunk import _native
from ferrochunk.errors import (
    ConfigError,
    ConfigTypeError,
    FerrochunkError,
    InputTypeError,
    OffsetsError,
    UnknownTokenizerError,
)


def test_hierarchy_is_value_error_and_type_error():
    assert issubclass(FerrochunkError, ValueError)
    assert issubclass(ConfigTypeError, TypeError)
    assert issubclass(ConfigTypeError, ConfigError)
    assert issubclass(InputTypeError, TypeError)
    assert issubclass(InputTypeError, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"max_tokens": 0}, ConfigError, "max_tokens must be an integer >= 1, got 0"),
        ({"max_tokens": -5}, ConfigError, "got -5"),
        ({"max_tokens": math.nan}, ConfigError, "max_tokens must be an integer >= 1, got NaN"),
        ({"max_tokens": 3.5}, ConfigError, "got 3.5"),
        ({"max_tokens": "512"}, ConfigTypeError, "got '512' (str)"),
        ({"max_tokens": True}, ConfigTypeError, "got True (bool)"),
        (
            {"max_tokens": 4, "overlap_tokens": 4},
            ConfigError,
            "overlap_tokens must be < max_tokens (4), got 4",
        ),
        (
            {"max_tokens": 4, "overlap_tokens": -1},
            ConfigError,
            "overlap_tokens must be an integer >= 0, got -1",
        ),
        ({"max_tokens": 4, "overlap_tokens": math.nan}, ConfigError, "overlap_tokens"),
    ],
)
def test_token_windows_validation(kwargs, error, needle):
    with pytest.raises(error) as info:
        fc.TokenWindows(**kwargs)
    assert needle in str(info.value)


def test_config_is_frozen_and_normalised():
    config = fc.TokenWindows(np.int64(8), overlap_tokens=np.int32(2))
    assert type(config.max_tokens) is int
    assert config.overlap_tokens == 2
    with pytest.raises(AttributeError):
        config.max_tokens = 4  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'overlap'"):
        fc.TokenWindows(8, overlap=2)  # type: ignore[call-arg]


@pytest.mark.parametrize("text", [None, 5, b"bytes", ["a"]])
def test_non_str_text(backend, text):
    with pytest.raises(InputTypeError, match="text must be a str"):
        fc.chunk(text, fc.TokenWindows(8), backend=backend)  # type: ignore[arg-type]


def test_bad_entry_point_arguments():
    with pytest.raises(ConfigTypeError, match="config must be one of TokenWindows"):
        fc.chunk("x", {"max_tokens": 8})  # type: ignore[arg-type]
    with pytest.raises(
        ConfigError, match="backend must be one of 'native', 'reference', got 'gpu'"
    ):
        fc.chunk("x", fc.TokenWindows(8), backend="gpu")
    with pytest.raises(UnknownTokenizerError, match="'p50k'"):
        fc.chunk("x", fc.TokenWindows(8), tokenizer="p50k")
    with pytest.raises(UnknownTokenizerError):
        fc.chunk("x", fc.TokenWindows(8), tokenizer=42)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match="texts must be a sequence"):
        fc.chunk_many("abc", fc.TokenWindows(8))
    with pytest.raises(InputTypeError, match=r"texts\[1\] must be a str"):
        fc.chunk_many(["a", None], fc.TokenWindows(8))  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="threads must be an integer >= 1, got 0"):
        fc.chunk_many(["a"], fc.TokenWindows(8), threads=0)


def _windows(max_tokens: int, overlap_tokens: int) -> object:
    """A TokenWindows as the core reads it (by attribute name), without Python's checks."""
    from types import SimpleNamespace

    return SimpleNamespace(_native="windows", max_tokens=max_tokens, overlap_tokens=overlap_tokens)


def test_rust_raises_the_same_classes():
    """The core validates too; its errors arrive as ferrochunk.errors classes, never panics."""
    with pytest.raises(ConfigError, match="max_tokens must be an integer >= 1, got 0"):
        _native.chunk("abc", _windows(0, 0), encoding="cl100k")
    with pytest.raises(ConfigError, match="overlap_tokens"):
        _native.chunk("abc", _windows(4, 9), encoding="cl100k")
    with pytest.raises(UnknownTokenizerError, match="gpt2"):
        _native.count("gpt2", "abc")
    with pytest.raises(OffsetsError, match=r"offsets\[1\] = 0"):
        _native.chunk("abcd", _windows(4, 0), starts=np.array([2, 0], dtype=np.uint32))
    with pytest.raises(OffsetsError, match="past the end"):
        _native.char_to_byte_offsets("é", np.array([0, 2], dtype=np.uint64))
    with pytest.raises(ConfigError, match="threads"):
        _native.count_batch("cl100k", ["a"], 0)


def test_huge_and_degenerate_inputs_work():
    text = "a" * 5_000_000  # one 5 MB run with no pre-tokenizer break
    spans = fc.chunk_spans(text, fc.TokenWindows(512))
    assert spans[-1, 3] == len(text)
    assert spans[0, 2] == 0
    assert fc.chunk("\n" * 100_000, fc.TokenWindows(7))[-1].char_end == 100_000


def test_a_panic_arrives_as_internal_error():
    from ferrochunk.errors import InternalError

    with pytest.raises(InternalError, match=r"ferrochunk\._native\._debug_panic"):
        _native._debug_panic()
    with pytest.raises(Exception, match="deliberate") as info:  # not so a PanicException
        _native._debug_panic()
    assert isinstance(info.value, RuntimeError)
    assert not isinstance(info.value, ValueError)


def test_malformed_data_at_the_boundary_is_a_typed_error():
    spec = fc.DelimiterMerge(4, delimiters=("\n",))
    starts = np.array([0, 0], dtype=np.uint32)
    with pytest.raises(OffsetsError, match="more pieces"):
        _native.chunk("a\nb\nc", spec, starts=starts, counts=np.array([1, 1], dtype=np.uint32))
    with pytest.raises(OffsetsError, match="more token lists"):
        _native.chunk("a", spec, starts=starts, counts=np.array([1, 1], dtype=np.uint32))
    with pytest.raises(OffsetsError, match="past the"):
        _native.chunk("ab", spec, starts=starts[:1], counts=np.array([5], dtype=np.uint32))
    with pytest.raises(OffsetsError, match="shorter than the array"):
        _native.chunk_arrow(
            np.zeros(4, dtype=np.uint8),
            np.array([0, 2], dtype=np.int32),
            None,
            0,
            3,
            fc.TokenWindows(4),
            "cl100k",
        )
    with pytest.raises(OffsetsError, match="leave the"):
        _native.chunk_arrow(
            np.zeros(4, dtype=np.uint8),
            np.array([0, 9], dtype=np.int32),
            None,
            0,
            1,
            fc.TokenWindows(4),
            "cl100k",
        )
    stream = _native.Stream(fc.TokenWindows(4), "cl100k")
    stream.finish()
    with pytest.raises(ConfigError, match="no input after finish"):
        stream.push("more")
    hexagons = _windows(3, 0)
    hexagons._native = "hexagons"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match='unknown native config kind "hexagons"'):
        _native.chunk("a", hexagons, encoding="cl100k")


def test_configs_cross_to_rust_by_attribute_name():
    """The core reads a config's fields by name: an object that is not a config, or a config
    whose field is missing, fails naming what it lacks; it is never read by position."""

    class Impostor:
        _native = "windows"
        max_tokens = 4

    with pytest.raises(AttributeError, match="overlap_tokens"):
        _native.chunk("one two three", Impostor(), encoding="cl100k")

    class Unknown:
        _native = "sideways"

    with pytest.raises(ValueError, match="sideways"):
        _native.chunk("one two three", Unknown(), encoding="cl100k")
    with pytest.raises(AttributeError, match="_native"):
        _native.chunk("one two three", ("windows", 4, 0), encoding="cl100k")

    class Duck:
        _native = "windows"
        max_tokens = 2
        overlap_tokens = 0

    native = _native.chunk("one two three", Duck(), encoding="cl100k")
    assert native.texts == ["one two", " three"]
