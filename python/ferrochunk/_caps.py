"""Caps lowered to leave room beside each chunk: for the special tokens a model's
post-processor adds (``reserve_special_tokens``), or for what a caller puts next to it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from .config import Config, ParentChild, SentenceWindows
from .errors import ConfigError
from .tokenizers import Tokenizer

# The field that caps a chunk's tokens, per config.
_CAPS = {
    "TokenWindows": "max_tokens",
    "Recursive": "max_tokens",
    "SentenceWindows": "max_tokens",
    "Markdown": "max_tokens",
    "Code": "max_tokens",
    "DelimiterMerge": "token_size",
}


C = TypeVar("C", bound=Config)


def reserved(config: C, tok: Tokenizer) -> C:
    """``config`` with each cap lowered by the special tokens ``tok`` reserves, so that a
    chunk plus the model's ``[CLS]``/``[SEP]`` still fits the cap."""
    n = tok.special_tokens
    return lowered(
        config,
        n,
        f"the tokenizer's {n} special tokens",
        "raise the cap or pass reserve_special_tokens=False",
    )


def lowered(config: C, n: int, what: str, fix: str, *, clamp: bool = False) -> C:
    """``config`` with each cap lowered by ``n`` tokens, so that ``what`` fits beside each
    chunk; with ``clamp``, an overlap is clamped below the lowered cap. A ``ConfigError``
    naming the cap, ``what`` and ``fix`` when no room is left."""
    if n <= 0:
        return config
    if isinstance(config, ParentChild):
        parent = config.parent
        if not isinstance(parent, str):
            parent = lowered(parent, n, what, fix, clamp=clamp)
        return replace(
            config, parent=parent, child=lowered(config.child, n, what, fix, clamp=clamp)
        )
    name = type(config).__name__
    field = _CAPS[name]
    cap = getattr(config, field)
    cut = cap - n
    if isinstance(config, SentenceWindows):
        # Its window budget is a share of max_tokens: lower max_tokens until the budget
        # itself has room for the n tokens.
        while cut > 0 and int(cut * config.safety_margin) > config.safe_max - n:
            cut -= 1
    changes: dict[str, Any] = {field: cut}
    overlap = getattr(config, "overlap_tokens", None)
    if clamp and isinstance(overlap, int) and not isinstance(config, SentenceWindows) and cut >= 1:
        changes["overlap_tokens"] = min(overlap, cut - 1)
    try:
        return replace(config, **changes)
    except ConfigError as exc:
        raise ConfigError(
            f"{name}.{field} = {cap} leaves no room for {what} ({exc}); {fix}"
        ) from exc
