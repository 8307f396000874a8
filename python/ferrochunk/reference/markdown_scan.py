"""The Markdown structure scan in plain Python, written from ``docs/markdown.md``.

A line-based scanner (the strategy of the CommonMark spec's appendix): it reads the text a
line at a time with a small state for the open top-level block, and never builds a tree,
so nesting depth cannot overflow anything. It reports what the Markdown cutter needs:

* the **top-level headings** (ATX and setext), with their level and title;
* **cut points** at line starts, each with a rank (lower is better): before a heading
  ``(1, level)``, after a thematic break ``(2, 0)``, between blocks ``(3, 0)``, between list
  items or table rows ``(4, 0)``, at any other line ``(5, 0)``;
* **units** that are never cut while they fit: fenced code blocks, front matter, list items
  (nested ones too), table rows (the header with its delimiter row is one unit) and
  headings;
* the **tables**, so a chunk that continues one can repeat its header.

Headings inside block quotes, list items, code blocks, HTML blocks and front matter are
not section headings. Offsets are UTF-8 byte offsets; Markdown's syntax is ASCII, so the
scan works on bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

TITLE_CHARS = 1000
"""A heading title is reported cut to this many characters (and flagged)."""

_ATX = re.compile(rb"(#{1,6})(?:[ \t]|$)")
_SETEXT = re.compile(rb"(=+|-+)[ \t]*$")
_THEMATIC = re.compile(rb"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_FENCE = re.compile(rb"(`{3,}|~{3,})(.*)$")
_BULLET = re.compile(rb"([-+*])([ \t]|$)")
_ORDERED = re.compile(rb"([0-9]{1,9})([.)])([ \t]|$)")
_BLOCK_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|"
    "details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|"
    "h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    "noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|"
    "thead|title|tr|track|ul"
)
_ATTRIBUTE = (
    rb"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
    rb"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)"
)
# (start, end marker or None for "ends at a blank line", can interrupt a paragraph)
_HTML: tuple[tuple[re.Pattern[bytes], re.Pattern[bytes] | None, bool], ...] = (
    (
        re.compile(rb"<(?:script|pre|style|textarea)(?=[ \t\r\n\f\v>]|$)", re.I),
        re.compile(rb"</(?:script|pre|style|textarea)>", re.I),
        True,
    ),
    (re.compile(rb"<!--"), re.compile(rb"-->"), True),
    (re.compile(rb"<\?"), re.compile(rb"\?>"), True),
    (re.compile(rb"<![A-Za-z]"), re.compile(rb">"), True),
    (re.compile(rb"<!\[CDATA\["), re.compile(rb"\]\]>"), True),
    (
        re.compile(rb"</?(?:" + _BLOCK_NAMES.encode() + rb")(?=[ \t\r\n\f\v]|/?>|$)", re.I),
        None,
        True,
    ),
    (
        re.compile(
            rb"(?:<[A-Za-z][A-Za-z0-9-]*" + _ATTRIBUTE + rb"*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)"
            rb"[ \t\r\n\f\v]*$"
        ),
        None,
        False,
    ),
)

HEADING, BREAK, BLOCK, ITEM, LINE = 1, 2, 3, 4, 5


@dataclass(frozen=True, slots=True)
class Heading:
    """A top-level heading: its lines ``start..end`` (setext: from the paragraph's first line
    through the underline)."""

    start: int
    end: int
    level: int
    title: str
    truncated: bool


@dataclass(frozen=True, slots=True)
class Table:
    """A table: header and delimiter rows ``start..body``, body rows ``body..end``."""

    start: int
    body: int
    end: int


@dataclass(slots=True)
class Scan:
    headings: list[Heading] = field(default_factory=list)
    cuts: dict[int, tuple[int, int]] = field(default_factory=dict)
    units: list[tuple[int, int]] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)

    def cut(self, at: int, rank: tuple[int, int]) -> None:
        old = self.cuts.get(at)
        if old is None or rank < old:
            self.cuts[at] = rank


@dataclass(frozen=True, slots=True)
class Line:
    start: int
    end: int  # after the line ending
    body: bytes  # without the line ending
    indent: int  # columns of leading white space (tabs to the next multiple of 4)
    lead: int  # bytes of leading white space

    @property
    def blank(self) -> bool:
        return self.lead == len(self.body)

    @property
    def rest(self) -> bytes:
        return self.body[self.lead :]


def _indent(body: bytes, column: int = 0) -> tuple[int, int]:
    """(columns, bytes) of the leading spaces and tabs, from ``column``."""
    col, i = column, 0
    while i < len(body) and body[i] in b" \t":
        col = col + 4 - col % 4 if body[i] == 9 else col + 1
        i += 1
    return col - column, i


_EOL = re.compile(rb"\r\n|\r|\n")


def split_lines(data: bytes) -> list[Line]:
    """Lines ending at CR, LF or CRLF (mixed is fine); the last may have no ending."""
    out = []
    at = 0
    for m in _EOL.finditer(data):
        body = data[at : m.start()]
        out.append(Line(at, m.end(), body, *_indent(body)))
        at = m.end()
    if at < len(data):
        body = data[at:]
        out.append(Line(at, len(data), body, *_indent(body)))
    return out


# -- what a line starts (at the top level: indent < 4) --------------------------------
def _atx(line: Line) -> tuple[int, bytes] | None:
    if line.indent > 3:
        return None
    m = _ATX.match(line.rest)
    if m is None:
        return None
    text = line.rest[m.end(1) :].rstrip(b" \t")
    tail = text.rstrip(b"#")
    if len(tail) < len(text) and (not tail or tail[-1:] in (b" ", b"\t")):
        text = tail
    return len(m.group(1)), text.strip(b" \t")


def _thematic(line: Line) -> bool:
    return line.indent <= 3 and _THEMATIC.match(line.rest) is not None


def _fence(line: Line) -> bytes | None:
    """The opening fence's marker run, or None."""
    if line.indent > 3:
        return None
    m = _FENCE.match(line.rest)
    if m is None or (m.group(1)[:1] == b"`" and b"`" in m.group(2)):
        return None
    return m.group(1)


