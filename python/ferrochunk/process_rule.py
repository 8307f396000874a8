"""Dify's Service API ``process_rule`` JSON as ferrochunk configs (``specs/dify.md`` §2.1).

Budgets become real tokens (Dify counts characters). Bad rules raise a ``ConfigError`` or
``ConfigTypeError`` naming the field and the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._validate import describe, require_int
from .config import CleanRules, ParentChild, Recursive
from .errors import ConfigError, ConfigTypeError

__all__ = ["from_process_rule"]

MODES = ("automatic", "custom", "hierarchical")
SEPARATORS = ("\n\n", "。", ". ", " ", "")
MIN_TOKENS, MAX_TOKENS = 50, 4000


def _mapping(field: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigTypeError(f"{field} must be an object, got {describe(value)}")
    return value


def _segmentation(field: str, value: Any) -> Recursive:
    seg = _mapping(field, value)
    separator = seg.get("separator", seg.get("delimiter", "\n"))
    if not isinstance(separator, str) or not separator:
        raise ConfigError(f"{field}.separator must be a non-empty str, got {describe(separator)}")
    size = require_int(f"{field}.max_tokens", seg.get("max_tokens"), minimum=MIN_TOKENS)
    if size > MAX_TOKENS:
        raise ConfigError(f"{field}.max_tokens must be between 50 and 4000, got {size}")
    overlap = require_int(f"{field}.chunk_overlap", seg.get("chunk_overlap", 0), minimum=0)
    if overlap >= size:
        raise ConfigError(f"{field}.chunk_overlap must be < max_tokens ({size}), got {overlap}")
    return Recursive(
        size,
        overlap_tokens=overlap,
        fixed_separator=separator.replace("\\n", "\n"),
        separators=SEPARATORS,
    )


def _clean_rules(field: str, value: Any) -> CleanRules:
    if value is None:
        return CleanRules()
    if not isinstance(value, list):
        raise ConfigTypeError(f"{field} must be a list, got {describe(value)}")
    enabled = {}
    for i, rule in enumerate(value):
        rule = _mapping(f"{field}[{i}]", rule)
        if not isinstance(rule.get("enabled"), bool):
            raise ConfigTypeError(
                f"{field}[{i}].enabled must be a bool, got {describe(rule.get('enabled'))}"
            )
        enabled[rule.get("id")] = rule["enabled"]
    return CleanRules(
        remove_extra_spaces=enabled.get("remove_extra_spaces", False),
        remove_urls_emails=enabled.get("remove_urls_emails", False),
    )


def from_process_rule(rule: Any) -> tuple[Recursive | ParentChild, CleanRules]:
    """The segmentation config and the cleaning rules a ``process_rule`` describes.

    ``automatic`` is Dify's automatic rule (500/50, extra spaces removed); ``custom`` a
    :class:`Recursive` with the fixed separator; ``hierarchical`` a :class:`ParentChild`
    (``parent_mode`` ``"paragraph"``, the default, or ``"full-doc"``).
    """
    rule = _mapping("process_rule", rule)
    mode = rule.get("mode")
    if mode not in MODES:
        raise ConfigError(
            f"process_rule.mode must be one of {', '.join(map(repr, MODES))}, got {describe(mode)}"
        )
    if mode == "automatic":
        automatic = Recursive(500, overlap_tokens=50, separators=SEPARATORS)
        return automatic, CleanRules(remove_extra_spaces=True)
    rules = _mapping("process_rule.rules", rule.get("rules"))
    clean = _clean_rules(
        "process_rule.rules.pre_processing_rules", rules.get("pre_processing_rules")
    )
    if mode == "custom":
        return _segmentation("process_rule.rules.segmentation", rules.get("segmentation")), clean
    parent_mode = rules.get("parent_mode") or "paragraph"
    if parent_mode not in ("paragraph", "full-doc"):
        raise ConfigError(
            f"process_rule.rules.parent_mode must be 'paragraph' or 'full-doc', "
            f"got {describe(parent_mode)}"
        )
    child = _segmentation(
        "process_rule.rules.subchunk_segmentation", rules.get("subchunk_segmentation")
    )
    parent: Recursive | str = (
        "full-doc"
        if parent_mode == "full-doc"
        else _segmentation("process_rule.rules.segmentation", rules.get("segmentation"))
    )
    return ParentChild(parent, child=child), clean
