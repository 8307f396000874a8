"""Validation helpers shared by the config objects and entry points.

Every message names the field and the offending value, so a caller can fix the
input without reading the code.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ..errors import ConfigError, ConfigTypeError, InputTypeError


def describe(value: Any) -> str:
    """A short, unambiguous rendering of a rejected value."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


_MAX_INT = 2**63 - 1


def require_int(field: str, value: Any, *, minimum: int) -> int:
    """Returns ``value`` as an ``int`` in [``minimum``, 2^63); rejects bools, floats and NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and math.isnan(value):
            raise ConfigError(f"{field} must be an integer >= {minimum}, got NaN")
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            raise ConfigError(f"{field} must be an integer >= {minimum}, got {describe(value)}")
        raise ConfigTypeError(f"{field} must be an integer >= {minimum}, got {describe(value)}")
    as_int = int(value)
    if as_int < minimum:
        raise ConfigError(f"{field} must be an integer >= {minimum}, got {describe(as_int)}")
    if as_int > _MAX_INT:
        raise ConfigError(f"{field} must be an integer below 2**63, got {describe(as_int)}")
    return as_int


def require_str(field: str, value: Any) -> str:
    """Returns ``value`` if it is a ``str``; the input-type error otherwise."""
    if not isinstance(value, str):
        raise InputTypeError(f"{field} must be a str, got {describe(value)}")
    return value


def require_choice(field: str, value: Any, choices: tuple[str, ...]) -> str:
    """Returns ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ConfigError(f"{field} must be one of {options}, got {describe(value)}")
    return value


def require_text(field: str, value: str) -> str:
    """Rejects strings with surrogate code points: they have no UTF-8 form, so a delimiter
    or separator holding one could never match."""
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise ConfigError(
            f"{field} must be text without surrogate code points, got {describe(value)}"
        )
    return value
