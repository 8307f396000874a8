"""§10.7 PDF positions: ``extract_pdf_positions`` and ``finalize_pdf_chunk``."""

from __future__ import annotations

import re
from typing import Any

_POSITION_TAG = re.compile(r"@@[0-9-]+\t[0-9.\t]+##")
_COORDINATES = ("page_number", "x0", "x1", "top", "bottom")


def _parse_position_tag(tag: str) -> list[list[Any]]:
    """``@@pages\\tleft\\tright\\ttop\\tbottom##`` entries; a malformed one raises ValueError."""
    out: list[list[Any]] = []
    for m in _POSITION_TAG.finditer(tag):
        pages, left, right, top, bottom = m.group(0)[2:-2].split("\t")
        coords = [float(left), float(right), float(top), float(bottom)]
        parts = [int(p) - 1 for p in pages.split("-")]
        out.append([parts[-1], *coords])
    return out


def _raw_positions(item: dict[str, Any]) -> list[Any]:
    """Step 1: the first source present wins, even when it yields nothing."""
    if isinstance(item.get("_pdf_positions"), list):
        return list(item["_pdf_positions"])
    if isinstance(item.get("positions"), list):
        return list(item["positions"])
    tag = item.get("position_tag")
    if isinstance(tag, str) and tag:
        return _parse_position_tag(tag)
    if isinstance(item.get("position_int"), list):
        return [p for p in item["position_int"] if isinstance(p, list) and len(p) >= 5]
    if all(item.get(k) is not None for k in _COORDINATES):
        return [[item[k] for k in _COORDINATES]]
    return []


def extract_pdf_positions(item: Any) -> list[list[Any]]:
    """``[page, left, right, top, bottom]`` entries with pages normalised to 1-based."""
    if not isinstance(item, dict):
        return []
    ref = None
    page_number = item.get("page_number")
    if isinstance(page_number, int | float | bool):
        ref = int(page_number)
        if ref <= 0:
            ref += 1
    out = []
    for pos in _raw_positions(item):
        if not isinstance(pos, list | tuple) or len(pos) < 5:
            continue
        page = pos[0][-1] if isinstance(pos[0], list) else pos[0]
        try:
            page = int(page)
            if ref is not None and page == ref - 1:
                page = ref
            elif page <= 0:
                page += 1
            out.append([page, float(pos[1]), float(pos[2]), float(pos[3]), float(pos[4])])
        except (TypeError, ValueError):
            continue
    return out


def finalize_pdf_chunk(doc: dict[str, Any]) -> dict[str, Any]:
    """Replaces ``_pdf_positions`` by ``position_int``, ``page_num_int`` and ``top_int``.

    It re-extracts from the already-normalised positions without a reference page, so a
    page still <= 0 is bumped a second time (§14.18).
    """
    positions = extract_pdf_positions(doc)
    doc.pop("_pdf_positions", None)
    if not positions:
        return doc
    as_int = []
    for pos in positions:
        try:
            as_int.append(tuple(int(v) for v in pos))
        except ValueError:
            continue
    doc["position_int"] = as_int
    doc["page_num_int"] = [p[0] for p in as_int]
    doc["top_int"] = [p[3] for p in as_int]
    return doc
