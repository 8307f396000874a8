"""Replay upstream test vectors against either backend.

A vector record is ``{"id", "fn", "args", "expected"}`` as in ``shared/vectors/<family>/``.
:func:`replay` calls the matching compat function and returns its result encoded the way
the vector files encode values, so that a pass means exactly
``json.loads(json.dumps(actual)) == record["expected"]`` (see :func:`matches`).

Encodings (``specs/ragflow.md`` §0, ``specs/dify.md`` §10, ``vectors/voltagent/README.md``):

* special floats ``{"__float__": "nan" | "inf" | "-inf"}``, bytes ``{"__bytes__": latin-1}``,
  tuples ``{"__tuple__": [...]}``, fresh objects ``{"__obj__": "list" | "dict" | "object"}``;
* errors: RAGFlow ``{"__raises__": class, "message"}``, Dify ``{"error": class, "message"}``,
  VoltAgent ``{"error": message}``; only the class (or, for VoltAgent, the presence of an
  error) is compared.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from ._validate import require_choice

__all__ = ["FAMILIES", "decode", "encode", "encode_error", "family_of", "matches", "replay"]

FAMILIES = ("ragflow", "dify", "voltagent")
_BACKENDS = ("native", "reference")
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_OBJECTS: dict[str, Callable[[], Any]] = {"list": list, "dict": dict, "object": object}

Handler = Callable[[Any, Mapping[str, Any]], Any]
"""``handler(module, args)``: calls the compat (or reference) ``module`` with a record's args."""


# -- value codec -------------------------------------------------------------------
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


# -- the replay registry ---------------------------------------------------------------
_REPLAYS: dict[str, tuple[str, Handler]] = {
    "num_tokens_from_string": ("ragflow", lambda m, a: m.num_tokens_from_string(a["text"])),
}


def family_of(record: Mapping[str, Any]) -> str:
    """The family whose compat surface replays ``record``.

    Raises:
        LookupError: no replay exists for the record's ``fn`` (its family is not built).
    """
    fn = record.get("fn")
    if fn not in _REPLAYS:
        raise LookupError(f"no replay for fn {fn!r}; its family is not built yet")
    return _REPLAYS[fn][0]


def replay(record: Mapping[str, Any], backend: str = "native") -> Any:
    """Runs ``record`` on ``backend`` (``"native"`` or ``"reference"``) and returns the
    result encoded as the vector files encode values (an exception becomes an error record).
    """
    require_choice("backend", backend, _BACKENDS)
    family = family_of(record)
    _, handler = _REPLAYS[record["fn"]]
    package = "compat" if backend == "native" else "reference"
    module = importlib.import_module(f"ferrochunk.{package}.{family}")
    try:
        result = handler(module, record["args"])
    except Exception as exc:
        return encode_error(family, exc)
    return encode(result)


def _error_key(family: str, value: Any) -> Any:
    """What is compared of an error record, or ``None`` if ``value`` is no error record."""
    if not isinstance(value, dict):
        return None
    if family == "ragflow" and "__raises__" in value:
        return value["__raises__"]
    if family == "dify" and set(value) == {"error", "message"}:
        return value["error"]
    if family == "voltagent" and set(value) == {"error"}:
        return "error"
    return None


def matches(record: Mapping[str, Any], actual: Any) -> bool:
    """True when ``actual`` (from :func:`replay`) reproduces ``record["expected"]``.

    Values compare exactly after a JSON round trip; error records compare by class.
    """
    expected = record["expected"]
    actual = json.loads(json.dumps(actual))
    family = family_of(record)
    expected_error = _error_key(family, expected)
    if expected_error is not None:
        return bool(_error_key(family, actual) == expected_error)
    return bool(actual == expected)
