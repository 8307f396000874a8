"""Chunker specs: a native config on one line, as ``eval`` and ``bench`` take it.

``NAME:FIELD=VALUE,FIELD=VALUE`` where ``NAME`` is a :data:`~ferrochunk.rules.CHUNKERS`
name (``windows``, ``recursive``, ``delimiter``, ``sentence``, ``markdown``, ``code``) and
the fields are the config's, as :func:`~ferrochunk.config_from_mapping` reads them. A value
is JSON when it parses as JSON (``256``, ``0.1``, ``true``, ``["\\n\\n", " "]``,
``"a,b"``), else the text as written (``language=python``). Commas inside brackets or
quotes do not split. ``parent-child`` nests two configs and has no spec; pass the config.

>>> config_from_spec("recursive:max_tokens=256,overlap_tokens=25")
Recursive(max_tokens=256, overlap_tokens=25, ...)
>>> config_spec(config_from_spec("windows:max_tokens=512"))
'windows:max_tokens=512'
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._support.validate import describe
from .config import Config
from .errors import ConfigError, ConfigTypeError
from .rules import config_from_mapping, config_to_mapping

__all__ = ["config_from_spec", "config_spec"]


def _split(body: str) -> list[str]:
    """``body`` cut at the commas outside brackets and double quotes."""
    parts, depth, quoted, escaped, at = [], 0, False, False, 0
    for i, ch in enumerate(body):
        if quoted:
            escaped = ch == "\\" and not escaped
            quoted = not (ch == '"' and not escaped) or escaped
            continue
        if ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[at:i])
            at = i + 1
    parts.append(body[at:])
    return parts


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def config_from_spec(spec: str) -> Config:
    """The config a spec names (see the module); bad specs raise ``ConfigError`` naming
    the part.

    >>> config_from_spec("markdown:max_tokens=256,context=false")
    Markdown(max_tokens=256, overlap_tokens=0, context=False, boundaries='greedy')
    """
    if not isinstance(spec, str):
        raise ConfigTypeError(f"a chunker spec must be a string, got {describe(spec)}")
    name, _, body = spec.strip().partition(":")
    if name == "parent-child":
        raise ConfigError(f"parent-child has no spec; pass a ParentChild config, got {spec!r}")
    mapping: dict[str, Any] = {"chunker": name}
    for part in _split(body) if body.strip() else []:
        field, eq, text = part.partition("=")
        field = field.strip()
        if not eq or not field:
            raise ConfigError(f"chunker spec {spec!r}: {part!r} is not FIELD=VALUE")
        if field in mapping:
            raise ConfigError(f"chunker spec {spec!r} gives {field!r} twice")
        mapping[field] = _value(text.strip())
    try:
        config, _ = config_from_mapping(mapping)
    except ConfigError as exc:
        raise type(exc)(f"chunker spec {spec!r}: {exc}") from exc
    return config


def config_spec(config: Config) -> str:
    """The shortest spec of ``config``: its name, its required fields and the fields that
    differ from their defaults.

    >>> import ferrochunk as fc
    >>> config_spec(fc.Recursive(256, overlap_tokens=25))
    'recursive:max_tokens=256,overlap_tokens=25'
    """
    mapping = config_to_mapping(config)
    name = mapping["chunker"]
    if name == "parent-child":
        raise ConfigError("parent-child has no spec; it nests two configs")
    required = {k: v for k, v in mapping.items() if k in _REQUIRED}
    defaults = config_to_mapping(config_from_mapping(required)[0])
    fields = []
    for field, value in mapping.items():
        if field == "chunker" or (field not in _REQUIRED and defaults.get(field) == value):
            continue
        plain = isinstance(value, str) and _PLAIN.fullmatch(value) and _value(value) == value
        text = value if plain else _json(value)
        fields.append(f"{field}={text}")
    return f"{name}:{','.join(fields)}"


# Text that needs no JSON quotes in a spec.
_PLAIN = re.compile(r"[^\s,\"\[\]{}=]+")
# The fields a config cannot be made without (besides the chunker's name).
_REQUIRED = frozenset({"chunker", "max_tokens", "token_size", "language"})


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
