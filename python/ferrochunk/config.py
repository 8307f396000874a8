"""Chunking configurations: frozen, slotted dataclasses validated on construction."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from ._validate import require_int
from .errors import ConfigError

__all__ = ["TokenWindows"]


@dataclass(frozen=True, slots=True)
class TokenWindows:
    """Windows of at most ``max_tokens`` whole tokens, each overlapping the previous one
    by at most ``overlap_tokens``.

    A window is cut only where a token boundary is also a character boundary; see the
    README's design notes for the one case where a window exceeds ``max_tokens``.
    """

    max_tokens: int
    _: KW_ONLY
    overlap_tokens: int = 0

    def __post_init__(self) -> None:
        max_tokens = require_int("TokenWindows.max_tokens", self.max_tokens, minimum=1)
        overlap = require_int("TokenWindows.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= max_tokens:
            raise ConfigError(
                f"TokenWindows.overlap_tokens must be < max_tokens ({max_tokens}), got {overlap}"
            )
        # Normalise numpy integers and friends to int.
        object.__setattr__(self, "max_tokens", max_tokens)
        object.__setattr__(self, "overlap_tokens", overlap)
