"""The HTML tokenizer of ``docs/html.md`` in plain Python, with source offsets.

It follows the WHATWG tokenizer's states for everything that decides where text, tags and
comments begin and end, and what text they hold: data, RCDATA, RAWTEXT, script data
(with its escaped and double-escaped states), PLAINTEXT, CDATA, tags and attributes,
comments, doctypes and character references. Parse errors change nothing, so none is
reported. The consumer switches the text states after a start tag
(:meth:`Tokenizer.switch`), as the tree builder does, and says when the current node is
foreign (``foreign``), which is where ``<![CDATA[`` opens a CDATA section.

Tokens carry offsets into the source (characters): text as ``Text(text, start, end)``,
where ``len(text) == end - start`` maps each character to one source character, or else
the whole text came from ``start:end`` (a character reference, a CR LF pair). The native
twin is ``rust/structure/html/tokenizer.rs``, written from the same description.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.entities import html5

WHITESPACE = "\t\n\x0c\r "
_DATA_RUN = re.compile(r"[^<&\r\x00]+")
_RAW_RUN = re.compile(r"[^<\r\x00]+")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{1,32}")
_LONGEST_NAME = 32
_C1 = {
    0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020,
    0x87: 0x2021, 0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152,
    0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022,
    0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
    0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
}  # fmt: skip

DATA, RCDATA, RAWTEXT, SCRIPT, PLAINTEXT = "data", "rcdata", "rawtext", "script", "plaintext"


@dataclass(slots=True)
class Text:
    text: str
    start: int
    end: int


@dataclass(slots=True)
class StartTag:
    name: str
    attrs: dict[str, str]
    self_closing: bool
    start: int
    end: int


@dataclass(slots=True)
class EndTag:
    name: str
    start: int
    end: int


@dataclass(slots=True)
class Comment:
    data: str
    start: int
    end: int


@dataclass(slots=True)
class Doctype:
    start: int
    end: int


Token = Text | StartTag | EndTag | Comment | Doctype


def _is_alpha(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower(s: str) -> str:
    """ASCII letters lowered, as the tokenizer lowers names (no other letter)."""
    return s.translate(_ASCII_LOWER)


def _numeric(value: int) -> str:
    if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return "\ufffd"
    return chr(_C1.get(value, value))


@dataclass
class Tokenizer:
    """Tokens of ``source``, one at a time; see the module's description."""

    source: str
    foreign: bool = False
    state: str = DATA
    last_start: str = ""
    i: int = 0
    _queue: list[Token] = field(default_factory=list)

    def switch(self, state: str, tag: str) -> None:
        """Reads on in ``state`` (``RCDATA``, ``RAWTEXT``, ``SCRIPT``, ``PLAINTEXT``),
        which the end tag ``tag`` closes."""
        self.state, self.last_start = state, tag

    def __iter__(self) -> Iterator[Token]:
        s = self.source
        while self.i < len(s):
            if self.state == DATA:
                yield from self._data()
            elif self.state == PLAINTEXT:
                yield from self._plain(self.i, len(s))
                self.i = len(s)
            else:
                yield from self._text_state()

    # -- text -----------------------------------------------------------------------

    def _plain(self, a: int, b: int, nul: str = "\ufffd") -> Iterator[Text]:
        """Text ``a:b`` of a raw state: CR LF and CR as one LF, NUL as ``nul``."""
        s = self.source
        i = a
        while i < b:
            m = _RAW_RUN.match(s, i, b)
            if m:
                yield Text(m.group(), i, m.end())
                i = m.end()
                continue
            if s[i] == "\r":
                end = i + 2 if i + 1 < b and s[i + 1] == "\n" else i + 1
                yield Text("\n", i, end)
                i = end
            elif s[i] == "\x00":
                yield Text(nul, i, i + 1)
                i += 1
            else:
                yield Text(s[i], i, i + 1)
                i += 1

    def _newline(self, i: int) -> Text:
        end = i + 2 if self.source.startswith("\r\n", i) else i + 1
        return Text("\n", i, end)

    def _data(self) -> Iterator[Token]:
        s, n = self.source, len(self.source)
        while self.i < n and self.state == DATA:
            i = self.i
            m = _DATA_RUN.match(s, i)
            if m:
                yield Text(m.group(), i, m.end())
                self.i = m.end()
                continue
            c = s[i]
            if c == "\r":
                t = self._newline(i)
                self.i = t.end
                yield t
            elif c == "\x00":
                self.i = i + 1
                yield Text("\x00", i, i + 1)
            elif c == "&":
                yield self._reference(i, in_attribute=False)[0]
            else:
                yield from self._tag_open(i)

    def _text_state(self) -> Iterator[Token]:
        """RCDATA, RAWTEXT and script data up to their appropriate end tag."""
        s, n = self.source, len(self.source)
        refs = self.state == RCDATA
        end = self._script_end(self.i) if self.state == SCRIPT else self._raw_end(self.i)
        stop = n if end is None else end
        i = self.i
        while refs and i < stop:
            k = s.find("&", i, stop)
            if k < 0:
                break
            yield from self._plain(i, k)
            text, i = self._reference(k, in_attribute=False, limit=stop)
            yield text
        yield from self._plain(i, stop)
        self.i = stop
        if end is not None:
            self.state = DATA
            yield from self._end_tag_at(end)

    def _appropriate(self, i: int) -> bool:
        """Whether ``</name`` at ``i`` closes the text state: the name is the last start
        tag's, followed by white space, ``/`` or ``>``."""
        s = self.source
        j = i + 2
        while j < len(s) and _is_alpha(s[j]):
            j += 1
        name = lower(s[i + 2 : j])
        return j < len(s) and j > i + 2 and name == self.last_start and s[j] in WHITESPACE + "/>"

    def _raw_end(self, i: int) -> int | None:
        s = self.source
        while True:
            i = s.find("</", i)
            if i < 0:
                return None
            if self._appropriate(i):
                return i
            i += 2

    def _script_end(self, i: int) -> int | None:
        """Where script data ends: the escape states decide which ``</script`` counts."""
        s, n = self.source, len(self.source)
        state = "data"
        while i < n:
            c = s[i]
            if state == "data":
                if s.startswith("</", i) and self._appropriate(i):
                    return i
                if s.startswith("<!--", i):
                    state, i = "escaped_dash_dash", i + 4
                    continue
            elif state in ("escaped", "escaped_dash", "escaped_dash_dash"):
                if c == "-":
                    state = "escaped_dash" if state == "escaped" else "escaped_dash_dash"
                elif c == "<":
                    if s.startswith("</", i):
                        if self._appropriate(i):
                            return i
                        state, i = "escaped", i + 2
                        continue
                    if i + 1 < n and _is_alpha(s[i + 1]):
                        # Double-escape start: "<script" then white space, "/" or ">".
                        j = i + 1
                        while j < n and _is_alpha(s[j]):
                            j += 1
                        if lower(s[i + 1 : j]) == "script" and j < n and s[j] in WHITESPACE + "/>":
                            state, i = "double", j + 1
                            continue
                        state, i = "escaped", j
                        continue
                    state = "escaped"
                elif c == ">" and state == "escaped_dash_dash":
                    state = "data"
                else:
                    state = "escaped"
            else:  # double escaped and its dash states
                if c == "-":
                    state = "double_dash" if state == "double" else "double_dash_dash"
                elif c == "<":
                    if s.startswith("</", i):
                        j = i + 2
                        while j < n and _is_alpha(s[j]):
                            j += 1
                        if lower(s[i + 2 : j]) == "script" and j < n and s[j] in WHITESPACE + "/>":
                            state, i = "escaped", j + 1
                            continue
                        state, i = "double", j
                        continue
                    state = "double"
                elif c == ">" and state == "double_dash_dash":
                    state = "data"
                else:
                    state = "double"
            i += 1
        return None

    # -- character references -------------------------------------------------------

    def _reference(
        self, i: int, *, in_attribute: bool, limit: int | None = None
    ) -> tuple[Text, int]:
        """The character reference at ``&`` (``i``): its text and where reading goes on."""
        s = self.source
        n = len(s) if limit is None else limit
        j = i + 1
        if j < n and s[j] == "#":
            k = j + 1
            hexa = k < n and s[k] in "xX"
            if hexa:
                k += 1
            digits = "0123456789abcdefABCDEF" if hexa else "0123456789"
            d = k
            value = 0
            while d < n and s[d] in digits:
                value = min(value * (16 if hexa else 10) + int(s[d], 16), 0x110000)
                d += 1
            if d == k:  # no digits: the text as it is
                self.i = k
                return Text(s[i:k], i, k), k
            if d < n and s[d] == ";":
                d += 1
            self.i = d
            return Text(_numeric(value), i, d), d
        m = _ALNUM_RUN.match(s, j, n)
        if not m:
            self.i = j
            return Text("&", i, j), j
        run = m.group()
        end = m.end()
        if end < n and s[end] == ";" and run + ";" in html5:
            self.i = end + 1
            return Text(html5[run + ";"], i, end + 1), end + 1
        for k in range(len(run), 0, -1):
            name = run[:k]
            if name in html5:
                after = j + k
                if (
                    in_attribute
                    and after < n
                    and (s[after] == "=" or (s[after].isascii() and s[after].isalnum()))
                ):
                    break
                self.i = after
                return Text(html5[name], i, after), after
        self.i = j
        return Text("&", i, j), j

    # -- tags, comments, doctypes ---------------------------------------------------

    def _tag_open(self, i: int) -> Iterator[Token]:
        s, n = self.source, len(self.source)
        j = i + 1
        c = s[j] if j < n else ""
        if _is_alpha(c):
            yield from self._tag(i, j, end=False)
        elif c == "/":
            k = j + 1
            d = s[k] if k < n else ""
            if _is_alpha(d):
                yield from self._tag(i, k, end=True)
            elif d == ">":
                self.i = k + 1
            elif d == "":
                self.i = n
                yield Text("</", i, n)
            else:
                yield self._bogus(i, k)
        elif c == "!":
            yield from self._declaration(i)
        elif c == "?":
            yield self._bogus(i, j)
        else:
            self.i = j
            yield Text("<", i, j)

    def _end_tag_at(self, i: int) -> Iterator[Token]:
        """The end tag that closes a text state, at ``</`` (``i``)."""
        yield from self._tag(i, i + 2, end=True)

    def _bogus(self, i: int, j: int) -> Comment:
        s = self.source
        k = s.find(">", j)
        end = len(s) if k < 0 else k + 1
        self.i = end
        return Comment(s[j : end - 1 if k >= 0 else end].replace("\x00", "\ufffd"), i, end)

    def _declaration(self, i: int) -> Iterator[Token]:
        s = self.source
        j = i + 2
        if s.startswith("--", j):
            yield self._comment(i, j + 2)
        elif lower(s[j : j + 7]) == "doctype":
            k = s.find(">", j)
            end = len(s) if k < 0 else k + 1
            self.i = end
            yield Doctype(i, end)
        elif self.foreign and s.startswith("[CDATA[", j):
            k = s.find("]]>", j + 7)
            end = len(s) if k < 0 else k
            self.i = len(s) if k < 0 else k + 3
            yield from self._plain(j + 7, end, nul="\x00")
        else:
            yield self._bogus(i, j)

    def _comment(self, i: int, j: int) -> Comment:
        """A comment from after ``<!--`` (``j``): the comment states, which end it at
        ``-->``, ``--!>``, or right away at ``>`` or ``->``."""
        s, n = self.source, len(self.source)
        if s.startswith(">", j):
            self.i = j + 1
            return Comment("", i, j + 1)
        if s.startswith("->", j):
            self.i = j + 2
            return Comment("", i, j + 2)
        k = j
        while True:
            k = s.find("--", k)
            if k < 0:
                self.i = n
                return Comment(s[j:], i, n)
            m = k + 2
            while m < n and s[m] == "-":
                m += 1
            if m < n and s[m] == ">":
                self.i = m + 1
                return Comment(s[j : m - 2], i, m + 1)
            if s.startswith("!>", m):
                self.i = m + 2
                return Comment(s[j:k], i, m + 2)
            k = m if m > k + 2 else k + 1

    def _tag(self, i: int, j: int, *, end: bool) -> Iterator[Token]:
        """A tag from its name's first letter (``j``); at the end of the input, nothing."""
        s, n = self.source, len(self.source)
        k = j
        while k < n and s[k] not in WHITESPACE + "/>":
            k += 1
        name = lower(s[j:k]).replace("\x00", "\ufffd")
        attrs: dict[str, str] = {}
        self_closing = False
        while True:
            while k < n and s[k] in WHITESPACE:
                k += 1
            if k >= n:
                self.i = n
                return
            c = s[k]
            if c == ">":
                k += 1
                break
            if c == "/":
                if k + 1 < n and s[k + 1] == ">":
                    self_closing = True
                    k += 2
                    break
                k += 1
                continue
            # An attribute name: its first character may be "=".
            a = k
            k += 1
            while k < n and s[k] not in WHITESPACE + "/>=":
                k += 1
            attr = lower(s[a:k]).replace("\x00", "\ufffd")
            while k < n and s[k] in WHITESPACE:
                k += 1
            value = ""
            if k < n and s[k] == "=":
                k += 1
                while k < n and s[k] in WHITESPACE:
                    k += 1
                if k < n and s[k] in "\"'":
                    q = s[k]
                    e = s.find(q, k + 1)
                    if e < 0:
                        self.i = n
                        return
                    value = self._attribute_value(k + 1, e)
                    k = e + 1
                else:
                    a2 = k
                    while k < n and s[k] not in WHITESPACE + ">":
                        k += 1
                    value = self._attribute_value(a2, k)
            if attr not in attrs:
                attrs[attr] = value
        self.i = k
        if end:
            yield EndTag(name, i, k)
        else:
            yield StartTag(name, attrs, self_closing, i, k)

    def _attribute_value(self, a: int, b: int) -> str:
        """An attribute's value: references decoded, NUL as U+FFFD, CR LF and CR as LF."""
        s = self.source
        out: list[str] = []
        i = a
        saved = self.i
        while i < b:
            k = s.find("&", i, b)
            literal = s[i:b] if k < 0 else s[i:k]
            out.append(literal.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd"))
            if k < 0:
                break
            text, i = self._reference(k, in_attribute=True, limit=b)
            out.append(text.text)
        self.i = saved
        return "".join(out)
