"""One exception hierarchy. Every class is a ``ValueError``; the type errors are also ``TypeError``.

The Rust core raises these same classes through one mapping (``rust/python/errors.rs``).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "ConfigTypeError",
    "FerrochunkError",
    "InputDecodeError",
    "InputTypeError",
    "InternalError",
    "LedgerError",
    "OffsetsError",
    "TextTooLargeError",
    "TokenizerError",
    "UnknownTokenizerError",
    "UnsupportedTokenizerError",
]


class FerrochunkError(ValueError):
    """Base class of every error ferrochunk raises on bad input.

    >>> import ferrochunk as fc
    >>> try:
    ...     fc.TokenWindows(0)
    ... except fc.FerrochunkError as exc:
    ...     print(type(exc).__name__, exc)
    ConfigError TokenWindows.max_tokens must be an integer >= 1, got 0 (int)
    """


class ConfigError(FerrochunkError):
    """A configuration value is out of its domain (the message names field and value)."""


class ConfigTypeError(ConfigError, TypeError):
    """A configuration value has the wrong type."""


class UnsupportedTokenizerError(ConfigError):
    """A ``tokenizer.json`` component the native engine does not run (the message names
    its JSON path); :meth:`Tokenizer.from_huggingface` falls back to ``tokenizers`` instead."""


class InputTypeError(FerrochunkError, TypeError):
    """An input (the text, a list of texts) has the wrong type."""


class TokenizerError(FerrochunkError):
    """A tokenizer cannot be used."""


class UnknownTokenizerError(TokenizerError):
    """The tokenizer name is not an embedded encoding."""


class OffsetsError(TokenizerError):
    """A user tokenizer returned malformed offsets (decreasing, past the end, mismatched)."""


class TextTooLargeError(FerrochunkError):
    """The text has 4 GiB or more of UTF-8, beyond the 32-bit offsets at the boundary."""


class InputDecodeError(FerrochunkError):
    """Input bytes do not decode; ``byte_offset`` is where, counted from the start of the
    stream or file."""

    def __init__(self, message: str, byte_offset: int | None = None) -> None:
        super().__init__(message)
        self.byte_offset = byte_offset


class LedgerError(FerrochunkError):
    """A ledger file cannot be used: not a ledger, a newer schema, another writer, a
    read-only path or a full disk. The message names the path; the ledger is unchanged."""


class InternalError(RuntimeError):
    """A bug in ferrochunk (a Rust panic caught at the boundary); the message names the
    entry point. Not a ``ValueError``: the input was not at fault."""
