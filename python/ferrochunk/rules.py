"""Configs from JSON or TOML: Dify's ``process_rule``, RAGFlow's ``parser_config``, and the
native configs themselves.

Budgets become real tokens (Dify counts characters). Bad rules raise a ``ConfigError`` or
``ConfigTypeError`` naming the field and the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._ragflow_rules import parse_delimiter_field
from ._support.validate import describe, require_int
from .config import (
    CleanRules,
    Code,
    Config,
    DelimiterMerge,
    Html,
    Markdown,
    MergeStrategy,
    ParentChild,
    Recursive,
    SentenceWindows,
    TokenWindows,
)
from .errors import ConfigError, ConfigTypeError

__all__ = ["config_from_mapping", "config_to_mapping", "from_parser_config", "from_process_rule"]

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
        if not isinstance(rule.get("id"), str):
            raise ConfigTypeError(f"{field}[{i}].id must be a str, got {describe(rule.get('id'))}")
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

    >>> from ferrochunk import from_process_rule
    >>> config, clean = from_process_rule({"mode": "automatic"})
    >>> config.max_tokens, config.overlap_tokens, clean.remove_extra_spaces
    (500, 50, True)
    """
    rule = _mapping("process_rule", rule)
    mode = rule.get("mode")
    # isinstance first: `in` on an array compares element-wise and raises or misleads.
    if not isinstance(mode, str) or mode not in MODES:
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
    parent_mode = rules.get("parent_mode")
    if parent_mode is None or (isinstance(parent_mode, str) and not parent_mode):
        parent_mode = "paragraph"
    if not isinstance(parent_mode, str) or parent_mode not in ("paragraph", "full-doc"):
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


# -- RAGFlow --------------------------------------------------------------------------

PARSER_DEFAULTS = {"chunk_token_num": 512, "delimiter": "\n", "overlapped_percent": 0}
"""RAGFlow's defaults for a new knowledge base's ``naive`` parser."""


def _delimiter_field(field: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, str):
        raise ConfigTypeError(f"{field} must be a str, got {describe(value)}")
    return tuple(parse_delimiter_field(value))


def from_parser_config(parser_config: Any) -> DelimiterMerge:
    r"""RAGFlow's ``parser_config`` (a knowledge base's chunking settings) as a
    :class:`DelimiterMerge`.

    Read: ``chunk_token_num`` (the budget), ``delimiter`` (each character a delimiter, or
    only the backtick-wrapped tokens when there are any, as RAGFlow reads it),
    ``overlapped_percent`` and ``children_delimiter`` (the same field rules; children when
    non-empty). RAGFlow's merge takes one piece past the budget, so the strategy is
    ``OVER_CAP``. The other keys configure other stages of RAGFlow and are ignored.

    >>> from_parser_config({"chunk_token_num": 128, "delimiter": "\n。"}).delimiters
    ('\n', '。')
    """
    pc = _mapping("parser_config", parser_config)
    merged = {**PARSER_DEFAULTS, **pc}
    size = require_int("parser_config.chunk_token_num", merged["chunk_token_num"], minimum=1)
    delimiters = _delimiter_field("parser_config.delimiter", merged["delimiter"])
    overlap = merged["overlapped_percent"]
    if isinstance(overlap, bool) or not isinstance(overlap, int | float):
        raise ConfigTypeError(
            f"parser_config.overlapped_percent must be a number, got {describe(overlap)}"
        )
    if not 0 <= overlap < 100:  # NaN fails too
        raise ConfigError(
            f"parser_config.overlapped_percent must be in [0, 100), got {describe(overlap)}"
        )
    children = _delimiter_field(
        "parser_config.children_delimiter", merged.get("children_delimiter", "")
    )
    return DelimiterMerge(
        size,
        delimiters=delimiters,
        strategy=MergeStrategy.OVER_CAP,
        overlap=overlap,
        child_delimiters=children,
    )


# -- native configs -------------------------------------------------------------------

_FIELDS: dict[str, tuple[type[Any], frozenset[str]]] = {
    "windows": (TokenWindows, frozenset({"max_tokens", "overlap_tokens"})),
    "recursive": (
        Recursive,
        frozenset(
            {
                "max_tokens",
                "overlap_tokens",
                "fixed_separator",
                "separators",
                "keep_separator",
                "boundaries",
            }
        ),
    ),
    "delimiter": (
        DelimiterMerge,
        frozenset(
            {
                "token_size",
                "delimiters",
                "hard_delimiters",
                "strategy",
                "overlap",
                "child_delimiters",
                "joiner",
            }
        ),
    ),
    "sentence": (
        SentenceWindows,
        frozenset({"max_tokens", "safety_margin", "overlap_ratio", "break_classes"}),
    ),
    "markdown": (
        Markdown,
        frozenset({"max_tokens", "overlap_tokens", "context", "boundaries"}),
    ),
    "code": (
        Code,
        frozenset({"max_tokens", "language", "overlap_tokens", "context", "boundaries"}),
    ),
    "html": (Html, frozenset({"max_tokens", "overlap_tokens", "skip", "boundaries"})),
}
CHUNKERS = (*_FIELDS, "parent-child")
"""The ``chunker`` names of :func:`config_from_mapping` (and the CLI's ``--chunker``)."""


