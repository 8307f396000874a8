"""The tokenizers the chunkers use (``@voltagent/rag`` 1.0.2).

Upstream's ``Tokenizer`` is ``{tokenize(text) -> Token[], countTokens(text)}``. The port's
:class:`JsTokenizer` says the same over span lists, so chunkers never build a dict per
token, and asks for batches (:meth:`~JsTokenizer.counts`, :meth:`~JsTokenizer.prefix_counts`)
so that a native tokenizer can answer them in one call. Every text is in JS form
(``_js.to_js``) and every offset counts UTF-16 code units.
"""

from __future__ import annotations

import functools
import re
from itertools import accumulate
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ...errors import UnknownTokenizerError
from .._tiktoken import cl100k
from ._js import WS_CLASS, from_js, js_slice, to_js

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "JsTokenizer",
    "TiktokenTokenizer",
    "WhitespaceTokenizer",
    "create_tiktokenizer",
    "default_tokenizer",
    "resolve_tokenizer",
    "whitespace_tokenizer",
]


@runtime_checkable
class JsTokenizer(Protocol):
    """A tokenizer over JS-form text; offsets in UTF-16 code units."""

    def spans(self, text: str) -> tuple[list[int], list[int]]:
        """Token starts and ends (``tokenize(text)`` without the values)."""
        ...

    def values(self, text: str) -> list[str]:
        """Token values, JS form (``tokenize(text).map(t => t.value)``)."""
        ...

    def count(self, text: str) -> int:
        """``countTokens(text)``."""
        ...

    def counts(self, texts: list[str]) -> list[int]:
        """``countTokens`` of each text."""
        ...

    def prefix_counts(self, text: str, ends: list[int]) -> list[int]:
        """``[countTokens(text.slice(0, k)) for k in ends]``."""
        ...


# -- §2.1 whitespaceTokenizer ----------------------------------------------------------
class WhitespaceTokenizer:
    """``/\\S+/g`` with the JS whitespace set: one token per run of non-space code units."""

    _RUN = re.compile(f"[^{WS_CLASS}]+")

    def spans(self, text: str) -> tuple[list[int], list[int]]:
        starts: list[int] = []
        ends: list[int] = []
        for match in self._RUN.finditer(text):
            starts.append(match.start())
            ends.append(match.end())
        return starts, ends

    def values(self, text: str) -> list[str]:
        return self._RUN.findall(text)

    def count(self, text: str) -> int:
        return sum(1 for _ in self._RUN.finditer(text))

    def counts(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def prefix_counts(self, text: str, ends: list[int]) -> list[int]:
        return [self.count(js_slice(text, 0, k)) for k in ends]


whitespace_tokenizer = WhitespaceTokenizer()


# -- §2.2 createTikTokenizer: js-tiktoken cl100k_base ----------------------------------
_JS_WS = (
    r"\t\n\x{B}\x{C}\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
    r"\x{3000}\x{FEFF}"
)
"""JS ``\\s`` in tiktoken's (Rust fancy-regex) pattern syntax."""


def _contractions() -> str:
    """js-tiktoken spells tiktoken's ``(?i:'s|'t|'re|'ve|'m|'ll|'d)`` as every ASCII
    case combination, so only ASCII letters fold (``'ſ`` is no contraction)."""
    out = []
    for suffix in ("s", "t", "re", "ve", "m", "ll", "d"):
        variants = [""]
        for ch in suffix:
            variants = [v + c for v in variants for c in (ch, ch.upper())]
        out += ["'" + v for v in variants]
    return "|".join(out)


# The cl100k pre-tokenizer as js-tiktoken runs it: JS evaluates \s and \S, so the explicit
# JS set replaces them (U+FEFF is white space, U+0085 is not).
JS_CL100K_PATTERN = (
    f"{_contractions()}"
    r"|[^\r\n\p{L}\p{N}]?\p{L}+"
    r"|\p{N}{1,3}"
    f"| ?[^{_JS_WS}\\p{{L}}\\p{{N}}]+[\\r\\n]*"
    f"|[{_JS_WS}]*[\\r\\n]+"
    f"|[{_JS_WS}]+(?![^{_JS_WS}])"
    f"|[{_JS_WS}]+"
)

SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|endofprompt|>",
)
_SPECIAL = re.compile("|".join(re.escape(t) for t in SPECIAL_TOKENS))
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_BOM = b"\xef\xbb\xbf"


