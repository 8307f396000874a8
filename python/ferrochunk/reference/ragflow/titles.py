"""§11 bullets and titles: heading levels by pattern group, and the two heading-aware merges."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from typing import Any

from .tokens import num_tokens_from_string

_C = "零一二三四五六七八九十百"

BULLET_PATTERN: list[list[str]] = [
    [
        rf"第[{_C}0-9]+(分?编|部分)",
        rf"第[{_C}0-9]+章",
        rf"第[{_C}0-9]+节",
        rf"第[{_C}0-9]+条",
        rf"[\(（][{_C}]+[\)）]",
    ],
    [
        r"第[0-9]+章",
        r"第[0-9]+节",
        r"[0-9]{,2}[\. 、]",
        r"[0-9]{,2}\.[0-9]{,2}[^a-zA-Z/%~-]",
        r"[0-9]{,2}\.[0-9]{,2}\.[0-9]{,2}",
        r"[0-9]{,2}\.[0-9]{,2}\.[0-9]{,2}\.[0-9]{,2}",
    ],
    [
        rf"第[{_C}0-9]+章",
        rf"第[{_C}0-9]+节",
        rf"[{_C}]+[ 、]",
        rf"[\(（][{_C}]+[\)）]",
        r"[\(（][0-9]{,2}[\)）]",
    ],
    [
        r"PART (ONE|TWO|THREE|FOUR|FIVE|SIX|SEVEN|EIGHT|NINE|TEN)",
        r"Chapter (I+V?|VI*|XI|IX|X)",
        r"Section [0-9]+",
        r"Article [0-9]+",
    ],
    [r"^#[^#]", r"^##[^#]", r"^###.*", r"^####.*", r"^#####.*", r"^######.*"],
]

_NOT_BULLET = [r"0", r"[0-9]+ +[0-9~个只-]", r"[0-9]+\.{2,}", r"[0-9]+(\.[0-9]+){2,}[的中]"]
_LAYOUT_TITLE = re.compile(r"(title|head)")
_ALL_DIGITS = re.compile(r"[0-9]+$")
_TAG_LINE = re.compile(r"@@[0-9]+.*")
_PACK_LIMIT = 218


def not_bullet(line: str) -> bool:
    """§11.1: numbers that look like bullets but are not (``0…``, ``3 个``, ``1...``)."""
    return any(re.match(p, line) for p in _NOT_BULLET)


def bullets_category(sections: list[str]) -> int:
    """§11.2: the pattern group most sections match (ties to the lowest group), or -1."""
    hits = [0] * len(BULLET_PATTERN)
    for group, patterns in enumerate(BULLET_PATTERN):
        for sec in sections:
            sec = sec.strip()
            if any(re.match(p, sec) for p in patterns) and not not_bullet(sec):
                hits[group] += 1
    best, res = 0, -1
    for group, count in enumerate(hits):
        if count > best:
            best, res = count, group
    return res


def not_title(txt: str) -> Any:
    """§11.3 (truthiness): too long, too many words, or punctuated like a sentence."""
    if re.match(rf"第[{_C}0-9]+条", txt):
        return False
    if len(txt.split()) > 12 or (txt.find(" ") < 0 and len(txt) >= 32):
        return True
    return re.search(r"[,;，。；！!]", txt)


def _first_match(patterns: list[str], text: str) -> int | None:
    return next((j for j, p in enumerate(patterns) if re.match(p, text)), None)


def title_frequency(bull: int, sections: list[tuple[str, str]]) -> tuple[int, list[int]]:
    """§11.4: every section's level and the most frequent heading level."""
    size = len(BULLET_PATTERN[bull])
    levels = [size + 1] * len(sections)
    if not sections or bull < 0:
        return size + 1, levels
    for i, (txt, layout) in enumerate(sections):
        j = _first_match(BULLET_PATTERN[bull], txt.strip())
        if j is not None and not not_bullet(txt):
            levels[i] = j
        elif _LAYOUT_TITLE.search(layout) and not not_title(txt.split("@")[0]):
            levels[i] = size
    most = size + 1
    for level, _ in sorted(Counter(levels).items(), key=lambda kv: -kv[1]):
        if level <= size:
            most = level
            break
    return most, levels


