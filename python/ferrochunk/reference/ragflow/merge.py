"""§5 ``merge_paragraphs``, §6 ``naive_merge``, §7 ``naive_merge_with_images`` and
§8 ``naive_merge_docx``."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ..._ragflow_rules import MergeStrategy, is_under_cap
from .delim import (
    compile_delimiter_pattern,
    has_wrapped_delimiter,
    normalize_text_newlines,
    parse_delimiter_field,
    split_keep,
)
from .images import concat_img
from .overlap import apply_overlap
from .tokens import num_tokens_from_string

Count = Callable[[str], int]
"""A token counter; the compat face passes the native one."""


def merge_groups(
    sizes: Sequence[int], token_size: Any, strategy: Any, overlapped_percent: Any
) -> list[list[int]]:
    """§5 ``_merge_paragraph_groups``: index groups, in order."""
    threshold = token_size * (100 - overlapped_percent) / 100.0
    return group_indices(sizes, token_size, threshold, is_under_cap(strategy))


def group_indices(
    sizes: Sequence[Any], cap: Any, threshold: Any, under_cap: bool
) -> list[list[int]]:
    """§5's two greedy rules over the sizes, with the threshold already computed."""
    groups: list[list[int]] = []
    cur: list[int] = []
    total = 0
    if under_cap:
        for i, size in enumerate(sizes):
            if cur and total + size <= cap:
                cur.append(i)
                total += size
                continue
            if cur:
                groups.append(cur)
            cur, total = [i], size
            if total > cap:
                groups.append(cur)
                cur = []
    else:
        for i, size in enumerate(sizes):
            if size > cap:
                if cur:
                    groups.append(cur)
                groups.append([i])
                cur = []
            elif not cur:
                cur, total = [i], size
            elif total > threshold:
                groups.append(cur)
                cur, total = [i], size
            else:
                cur.append(i)
                total += size
    if cur:
        groups.append(cur)
    return groups


def merge_paragraphs(
    paragraphs: Sequence[str],
    token_size: int,
    strategy: Any = MergeStrategy.OVER_CAP,
    size: Callable[[str], int] | None = None,
    overlapped_percent: Any = 0,
) -> list[list[str]]:
    """§5: groups of the original strings; nothing is split, stripped or dropped."""
    count = size or num_tokens_from_string
    sizes = [count(p) for p in paragraphs]
    groups = merge_groups(sizes, token_size, strategy, overlapped_percent)
    return [[paragraphs[i] for i in g] for g in groups]


def _pieces(text: str, pattern: str) -> list[str]:
    """The non-empty, non-delimiter pieces of ``text`` (§2.5: even indices of the split)."""
    return [p for p in split_keep(text, pattern)[::2] if p]


def section_pairs(sections: Any) -> list[tuple[Any, Any]]:
    """§6.1: a string or a list of strings / ``(text, pos)`` pairs, newline-normalised."""
    if isinstance(sections, str):
        sections = [sections]
    if isinstance(sections[0], str):
        sections = [(s, "") for s in sections]
    return [(normalize_text_newlines(text), pos) for text, pos in sections]


def _custom_piece(piece: str, pos: Any, count: Count) -> str:
    """§6.2: ``"\\n" + piece``, with the pos appended unless the piece is under 8 tokens."""
    text = "\n" + piece
    if count(text) >= 8 and pos and pos not in text:
        text += pos
    return text


def _paragraphs(sections: list[tuple[Any, Any]], dels: list[str]) -> list[tuple[str, Any, int]]:
    """§6.3 step 1: ``("\\n" + piece, pos, section index)`` for each soft-path paragraph."""
    pattern = compile_delimiter_pattern(dels)
    out = []
    for k, (text, pos) in enumerate(sections):
        if not dels:
            out.append(("\n" + text, pos, k))
        else:
            out.extend(("\n" + piece, pos, k) for piece in _pieces(text, pattern))
    return out


def _rebuild(paragraphs: list[tuple[str, Any, int]], group: list[int]) -> str:
    """§6.3 step 3: concatenate; a pos follows the first paragraph that brings it."""
    text = ""
    for i in group:
        para, pos, _ = paragraphs[i]
        text += para
        if pos and pos not in text:
            text += pos
    return text


def merge_sections(
    secs: list[tuple[Any, Any]],
    chunk_token_num: Any,
    delimiter: Any,
    overlapped_percent: Any,
    strategy: Any,
    count: Count,
) -> tuple[list[str], list[list[int]]]:
    """§6.2/§6.3 on shaped sections: the chunks and, for each, the section index of each
    of its paragraphs (the twin of ``rust/families/ragflow/naive.rs``)."""
    dels = parse_delimiter_field(delimiter)
    if has_wrapped_delimiter(delimiter):
        pattern = compile_delimiter_pattern(dels)
        pieces = [(p, pos, k) for k, (text, pos) in enumerate(secs) for p in _pieces(text, pattern)]
        return [_custom_piece(p, pos, count) for p, pos, _ in pieces], [[k] for *_, k in pieces]
    paragraphs = _paragraphs(secs, dels)
    sizes = [count(p[0]) for p in paragraphs]
    groups = merge_groups(sizes, chunk_token_num, strategy, overlapped_percent)
    chunks = [_rebuild(paragraphs, g) for g in groups]
    sources = [[paragraphs[i][2] for i in g] for g in groups]
    return apply_overlap(chunks, overlapped_percent), sources