def _closes(line: Line, marker: bytes) -> bool:
    if line.indent > 3:
        return False
    rest = line.rest
    run = len(rest) - len(rest.lstrip(marker[:1]))
    return run >= len(marker) and not rest[run:].strip(b" \t")


def _list_item(line: Line, interrupting: bool) -> int | None:
    """The item's content column, or None; ``interrupting`` a paragraph, an item must not
    be empty and an ordered one must start at 1."""
    if line.indent > 3:
        return None
    rest = line.rest
    m = _BULLET.match(rest) or _ORDERED.match(rest)
    if m is None:
        return None
    ordered = m.re is _ORDERED
    marker_end = m.end(2) if ordered else m.end(1)
    after = rest[marker_end:]
    if interrupting and (not after.strip(b" \t") or (ordered and int(m.group(1)) != 1)):
        return None
    base = line.indent + marker_end
    gap, _ = _indent(after, base)
    if not after.strip(b" \t"):
        gap = 1
    elif gap > 4:
        gap = 1  # indented code inside the item: the content starts one column after
    return base + gap


def _html(line: Line, interrupting: bool) -> re.Pattern[bytes] | Literal[False] | None:
    """The block's end marker, None for "ends at a blank line", or False (no block)."""
    if line.indent > 3 or not line.rest.startswith(b"<"):
        return False
    for start, end, interrupts in _HTML:
        if start.match(line.rest) and (interrupts or not interrupting):
            return end
    return False


def _cells(row: bytes) -> int:
    """Cells of a table row: split at unescaped ``|`` (not inside code spans is ignored,
    as markdown-it does), outer empty cells dropped."""
    parts = re.split(rb"(?<!\\)\|", row.strip(b" \t"))
    if parts and parts[0] == b"":
        parts.pop(0)
    if parts and parts[-1] == b"":
        parts.pop()
    return len(parts)


def _delimiter_cells(line: Line) -> int:
    """The column count of a delimiter row, or 0."""
    rest = line.rest.rstrip(b" \t")
    if line.indent > 3 or len(rest) < 2 or rest[0] not in b"|-:":
        return 0
    if rest[1] not in b"|-: \t" or (rest[0] == 45 and rest[1] in b" \t"):
        return 0
    if rest.strip(b"|-: \t"):
        return 0
    columns = line.body.split(b"|")
    n = 0
    for i, column in enumerate(columns):
        t = column.strip(b" \t")
        if not t:
            if i in (0, len(columns) - 1):
                continue
            return 0
        if not re.fullmatch(rb":?-+:?", t):
            return 0
        n += 1
    return n