@functools.cache
def _cl100k_js() -> tiktoken.Encoding:
    """tiktoken's cl100k ranks (from the offline package) under js-tiktoken's pattern."""
    import tiktoken

    base = cl100k()
    return tiktoken.Encoding(
        name="cl100k_base_js",
        pat_str=JS_CL100K_PATTERN,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens=base._special_tokens,
    )


class TiktokenTokenizer:
    """js-tiktoken ``cl100k_base`` as upstream's ``createTikTokenizer()`` wraps it."""

    def __init__(self, encoding: tiktoken.Encoding) -> None:
        self._encoding = encoding
        self._pieces: dict[int, str] = {}  # token id -> decoded piece, JS form

    def _encode(self, text: str) -> list[int]:
        # js-tiktoken's encode() disallows every special token by default and says so.
        special = _SPECIAL.search(text)
        if special is not None:
            raise ValueError(
                f"The text contains a special token that is not allowed: {special.group()}"
            )
        # JS TextEncoder turns a lone surrogate into U+FFFD; both sit in the same
        # pre-tokenizer class, so replacing first gives the same pieces and bytes.
        real = _LONE_SURROGATE.sub("\ufffd", from_js(text))
        return self._encoding.encode_ordinary(real)

    def _piece(self, token: int) -> str:
        """``decode([id])``: WHATWG TextDecoder drops a leading BOM and replaces each
        maximal invalid subsequence with one U+FFFD (a split character decodes to U+FFFD)."""
        piece = self._pieces.get(token)
        if piece is None:
            data = self._encoding.decode_single_token_bytes(token)
            data = data.removeprefix(_BOM)
            piece = to_js(data.decode("utf-8", "replace"))
            self._pieces[token] = piece
        return piece

    def spans(self, text: str) -> tuple[list[int], list[int]]:
        # §2.2: offsets are the running sum of the decoded lengths; nothing is matched
        # against the input, so text whose pieces do not rejoin to it drifts.
        lengths = [len(self._piece(t)) for t in self._encode(text)]
        ends = list(accumulate(lengths))
        starts = [0, *ends[:-1]] if ends else []
        return starts, ends

    def values(self, text: str) -> list[str]:
        return [self._piece(t) for t in self._encode(text)]

    def count(self, text: str) -> int:
        return len(self._encode(text))

    def counts(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def prefix_counts(self, text: str, ends: list[int]) -> list[int]:
        # Upstream re-encodes each prefix; BPE merges across the cut make this differ
        # from counting the whole text's tokens before k.
        return [self.count(js_slice(text, 0, k)) for k in ends]


_LOAD_ERROR = (
    "Could not load tiktoken encoding. Please ensure 'js-tiktoken' is installed and the "
    "model/encoding is valid."
)


def check_encoding(model: str | None = None, encoding: str | None = None) -> None:
    """Raises upstream's load error unless ``{model, encoding}`` names cl100k_base, the one
    encoding available offline."""
    if model:
        from tiktoken.model import encoding_name_for_model

        try:
            name = encoding_name_for_model(model)
        except KeyError:
            raise ValueError(_LOAD_ERROR) from None
    else:
        name = encoding if encoding is not None else "cl100k_base"
    if name != "cl100k_base":
        raise ValueError(_LOAD_ERROR)


def create_tiktokenizer(model: str | None = None, encoding: str | None = None) -> TiktokenTokenizer:
    """``createTikTokenizer({model, encoding})`` (cl100k_base only, see :func:`check_encoding`)."""
    check_encoding(model, encoding)
    return default_tokenizer()


@functools.cache
def default_tokenizer() -> TiktokenTokenizer:
    """Upstream's module-level ``defaultTokenizer``: one shared cl100k tokenizer."""
    return TiktokenTokenizer(_cl100k_js())


def resolve_tokenizer(tokenizer: JsTokenizer | str | None) -> JsTokenizer:
    """``None`` or ``"cl100k_base"`` -> the default tokenizer, ``"whitespace"`` -> the
    whitespace tokenizer; a :class:`JsTokenizer` is used as it is."""
    if tokenizer is None or tokenizer == "cl100k_base":
        return default_tokenizer()
    if tokenizer == "whitespace":
        return whitespace_tokenizer
    if isinstance(tokenizer, str):
        raise UnknownTokenizerError(
            f"tokenizer must be 'cl100k_base', 'whitespace' or a tokenizer object, "
            f"got {tokenizer!r}"
        )
    return tokenizer
