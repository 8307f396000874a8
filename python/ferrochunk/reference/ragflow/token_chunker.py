"""§10 the ``TokenChunker`` flow component: parameters, text payloads and JSON payloads."""

from __future__ import annotations

import asyncio
import copy
import functools
import re
import time
from collections.abc import Callable
from typing import Any

from .delim import split_keep
from .flow_input import InputError, validate_flow_input
from .merge import add_context, naive_merge
from .overlap import normalize_overlapped_percent, remove_tag
from .positions import extract_pdf_positions, finalize_pdf_chunk
from .tokens import num_tokens_from_string

_WRAPPED = re.compile(r"`([^`]+)`")
_MEDIA = ("table", "image")


def _str_list(value: Any) -> list[str]:
    """§10.1 steps 3-4: None -> [], a str -> [str], else its str elements; empties dropped."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
    return [v for v in items if v]


class TokenChunkerParam:
    """§10.1 the component's parameters with their defaults, plus the fields that RAGFlow's
    ``ComponentParamBase`` and ``ProcessParamBase`` give every component (the canvas reads
    ``outputs`` and ``inputs``; ``invoke`` honours ``timeout`` and the exception defaults)."""

    def __init__(self) -> None:
        self.message_history_window_size = 13
        self.inputs: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.description = ""
        self.max_retries = 0
        self.delay_after_error = 2.0
        self.exception_method: Any = None
        self.exception_default_value: Any = None
        self.exception_goto: Any = None
        self.debug_inputs: dict[str, Any] = {}
        self.timeout: Any = 100000000
        self.persist_logs = True
        self.delimiter_mode: Any = "delimiter"
        self.chunk_token_size: Any = 512
        self.delimiters: Any = ["\n"]
        self.overlapped_percent: Any = 0
        self.children_delimiters: Any = []
        self.table_context_size: Any = 0
        self.image_context_size: Any = 0

    def check(self) -> None:
        """Validates and normalises in upstream's order; the first failure raises."""
        if self.delimiter_mode == "token_size":
            self.delimiter_mode = "delimiter"
        if self.delimiter_mode not in ["delimiter", "one"]:
            raise ValueError(
                f"Delimiter mode abnormal. {self.delimiter_mode} is not supported, "
                "it should be in ['delimiter', 'one']"
            )
        self.delimiters = _str_list(self.delimiters)
        self.children_delimiters = _str_list(self.children_delimiters)
        size = self.chunk_token_size
        if type(size).__name__ != "int" or size <= 0:
            raise ValueError(f"Chunk token size. {size} not supported, should be positive integer")
        pct = self.overlapped_percent
        if type(pct).__name__ not in ("int", "float") or pct < 0 or pct > 1:
            raise ValueError(
                f"Overlapped percentage: [0, 1) {pct} not supported, "
                "should be a float number in range [0, 1]"
            )
        for label, value in (
            ("Table", self.table_context_size),
            ("Image", self.image_context_size),
        ):
            if type(value).__name__ not in ("float", "int") or value < 0:
                raise ValueError(
                    f"{label} context size. {value} not supported, should be non-negative numeric"
                )


def compile_delimiter_pattern(delimiters: Any) -> str:
    """§10.2 primary pattern: the insides of the backtick tokens of the joined list."""
    joined = "".join(d for d in (delimiters or []) if d)
    tokens = list(dict.fromkeys(_WRAPPED.findall(joined)))
    tokens.sort(key=len, reverse=True)
    return "|".join(re.escape(t) for t in tokens)


def children_pattern(delimiters: Any) -> str:
    """§10.2 children pattern: the raw entries (backticks kept), longest first."""
    entries = sorted(dict.fromkeys(delimiters), key=len, reverse=True)
    return "|".join(re.escape(d) for d in entries)


def split_text_by_pattern(text: Any, pattern: str) -> list[str]:
    """§10.2: the non-empty, non-delimiter pieces; no pattern -> ``[text or ""]``."""
    if not pattern:
        return [text or ""]
    return [p for p in split_keep(text, pattern)[::2] if p]


