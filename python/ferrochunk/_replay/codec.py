"""The value encodings of the vector files (see ``ferrochunk.testing``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_OBJECTS: dict[str, Callable[[], Any]] = {"list": list, "dict": dict, "object": object}


def decode(value: Any) -> Any:
    """Decodes the special argument encodings, recursively through lists and objects."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "__float__":
                return _FLOATS[inner]
            if key == "__bytes__":
                return inner.encode("latin-1")
            if key == "__tuple__":
                return tuple(decode(v) for v in inner)
            if key == "__obj__":
                return _OBJECTS[inner]()
        return {k: decode(v) for k, v in value.items()}
    return value


def encode(value: Any) -> Any:
    """Encodes a result the way the vector files do: JSON-safe, special floats marked."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"__float__": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, bytes | bytearray):
        return {"__bytes__": bytes(value).decode("latin-1")}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def encode_error(family: str, exc: BaseException) -> dict[str, str]:
    """An exception as ``family``'s vector files record it."""
    if family == "ragflow":
        return {"__raises__": type(exc).__name__, "message": str(exc)}
    if family == "dify":
        return {"error": type(exc).__name__, "message": str(exc)}
    return {"error": str(exc)}
