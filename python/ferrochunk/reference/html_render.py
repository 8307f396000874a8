"""The HTML rendering of ``docs/html.md`` in plain Python: visible text as light Markdown.

Tokens come from :mod:`.html_tokenize`. An open-element stack (at most ``MAX_DEPTH``
deep; deeper elements are read as text of their parent) applies the tree builder's rules
that change text or structure: implied end tags (``p``, ``li``, ``dd``/``dt``, table
rows and cells, headings), the raw text elements, ``pre``'s leading newline and foreign
content. Each element gets one *effect* when it opens, chosen from the mode it opens in,
and undoes it when it is popped, by an end tag or implicitly.

The rendering holds each rendered character's source span, ``None`` for what the
rendering adds (markers, separators, collapsed white space, escapes). The native twin is
``rust/structure/html/render.rs``, written from the same description.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from . import html_tokenize as T

MAX_DEPTH = 512
WHITESPACE = T.WHITESPACE


def _names(*lines: str) -> frozenset[str]:
    return frozenset(" ".join(lines).split())


VOID = _names(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param",
    "source track wbr",
)
DROPPED = _names("script style template noscript svg iframe object noembed noframes frameset")
RAW = {
    "title": T.RCDATA,
    "textarea": T.RCDATA,
    "style": T.RAWTEXT,
    "xmp": T.RAWTEXT,
    "iframe": T.RAWTEXT,
    "noembed": T.RAWTEXT,
    "noframes": T.RAWTEXT,
    "noscript": T.RAWTEXT,
    "script": T.SCRIPT,
    "plaintext": T.PLAINTEXT,
}
HEADINGS = _names("h1 h2 h3 h4 h5 h6")
BLOCKS = _names(
    "address article aside blockquote center dd details dialog dir div dl dt fieldset",
    "figcaption figure footer form header hgroup legend main menu nav ol optgroup option",
    "p search section summary ul li table caption tbody thead tfoot tr td th",
)
PRE = _names("pre listing xmp plaintext")
CLOSES_P = _names(
    "address article aside blockquote center details dialog dir div dl fieldset",
    "figcaption figure footer header hgroup main menu nav ol p search section summary ul",
    "h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr xmp",
)
SPECIAL = _names(
    "address applet area article aside base basefont bgsound blockquote body br button",
    "caption center col colgroup dd details dir div dl dt embed fieldset figcaption",
    "figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html",
    "iframe img input keygen li link listing main marquee menu meta nav noembed noframes",
    "noscript object ol p param plaintext pre script search section select source style",
    "summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp",
)
SCOPE = _names("applet caption html table td th marquee object template")
TABLE_SCOPE = _names("html table template")
TABLE_PARTS = _names("caption col colgroup tbody td tfoot th thead tr")
SECTIONS = _names("tbody thead tfoot")
LISTS = _names("ul ol menu dir")
# Start tags that end foreign content (and `font` with color, face or size).
BREAKOUT = _names(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head",
    "hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup",
    "table tt u ul var",
)
# A line of a paragraph starting with one of these gets a backslash before it, so the
# Markdown scan reads it as text.
ESCAPED = frozenset("#>-+*=_~`|<:")


@dataclass(frozen=True, slots=True)
class Skip:
    """What ``skip=`` drops beyond the fixed set: tag names, classes and ids."""

    tags: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()


@dataclass(slots=True)
class _Entry:
    name: str
    effect: str
    foreign: bool = False


@dataclass(slots=True)
class _Container:
    """A list (no prefix), a list item (its marker, then as many spaces), a block quote."""

    marker: str
    rest: str
    emitted: bool = False
    counter: int = 1
    ordered: bool = False


@dataclass
class Rendered:
    text: str
    starts: list[int]
    ends: list[int]
    title: str | None


Char = tuple[str, int | None, int | None]


@dataclass
class _Renderer:
    skip: Skip
    out: list[str] = field(default_factory=list)
    spans: list[tuple[int, int] | None] = field(default_factory=list)
    stack: list[_Entry] = field(default_factory=list)
    containers: list[_Container] = field(default_factory=list)
    # The open paragraph-like block: None, "para" or "heading".
    block: str | None = None
    level: int = 0
    pending_space: bool = False
    pending_break: bool = False
    line_digits: int = -1  # digits of the line so far while it is only digits, else -1
    at_line_start: bool = False
    drop: int = 0
    cells: int = 0
    tables: int = 0
    headings: int = 0
    pres: int = 0
    pre: list[Char] = field(default_factory=list)
    row: list[list[Char]] | None = None
    header_done: bool = False
    cell: list[Char] = field(default_factory=list)
    cell_space: bool = False
    skip_lf: bool = False
    title: list[str] | None = None
    title_done: bool = False

    # -- output ---------------------------------------------------------------------

    def emit(self, text: str, span: tuple[int, int] | None = None) -> None:
        for ch in text:
            self.out.append(ch)
            self.spans.append(span)

    def prefix(self) -> None:
        for c in self.containers:
            self.emit(c.rest if c.emitted else c.marker)
            c.emitted = True

    def begin(self) -> None:
        """Starts a block: its separator, then the containers' prefix."""
        if any(c.emitted for c in self.containers):
            self.emit("\n")
        elif self.out:
            self.emit("\n\n")
        self.prefix()

    def new_line(self) -> None:
        self.emit("\n")
        self.prefix()

    # -- paragraphs and headings ----------------------------------------------------

    def boundary(self) -> None:
        self.block = None
        self.pending_space = self.pending_break = False

    def inline(self, ch: str, span: tuple[int, int]) -> None:
        if ch in WHITESPACE:
            if self.block is not None:
                self.pending_space = True
            return
        if self.block is None:
            self.begin()
            if self.headings:
                self.block = "heading"
                self.emit("#" * self.level + " ")
                self.at_line_start = False
            else:
                self.block = "para"
                self.at_line_start = True
                self.line_digits = 0
        elif self.pending_break:
            self.new_line()
            self.at_line_start, self.line_digits = True, 0
        elif self.pending_space:
            self.emit(" ")
            self.at_line_start, self.line_digits = False, -1
        self.pending_space = self.pending_break = False
        if self.block == "para":
            if (self.at_line_start and ch in ESCAPED) or (0 < self.line_digits <= 9 and ch in ".)"):
                self.emit("\\")
            self.line_digits = (
                self.line_digits + 1 if "0" <= ch <= "9" and self.line_digits >= 0 else -1
            )
            self.at_line_start = False
        self.emit(ch, span)

    def line_break(self) -> None:
        if self.cells:
            self.cell_space = bool(self.cell)
        elif self.pres:
            self.pre.append(("\n", None, None))
        elif self.headings:
            if self.block is not None:
                self.pending_space = True
        elif self.block is not None:
            self.pending_break, self.pending_space = True, False

    def space(self) -> None:
        """A block boundary where only a space can go: in a cell or a heading."""
        if self.cells:
            self.cell_space = bool(self.cell)
        elif self.block is not None:
            self.pending_space = True

    # -- pre ------------------------------------------------------------------------

    def flush_pre(self) -> None:
        chars, self.pre = self.pre, []
        if not chars:
            return
        longest = run = 0
        for ch, _, _ in chars:
            run = run + 1 if ch == "`" else 0
            longest = max(longest, run)
        fence = "`" * max(3, longest + 1)
        self.boundary()
        self.begin()
        self.emit(fence)
        self.new_line()
        for ch, a, b in chars:
            if ch == "\n":
                self.new_line()
            else:
                self.emit(ch, None if a is None or b is None else (a, b))
        if chars[-1][0] != "\n":
            self.new_line()
        self.emit(fence)
        self.boundary()

    # -- tables ---------------------------------------------------------------------

    def cell_char(self, ch: str, span: tuple[int, int]) -> None:
        if ch in WHITESPACE:
            self.cell_space = bool(self.cell)
            return
        if self.cell_space:
            self.cell.append((" ", None, None))
            self.cell_space = False
        if ch == "|":
            self.cell.append(("\\", None, None))
        self.cell.append((ch, span[0], span[1]))

    def end_cell(self) -> None:
        if self.row is None:
            self.row = []
        self.row.append(self.cell)
        self.cell, self.cell_space = [], False

    def flush_row(self) -> None:
        row, self.row = self.row, None
        if not row:
            return
        if self.header_done:
            self.new_line()
        else:
            self.boundary()
            self.begin()
        self.emit("|")
        for cell in row:
            self.emit(" ")
            for ch, a, b in cell:
                self.emit(ch, None if a is None or b is None else (a, b))
            self.emit(" |")
        if not self.header_done:
            self.new_line()
            self.emit("|" + " --- |" * len(row))
            self.header_done = True

    def end_table_run(self) -> None:
        """The rows so far are one table: what follows starts another (with a header)."""
        self.flush_row()
        if self.header_done:
            self.boundary()
        self.header_done = False

    # -- the stack ------------------------------------------------------------------

    def in_scope(self, names: frozenset[str], boundaries: frozenset[str]) -> int | None:
        """The index of the nearest open element named in ``names`` before a boundary
        (foreign elements are neither)."""
        for i in range(len(self.stack) - 1, -1, -1):
            e = self.stack[i]
            if e.foreign:
                continue
            if e.name in names:
                return i
            if e.name in boundaries:
                return None
        return None

    def pop_to(self, i: int) -> None:
        while len(self.stack) > i:
            self.close(self.stack.pop())

    def close_p(self) -> None:
        i = self.in_scope(frozenset(("p",)), SCOPE | {"button"})
        if i is not None:
            self.pop_to(i)

    def open_effect(self, name: str, attrs: dict[str, str]) -> str:
        """What opening ``name`` does here, applied now; ``close`` undoes it."""
        if self.drop:
            return "none"
        if name == "title":
            if self.title is None and not self.title_done:
                self.title = []
            self.drop += 1
            return "title"
        if name in DROPPED or "hidden" in attrs or self.skipped(name, attrs):
            self.drop += 1
            return "drop"
        if self.cells:
            if name == "table":
                self.tables += 1
                return "inner_table"
            return "space" if name in BLOCKS or name in HEADINGS or name in PRE else "none"
        if self.pres:
            return "none"
        if self.headings:
            return "space" if name in BLOCKS or name in HEADINGS or name in PRE else "none"
        if name in HEADINGS:
            self.boundary()
            self.headings += 1
            self.level = int(name[1])
            return "heading"
        if name in PRE:
            self.boundary()
            self.pres += 1
            return "pre"
        if name == "table":
            if self.tables:
                self.end_table_run()
            self.boundary()
            self.tables += 1
            self.header_done = False
            return "table"
        if self.tables:
            if name == "tr":
                self.flush_row()
                self.row = []
                return "row"
            if name in ("td", "th"):
                self.cells += 1
                return "cell"
            if name in SECTIONS or name in ("col", "colgroup"):
                return "none"
            if name == "caption" or name in BLOCKS:
                self.end_table_run()
                self.boundary()
                return "block"
        if name in LISTS:
            self.boundary()
            ordered = name == "ol"
            start = _integer(attrs.get("start")) if ordered else None
            counter = 1 if start is None else min(max(start, 0), 999_999_999)
            self.containers.append(_Container("", "", counter=counter, ordered=ordered))
            return "list"
        if name == "li":
            self.boundary()
            parent = self.containers[-1] if self.containers else None
            if parent is not None and parent.marker == "" and parent.ordered:
                marker = f"{parent.counter}. "
                parent.counter += 1
            else:
                marker = "- "
            self.containers.append(_Container(marker, " " * len(marker)))
            return "item"
        if name == "blockquote":
            self.boundary()
            self.containers.append(_Container("> ", "> "))
            return "quote"
        if name in BLOCKS:
            self.boundary()
            return "block"
        return "none"

    def close(self, e: _Entry) -> None:
        effect = e.effect
        if effect in ("drop", "title"):
            self.drop -= 1
            if effect == "title" and self.title is not None:
                self.title_done = True
        elif effect == "space":
            self.space()
        elif effect == "block":
            self.boundary()
        elif effect == "heading":
            self.headings -= 1
            self.boundary()
        elif effect == "pre":
            self.pres -= 1
            self.flush_pre()
        elif effect == "inner_table":
            self.tables -= 1
            self.space()
        elif effect == "table":
            self.tables -= 1
            self.end_table_run()
            self.boundary()
        elif effect == "row":
            self.flush_row()
        elif effect == "cell":
            self.cells -= 1
            self.end_cell()
        elif effect in ("list", "item", "quote"):
            self.containers.pop()
            self.boundary()

    def skipped(self, name: str, attrs: dict[str, str]) -> bool:
        s = self.skip
        if name in s.tags:
            return True
        if s.ids and attrs.get("id") in s.ids:
            return True
        if s.classes and "class" in attrs:
            return any(c in s.classes for c in _split(attrs["class"]))
        return False

    # -- tokens ---------------------------------------------------------------------

    def start(self, tok: T.StartTag, tokenizer: T.Tokenizer) -> None:
        name = tok.name
        if self.stack and self.stack[-1].foreign:
            breaks = name in BREAKOUT or (
                name == "font" and any(a in tok.attrs for a in ("color", "face", "size"))
            )
            if not breaks:
                if not tok.self_closing:
                    self.push(_Entry(name, "none", foreign=True))
                return
            while self.stack and self.stack[-1].foreign:
                self.close(self.stack.pop())
        if name in ("html", "body", "head"):
            return
        if name in TABLE_PARTS and not self.in_table():
            return
        if name in RAW:
            tokenizer.switch(RAW[name], name)
        if name in CLOSES_P:
            self.close_p()
        if name in HEADINGS and self.stack and self.stack[-1].name in HEADINGS:
            self.pop_to(len(self.stack) - 1)
        elif name == "li":
            self.close_item(frozenset(("li",)))
        elif name in ("dd", "dt"):
            self.close_item(frozenset(("dd", "dt")))
        elif name in ("td", "th"):
            self.close_in_table(frozenset(("td", "th")))
        elif name == "tr":
            self.close_in_table(frozenset(("tr", "td", "th")))
        elif name in SECTIONS:
            self.close_in_table(frozenset(("tr", "td", "th", "tbody", "thead", "tfoot")))
        elif name == "table" and self.stack and self.stack[-1].name in SECTIONS | {"table", "tr"}:
            self.close_in_table(frozenset(("table",)))
        elif name in ("option", "optgroup") and self.stack and self.stack[-1].name == "option":
            self.pop_to(len(self.stack) - 1)
        if name in ("svg", "math"):
            if not tok.self_closing:
                effect = self.open_effect(name, tok.attrs)
                self.push(_Entry(name, effect, foreign=True))
            return
        if name in VOID:
            if name == "br":
                if not self.drop:
                    self.line_break()
            elif name == "hr" and not self.drop:
                if self.cells or self.headings:
                    self.space()
                elif not self.pres:
                    if self.tables:
                        self.end_table_run()
                    self.boundary()
            return
        if len(self.stack) >= MAX_DEPTH:
            return
        self.push(_Entry(name, self.open_effect(name, tok.attrs)))
        if name in ("pre", "listing", "textarea"):
            self.skip_lf = True

    def push(self, e: _Entry) -> None:
        if len(self.stack) < MAX_DEPTH:
            self.stack.append(e)
        else:
            self.close(e)

    def in_table(self) -> bool:
        return self.in_scope(frozenset(("table",)), TABLE_SCOPE) is not None

    def close_item(self, names: frozenset[str]) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            e = self.stack[i]
            if e.name in names:
                self.pop_to(i)
                return
            if e.name in SPECIAL and e.name not in ("address", "div", "p"):
                return

    def close_in_table(self, names: frozenset[str]) -> None:
        i = self.in_scope(names, TABLE_SCOPE)
        if i is not None:
            self.pop_to(i)

    def end(self, tok: T.EndTag) -> None:
        name = tok.name
        if self.stack and self.stack[-1].foreign and name not in ("p", "br"):
            for i in range(len(self.stack) - 1, -1, -1):
                e = self.stack[i]
                if not e.foreign:
                    break
                if e.name == name:
                    self.pop_to(i)
                    return
        if name in ("p", "br"):
            while self.stack and self.stack[-1].foreign:
                self.close(self.stack.pop())
        if name in ("html", "body", "head"):
            return
        if name == "br":
            if not self.drop:
                self.line_break()
            return
        if name == "p":
            self.close_p()
            return
        if name in HEADINGS:
            found = self.in_scope(HEADINGS, SCOPE)
        elif name == "li":
            found = self.in_scope(frozenset(("li",)), SCOPE | LISTS)
        elif name in TABLE_PARTS or name == "table":
            found = self.in_scope(frozenset((name,)), TABLE_SCOPE)
        elif name in SPECIAL:
            found = self.in_scope(frozenset((name,)), SCOPE)
        else:
            found = None
            for k in range(len(self.stack) - 1, -1, -1):
                e = self.stack[k]
                if e.name == name:
                    found = k
                    break
                if e.name in SPECIAL:
                    break
        if found is not None:
            self.pop_to(found)

    def text(self, tok: T.Text) -> None:
        text = tok.text
        if self.skip_lf:
            self.skip_lf = False
            if text.startswith("\n"):
                if len(text) == tok.end - tok.start:
                    tok = T.Text(text[1:], tok.start + 1, tok.end)
                else:
                    return
                text = tok.text
        literal = len(text) == tok.end - tok.start
        for k, ch in enumerate(text):
            span = (tok.start + k, tok.start + k + 1) if literal else (tok.start, tok.end)
            self.char(ch, span)

    def char(self, ch: str, span: tuple[int, int]) -> None:
        if self.drop:
            if self.title is not None and not self.title_done and self.stack_has_title():
                self.title.append(ch)
            return
        if ch == "\x00":
            return
        if self.cells:
            self.cell_char(ch, span)
        elif self.tables:
            if ch in WHITESPACE:
                return
            self.end_table_run()
            self.inline(ch, span)
        elif self.pres:
            self.pre.append((ch, span[0], span[1]))
        else:
            self.inline(ch, span)

    def stack_has_title(self) -> bool:
        return bool(self.stack) and self.stack[-1].effect == "title"

    def finish(self) -> None:
        self.pop_to(0)