def _native(field: str, value: Any) -> Config:
    spec = _mapping(field, value)
    name = spec.get("chunker")
    if name not in CHUNKERS:
        options = ", ".join(map(repr, CHUNKERS))
        raise ConfigError(f"{field}.chunker must be one of {options}, got {describe(name)}")
    args = {k: v for k, v in spec.items() if k != "chunker"}
    if name == "parent-child":
        unknown = set(args) - {"parent", "child"}
        if unknown:
            raise ConfigError(f"{field} has unknown key {sorted(unknown)[0]!r} for parent-child")
        parent = args.get("parent", "full-doc")
        return ParentChild(
            parent if parent == "full-doc" else _recursive(f"{field}.parent", parent),
            child=_recursive(f"{field}.child", args.get("child")),
        )
    cls, allowed = _FIELDS[name]
    unknown = set(args) - allowed
    if unknown:
        raise ConfigError(
            f"{field} has unknown key {sorted(unknown)[0]!r} for {name!r} "
            f"(known: {', '.join(sorted(allowed))})"
        )
    first = "token_size" if name == "delimiter" else "max_tokens"
    if first not in args:
        raise ConfigError(f"{field}.{first} is required for {name!r}")
    return cls(args.pop(first), **args)  # type: ignore[no-any-return]


def _recursive(field: str, value: Any) -> Recursive:
    spec = dict(_mapping(field, value))
    spec.setdefault("chunker", "recursive")
    config = _native(field, spec)
    if not isinstance(config, Recursive):
        raise ConfigError(f"{field}.chunker must be 'recursive', got {describe(spec['chunker'])}")
    return config


def config_from_mapping(mapping: Any) -> tuple[Config, CleanRules | None]:
    """A config from parsed JSON or TOML: a native config (``{"chunker": "recursive",
    "max_tokens": 512, ...}``), a Dify ``process_rule`` (it has ``"mode"``) or a RAGFlow
    ``parser_config`` (it has ``"chunk_token_num"`` or ``"delimiter"``). Dify rules may
    also give cleaning rules.

    >>> config_from_mapping({"chunker": "windows", "max_tokens": 64})[0]
    TokenWindows(max_tokens=64, overlap_tokens=0)
    """
    spec = _mapping("config", mapping)
    if "chunker" in spec:
        return _native("config", spec), None
    if "mode" in spec:
        return from_process_rule(spec)
    if {"chunk_token_num", "delimiter", "overlapped_percent", "children_delimiter"} & set(spec):
        return from_parser_config(spec), None
    raise ConfigError(
        "config must name a native 'chunker', or be a Dify process_rule (with 'mode') or a "
        f"RAGFlow parser_config (with 'chunk_token_num'), got keys {sorted(spec)}"
    )


def _plain(value: Any) -> Any:
    """JSON's types: tuples become lists, a ``MergeStrategy`` its value."""
    if isinstance(value, MergeStrategy):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def config_to_mapping(config: Config) -> dict[str, Any]:
    """The mapping :func:`config_from_mapping` reads back as ``config`` (JSON's types only).

    >>> import ferrochunk as fc
    >>> config_to_mapping(fc.TokenWindows(64, overlap_tokens=8))
    {'chunker': 'windows', 'max_tokens': 64, 'overlap_tokens': 8}
    >>> config_from_mapping(config_to_mapping(fc.Markdown(256)))[0] == fc.Markdown(256)
    True
    """
    if isinstance(config, ParentChild):
        parent = config.parent
        return {
            "chunker": "parent-child",
            "parent": parent if isinstance(parent, str) else config_to_mapping(parent),
            "child": config_to_mapping(config.child),
        }
    if isinstance(config, SentenceWindows) and config.tokenizer is not None:
        raise ConfigError(
            "SentenceWindows.tokenizer cannot be written as a mapping; pass the tokenizer "
            f"beside the config instead, got {describe(config.tokenizer)}"
        )
    if isinstance(config, Code) and not isinstance(config.language, str):
        raise ConfigError(
            "Code.language cannot be written as a mapping when it is a grammar capsule; pass "
            "the grammar's name (language='python') or 'module:function'"
        )
    for name, (cls, fields) in _FIELDS.items():
        if type(config) is cls:
            return {"chunker": name} | {
                field: _plain(getattr(config, field))
                for field in cls.__dataclass_fields__
                if field in fields
            }
    raise ConfigTypeError(f"config must be a native ferrochunk config, got {describe(config)}")