def _no_progress(*_: Any, **__: Any) -> None:
    """The progress callback of a component without a canvas callback."""


def _item_text(item: dict[str, Any]) -> str:
    for key in ("text", "content_with_weight"):
        if isinstance(item.get(key), str):
            return str(item[key])
    return ""


class TokenChunker:
    """The flow component, shaped as upstream's ``ProcessBase`` subclass.

    ``TokenChunker(canvas, id, param)`` checks ``param`` (as upstream's constructor does);
    ``await invoke(**inputs)`` records the inputs and the chunks in ``param.outputs`` and
    returns them, turning any failure into an ``_ERROR`` output; ``invoke_sync`` runs it
    on a fresh event loop. The canvas may be None: only its ``callback``, if any, is used.
    """

    component_name = "TokenChunker"

    def __init__(self, canvas: Any, id: Any, param: TokenChunkerParam) -> None:
        self._canvas = canvas
        self._id = id
        self._param = param
        self._param.check()
        report = getattr(canvas, "callback", None)
        self.callback: Callable[..., Any] = (
            functools.partial(report, id) if report is not None else _no_progress
        )

    # The counting and merging the component builds on; the compat face swaps in native ones.
    _count: Callable[[str], int] = staticmethod(num_tokens_from_string)
    _naive_merge: Callable[..., list[str]] = staticmethod(naive_merge)

    # Upstream's private helpers, reachable for the vectors.
    _compile_delimiter_pattern = staticmethod(compile_delimiter_pattern)
    _split_text_by_pattern = staticmethod(split_text_by_pattern)

    # -- what the canvas reads back (agent/component/base.py ComponentBase) --------------
    def output(self, var_nm: str | None = None) -> Any:
        """One output's value (``""`` when unset), or all of them as a dict."""
        outputs = self._param.outputs
        if var_nm:
            return outputs.get(var_nm, {}).get("value", "")
        return {k: o.get("value") for k, o in outputs.items()}

    def set_output(self, key: str, value: Any) -> None:
        outputs = self._param.outputs
        if key not in outputs:
            outputs[key] = {"value": None, "type": str(type(value))}
        outputs[key]["value"] = value

    def error(self) -> Any:
        return self._param.outputs.get("_ERROR", {}).get("value")

    def reset(self, only_output: bool = False) -> None:
        for slot in self._param.outputs.values():
            slot["value"] = None
        if only_output:
            return
        for slot in self._param.inputs.values():
            slot["value"] = None
        self._param.debug_inputs = {}

    def get_exception_default_value(self) -> Any:
        if self._param.exception_method != "comment":
            return ""
        return self._param.exception_default_value

    async def invoke(self, **kwargs: Any) -> dict[str, Any]:
        """upstream ``ProcessBase.invoke``: inputs become outputs, ``_invoke`` runs under the
        param's timeout, and an exception becomes the ``_ERROR`` output."""
        self.set_output("_created_time", time.perf_counter())
        for key, value in kwargs.items():
            self.set_output(key, value)
        try:
            await asyncio.wait_for(self._invoke(**kwargs), timeout=self._param.timeout)
            self.callback(1, "Done")
        except Exception as exc:
            default = self.get_exception_default_value()
            if default:
                self.set_output("result", default)
            else:
                self.set_output("_ERROR", str(exc))
            self.callback(-1, str(exc))
        self.set_output("_elapsed_time", time.perf_counter() - self.output("_created_time"))
        return dict(self.output())

    def invoke_sync(self, **kwargs: Any) -> dict[str, Any]:
        """``invoke`` for code without an event loop of its own."""
        return asyncio.run(self.invoke(**kwargs))

    async def _invoke(self, **kwargs: Any) -> None:
        try:
            upstream = validate_flow_input(kwargs)
        except InputError as exc:
            self.set_output("_ERROR", f"Input error: {exc}")
            return
        p = self._param
        # Both patterns are built before the mode is looked at, as upstream: a non-str
        # delimiter raises TypeError even in "one" mode.
        pattern = compile_delimiter_pattern(p.delimiters)
        child = children_pattern(p.children_delimiters)
        self.set_output("output_format", "chunks")
        self.callback(0.01, "Start to split into chunks.")
        pct = normalize_overlapped_percent(p.overlapped_percent)
        fmt = upstream.output_format
        if fmt in ("markdown", "text", "html"):
            payload = getattr(upstream, f"{fmt}_result") or ""
            self.set_output("chunks", self._text_chunks(payload, pct, pattern, child))
        else:
            items = upstream.chunks if fmt == "chunks" else upstream.json_result
            self.set_output("chunks", self._json_chunks(items or [], pct, pattern, child))
        self.callback(1, "Done.")

    # -- §10.4 text payloads ------------------------------------------------------------
    def _text_chunks(
        self, payload: str, pct: int, pattern: str, child: str
    ) -> list[dict[str, Any]]:
        p = self._param
        if p.delimiter_mode == "one":
            return [{"text": remove_tag(payload)}] if payload.strip() else []
        if pattern:
            cks = split_text_by_pattern(payload, pattern)
        else:
            cks = self._naive_merge(payload, p.chunk_token_size, "".join(p.delimiters), pct)
        if not child:
            return [{"text": c.strip()} for c in cks if c.strip()]
        return [
            {"text": piece, "mom": c.removeprefix("\n")}
            for c in cks
            if c.strip()
            for piece in split_text_by_pattern(c, child)
            if piece.strip()
        ]

    # -- §10.5 JSON payloads ------------------------------------------------------------
    def _json_chunks(
        self, items: list[dict[str, Any]], pct: int, pattern: str, child: str
    ) -> list[dict[str, Any]]:
        p = self._param
        if p.delimiter_mode == "one":
            texts = [remove_tag(t) for t in map(_item_text, items) if t.strip()]
            joined = "\n".join(texts)
            return [{"text": joined}] if joined.strip() else []
        chunks = self._build_json_chunks(items)
        if pattern:
            chunks = self._children(self._split_buffered(chunks, pattern), child)
            self._media_context(chunks)
        else:
            self._media_context(chunks)
            chunks = self._children(self._merge_by_size(chunks, pct), child)
        return self._finalize(chunks)

    def _build_json_chunks(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for item in items:
            kind = str(item.get("doc_type_kwd") or "").strip().lower()
            kind = kind if kind in _MEDIA else "text"
            text = _item_text(item)
            # Positions are read before a blank text is skipped: a bad tag raises even there.
            positions = extract_pdf_positions(item)
            if kind == "text" and not text.strip():
                continue
            out.append(
                {
                    "text": text,
                    "ck_type": kind,
                    "tk_nums": self._count(text),
                    "positions": positions,
                    "img_id": item.get("img_id") if kind in _MEDIA else None,
                    "context_above": "",
                    "context_below": "",
                }
            )
        return out

    def _split_buffered(self, chunks: list[dict[str, Any]], pattern: str) -> list[dict[str, Any]]:
        """Branch A: consecutive text items joined by ``\\n`` and split by the pattern."""
        out: list[dict[str, Any]] = []
        buffer: list[dict[str, Any]] = []

        def flush() -> None:
            joined = "\n".join(c["text"] for c in buffer)
            ranges = []
            at = 0
            for c in buffer:
                ranges.append((at, at + len(c["text"])))
                at += len(c["text"]) + 1
            at = 0
            for k, part in enumerate(split_keep(joined, pattern)):
                start, at = at, at + len(part)
                if k % 2 == 1 or not part.strip():
                    continue
                positions = [
                    pos
                    for (a, b), c in zip(ranges, buffer, strict=True)
                    if a < at and start < b
                    for pos in c["positions"]
                ]
                out.append(
                    {
                        "text": part,
                        "ck_type": "text",
                        "tk_nums": self._count(part),
                        "positions": positions,
                        "img_id": None,
                        "context_above": "",
                        "context_below": "",
                    }
                )
            buffer.clear()

        for chunk in chunks:
            if chunk["ck_type"] in _MEDIA:
                flush()
                out.append(chunk)
            else:
                buffer.append(chunk)
        flush()
        return out

    def _merge_by_size(self, chunks: list[dict[str, Any]], pct: int) -> list[dict[str, Any]]:
        """Branch B ``_merge_text_chunks_by_token_size``: merge toward ``chunk_token_size``,
        each new chunk prefixed with the tail of the previous merged one."""
        size = self._param.chunk_token_size
        threshold = size * (100 - pct) / 100.0
        out: list[dict[str, Any]] = []
        prev: dict[str, Any] | None = None
        sources: list[dict[str, Any]] = []
        for chunk in chunks:
            chunk = copy.deepcopy(chunk)
            if chunk["ck_type"] in _MEDIA:
                out.append(chunk)
                prev = None
                continue
            if prev is None or prev["tk_nums"] > threshold or chunk["tk_nums"] > size:
                if prev is not None and pct > 0 and prev["text"]:
                    visible = remove_tag(prev["text"])
                    cut = int(len(visible) * (100 - pct) / 100.0)
                    prefix = visible[cut:] if 0 <= cut < len(visible) else ""
                    tail_positions = []
                    at = 0
                    for src in sources:
                        end = at + len(src["text"])
                        if end > cut:
                            tail_positions.extend(src["positions"])
                        at = end + 1
                    chunk["text"] = prefix + chunk["text"]
                    chunk["positions"] = tail_positions + chunk["positions"]
                    chunk["tk_nums"] = self._count(chunk["text"])
                out.append(chunk)
                prev = chunk
                sources = [copy.deepcopy(chunk)]
            else:
                sources.append(chunk)
                if prev["text"] and chunk["text"]:
                    prev["text"] = prev["text"] + "\n" + chunk["text"]
                else:
                    prev["text"] = prev["text"] + chunk["text"]
                prev["positions"] = prev["positions"] + chunk["positions"]
                prev["tk_nums"] += chunk["tk_nums"]
        return out

    def _children(self, chunks: list[dict[str, Any]], pattern: str) -> list[dict[str, Any]]:
        """§10.6: text chunks split by the children pattern, each piece keeping its ``mom``."""
        if not pattern:
            return chunks
        out = []
        for chunk in chunks:
            if chunk["ck_type"] != "text":
                out.append(chunk)
                continue
            mom = chunk["text"].removeprefix("\n")
            for piece in split_text_by_pattern(chunk["text"], pattern):
                if piece.strip():
                    child = copy.deepcopy(chunk)
                    child["text"] = piece
                    child["mom"] = mom
                    out.append(child)
        return out

    def _media_context(self, chunks: list[dict[str, Any]]) -> None:
        sizes = {
            "table": self._param.table_context_size,
            "image": self._param.image_context_size,
        }
        for i, chunk in enumerate(chunks):
            size = sizes.get(chunk["ck_type"], 0)
            if chunk["ck_type"] in _MEDIA and size > 0:
                add_context(chunks, i, size, self._count)

    def _finalize(self, chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for chunk in chunks:
            text = remove_tag(chunk["context_above"] + chunk["text"] + chunk["context_below"])
            if not text.strip():
                continue
            doc: dict[str, Any] = {"text": text, "doc_type_kwd": chunk["ck_type"]}
            if chunk.get("mom"):
                doc["mom"] = chunk["mom"]
            if chunk.get("img_id"):
                doc["img_id"] = chunk["img_id"]
            doc["_pdf_positions"] = chunk["positions"]
            out.append(finalize_pdf_chunk(doc))
        return out