def _split(value: str) -> list[str]:
    out: list[str] = []
    word: list[str] = []
    for ch in value:
        if ch in WHITESPACE:
            if word:
                out.append("".join(word))
                word = []
        else:
            word.append(ch)
    if word:
        out.append("".join(word))
    return out


def _integer(value: str | None) -> int | None:
    """The HTML rules for parsing an integer: white space, a sign, then digits."""
    if value is None:
        return None
    s = value.lstrip(WHITESPACE)
    sign = 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    digits = ""
    for ch in s:
        if "0" <= ch <= "9":
            digits += ch
        else:
            break
    if not digits:
        return None
    return sign * int(digits[:12])


def _collapse(chars: Iterable[str]) -> str:
    return " ".join(_split("".join(chars)))


def render(source: str, skip: Skip = Skip()) -> Rendered:
    """The rendering of ``source``: its text, each character's source span (``-1`` where
    the rendering adds it), and the page's title."""
    r = _Renderer(skip)
    tokenizer = T.Tokenizer(source)
    for tok in tokenizer:
        if isinstance(tok, T.Text):
            r.text(tok)
            continue
        r.skip_lf = False
        if isinstance(tok, T.StartTag):
            r.start(tok, tokenizer)
        elif isinstance(tok, T.EndTag):
            r.end(tok)
        tokenizer.foreign = bool(r.stack) and r.stack[-1].foreign
    r.finish()
    starts = [-1 if s is None or r.out[k] in WHITESPACE else s[0] for k, s in enumerate(r.spans)]
    ends = [-1 if s is None or r.out[k] in WHITESPACE else s[1] for k, s in enumerate(r.spans)]
    title = None if r.title is None else _collapse(r.title)
    return Rendered("".join(r.out), starts, ends, title)
