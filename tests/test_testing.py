"""The vector codec: every argument encoding decodes, results encode as the files do."""

from __future__ import annotations

import math

import pytest

from ferrochunk.testing import decode, encode, encode_error, matches, replay


def test_decode_special_encodings():
    value = decode(
        {
            "a": {"__float__": "nan"},
            "b": [{"__float__": "inf"}, {"__float__": "-inf"}],
            "c": {"__bytes__": "\u00ff\u0000x"},
            "d": {"__tuple__": [1, {"__tuple__": ["x", "y"]}]},
            "e": [{"__obj__": "list"}, {"__obj__": "dict"}, {"__obj__": "object"}],
            "f": {"plain": 1, "other": 2},
        }
    )
    assert math.isnan(value["a"])
    assert value["b"] == [math.inf, -math.inf]
    assert value["c"] == b"\xff\x00x"
    assert value["d"] == (1, ("x", "y"))
    assert isinstance(value["d"][1], tuple)
    lst, dct, obj = value["e"]
    assert lst == []
    assert dct == {}
    assert type(obj) is object
    assert value["f"] == {"plain": 1, "other": 2}


def test_encode_round_trips_with_decode():
    raw = {"x": [math.nan, math.inf, -math.inf, 1.5], "b": b"\x00\xfe", "t": (1, 2)}
    encoded = encode(raw)
    assert encoded["t"] == [1, 2]
    back = decode(encoded)
    assert math.isnan(back["x"][0])
    assert back["x"][1:] == [math.inf, -math.inf, 1.5]
    assert back["b"] == b"\x00\xfe"


def test_error_encodings_per_family():
    exc = ValueError("boom")
    assert encode_error("ragflow", exc) == {"__raises__": "ValueError", "message": "boom"}
    assert encode_error("dify", exc) == {"error": "ValueError", "message": "boom"}
    assert encode_error("voltagent", exc) == {"error": "boom"}


def test_matches_compares_values_exactly_and_errors_by_class():
    record = {"fn": "num_tokens_from_string", "args": {"text": "ab"}, "expected": 1}
    assert matches(record, 1)
    assert not matches(record, 2)
    raising = {**record, "expected": {"__raises__": "TypeError", "message": "upstream text"}}
    assert matches(raising, {"__raises__": "TypeError", "message": "different text"})
    assert not matches(raising, {"__raises__": "ValueError", "message": "upstream text"})
    assert not matches(raising, 0)


def test_replay_runs_both_backends():
    record = {"fn": "num_tokens_from_string", "args": {"text": "hello world"}, "expected": 2}
    assert replay(record, "native") == replay(record, "reference") == 2
    with pytest.raises(ValueError, match="backend"):
        replay(record, "gpu")