def _table_at(lines: list[Line], i: int) -> bool:
    if i + 1 >= len(lines):
        return False
    header, delimiter = lines[i], lines[i + 1]
    if header.indent > 3 or b"|" not in header.rest.strip(b" \t"):
        return False
    n = _delimiter_cells(delimiter)
    return n > 0 and _cells(header.rest) == n


def _interrupts(lines: list[Line], i: int, lazy: bool = False) -> bool:
    """Whether line ``i`` starts a block that ends a paragraph (so it is no continuation).
    ``lazy``: the line is less indented than the container's paragraph, where any list
    item ends it (the "not empty, starts at 1" rule is for lines at the paragraph's own
    indent)."""
    line = lines[i]
    return (
        _atx(line) is not None
        or _thematic(line)
        or _fence(line) is not None
        or (line.indent <= 3 and line.rest.startswith(b">"))
        or _list_item(line, interrupting=not lazy) is not None
        or _html(line, interrupting=True) is not False
        or _table_at(lines, i)
    )


def _ends_table(line: Line) -> bool:
    """Whether ``line`` ends a table or a block quote's lazy lines (markdown-it's block
    quote terminators): a list item ends them even empty or numbered from 2."""
    return (
        _atx(line) is not None
        or _thematic(line)
        or _fence(line) is not None
        or line.rest.startswith(b">")
        or _list_item(line, interrupting=False) is not None
        or _html(line, interrupting=True) is not False
    )


def _title(raw: bytes) -> tuple[str, bool]:
    title = raw.decode("utf-8", errors="surrogateescape")
    if len(title) > TITLE_CHARS:
        return title[:TITLE_CHARS], True
    return title, False


# -- containers: how far a list item or a block quote reaches -------------------------
Raw = tuple[str, Any] | None
"""Inside a container, a block whose lines are not Markdown: ``("fence", marker)`` or
``("html", end pattern, or None for a block that ends at a blank line)``."""


def _inner_leaf(rest: bytes, raw: Raw, para: bool = False) -> tuple[bool, Raw]:
    """After a container line whose content is ``rest``: (a paragraph is open, the raw
    block still open inside the container). ``para``: a paragraph was open before."""
    at = 0
    if raw is None and not para:
        # Container markers nest: peel quote and list markers to reach the leaf (an empty
        # item leaves a blank leaf: no paragraph). A thematic break is no list item; the
        # breaks among the line's suffixes are found once, so a deep line stays linear.
        breaks = _thematic_suffixes(rest)
        while True:
            k = at  # past the white space before a marker
            while k < len(rest) and rest[k] in b" \t":
                k += 1
            if rest.startswith(b">", k):
                at = k + 1
                continue
            m = _BULLET.match(rest, k) or _ORDERED.match(rest, k)
            if m is not None and not breaks[k]:
                at = m.end()
                continue
            break
    stripped = rest[at:]
    leaf = Line(0, 0, stripped, *_indent(stripped))
    if raw is not None:
        kind, end = raw
        if kind == "fence":
            return False, (None if _closes(leaf, end) else raw)
        if end is None:
            return False, (None if leaf.blank else raw)  # until a blank line
        return False, (None if end.search(leaf.body) else raw)
    if leaf.blank:
        return False, None
    if para and (leaf.indent > 3 or _SETEXT.match(leaf.rest)):
        # An indented line continues a paragraph; an underline makes it a heading.
        return leaf.indent > 3, None
    opened = _fence(leaf)
    if opened is not None:
        return False, ("fence", opened)
    html = _html(leaf, interrupting=para)
    if html is not False:
        closed = html is not None and html.search(leaf.body) is not None
        return False, (None if closed else ("html", html))
    if leaf.indent > 3 or _atx(leaf) is not None or _thematic(leaf):
        return False, None
    return True, None


def _thematic_suffixes(s: bytes) -> list[bool]:
    """For each start ``k`` (at a non-space), whether ``s[k:]`` is a thematic break."""
    out = [False] * (len(s) + 1)
    kind, mixed, count = None, False, 0
    for k in range(len(s) - 1, -1, -1):
        b = s[k]
        if b in b"*-_":
            mixed = mixed or (kind is not None and kind != b)
            kind = b
            count += 1
        elif b not in b" \t":
            mixed = True
        out[k] = not mixed and count >= 3
    return out