def _pairs(sections: list[Any]) -> list[tuple[Any, Any]]:
    if isinstance(sections[0], str):
        return [(s, "") for s in sections]
    return list(sections)


def _kept(sections: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """§11.5 step 2: drop empty lines, one-character heads and ASCII-digit-only heads."""
    out = []
    for txt, layout in sections:
        head = txt.split("@")[0].strip() if txt else ""
        if txt and len(head) > 1 and not _ALL_DIGITS.match(head):
            out.append((txt, layout))
    return out


def hierarchical_merge(
    bull: int,
    sections: list[Any],
    depth: int,
    *,
    count: Callable[[str], int] = num_tokens_from_string,
) -> list[list[str]]:
    """§11.5: chains of a line and its nearest preceding headings, packed under 218 tokens."""
    if not sections or bull < 0:
        return []
    kept = _kept(_pairs(sections))
    size = len(BULLET_PATTERN[bull])
    levels: list[list[int]] = [[] for _ in range(size + 2)]
    for i, (txt, layout) in enumerate(kept):
        j = _first_match(BULLET_PATTERN[bull], txt.strip())
        if j is not None:
            levels[j].append(i)
        elif _LAYOUT_TITLE.search(layout) and not not_title(txt):
            levels[size].append(i)
        else:
            levels[size + 1].append(i)
    lists = levels[::-1]
    read = [False] * len(kept)
    chains: list[list[int]] = []
    for i, arr in enumerate(lists[:depth]):
        for j in arr:
            if read[j]:
                continue
            read[j] = True
            chain = [j]
            chains.append(chain)
            if i == size:  # pattern-1 lines never look up to pattern 0
                continue
            for higher in lists[i + 1 :]:
                k = bisect_left(higher, j) - 1
                if k < 0:
                    continue
                if higher[k] > chain[-1]:
                    chain.pop()
                chain.append(higher[k])
            for line in chain:
                read[line] = True
    if not chains:
        return []
    res: list[list[str]] = [[]]
    num = [0]
    for chain in chains:
        texts = [kept[j][0] for j in chain[::-1]]
        if len(texts) == 1:
            n = count(_TAG_LINE.sub("", texts[0]))
            if n + num[-1] < _PACK_LIMIT:
                res[-1].append(texts[0])
                num[-1] += n
            else:
                res.append(texts)
                num.append(n)
        else:
            res.append(texts)
            num.append(_PACK_LIMIT)
    return res


class _Node:
    __slots__ = ("children", "level", "texts")

    def __init__(self, level: int, texts: list[str]) -> None:
        self.level = level
        self.texts = texts
        self.children: list[_Node] = []


def tree_merge(bull: int, sections: list[Any], depth: int) -> Any:
    """§11.6: a heading tree cut at the target level; each leaf emits its title path."""
    if not sections or bull < 0:
        return sections
    size = len(BULLET_PATTERN[bull])
    lines = []
    for txt, layout in _kept(_pairs(sections)):
        t = txt.replace("\u3000", " ").strip()
        j = _first_match(BULLET_PATTERN[bull], t)
        if j is not None and not not_bullet(t):
            level = j + 1
        elif _LAYOUT_TITLE.search(layout) and not not_title(t):
            level = size + 1
        else:
            level = size + 2
        if t.strip("\n"):
            lines.append((level, t))
    ordered = sorted({level for level, _ in lines})
    target = ordered[depth - 1] if depth <= len(ordered) else ordered[-1]
    if target == size + 2:
        target = ordered[-2] if len(ordered) > 1 else ordered[0]

    root = _Node(0, [])
    stack = [root]
    for level, text in lines:
        if level > target:
            stack[-1].texts.append(text)
            continue
        while len(stack) > 1 and level <= stack[-1].level:
            stack.pop()
        node = _Node(level, [text])
        stack[-1].children.append(node)
        stack.append(node)

    out: list[str] = []

    def walk(node: _Node, path: list[str]) -> None:
        if node.level == 0 and node.texts:
            out.append("\n".join(node.texts))
        inner = path + node.texts if 1 <= node.level <= target else path
        if not node.children and 1 <= node.level <= target:
            out.append("\n".join(inner))
        for child in node.children:
            walk(child, inner)

    walk(root, [])
    return [chunk for chunk in out if chunk]