def naive_merge(
    sections: Any,
    chunk_token_num: Any = 128,
    delimiter: str = "\n。；！？",
    overlapped_percent: Any = 0,
    strategy: Any = MergeStrategy.OVER_CAP,
    *,
    count: Count = num_tokens_from_string,
) -> list[str]:
    """§6: split sections on the delimiters, then merge the paragraphs by token count."""
    if not sections:
        return []
    secs = section_pairs(sections)
    return merge_sections(secs, chunk_token_num, delimiter, overlapped_percent, strategy, count)[0]


def image_sections(texts: Any) -> list[tuple[Any, Any]]:
    """§7: a text is a str, None (-> "") or a tuple ``(text[, pos])``; newline-normalised."""
    secs = []
    for text in texts:
        if isinstance(text, tuple):
            body, pos = text[0], (text[1] if len(text) >= 2 else "")
        else:
            body, pos = text, ""
        secs.append((normalize_text_newlines("" if body is None else body), pos))
    return secs


def fold_images(images: Sequence[Any]) -> Any:
    """§7: a group's image: its paragraphs' images, stacked in order (None skipped)."""
    acc = None
    for image in images:
        if image is not None:
            acc = image if acc is None else concat_img(acc, image)
    return acc


def naive_merge_with_images(
    texts: Any,
    images: Any,
    chunk_token_num: Any = 128,
    delimiter: str = "\n。；！？",
    overlapped_percent: Any = 0,
    strategy: Any = MergeStrategy.OVER_CAP,
    *,
    count: Count = num_tokens_from_string,
) -> tuple[list[str], list[Any]]:
    """§7: ``naive_merge`` where every section carries an image; a chunk's image stacks
    the images of its paragraphs (a hard-split piece keeps its section's image as is)."""
    if not texts or len(texts) != len(images):
        return [], []
    chunks, sources = merge_sections(
        image_sections(texts), chunk_token_num, delimiter, overlapped_percent, strategy, count
    )
    return chunks, [fold_images([images[k] for k in ks]) for ks in sources]


# -- §8 naive_merge_docx ------------------------------------------------------------
_SENTENCE = re.compile(r"([。!?？；！\n]|\. )")


def _sentences(text: str) -> list[str]:
    """§8 context: sentence k = segment k + its delimiter (the last segment alone)."""
    parts = _SENTENCE.split(text)
    return [
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    ]


def _partial(text: str, remaining: Any, from_end: bool, count: Count) -> str:
    """The shortest run of trailing (or leading) sentences whose count reaches ``remaining``."""
    sentences = _sentences(text)
    acc = ""
    for sentence in reversed(sentences) if from_end else sentences:
        acc = sentence + acc if from_end else acc + sentence
        if count(acc) >= remaining:
            return acc
    return text


def add_context(
    chunks: list[dict[str, Any]], i: int, size: Any, count: Count = num_tokens_from_string
) -> None:
    """§8 ``_add_context``: text from the text chunks around media chunk ``i``."""
    for key, step in (("context_above", -1), ("context_below", 1)):
        remaining = size
        parts: list[str] = []
        j = i + step
        while remaining > 0 and 0 <= j < len(chunks):
            other = chunks[j]
            j += step
            if other["ck_type"] != "text":
                continue
            if other["tk_nums"] < remaining:
                parts.append(other["text"])
                remaining -= other["tk_nums"]
                continue
            parts.append(_partial(other["text"], remaining, step < 0, count))
            break
        chunks[i][key] = "".join(reversed(parts) if step < 0 else parts)


def naive_merge_docx(
    sections: Any,
    chunk_token_num: Any = 128,
    delimiter: str = "\n。；！？",
    table_context_size: Any = 0,
    image_context_size: Any = 0,
    *,
    count: Count = num_tokens_from_string,
) -> tuple[list[dict[str, Any]], list[int]]:
    """§8: ``(text, image, table)`` sections into text, table and image chunks."""
    if not sections:
        return [], []
    dels = parse_delimiter_field(delimiter)
    pattern = compile_delimiter_pattern(dels)
    custom = has_wrapped_delimiter(delimiter)
    built: list[dict[str, Any]] = []
    seg = ""

    def emit(text: str, ck_type: str, image: Any) -> None:
        built.append(
            {
                "text": text,
                "image": image,
                "ck_type": ck_type,
                "tk_nums": count(text),
            }
        )

    def flush() -> None:
        nonlocal seg
        if seg.strip():
            emit(seg.strip(), "text", None)
        seg = ""

    for text, image, table in sections:
        text = "\n" + normalize_text_newlines(str(text)) if text else ""
        if table:
            emit(text + str(table), "table", image)
        elif image:
            emit(text, "image", image)
        elif pattern:
            for k, piece in enumerate(split_keep(text, pattern)):
                if not piece:
                    continue
                if k % 2 == 1 or not piece.strip():
                    flush()
                else:
                    seg += piece
        elif text.strip():
            emit(text.strip(), "text", None)
    if pattern:
        flush()

    for i, chunk in enumerate(built):
        size = {"table": table_context_size, "image": image_context_size}.get(chunk["ck_type"], 0)
        if chunk["ck_type"] != "text" and size > 0:
            add_context(built, i, size, count)

    merged: list[dict[str, Any]] = []
    image_idxs: list[int] = []
    last_text: dict[str, Any] | None = None
    for chunk in built:
        if chunk["ck_type"] != "text":
            if chunk["ck_type"] == "image":
                image_idxs.append(len(merged))
            merged.append(chunk)
            continue
        if last_text is None or last_text["tk_nums"] >= chunk_token_num or custom:
            merged.append(chunk)
            last_text = chunk
        else:
            last_text["text"] += chunk["text"]
            last_text["tk_nums"] += chunk["tk_nums"]
    return merged, image_idxs