def scan(data: bytes) -> Scan:
    """The structure of ``data`` (see the module docstring)."""
    lines = split_lines(data)
    out = Scan()
    n = len(lines)
    i = 0
    first_block = True

    def block_start(at: int) -> None:
        nonlocal first_block
        if not first_block:
            out.cut(at, (BLOCK, 0))
        first_block = False

    def content_lines(a: int, b: int) -> None:
        for line in lines[a:b]:
            if not line.blank:
                out.cut(line.start, (LINE, 0))

    # Front matter: `---` on the first line, closed by `---` or `...`.
    if n and lines[0].body.rstrip(b" \t") == b"---":
        close = next(
            (k for k in range(1, n) if lines[k].body.rstrip(b" \t") in (b"---", b"...")), None
        )
        if close is not None:
            out.units.append((0, lines[close].end))
            first_block = False
            i = close + 1

    while i < n:
        line = lines[i]
        if line.blank:
            i += 1
            continue
        block_start(line.start)
        if line.indent > 3:  # indented code, until a non-blank line with less indent
            j = i + 1
            while j < n and (lines[j].blank or lines[j].indent > 3):
                j += 1
            content_lines(i, j)
            i = j
            continue
        if _table_at(lines, i):
            # The header and delimiter rows stay together, and each row stays whole.
            out.units.append((line.start, lines[i + 1].end))
            out.units.append((line.start, line.end))
            out.units.append((lines[i + 1].start, lines[i + 1].end))
            j = i + 2
            while j < n:
                row = lines[j]
                if row.blank or row.indent > 3 or _ends_table(row):
                    break
                out.cut(row.start, (ITEM, 0))
                out.units.append((row.start, row.end))
                j += 1
            out.tables.append(Table(line.start, lines[i + 1].end, lines[j - 1].end))
            i = j
            continue
        marker = _fence(line)
        if marker is not None:
            j = i + 1
            while j < n and not _closes(lines[j], marker):
                j += 1
            end = lines[min(j, n - 1)].end
            out.units.append((line.start, end))
            content_lines(i, min(j + 1, n))
            i = j + 1
            continue
        if line.rest.startswith(b">"):
            i = _container(lines, i, None, out)
            continue
        if _thematic(line):
            nxt = i + 1
            while nxt < n and lines[nxt].blank:
                nxt += 1
            if nxt < n:
                out.cut(lines[nxt].start, (BREAK, 0))
            i += 1
            continue
        column = _list_item(line, interrupting=False)
        if column is not None:
            i = _container(lines, i, column, out)
            continue
        end_marker = _html(line, interrupting=False)
        if end_marker is not False:
            j = i
            if end_marker is None:
                while j < n and not lines[j].blank:
                    j += 1
            else:
                while j < n and end_marker.search(lines[j].body) is None:
                    j += 1
                j = min(j + 1, n)
            content_lines(i, j)
            i = j
            continue
        atx = _atx(line)
        if atx is not None:
            title, cut = _title(atx[1])
            out.headings.append(Heading(line.start, line.end, atx[0], title, cut))
            out.cut(line.start, (HEADING, atx[0]))
            out.units.append((line.start, line.end))
            i += 1
            continue
        # A paragraph, which a setext underline turns into a heading.
        j = i + 1
        while j < n:
            under = lines[j]
            if under.blank:
                break
            m = _SETEXT.match(under.rest) if under.indent <= 3 else None
            if m is not None:
                level = 1 if m.group(1)[:1] == b"=" else 2
                raw = b"\n".join(x.body for x in lines[i:j]).strip(b" \t\n")
                title, cut = _title(raw)
                out.headings.append(Heading(line.start, under.end, level, title, cut))
                out.cut(line.start, (HEADING, level))
                out.units.append((line.start, under.end))
                j += 1
                break
            if under.indent <= 3 and _interrupts(lines, j):
                break
            j += 1
        if not out.headings or out.headings[-1].start != line.start:
            content_lines(i, j)
        i = j
    return out


