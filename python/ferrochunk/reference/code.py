"""``Code`` in plain Python over py-tree-sitter, written from its contract (``docs/code.md``).

The tree is walked with an explicit stack of child lists (no recursion, no cursor), the
cut points, units and scopes are kept in plain lists and dicts, and each chunk looks its
scopes and units up by brute force over sorted lists: simple, not fast. Offsets are UTF-8
byte offsets, so they are the native ones.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from . import boundaries
from .recursive import Tokens, whole_text_tokens
from .rows import Batch, RowMeta, Rows, span_rows

if TYPE_CHECKING:
    from ..config import Code

Count = Callable[[str], int]

TOP, MEMBER, STATEMENT, LINE = 1, 2, 3, 4
MAX_DEPTH = 256
LONG_LINE = 1000
HEADER_CHARS = 1000
MAX_HEADERS = 32  # the context holds the innermost headers, this many at most
_BLANK = b" \t\r\x0c"

SCOPE_KINDS = frozenset(
    {
        "class_definition",
        "function_definition",
        "class_declaration",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "abstract_class_declaration",
        "interface_declaration",
        "enum_declaration",
        "internal_module",
        "module",
        "function_item",
        "impl_item",
        "trait_item",
        "mod_item",
        "struct_item",
        "enum_item",
        "union_item",
        "method_declaration",
        "record_declaration",
        "annotation_type_declaration",
        "constructor_declaration",
        "namespace_declaration",
        "struct_declaration",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
        "namespace_definition",
        "class",
        "method",
        "singleton_method",
        "trait_declaration",
    }
)
FUNCTION_KINDS = frozenset(
    {
        "function_definition",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "function_item",
        "method_declaration",
        "constructor_declaration",
        "method",
        "singleton_method",
    }
)
DECORATED = "decorated_definition"


@dataclass(frozen=True)
class Scope:
    start: int
    end: int
    node_start: int
    kind: str
    name: str
    header: str
    truncated: bool
    head_end: int  # where the header's text ends in the source: the overlap's floor


@dataclass
class _Frame:
    rank: int  # the rank of its children's points; 0: they get none
    scope: bool  # a scope that is not a function: its body holds members
    run: tuple[int, int] | None = None  # attached nodes waiting: first start, last end


class _Scan:
    def __init__(self, data: bytes, tree: Any) -> None:
        self.data = data
        self.line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
        self.cuts: dict[int, int] = {}
        self.units: set[tuple[int, int]] = set()
        self.scopes: list[Scope] = []
        self._walk(tree.root_node)
        for k, a in enumerate(self.line_starts[1:], start=1):
            b = self.line_starts[k + 1] if k + 1 < len(self.line_starts) else len(data)
            if data[a:b].strip(b" \t\r\n\x0c"):
                self._cut(a, LINE)

    def ls(self, p: int) -> int:
        return self.line_starts[bisect_right(self.line_starts, p) - 1]

    def clean(self, p: int) -> bool:
        return self.data[self.ls(p) : p].strip(_BLANK) == b""

    def _cut(self, at: int, rank: int) -> None:
        self.cuts[at] = min(rank, self.cuts.get(at, rank))

    def _point(self, start: int, end: int, rank: int) -> None:
        if self.clean(start):
            self._cut(self.ls(start), rank)
            self.units.add((self.ls(start), end))

    def _walk(self, root: Any) -> None:
        # Each entry: a node whose children are being read, its frame, the next child.
        stack: list[tuple[Any, _Frame, int]] = [(root, _Frame(TOP, False), 0)]
        while stack:
            node, frame, i = stack.pop()
            if i >= node.child_count:
                continue
            stack.append((node, frame, i + 1))
            child = node.child(i)
            field = node.field_name_for_child(i)
            depth = len(stack)  # the child's depth: the root is 0
            inner = self._visit(child, field, frame)
            if inner is not None and depth < MAX_DEPTH:
                stack.append((child, inner, 0))

    def _scope_parts(self, node: Any) -> tuple[Any, Any] | None:
        inner = node.child_by_field_name("definition") if node.type == DECORATED else node
        if inner is None or inner.type not in SCOPE_KINDS:
            return None
        body = inner.child_by_field_name("body")
        return None if body is None else (inner, body)

    def _name(self, node: Any) -> str:
        named = node.child_by_field_name("name")
        if named is None and node.child_by_field_name("declarator") is not None:
            named = node.child_by_field_name("declarator")
            while True:
                if named.child_by_field_name("declarator") is not None:
                    named = named.child_by_field_name("declarator")
                elif named.type.endswith("_declarator") and named.named_child_count:
                    named = named.named_children[0]
                else:
                    break
        if named is None:
            named = node.child_by_field_name("type")
        if named is None:
            return ""
        return self.data[named.start_byte : named.end_byte].decode("utf-8", "surrogateescape")

    def _blank_between(self, a: int, b: int) -> bool:
        return self.data.count(b"\n", a, b) > 1

    def _visit(self, node: Any, field: str | None, parent: _Frame) -> _Frame | None:
        if not node.is_named:
            return None
        start, end = node.start_byte, node.end_byte
        if start == end or node.is_missing:
            return None
        if node.type == "ERROR":
            parent.run = None
            return None
        kind = node.type
        if kind.endswith("comment") or kind in ("decorator", "attribute_item"):
            if not self.clean(start):
                parent.run = None
            elif parent.run is not None and not self._blank_between(parent.run[1], start):
                parent.run = (parent.run[0], end)
            else:
                parent.run = (start, end)
            return None
        first = start
        if parent.run is not None and not self._blank_between(parent.run[1], start):
            first = parent.run[0]
        parent.run = None
        if parent.rank:
            self._point(first, end, parent.rank)
            if first != start:
                self._point(start, end, parent.rank)
        parts = self._scope_parts(node)
        if parts is not None and parent.rank:
            self._add_scope(node, *parts)
        k = bisect_right(self.line_starts, start)
        line_end = self.line_starts[k] if k < len(self.line_starts) else len(self.data)
        if end <= line_end and line_end - self.line_starts[k - 1] <= LONG_LINE:
            return None  # inside a short line nothing starts a line
        decorated = kind == DECORATED
        if decorated:
            rank = 0
        elif parent.scope and field == "body":
            rank = MEMBER
        else:
            rank = STATEMENT
        return _Frame(rank, parts is not None and not decorated and kind not in FUNCTION_KINDS)

    def _add_scope(self, node: Any, inner: Any, body: Any) -> None:
        s = node.start_byte
        start = self.ls(s) if self.clean(s) else s
        raw = self.data[start : max(body.start_byte, start)].rstrip(b" \t\r\n")
        head = raw.decode("utf-8", "surrogateescape")
        truncated = len(head) > HEADER_CHARS
        self.scopes.append(
            Scope(
                start,
                node.end_byte,
                s,
                inner.type,
                self._name(inner),
                head[:HEADER_CHARS] + "\n",
                truncated,
                start + len(raw),
            )
        )


class _Cutter:
    def __init__(self, data: bytes, tokens: Tokens, count: Count, config: Code, tree: Any):
        self.data = data
        self.tokens = tokens
        self.count = count
        self.max_tokens = config.max_tokens
        self.overlap = config.overlap_tokens
        self.with_context = config.context
        scan = _Scan(data, tree)
        self.cuts = sorted(scan.cuts.items())
        self.cut_at = [p for p, _ in self.cuts]
        self.units = sorted(scan.units, key=lambda u: (u[0], -u[1]))
        self.unit_starts = [a for a, _ in self.units]
        self.scopes = sorted(scan.scopes, key=lambda s: (s.start, -s.end, s.node_start))
        self.content = config.boundaries == "content"
        self.reach = (self.max_tokens - self.overlap) // 2
        self.keys = {p: boundaries.key(data, p, r, len(data)) for p, r in self.cuts}
        self.anchors: list[int] = []
        if self.content:
            self.anchors = self._anchors()

    def _anchors(self) -> list[int]:
        """Anchors among the cut points that lie strictly inside no unit that fits."""
        fits = [(a, b) for a, b in self.units if self.tokens.count(a, b) <= self.max_tokens]
        starts = [a for a, _ in fits]  # sorted, as the units are
        reach_end = list(accumulate((b for _, b in fits), max))  # the furthest end so far
        points = [
            (p, r)
            for p, r in self.cuts
            if not ((k := bisect_left(starts, p)) and reach_end[k - 1] > p)
        ]
        keys = [self.keys[p] for p, _ in points]
        segment = (0, len(self.data))
        return boundaries.anchors(points, keys, self.tokens.before, segment, self.reach)

    def text(self, a: int, b: int) -> str:
        return self.data[a:b].decode("utf-8", "surrogateescape")

    def holding(self, at: int) -> list[Scope]:
        return [s for s in self.scopes if s.start <= at < s.end]

    def opening_unit(self, at: int) -> int | None:
        lo, hi = bisect_left(self.unit_starts, at), bisect_right(self.unit_starts, at)
        fits = [
            n for _, b in self.units[lo:hi] if (n := self.tokens.count(at, b)) <= self.max_tokens
        ]
        return max(fits, default=None)

    def context(self, at: int, holding: list[Scope]) -> tuple[str, int]:
        """The context, and the end of the innermost header in it (the overlap's floor)."""
        if not self.with_context:
            return "", 0
        held = [s for s in holding if s.start < at]
        floor = held[-1].head_end if held else 0
        headers = [s.header for s in held][-MAX_HEADERS:]
        limit = self.max_tokens // 2
        opening = self.opening_unit(at)
        if opening is not None:
            limit = min(limit, self.max_tokens - opening)
        for k in range(len(headers)):
            context = "".join(headers[k:])
            if self.count(context) <= limit:
                return context, floor
        return "", 0

    def best(self, at: int, window_end: int, room: int) -> int | None:
        tokens = self.tokens
        lower = tokens.bound(max(0, tokens.token_at(at) - room)) if tokens.n else 0
        near = self.units[
            bisect_left(self.unit_starts, lower) : bisect_left(self.unit_starts, window_end)
        ]
        fitting = [
            (a, b)
            for a, b in near
            if b > at and tokens.count(a, b) <= (self.max_tokens if a > at else room)
        ]
        lo, hi = bisect_right(self.cut_at, at), bisect_right(self.cut_at, window_end)
        late = tokens.token_at(at) + self.reach

        def order(c: tuple[int, int]) -> tuple[object, ...]:
            if self.content:  # the smallest key, from `reach` tokens on if one is allowed
                return (tokens.before(c[0]) < late, self.keys[c[0]])
            return (c[1], -c[0])  # the best rank, the last of it

        for p, _ in sorted(self.cuts[lo:hi], key=order):
            if not any(a < p < b for a, b in fitting):
                return p
        return None

    def chunk_end(self, at: int, budget: int, room: int) -> int:
        tokens, n = self.tokens, len(self.data)
        first = tokens.token_at(at)
        if self.content:  # the first anchor in the window
            x = n if first + budget >= tokens.n else tokens.bound(first + budget)
            k = bisect_right(self.anchors, at)
            if k < len(self.anchors) and self.anchors[k] <= x:
                return self.anchors[k]
        for size in (budget, room):
            if first + size >= tokens.n:
                return n
            best = self.best(at, tokens.bound(first + size), room)
            if best is not None:
                return best
        b = tokens.char_cut(at, first, first + budget)
        return n if b is None else b

    def next_line(self, p: int, at: int) -> int:
        if p == 0 or self.data[p - 1] == 0x0A:
            return p
        i = self.data.find(b"\n", p, at)
        return at if i < 0 else i + 1

    def run(self) -> list[tuple[int, int, list[Scope], str, bool]]:
        """``(start, cut, scopes, context, oversize)`` per chunk."""
        out = []
        tokens, n, cap = self.tokens, len(self.data), self.max_tokens
        at, prev = 0, None
        while at < n:
            holding = self.holding(at)
            context, floor = self.context(at, holding)
            context_tokens = self.count(context)
            # The first chunk takes no overlap, so it reserves none.
            budget = max(1, cap - (self.overlap if prev is not None else 0) - context_tokens)
            room = max(budget, cap - context_tokens)
            while True:
                cut = self.chunk_end(at, budget, room)
                joined = self.count(context + self.text(at, cut))
                if joined <= cap or room == 1:
                    break
                budget = max(1, budget - (joined - cap))
                room = max(budget, room - (joined - cap))
            start = at
            if prev is not None and self.overlap:
                first = tokens.token_at(at)
                k = min(self.overlap, max(0, cap - tokens.count(at, cut)))
                tried = at
                while k > 0:
                    back = max(tokens.bound(max(first - k, 0)), prev, floor)
                    s = self.next_line(back, at)
                    if s >= at:
                        break
                    if s != tried:
                        tried = s
                        with_overlap = self.count(context + self.text(s, cut))
                        if with_overlap <= cap:
                            start, joined = s, with_overlap
                            break
                    k -= 1
            oversize = tokens.count(start, cut) > cap or joined > cap
            out.append((start, cut, holding, context, oversize))
            prev, at = at, cut
        return out


def batch(text: str, byte_starts: list[int], config: Code, count: Count) -> Batch:
    """The chunks as a batch (see ``rows.py``), with each row's ``((), truncated, context,
    scopes)`` as a fourth element."""
    import tree_sitter

    data = text.encode("utf-8")
    parser = tree_sitter.Parser(tree_sitter.Language(config._grammar))
    tree = parser.parse(data)
    cutter = _Cutter(data, whole_text_tokens(data, byte_starts), count, config, tree)
    spans = cutter.run()
    table, texts = span_rows(text, data, cutter.tokens, [(a, b, o) for a, b, _, _, o in spans])
    meta = [
        RowMeta((), any(s.truncated for s in held), context, tuple((s.kind, s.name) for s in held))
        for _, _, held, context, _ in spans
    ]
    return Rows(table, [], texts, meta)
