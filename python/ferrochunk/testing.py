"""Replay upstream test vectors against either backend.

A vector record is ``{"id", "fn", "args", "expected"}`` as in ``tests/data/vectors/<family>/``.
:func:`replay` calls the matching compat function and returns its result encoded the way
the vector files encode values, so that a pass means exactly
``json.loads(json.dumps(actual)) == record["expected"]`` (see :func:`matches`).

Encodings (as the upstream vectors record them; ``tests/data/vectors/voltagent/README.md``):

* special floats ``{"__float__": "nan" | "inf" | "-inf"}``, bytes ``{"__bytes__": latin-1}``,
  tuples ``{"__tuple__": [...]}``, fresh objects ``{"__obj__": "list" | "dict" | "object"}``;
* errors: RAGFlow ``{"__raises__": class, "message"}``, Dify ``{"error": class, "message"}``,
  VoltAgent ``{"error": message}``; only the class (or, for VoltAgent, the presence of an
  error) is compared.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from ._replay import dify, ragflow, voltagent
from ._replay.codec import decode, encode, encode_error
from ._support.validate import require_choice

__all__ = ["FAMILIES", "decode", "encode", "encode_error", "family_of", "matches", "replay"]

FAMILIES = ("ragflow", "dify", "voltagent")
_BACKENDS = ("native", "reference")

Handler = Callable[[Any, Mapping[str, Any]], Any]
"""``handler(module, args)``: calls the compat (or reference) ``module`` with a record's args."""


# -- the replay registry ---------------------------------------------------------------
_REPLAYS: dict[str, tuple[str, Handler]] = {
    **{fn: ("ragflow", handler) for fn, handler in ragflow.HANDLERS.items()},
    **{fn: ("dify", handler) for fn, handler in dify.HANDLERS.items()},
    **{fn: ("voltagent", handler) for fn, handler in voltagent.HANDLERS.items()},
}
"""Keyed by record ``fn``, or by ``fn@variant`` where a record's ``variant`` (VoltAgent's
``patched-token-overlap``) changes the call; a variant without its own key uses ``fn``."""


def _replay_key(record: Mapping[str, Any]) -> Any:
    fn = record.get("fn")
    variant = record.get("variant")
    if variant is not None and f"{fn}@{variant}" in _REPLAYS:
        return f"{fn}@{variant}"
    return fn


def family_of(record: Mapping[str, Any]) -> str:
    """The family whose compat surface replays ``record``.

    Raises:
        LookupError: no replay exists for the record's ``fn`` (its family is not built).
    """
    key = _replay_key(record)
    if key not in _REPLAYS:
        raise LookupError(f"no replay for fn {record.get('fn')!r}; its family is not built yet")
    return _REPLAYS[key][0]


def replay(record: Mapping[str, Any], backend: str = "native") -> Any:
    """Runs ``record`` on ``backend`` (``"native"`` or ``"reference"``) and returns the
    result encoded as the vector files encode values (an exception becomes an error record).
    """
    require_choice("backend", backend, _BACKENDS)
    family = family_of(record)
    _, handler = _REPLAYS[_replay_key(record)]
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