def _container(lines: list[Line], i: int, column: int | None, out: Scan) -> int:
    """Scans the list (``column``: the first item's content column) or block quote
    (``column`` None) that starts at line ``i``; returns the line after it."""
    n = len(lines)
    quote = column is None
    empty = quote and not lines[i].rest[1:].strip(b" \t")
    first_content, dead = True, False
    item_start = i
    if quote:
        para, fence = _inner_leaf(lines[i].rest[1:], None)
    else:
        assert column is not None
        marker_rest = lines[i].rest
        m = _BULLET.match(marker_rest) or _ORDERED.match(marker_rest)
        assert m is not None
        kind = m.group(1) if m.re is _BULLET else m.group(2)
        para, fence = _inner_leaf(marker_rest[m.end() :], None)
        first_content = bool(marker_rest[m.end() :].strip(b" \t"))
    # A fenced block inside the container is a unit too, from its opening line to its
    # closing one (or the container's end).
    fence_start = _track(out, None, None, fence, lines[i])
    last = i  # the last non-blank line of the current item
    j = i + 1
    while j < n:
        line = lines[j]
        if line.blank:
            if quote:
                break
            para = False
            if fence is not None and fence[0] == "html" and fence[1] is None:
                fence = None
            if j == item_start + 1 and not first_content:
                dead = True  # an item that starts empty ends at a blank line
            j += 1
            continue
        inside = False
        if quote:
            if line.indent <= 3 and line.rest.startswith(b">"):
                inside = True
                empty = not line.rest[1:].strip(b" \t")
                before = fence
                para, fence = _inner_leaf(line.rest[1:], fence, para)
                fence_start = _track(out, fence_start, before, fence, line)
            elif not empty and para and fence is None and not _ends_table(line):
                inside = True  # a lazy continuation of the quote's open paragraph
        else:
            assert column is not None
            if line.indent >= column and not dead:
                inside = True
                body = line.body[_indent_bytes(line.body, column) :]
                before = fence
                para, fence = _inner_leaf(body, fence, para)
                fence_start = _track(out, fence_start, before, fence, line)
            elif (
                (m := _BULLET.match(line.rest) or _ORDERED.match(line.rest)) is not None
                and line.indent <= 3
                and (m.group(1) if m.re is _BULLET else m.group(2)) == kind
                and not _thematic(line)
            ):
                # The next item of the same list.
                if fence_start is not None:
                    out.units.append((fence_start, lines[last].end))
                out.units.append((lines[item_start].start, lines[last].end))
                out.cut(line.start, (ITEM, 0))
                item_start = j
                new_column = _list_item(line, interrupting=False)
                assert new_column is not None
                column = new_column
                para, fence = _inner_leaf(line.rest[m.end() :], None)
                fence_start = _track(out, None, None, fence, line)
                first_content = bool(line.rest[m.end() :].strip(b" \t"))
                dead = False
                last = j
                j += 1
                continue
            elif not lines[j - 1].blank and para and fence is None and line.indent <= 3:
                inside = not _interrupts(lines, j, True)  # a lazy continuation line
        if not inside:
            break
        if not quote and _nested_item(line, column):
            out.cut(line.start, (ITEM, 0))
        out.cut(line.start, (LINE, 0))
        last = j
        j += 1
    if fence_start is not None:
        out.units.append((fence_start, lines[last].end))
    # An item, or a whole block quote, stays whole while it fits.
    out.units.append((lines[item_start].start, lines[last].end))
    return last + 1 if not quote else j


def _track(out: Scan, start: int | None, before: Raw, after: Raw, line: Line) -> int | None:
    """Where an open fenced block inside a container starts: set when ``line`` opens one;
    when it closes one, the block is added as a unit."""
    opened = after is not None and after[0] == "fence"
    was = before is not None and before[0] == "fence"
    if opened and not was:
        return line.start
    if was and not opened and start is not None:
        out.units.append((start, line.end))
        return None
    return start


def _nested_item(line: Line, column: int | None) -> bool:
    """A list item nested inside the current one (a cut between items, rank 4)."""
    if column is None:
        return False
    body = line.body[_indent_bytes(line.body, column) :]
    s = Line(0, 0, body, *_indent(body))
    return _list_item(s, interrupting=False) is not None


def _indent_bytes(body: bytes, columns: int) -> int:
    """How many bytes of leading white space make up ``columns`` columns (at most)."""
    col, i = 0, 0
    while i < len(body) and body[i] in b" \t" and col < columns:
        col = col + 4 - col % 4 if body[i] == 9 else col + 1
        i += 1
    return i
