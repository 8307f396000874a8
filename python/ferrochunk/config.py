"""Chunking configurations: frozen, slotted dataclasses validated on construction."""

from __future__ import annotations

import math
import numbers
import operator
import re
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from . import _grammars
from ._ragflow_rules import normalize_overlapped_percent
from ._support.validate import describe, require_int, require_text
from .errors import ConfigError, ConfigTypeError

if TYPE_CHECKING:
    from .tokenizers import Tokenizer

__all__ = [
    "CONFIGS",
    "CleanRules",
    "Code",
    "Config",
    "DelimiterMerge",
    "Html",
    "Markdown",
    "MergeStrategy",
    "ParentChild",
    "Recursive",
    "SentenceWindows",
    "TokenWindows",
]


class MergeStrategy(str, Enum):
    """How :class:`DelimiterMerge` bounds a group of pieces by its token budget.

    >>> MergeStrategy("under_cap") is MergeStrategy.UNDER_CAP
    True
    """

    UNDER_CAP = "under_cap"
    """Never exceed the budget; a piece larger than it stands alone (and is flagged)."""
    OVER_CAP = "over_cap"
    """Fill up to the threshold, then take one more piece (RAGFlow's default)."""


@dataclass(frozen=True, slots=True)
class TokenWindows:
    """Windows of at most ``max_tokens`` whole tokens, each overlapping the previous one.

    Fields:
        max_tokens: the most tokens a window holds (an int >= 1).
        overlap_tokens: tokens a window repeats from the end of the previous one
            (keyword-only; default 0; below ``max_tokens``).

    A window is cut only where a token boundary is also a character boundary; see the
    design notes (``docs/design.md``) for the one case where a window exceeds ``max_tokens``
    (``metadata["oversize"]`` says so).

    >>> import ferrochunk as fc
    >>> config = fc.TokenWindows(4, overlap_tokens=1)
    >>> [c.text for c in fc.chunk("Alpha beta gamma. Delta epsilon.", config)]
    ['Alpha beta gamma.', '. Delta epsilon.']
    """

    max_tokens: int
    _: KW_ONLY
    overlap_tokens: int = 0

    def __post_init__(self) -> None:
        max_tokens = require_int("TokenWindows.max_tokens", self.max_tokens, minimum=1)
        overlap = require_int("TokenWindows.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= max_tokens:
            raise ConfigError(
                f"TokenWindows.overlap_tokens must be < max_tokens ({max_tokens}), got {overlap}"
            )
        # Normalise numpy integers and friends to int.
        object.__setattr__(self, "max_tokens", max_tokens)
        object.__setattr__(self, "overlap_tokens", overlap)

    # The registry entries every config has (see ``pipeline.py``).
    _metadata: ClassVar[tuple[str, ...]] = ("oversize",)
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "windows"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False


def _strategy(value: Any) -> MergeStrategy:
    """A member, its value (``"under_cap"``) or its name (``"UNDER_CAP"``)."""
    if isinstance(value, MergeStrategy):
        return value
    for member in MergeStrategy:
        if isinstance(value, str) and value in (member.value, member.name):
            return member
    raise ConfigError(
        f"DelimiterMerge.strategy must be MergeStrategy.OVER_CAP or UNDER_CAP, "
        f"got {describe(value)}"
    )


def _delimiters(field: str, value: Any) -> tuple[str, ...]:
    """A sequence of non-empty strings (a bare str is refused: it is ambiguous)."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigTypeError(
            f"DelimiterMerge.{field} must be a sequence of strings, got {describe(value)}"
        )
    for i, d in enumerate(value):
        if not isinstance(d, str):
            raise ConfigTypeError(f"DelimiterMerge.{field}[{i}] must be a str, got {describe(d)}")
        if not d:
            raise ConfigError(f"DelimiterMerge.{field}[{i}] must not be empty")
        require_text(f"DelimiterMerge.{field}[{i}]", d)
    return tuple(value)


@dataclass(frozen=True, slots=True)
class DelimiterMerge:
    r"""Pieces between delimiters, merged by token count (RAGFlow's contract, done right).

    Fields:
        token_size: the token budget of a chunk (an int >= 1).
        delimiters: soft delimiters, cut points inside a segment (keyword-only; default
            ``("\n", "。", "；", "！", "？")``).
        hard_delimiters: cut points no chunk crosses (default none).
        strategy: :class:`MergeStrategy`; ``OVER_CAP`` (default, RAGFlow's) fills up to
            the budget and takes one more piece, ``UNDER_CAP`` never exceeds it.
        overlap: percentage of the previous chunk repeated (default 0).
        child_delimiters: split each chunk into ``metadata["children"]`` (default none).
        joiner: text placed between the pieces of a chunk (default: see below).

    ``hard_delimiters`` cut the text into segments that never share a chunk; soft
    ``delimiters`` cut segments into pieces that merge up to ``token_size`` by
    ``strategy``. Delimiter text never enters a chunk: a chunk is its pieces (listed in
    ``metadata["spans"]``) joined by ``joiner``. By default that is ``"\n"`` when a soft
    delimiter holds a line break (lines stay lines) and ``" "`` otherwise (sentences cut
    at ``". "`` stay apart); ``joiner=""`` butts the pieces together. ``token_count`` and
    the cap count the pieces' own tokens, as RAGFlow does; the joiner is not counted.
    ``overlap`` is a percentage, read the way RAGFlow's ``normalize_overlapped_percent``
    reads it (0.2 and 20 both mean 20 %, bad values 0), applied in whole tokens of the
    previous chunk's own pieces. ``child_delimiters`` split each chunk into
    ``metadata["children"]``.

    >>> import ferrochunk as fc
    >>> config = fc.DelimiterMerge(5, delimiters=("\n",))
    >>> config.joiner
    '\n'
    >>> [(c.text, c.metadata["spans"]) for c in fc.chunk("line one\nline two\nline three", config)]
    [('line one\nline two\nline three', ((0, 8), (9, 17), (18, 28)))]
    """

    token_size: int
    _: KW_ONLY
    delimiters: Sequence[str] = ("\n", "。", "；", "！", "？")
    hard_delimiters: Sequence[str] = ()
    strategy: MergeStrategy = MergeStrategy.OVER_CAP
    overlap: Any = 0
    child_delimiters: Sequence[str] = ()
    joiner: str | None = None

    def __post_init__(self) -> None:
        size = require_int("DelimiterMerge.token_size", self.token_size, minimum=1)
        object.__setattr__(self, "token_size", size)
        for field in ("delimiters", "hard_delimiters", "child_delimiters"):
            object.__setattr__(self, field, _delimiters(field, getattr(self, field)))
        object.__setattr__(self, "strategy", _strategy(self.strategy))
        try:
            overlap = normalize_overlapped_percent(self.overlap)
        except OverflowError as exc:
            raise ConfigError(
                f"DelimiterMerge.overlap must be a percentage, got {describe(self.overlap)}"
            ) from exc
        object.__setattr__(self, "overlap", overlap)
        if self.joiner is None:
            breaks = any("\n" in d or "\r" in d for d in self.delimiters)
            object.__setattr__(self, "joiner", "\n" if breaks else " ")
        if not isinstance(self.joiner, str):
            raise ConfigTypeError(
                f"DelimiterMerge.joiner must be a str, got {describe(self.joiner)}"
            )
        require_text("DelimiterMerge.joiner", self.joiner)

    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "delimiter"
    _child_metadata: ClassVar[tuple[str, ...]] = ("parent",)
    _tokenizes_pieces: ClassVar[bool] = True

    @property
    def _metadata(self) -> tuple[str, ...]:
        keys = ("spans", "overlap_tokens", "overlap_spans", "oversize")
        return (*keys, "children") if self.child_delimiters else keys


BOUNDARIES = ("greedy", "content")


def _check_boundaries(owner: str, value: object) -> None:
    if not isinstance(value, str) or value not in BOUNDARIES:
        raise ConfigError(
            f"{owner}.boundaries must be 'greedy' or 'content', got {describe(value)}"
        )


_DIFY_SEPARATORS = ("\n\n", "\n", "。", ". ", " ", "")


@dataclass(frozen=True, slots=True)
class Recursive:
    r"""Dify's recursive splitter in real tokens: chunks of at most ``max_tokens`` tokens.

    Fields:
        max_tokens: the most tokens a chunk holds (an int >= 1).
        overlap_tokens: tokens repeated from the previous chunk (keyword-only; default 0).
        fixed_separator: cut here first into segments that never merge (default None).
        separators: tried in order (default ``"\n\n"``, ``"\n"``, ``"。"``, ``". "``,
            ``" "``, ``""``; ``""`` means whole-token windows).
        keep_separator: ``"end"`` (default) or ``"start"``: which side keeps a separator.
        boundaries: ``"greedy"`` (default) or ``"content"``: content-defined boundaries,
            where whether a break becomes a cut reads only the text near it, so an edit
            moves only the cuts near it (``docs/incremental.md``).

    A span that fits ``max_tokens - overlap_tokens`` stays whole; otherwise it is cut at
    the first of ``separators`` it contains, neighbours merge while they fit, and a piece
    that does not fit tries the next separators, then whole-token windows. The separator
    stays at the ``"end"`` of the piece before it (or the ``"start"`` of the one after),
    so with no overlap the chunks tile the text. ``fixed_separator`` first cuts segments
    that are never merged. A chunk exceeds ``max_tokens`` only where one character needs
    more tokens than that (``metadata["oversize"]``).

    >>> import ferrochunk as fc
    >>> [c.text for c in fc.chunk("One. Two three four.\n\nFive six.", fc.Recursive(4))]
    ['One. ', 'Two three four.\n\n', 'Five six.']
    """

    max_tokens: int
    _: KW_ONLY
    overlap_tokens: int = 0
    fixed_separator: str | None = None
    separators: Sequence[str] = _DIFY_SEPARATORS
    keep_separator: str = "end"
    boundaries: str = "greedy"

    def __post_init__(self) -> None:
        size = require_int("Recursive.max_tokens", self.max_tokens, minimum=1)
        overlap = require_int("Recursive.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= size:
            raise ConfigError(
                f"Recursive.overlap_tokens must be < max_tokens ({size}), got {overlap}"
            )
        fixed, seps, keep = self.fixed_separator, self.separators, self.keep_separator
        if fixed is not None and not isinstance(fixed, str):
            raise ConfigTypeError(
                f"Recursive.fixed_separator must be a str or None, got {describe(fixed)}"
            )
        if fixed is not None:
            require_text("Recursive.fixed_separator", fixed)
        if isinstance(seps, str) or not isinstance(seps, Sequence):
            raise ConfigTypeError(
                f"Recursive.separators must be a sequence of strings, got {describe(seps)}"
            )
        for i, sep in enumerate(seps):
            if not isinstance(sep, str):
                raise ConfigTypeError(
                    f"Recursive.separators[{i}] must be a str, got {describe(sep)}"
                )
            require_text(f"Recursive.separators[{i}]", sep)
        if not isinstance(keep, str) or keep not in ("end", "start"):
            raise ConfigError(
                f"Recursive.keep_separator must be 'end' or 'start', got {describe(keep)}"
            )
        _check_boundaries("Recursive", self.boundaries)
        object.__setattr__(self, "max_tokens", size)
        object.__setattr__(self, "overlap_tokens", overlap)
        object.__setattr__(self, "separators", tuple(self.separators))

    _metadata: ClassVar[tuple[str, ...]] = ("oversize",)
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "recursive"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class ParentChild:
    r"""Dify's parent-child segmentation: parents, each split again into children.

    Fields:
        parent: a :class:`Recursive` for the parents, or ``"full-doc"``.
        child: the :class:`Recursive` that splits each parent (keyword-only, required).

    ``parent`` is a :class:`Recursive` (Dify's ``"paragraph"`` mode) or ``"full-doc"`` (the
    whole text is one parent); ``child`` is the :class:`Recursive` applied inside each
    parent. Parents carry their children in ``metadata["children"]``; every offset points
    into the original text, and the text is tokenized once for both levels.

    >>> import ferrochunk as fc
    >>> config = fc.ParentChild("full-doc", child=fc.Recursive(4))
    >>> (parent,) = fc.chunk("Intro line.\n\nBody text with more words.", config)
    >>> [child.text for child in parent.metadata["children"]]
    ['Intro line.\n\n', 'Body text with ', 'more words.']
    """

    parent: Recursive | str
    _: KW_ONLY
    child: Recursive

    def __post_init__(self) -> None:
        parent = self.parent
        if not isinstance(parent, Recursive) and not (
            isinstance(parent, str) and parent == "full-doc"
        ):
            raise ConfigError(
                f"ParentChild.parent must be a Recursive or 'full-doc', got {describe(self.parent)}"
            )
        if not isinstance(self.child, Recursive):
            raise ConfigTypeError(
                f"ParentChild.child must be a Recursive, got {describe(self.child)}"
            )
        for name, part in (("parent", parent), ("child", self.child)):
            if isinstance(part, Recursive) and part.boundaries != "greedy":
                # A child is cut over its parent's span alone; content-defined cuts are
                # defined over a whole segment. Not built for ParentChild yet.
                raise ConfigError(
                    f"ParentChild.{name}.boundaries must be 'greedy', got "
                    f"{describe(part.boundaries)}"
                )

    _metadata: ClassVar[tuple[str, ...]] = ("oversize", "children")
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "parent_child"
    _child_metadata: ClassVar[tuple[str, ...]] = ("parent", "oversize")
    _tokenizes_pieces: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class CleanRules:
    r"""Dify's cleaning before segmentation, with offsets kept in the original text.

    Fields (keyword-only, both default False):
        remove_extra_spaces: collapse 3+ newlines to two and space/tab runs to one space.
        remove_urls_emails: delete emails and bare URLs (Markdown links stay whole).

    Always: ``<|``/``|>`` become ``<``/``>`` and control characters (and U+FFFE) are
    removed. ``remove_extra_spaces`` turns 3+ newlines into two and runs of spaces and tabs
    into one space; ``remove_urls_emails`` deletes emails and bare URLs but keeps Markdown
    links and images whole. Chunks hold the cleaned text; their offsets index the original.

    >>> import ferrochunk as fc
    >>> rules = fc.CleanRules(remove_extra_spaces=True)
    >>> (c,) = fc.chunk("a   b\n\n\n\nc", fc.Recursive(20), clean=rules)
    >>> c.text, c.char_end
    ('a b\n\nc', 10)
    """

    _: KW_ONLY
    remove_extra_spaces: bool = False
    remove_urls_emails: bool = False

    def __post_init__(self) -> None:
        for field in ("remove_extra_spaces", "remove_urls_emails"):
            value = getattr(self, field)
            if not isinstance(value, bool):
                raise ConfigTypeError(f"CleanRules.{field} must be a bool, got {describe(value)}")


BREAK_CLASSES: tuple[tuple[str, ...], ...] = (
    ("\n",),
    ("。", "！", "？", "!", "?", ". ", "… ", "； "),
    ("，", "；", "：", ",", ";", ":", "、"),
    (" ", "\t"),
)
"""The token-aware plan's break points, best first: newline, sentence end, clause, white
space. ``"x "`` means ``x`` only when white space or the end follows (``3.14`` is no
sentence end). The first two classes end sentences."""


def _real(field: str, value: Any, low: float, high: float, *, low_open: bool) -> float:
    """A real number in (low, high] (``low_open``) or [low, high)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigTypeError(f"{field} must be a number, got {describe(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf if operator.gt(value, 0) else -math.inf  # only ints overflow
    inside = (low < number <= high) if low_open else (low <= number < high)
    if not inside:  # NaN fails both comparisons
        interval = f"({low}, {high}]" if low_open else f"[{low}, {high})"
        raise ConfigError(f"{field} must be in {interval}, got {describe(value)}")
    return number


def _break_classes(value: Any) -> tuple[tuple[str, ...], ...]:
    field = "SentenceWindows.break_classes"
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise ConfigTypeError(
            f"{field} must be a non-empty sequence of string sequences, got {describe(value)}"
        )
    out = []
    for k, group in enumerate(value):
        if isinstance(group, str) or not isinstance(group, Sequence):
            raise ConfigTypeError(f"{field}[{k}] must be a sequence of str, got {describe(group)}")
        for entry in group:
            if not isinstance(entry, str) or not (
                len(entry) == 1 or (len(entry) == 2 and entry[1] == " ")
            ):
                raise ConfigError(
                    f"{field}[{k}] entries must be one character, optionally followed by a "
                    f"space, got {describe(entry)}"
                )
            require_text(f"{field}[{k}]", entry)
        out.append(tuple(group))
    if len(out) > 254:
        raise ConfigError(f"{field} must have fewer than 255 classes, got {len(out)}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SentenceWindows:
    """Sentences packed into windows of at most ``safe_max`` tokens, each window starting
    with a tail of the previous one (the token-aware chunker's algorithm).

    Fields:
        max_tokens: the nominal budget (an int >= 1).
        safety_margin: share of ``max_tokens`` a window may use (keyword-only; default
            0.85, in (0, 1]).
        overlap_ratio: share of ``max_tokens`` repeated as overlap (default 0.1, in
            [0, 1)).
        break_classes: where a long sentence may be cut, best first (default
            :data:`BREAK_CLASSES`).
        tokenizer: counts tokens for this config (default: the call's tokenizer).

    ``safe_max = int(max_tokens * safety_margin)``; the overlap is at most
    ``int(max_tokens * overlap_ratio)`` tokens (and fewer than ``safe_max``) and counts
    toward ``safe_max``. A sentence longer than a window is cut at its best break point in
    the window's last 200 characters, and at a plain token boundary only when the window
    holds none. Counts come from one tokenization of the text. ``metadata["overlap_tokens"]``
    and ``metadata["overlap_chars"]`` say how much of a chunk repeats the previous one:
    without them the chunks tile the text.

    >>> import ferrochunk as fc
    >>> config = fc.SentenceWindows(8, overlap_ratio=0.0)
    >>> [c.text for c in fc.chunk("First sentence here. Second one! Third?", config)]
    ['First sentence here.', ' Second one! Third?']
    """

    max_tokens: int
    _: KW_ONLY
    safety_margin: float = 0.85
    overlap_ratio: float = 0.1
    break_classes: Sequence[Sequence[str]] = BREAK_CLASSES
    tokenizer: Tokenizer | str | None = None

    def __post_init__(self) -> None:
        size = require_int("SentenceWindows.max_tokens", self.max_tokens, minimum=1)
        margin = _real("SentenceWindows.safety_margin", self.safety_margin, 0.0, 1.0, low_open=True)
        ratio = _real("SentenceWindows.overlap_ratio", self.overlap_ratio, 0.0, 1.0, low_open=False)
        if int(size * margin) < 1:
            raise ConfigError(
                "SentenceWindows.max_tokens * safety_margin must be at least 1 token, got "
                f"{size} * {margin}"
            )
        from .tokenizers import Tokenizer  # here, so that the reference can import configs

        tokenizer = self.tokenizer
        if tokenizer is not None and not isinstance(tokenizer, Tokenizer | str):
            raise ConfigTypeError(
                "SentenceWindows.tokenizer must be a Tokenizer, a name or None, got "
                f"{describe(tokenizer)}"
            )
        object.__setattr__(self, "max_tokens", size)
        object.__setattr__(self, "safety_margin", margin)
        object.__setattr__(self, "overlap_ratio", ratio)
        object.__setattr__(self, "break_classes", _break_classes(self.break_classes))

    _metadata: ClassVar[tuple[str, ...]] = ("overlap_tokens", "overlap_chars", "oversize")
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "sentences"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False

    @property
    def safe_max(self) -> int:
        """The token budget of a window: ``int(max_tokens * safety_margin)``."""
        return int(self.max_tokens * self.safety_margin)

    @property
    def overlap_tokens(self) -> int:
        """The overlap budget: ``int(max_tokens * overlap_ratio)``, below ``safe_max``."""
        return min(int(self.max_tokens * self.overlap_ratio), self.safe_max - 1)


@dataclass(frozen=True, slots=True)
class Markdown:
    r"""Markdown chunks that keep code, tables and sections whole, with heading context.

    Fields:
        max_tokens: the cap (an int >= 16): the tokens of ``context + text``, counted as
            one string, are at most this many.
        overlap_tokens: tokens repeated from the previous chunk of the same section
            (keyword-only; default 0; below ``max_tokens``).
        context: whether chunks carry ``metadata["context"]`` (the heading path, and a
            continued table's header) and the cap counts it (default True).
        boundaries: ``"greedy"`` (default) or ``"content"``: content-defined boundaries
            (``docs/incremental.md``), as for :class:`Recursive`.

    Chunks end where Markdown's structure allows, best first: before a heading (higher
    levels first), after a thematic break, between blocks, between list items or table
    rows, at a line, at a sentence, at a word, at a character boundary. A fenced code
    block, a table row or a list item that fits ``max_tokens`` starts its own chunk rather
    than be cut (that chunk's context gives way); a chunk ends on a heading whose text went
    to the next chunk only when the heading and the block after it fit apart but not
    together. ``metadata["headings"]`` is the section path
    where the chunk starts, as ``(level, title)`` pairs, outermost first. See
    ``docs/markdown.md`` for the whole contract.

    >>> import ferrochunk as fc
    >>> doc = "# Guide\n\nRead this first.\n\n## Install\n\nRun the installer, then restart.\n"
    >>> for c in fc.chunk(doc, fc.Markdown(16)):
    ...     print(repr(c.metadata["context"]), repr(c.text), c.metadata["headings"])
    '' '# Guide\n\nRead this first.\n\n' ((1, 'Guide'),)
    '# Guide\n\n' '## Install\n\nRun the installer, then restart.\n' ((1, 'Guide'), (2, 'Install'))
    """

    max_tokens: int
    _: KW_ONLY
    overlap_tokens: int = 0
    context: bool = True
    boundaries: str = "greedy"

    MIN_TOKENS: ClassVar[int] = 16

    def __post_init__(self) -> None:
        size = require_int("Markdown.max_tokens", self.max_tokens, minimum=self.MIN_TOKENS)
        overlap = require_int("Markdown.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= size:
            raise ConfigError(
                f"Markdown.overlap_tokens must be < max_tokens ({size}), got {overlap}"
            )
        if not isinstance(self.context, bool):
            raise ConfigTypeError(f"Markdown.context must be a bool, got {describe(self.context)}")
        _check_boundaries("Markdown", self.boundaries)
        object.__setattr__(self, "max_tokens", size)
        object.__setattr__(self, "overlap_tokens", overlap)

    _metadata: ClassVar[tuple[str, ...]] = (
        "headings",
        "headings_truncated",
        "context",
        "oversize",
    )
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "markdown"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False


_TAG = re.compile(r"[a-z][a-z0-9-]*")
_NAME = re.compile(r"[^\s.#]+")


def _skip(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigTypeError(f"Html.skip must be a sequence of strings, got {describe(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigTypeError(f"Html.skip[{i}] must be a str, got {describe(item)}")
        ok = (
            _NAME.fullmatch(item[1:]) is not None
            if item[:1] in (".", "#")
            else _TAG.fullmatch(item) is not None
        )
        if not ok:
            raise ConfigError(
                f"Html.skip[{i}] must be a lower-case tag name, '.class' or '#id', got {item!r}"
            )
        out.append(item)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Html:
    r"""Chunks straight from an HTML page: its visible text as light Markdown, cut as
    :class:`Markdown` cuts it, with offsets into the page.

    Fields:
        max_tokens: the cap (an int >= 16), counting ``context + text`` as one string.
        overlap_tokens: as for :class:`Markdown` (keyword-only; default 0).
        skip: elements dropped beyond the fixed set (``head``, ``script``, ``style``,
            ``template``, ``noscript``, ``svg``, ``iframe``, ``object``, ``embed``,
            comments, ``hidden``): lower-case tag names, ``.class`` and ``#id``
            (default ``("nav",)``).
        boundaries: ``"greedy"`` (default) or ``"content"``, as for :class:`Markdown`.

    Headings become ``#`` lines, list items ``- `` / ``1. ``, tables pipe rows, ``pre``
    fenced blocks; white space collapses as a browser collapses it. ``char_start`` to
    ``char_end`` spans the page from the chunk's first visible character to its last, so
    ``text != page[char_start:char_end]``. ``metadata["title"]`` is the page's
    ``<title>``. See ``docs/html.md`` for the whole contract.

    >>> import ferrochunk as fc
    >>> page = "<title>Guide</title><h1>Install</h1><p>Run <b>setup</b>.</p>"
    >>> c = fc.chunk(page, fc.Html(64))[0]
    >>> c.text, page[c.char_start:c.char_end], c.metadata["title"]
    ('# Install\n\nRun setup.', 'Install</h1><p>Run <b>setup</b>.', 'Guide')
    """

    max_tokens: int
    _: KW_ONLY
    overlap_tokens: int = 0
    skip: Sequence[str] = ("nav",)
    boundaries: str = "greedy"

    MIN_TOKENS: ClassVar[int] = 16

    def __post_init__(self) -> None:
        size = require_int("Html.max_tokens", self.max_tokens, minimum=self.MIN_TOKENS)
        overlap = require_int("Html.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= size:
            raise ConfigError(f"Html.overlap_tokens must be < max_tokens ({size}), got {overlap}")
        _check_boundaries("Html", self.boundaries)
        object.__setattr__(self, "max_tokens", size)
        object.__setattr__(self, "overlap_tokens", overlap)
        object.__setattr__(self, "skip", _skip(self.skip))

    _metadata: ClassVar[tuple[str, ...]] = (
        "headings",
        "headings_truncated",
        "context",
        "oversize",
        "title",
        "encoding",
    )
    # Not a kind `rust/python/spec.rs` reads: ferrochunk.html renders, then cuts Markdown.
    _native: ClassVar[str] = "html"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Code:
    r"""Source code in chunks that keep definitions whole, with their scopes as context.

    Fields:
        max_tokens: the cap (an int >= 16): the tokens of ``context + text``, counted as
            one string, are at most this many.
        language: the tree-sitter grammar (keyword-only, required): a name such as
            ``"python"`` or ``"tsx"``, ``"module:function"``, or the capsule a grammar
            package returns (``tree_sitter_python.language()``; it does not pickle).
        overlap_tokens: tokens repeated from the previous chunk, from a line start
            (keyword-only; default 0; below ``max_tokens``).
        context: whether chunks carry ``metadata["context"]`` (the headers of the
            definitions the chunk sits in) and the cap counts it (default True).
        boundaries: ``"greedy"`` (default) or ``"content"``: content-defined boundaries
            (``docs/incremental.md``), as for :class:`Recursive`.

    Chunks end between top-level definitions, then between members, then between
    statements, then at lines; a definition or statement that fits ``max_tokens`` is
    never cut. ``metadata["scopes"]`` is the path of definitions that hold the chunk's
    start, as ``(kind, name)`` pairs. See ``docs/code.md`` for the whole contract.

    >>> import ferrochunk as fc
    >>> src = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    >>> for c in fc.chunk(src, fc.Code(16, language="python")):
    ...     print(c.metadata["scopes"][-1], repr(c.metadata["context"]), c.text.count("\n"))
    ('class_definition', 'A') '' 4
    ('function_definition', 'g') 'class A:\n' 2
    """

    max_tokens: int
    _: KW_ONLY
    language: Any
    overlap_tokens: int = 0
    context: bool = True
    boundaries: str = "greedy"

    MIN_TOKENS: ClassVar[int] = 16

    def __post_init__(self) -> None:
        size = require_int("Code.max_tokens", self.max_tokens, minimum=self.MIN_TOKENS)
        overlap = require_int("Code.overlap_tokens", self.overlap_tokens, minimum=0)
        if overlap >= size:
            raise ConfigError(f"Code.overlap_tokens must be < max_tokens ({size}), got {overlap}")
        if not isinstance(self.context, bool):
            raise ConfigTypeError(f"Code.context must be a bool, got {describe(self.context)}")
        _check_boundaries("Code", self.boundaries)
        _grammars.checked(self.language)  # fails now, naming the package or the ABI
        object.__setattr__(self, "max_tokens", size)
        object.__setattr__(self, "overlap_tokens", overlap)

    @property
    def _grammar(self) -> Any:
        """The grammar's capsule, which the core reads (``rust/python/grammar.rs``)."""
        return _grammars.capsule(self.language)

    def __getstate__(self) -> tuple[Any, ...]:
        if _grammars.is_capsule(self.language):
            raise TypeError(
                "a Code config that holds a grammar capsule cannot be pickled (to reach "
                "another process): pass the grammar's name, such as language='python', or "
                "'module:function'"
            )
        return (
            self.max_tokens,
            self.language,
            self.overlap_tokens,
            self.context,
            self.boundaries,
        )

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        names = ("max_tokens", "language", "overlap_tokens", "context", "boundaries")
        state = (*state, "greedy")[: len(names)]  # a pickle from before `boundaries`
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)
        _grammars.checked(self.language)  # the worker's grammar: installed, of a known ABI

    _metadata: ClassVar[tuple[str, ...]] = ("scopes", "context", "context_truncated", "oversize")
    # The kind `rust/python/spec.rs` reads this config as (by attribute name).
    _native: ClassVar[str] = "code"
    _child_metadata: ClassVar[tuple[str, ...]] = ()
    _tokenizes_pieces: ClassVar[bool] = False


Config = (
    TokenWindows
    | DelimiterMerge
    | Recursive
    | ParentChild
    | SentenceWindows
    | Markdown
    | Code
    | Html
)
"""Any config: the native ones, and ``Html`` (a rendering in front of ``Markdown``)."""

CONFIGS = (TokenWindows, DelimiterMerge, Recursive, ParentChild, SentenceWindows, Markdown, Code)
"""The native configs: each names its native kind (``_native``) and its metadata keys. The
reference's twin of each is chosen on the reference's side (``reference/_twins.py``)."""
