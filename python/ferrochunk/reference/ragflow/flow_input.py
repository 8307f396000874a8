"""§10.3 the flow component's input model (pydantic ``TokenChunkerFromUpstream``, lax mode).

With pydantic installed (as it is wherever RAGFlow runs) the input is validated by the same
model upstream declares, so the ``Input error: ...`` text is pydantic's own, word for word.
Without it, a hand-written check accepts the same values and reports the same fields in
pydantic's layout, without the ``[type=..., input_value=...]`` details and the URL line.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

_FORMATS = ("json", "markdown", "text", "html", "chunks")

# (alias, field name, kind, required)
_FIELDS = (
    ("_created_time", "created_time", "float", False),
    ("_elapsed_time", "elapsed_time", "float", False),
    ("name", "name", "str", True),
    ("file", "file", "dict", False),
    ("chunks", "chunks", "list_of_dicts", False),
    ("output_format", "output_format", "format", False),
    ("json", "json_result", "list_of_dicts", False),
    ("markdown", "markdown_result", "str", False),
    ("text", "text_result", "str", False),
    ("html", "html_result", "str", False),
)


class InputError(ValueError):
    """Raised with pydantic's summary line first, one line per error after it."""


@dataclass
class FlowInput:
    name: str
    output_format: str | None
    chunks: list[dict[str, Any]] | None
    json_result: list[dict[str, Any]] | None
    markdown_result: str | None
    text_result: str | None
    html_result: str | None


def _is_float(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        try:
            float(value.strip())
        except ValueError:
            return False
        return "_" not in value
    return False


def _errors(kind: str, value: Any, required: bool) -> list[str]:
    """The validation errors of one present value."""
    if value is None:
        return ["Input should be a valid string"] if required else []
    if kind == "str":
        return [] if isinstance(value, str) else ["Input should be a valid string"]
    if kind == "float":
        return [] if _is_float(value) else ["Input should be a valid number"]
    if kind == "dict":
        return [] if isinstance(value, dict) else ["Input should be a valid dictionary"]
    if kind == "format":
        ok = isinstance(value, str) and value in _FORMATS
        return [] if ok else [f"Input should be {', '.join(repr(f) for f in _FORMATS)}"]
    if not isinstance(value, list):
        return ["Input should be a valid list"]
    return [
        f"[{i}] Input should be a valid dictionary"
        for i, v in enumerate(value)
        if not isinstance(v, dict)
    ]


@functools.cache
def _pydantic_model() -> Any:
    """Upstream's ``rag/flow/chunker/schema.py`` model, or None without pydantic."""
    try:
        from typing import Literal

        from pydantic import BaseModel, ConfigDict, Field
    except ImportError:
        return None

    class TokenChunkerFromUpstream(BaseModel):
        created_time: float | None = Field(default=None, alias="_created_time")
        elapsed_time: float | None = Field(default=None, alias="_elapsed_time")
        name: str
        file: dict[str, Any] | None = Field(default=None)
        chunks: list[dict[str, Any]] | None = Field(default=None)
        output_format: Literal["json", "markdown", "text", "html", "chunks"] | None = Field(
            default=None
        )
        json_result: list[dict[str, Any]] | None = Field(default=None, alias="json")
        markdown_result: str | None = Field(default=None, alias="markdown")
        text_result: str | None = Field(default=None, alias="text")
        html_result: str | None = Field(default=None, alias="html")
        model_config = ConfigDict(populate_by_name=True, extra="forbid")

    return TokenChunkerFromUpstream


def validate_flow_input(kwargs: dict[str, Any]) -> FlowInput:
    """The validated input, or :class:`InputError` listing every problem."""
    model = _pydantic_model()
    if model is not None:
        try:
            valid = model.model_validate(kwargs)
        except Exception as exc:  # upstream catches everything model_validate raises
            raise InputError(str(exc)) from exc
        return FlowInput(
            name=valid.name,
            output_format=valid.output_format,
            chunks=valid.chunks,
            json_result=valid.json_result,
            markdown_result=valid.markdown_result,
            text_result=valid.text_result,
            html_result=valid.html_result,
        )
    return _validate_by_hand(kwargs)


def _validate_by_hand(kwargs: dict[str, Any]) -> FlowInput:
    used: set[str] = set()
    values: dict[str, Any] = {}
    problems: list[str] = []
    for alias, field, kind, required in _FIELDS:
        key = alias if alias in kwargs else field if field in kwargs else None
        if key is None:
            if required:
                problems.append(f"{alias}\n  Field required")
            values[field] = None
            continue
        used.add(key)
        value = kwargs[key]
        problems.extend(f"{key}\n  {message}" for message in _errors(kind, value, required))
        values[field] = value
    problems.extend(f"{key}\n  Extra inputs are not permitted" for key in kwargs if key not in used)
    if problems:
        n = len(problems)
        head = f"{n} validation error{'s' if n > 1 else ''} for TokenChunkerFromUpstream"
        raise InputError("\n".join([head, *problems]))
    return FlowInput(
        name=values["name"],
        output_format=values["output_format"],
        chunks=values["chunks"],
        json_result=values["json_result"],
        markdown_result=values["markdown_result"],
        text_result=values["text_result"],
        html_result=values["html_result"],
    )
