"""Tokenizers: the embedded native BPE, or a Python tokenizer adapted to ids + byte offsets.

A Python tokenizer is called once per document (or through its batch API); its ids and
offsets then cross to Rust as ``uint32`` numpy arrays. The native encodings never leave Rust.
"""

from __future__ import annotations

import copy
import hashlib
import json as json_module
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from . import _native
from ._support.validate import describe, require_int, require_str
from .errors import (
    ConfigError,
    ConfigTypeError,
    FerrochunkError,
    InputTypeError,
    OffsetsError,
    TokenizerError,
    UnknownTokenizerError,
    UnsupportedTokenizerError,
)
from .types import IdArray, OffsetArray

T = TypeVar("T")

__all__ = ["Tokenizer"]

_NATIVE_NAMES = {
    "cl100k": "cl100k_base",
    "cl100k_base": "cl100k_base",
    "o200k": "o200k_base",
    "o200k_base": "o200k_base",
}
_DEFAULT_BATCH = 4096
# A vocabulary larger than this is not a tokenizer (and its length table would not fit).
_MAX_VOCABULARY = 1 << 24


def _calling(what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Calls a user tokenizer; its own failure becomes a TokenizerError saying so."""
    try:
        return fn(*args, **kwargs)
    except FerrochunkError:
        raise
    except Exception as exc:
        raise TokenizerError(f"{what} raised {type(exc).__name__}: {exc}") from exc


_SURROGATE = re.compile("[\ud800-\udfff]")


def tiktoken_safe(text: str) -> str:
    """The text tiktoken encodes when ``text`` is not valid UTF-8 (lone surrogates).

    tiktoken round-trips through UTF-16 with ``surrogatepass`` and decodes with
    ``replace``, so a surrogate pair written as two code points becomes one character.
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def offset_safe(text: str) -> str:
    """``text`` with each surrogate code point replaced by U+FFFD.

    Unlike :func:`tiktoken_safe` this keeps the number of code points, so character
    offsets computed on the result index the original string.
    """
    return _SURROGATE.sub("\ufffd", text)


Counts = np.ndarray[Any, np.dtype[np.int64]]


class _Backend(Protocol):
    def encode(self, text: str) -> IdArray: ...
    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]: ...


class _NativeBackend:
    """An embedded encoding. Callers pass UTF-8-safe text (see :func:`utf8_safe`)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding

    # Each call reads the text as is, and only text that has no UTF-8 form (the extension
    # raises on reading it) is made safe and read again: no scan for surrogates up front.
    def encode(self, text: str) -> IdArray:
        return utf8_call(lambda t: _native.encode(self.encoding, t), text)[0]

    def encode_list(self, text: str) -> list[int]:
        return utf8_call(lambda t: _native.encode_list(self.encoding, t), text)[0]

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        return utf8_call(lambda t: _native.encode_with_offsets(self.encoding, t), text)[0]

    def count(self, text: str) -> int:
        return utf8_call(lambda t: _native.count(self.encoding, t), text)[0]

    def count_many(self, texts: list[str]) -> Counts:
        try:
            return _native.count_batch(self.encoding, texts)
        except UnicodeEncodeError:
            return _native.count_batch(self.encoding, [utf8_safe(t) for t in texts])


def _starts_from_lengths(lengths: np.ndarray[Any, Any]) -> OffsetArray:
    starts = np.zeros(len(lengths), dtype=np.uint32)
    if len(lengths) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    return starts


def _integers(values: Any, what: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """``values`` as a 1-D int64 array; anything but integers is an :class:`OffsetsError`."""
    try:
        array = np.asarray(list(values))
    except (TypeError, ValueError, OverflowError) as exc:
        raise OffsetsError(f"tokenizer {what} must be a sequence of integers ({exc})") from exc
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise OffsetsError(
            f"tokenizer {what} must be a flat sequence of integers, got dtype {array.dtype}"
        )
    if array.dtype.kind == "u" and int(array.max()) > 2**63 - 1:
        raise OffsetsError(f"tokenizer {what} must fit int64")
    return array.astype(np.int64)


def _char_starts(char_starts: Any) -> np.ndarray[Any, np.dtype[np.int64]]:
    """A tokenizer's character starts, checked to be integers >= 0."""
    starts = _integers(char_starts, "offsets")
    if len(starts) and int(starts.min()) < 0:
        i = int(np.argmin(starts))
        raise OffsetsError(f"tokenizer offsets[{i}] = {int(starts[i])}: must be >= 0")
    return starts


def _char_starts_to_bytes(text: str, char_starts: Any) -> OffsetArray:
    return _native.char_to_byte_offsets(text, _char_starts(char_starts).astype(np.uint64))


Raw = tuple[str, list[int]] | tuple[str, list[int], list[int | None]]
"""A tokenizer's own token starts: ``("bytes" | "chars", starts)``, before conversion, and
for a ``tokenizer.json`` each token's pre-token index (``word_ids``)."""


def _ids_array(ids: Any, n_offsets: int | None) -> IdArray:
    array = _integers(ids, "ids")
    if n_offsets is not None and len(array) != n_offsets:
        raise OffsetsError(
            f"tokenizer returned {len(array)} ids but {n_offsets} offsets; they must pair up"
        )
    if len(array) and (int(array.min()) < 0 or int(array.max()) > 0xFFFFFFFF):
        raise OffsetsError("tokenizer ids must fit uint32")
    return array.astype(np.uint32)


class _TiktokenBackend:
    """``tiktoken.Encoding``: ``encode_ordinary`` ids, offsets from token byte lengths."""

    def __init__(self, encoding: Any) -> None:
        self._encoding = encoding
        self._lengths: np.ndarray[Any, Any] | None = None

    def _length_table(self) -> np.ndarray[Any, Any]:
        if self._lengths is None:
            top = getattr(self._encoding, "max_token_value", None)
            if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top < _MAX_VOCABULARY:
                raise TokenizerError(
                    f"the tiktoken encoding's max_token_value must be an int in [0, 2**24), "
                    f"got {describe(top)}"
                )
            n = top + 1
            table = np.zeros(n, dtype=np.uint32)
            for i in range(n):
                try:
                    table[i] = len(self._encoding.decode_single_token_bytes(i))
                except KeyError:  # ids missing from the vocabulary
                    continue
                except Exception as exc:
                    raise TokenizerError(
                        f"the tiktoken encoding's decode_single_token_bytes({i}) raised "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
            self._lengths = table
        return self._lengths

    def encode(self, text: str) -> IdArray:
        ids = _calling(
            "the tiktoken encoding's encode_ordinary", self._encoding.encode_ordinary, text
        )
        return _ids_array(ids, None)

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        ids = self.encode(text)
        table = self._length_table()
        if len(ids) and int(ids.max()) >= len(table):
            raise OffsetsError(
                f"the tiktoken encoding gave id {int(ids.max())} past its vocabulary"
            )
        return ids, _starts_from_lengths(table[ids])

    def raw(self, text: str) -> Raw:
        return "bytes", self.encode_with_offsets(text)[1].tolist()


class _HuggingFaceBackend:
    """A ``tokenizers.Tokenizer`` (or a transformers fast tokenizer): character offsets."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = getattr(tokenizer, "backend_tokenizer", tokenizer)

    def _encode(self, text: str) -> tuple[Any, list[Any]]:
        """The encoding's ids and character starts, or a TokenizerError saying what is off."""
        encoding = _calling(
            "the Hugging Face tokenizer's encode",
            self._tokenizer.encode,
            text,
            add_special_tokens=False,
        )
        try:
            return encoding.ids, [span[0] for span in encoding.offsets]
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            raise TokenizerError(
                "a Hugging Face tokenizer's encode must return an Encoding with ids and "
                f"(start, end) offsets, got {describe(encoding)}"
            ) from exc

    def encode(self, text: str) -> IdArray:
        ids, starts = self._encode(text)
        return _ids_array(ids, len(starts))

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        ids, starts = self._encode(text)
        return _ids_array(ids, len(starts)), _char_starts_to_bytes(text, starts)

    def raw(self, text: str) -> Raw:
        ids, starts = self._encode(text)
        _ids_array(ids, len(starts))
        return "chars", _char_starts(starts).tolist()


class _JsonBackend:
    """A ``tokenizer.json`` run by the native engine: ids and offsets equal ``tokenizers``'
    (``encode(text, add_special_tokens=False)``), computed without the GIL."""

    def __init__(self, json: str, handle: _native.HfTokenizer, exact: bool) -> None:
        self.json = json
        # From an in-memory tokenizer: Unigram scores as Python parses them (see _from_json).
        self.exact = exact
        self._handle = handle
        self._oracle: Any = None

    def encode(self, text: str) -> IdArray:
        return utf8_call(self._handle.encode, text)[0]

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        return utf8_call(self._handle.encode_with_offsets, text)[0]

    def count(self, text: str) -> int:
        return utf8_call(self._handle.count, text)[0]

    def count_many(self, texts: list[str]) -> Counts:
        try:
            counts: Counts = self._handle.count_batch(texts)
        except UnicodeEncodeError:
            counts = self._handle.count_batch([utf8_safe(t) for t in texts])
        return counts

    def chunk_tokens(self, text: str) -> tuple[OffsetArray, np.ndarray[Any, Any]]:
        """Token starts for chunking (not trimmed by the post-processor) and whether each
        token begins a word: chunks start only there."""
        return utf8_call(self._handle.chunk_tokens, text)[0]

    def joining_normalizer(self) -> Callable[[str], str] | None:
        """``tokenizers``' normalizer without ``Prepend`` and ``Strip`` when it has a
        ``Replace`` of more than one character (which may join text across a word
        boundary), for the reference's check of each boundary; else ``None``."""
        steps = _flat_normalizers(json_module.loads(self.json).get("normalizer"))

        def joins(step: dict[str, Any]) -> bool:
            pattern = step.get("pattern") or {}
            return step.get("type") == "Replace" and (
                "Regex" in pattern or len(pattern.get("String", "")) > 1
            )

        if not any(joins(s) for s in steps):
            return None
        from tokenizers import Tokenizer as HfTokenizer

        kept = [s for s in steps if s.get("type") not in ("Prepend", "Strip")]
        doc = {
            "version": "1.0",
            "normalizer": {"type": "Sequence", "normalizers": kept},
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
        }
        normalizer = HfTokenizer.from_str(json_module.dumps(doc)).normalizer
        return normalizer.normalize_str  # type: ignore[no-any-return]

    def raw(self, text: str) -> Raw:
        """The ``tokenizers`` library's own output: the reference never runs this engine.

        Its post-processor is dropped, as :meth:`chunk_tokens` ignores it (it only adds
        special tokens and trims spaces off offsets); ``words`` come from ``word_ids``.
        """
        if self._oracle is None:
            try:
                from tokenizers import Tokenizer as HfTokenizer
            except ImportError as exc:
                raise TokenizerError(
                    "backend='reference' with a tokenizer.json needs the tokenizers package "
                    "(pip install 'ferrochunk[huggingface]')"
                ) from exc
            oracle = HfTokenizer.from_str(self.json)
            scores = _unigram_scores(self.json) if self.exact else None
            if scores is not None:  # the live object's scores, not from_str's re-parse
                from tokenizers.models import Unigram

                model = json_module.loads(self.json)["model"]
                oracle.model = Unigram(
                    [tuple(p) for p in model["vocab"]],
                    model.get("unk_id"),
                    model.get("byte_fallback", False),
                )
            oracle.post_processor = None
            self._oracle = oracle
        encoding = self._oracle.encode(text, add_special_tokens=False)
        return "chars", [o[0] for o in encoding.offsets], encoding.word_ids


# One native handle per tokenizer.json (reserve setting, score source) per process:
# workers that unpickle the same tokenizer many times build it once.
_JSON_CACHE: dict[tuple[str, bool, bool], Tokenizer] = {}
_JSON_CACHE_SIZE = 8
_JSON_LOCK = threading.Lock()


def _unigram_scores(json: str) -> list[float] | None:
    """A Unigram model's scores, correctly rounded (Python's parser), else ``None``."""
    model = json_module.loads(json).get("model")
    if not isinstance(model, dict) or model.get("type") != "Unigram":
        return None
    vocab = model.get("vocab")
    if not isinstance(vocab, list):
        return None  # malformed: the native parser names the path
    try:
        return [float(score) for _, score in vocab]
    except (TypeError, ValueError):
        return None


def _from_json(json: str, reserve: bool, name: str, exact: bool = False) -> Tokenizer:
    """``exact``: the JSON is an in-memory tokenizer's ``to_str()``, whose Unigram scores
    are the shortest repr of the live floats. serde_json's default parser (which
    ``tokenizers.Tokenizer.from_str`` and ``from_file`` use, as ``from_json`` does to
    match them) moves some by an ulp, so they come from Python's parser instead."""
    key = (hashlib.sha256(json.encode("utf-8", "surrogatepass")).hexdigest(), reserve, exact)
    with _JSON_LOCK:
        cached = _JSON_CACHE.get(key)
    if cached is not None:
        return cached
    scores = _unigram_scores(json) if exact else None
    handle = _native.HfTokenizer(json, scores)
    tok = Tokenizer(
        name=name,
        backend=_JsonBackend(json, handle, exact),
        special_tokens=handle.special_tokens if reserve else 0,
    )
    with _JSON_LOCK:
        if len(_JSON_CACHE) >= _JSON_CACHE_SIZE:
            del _JSON_CACHE[next(iter(_JSON_CACHE))]
        _JSON_CACHE[key] = tok
    return tok


def _flat_normalizers(step: Any) -> list[dict[str, Any]]:
    """A ``tokenizer.json`` normalizer as a flat list of steps."""
    if not isinstance(step, dict):
        return []
    if step.get("type") == "Sequence":
        return [s for inner in step.get("normalizers", []) for s in _flat_normalizers(inner)]
    return [step]


def _special_count(tokenizer: Any) -> int:
    """The special tokens a ``tokenizers.Tokenizer`` adds to one sequence.

    Asked of its post-processor, or else counted on a copy without padding and truncation
    (a ``tokenizer.json`` that pads to 128 would otherwise say 128). A tokenizer that
    answers neither raises: a silent 0 would leave no room for the model's tokens."""
    try:
        return int(tokenizer.num_special_tokens_to_add(False))
    except Exception as exc:
        first = exc
    try:
        plain = tokenizer
        if hasattr(tokenizer, "no_padding"):
            plain = copy.deepcopy(tokenizer)
            plain.no_padding()
            plain.no_truncation()
        return len(plain.encode("", add_special_tokens=True).ids)
    except Exception as exc:
        raise ConfigError(
            f"cannot count the special tokens {describe(tokenizer)} adds ({first}; {exc}); "
            "pass reserve_special_tokens=False to reserve none"
        ) from exc


class _CallableBackend:
    """``fn(text) -> (ids, char_starts)``: any tokenizer written in Python."""

    def __init__(self, fn: Callable[[str], tuple[Sequence[int], Sequence[int]]]) -> None:
        self._fn = fn

    def _call(self, text: str) -> tuple[Any, Any]:
        result = _calling("the tokenizer callable", self._fn, text)
        if not isinstance(result, tuple) or len(result) != 2:
            raise OffsetsError(
                f"a tokenizer callable must return (ids, char_starts), got {describe(result)}"
            )
        ids, starts = result
        try:
            return list(ids), list(starts)
        except TypeError as exc:
            raise OffsetsError(
                f"a tokenizer callable must return two sequences, got {describe(result)}"
            ) from exc

    def encode(self, text: str) -> IdArray:
        ids, starts = self._call(text)
        return _ids_array(ids, len(starts))

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        ids, starts = self._call(text)
        return _ids_array(ids, len(starts)), _char_starts_to_bytes(text, starts)

    def raw(self, text: str) -> Raw:
        ids, starts = self._call(text)
        _ids_array(ids, len(starts))
        return "chars", _char_starts(starts).tolist()


class Tokenizer:
    """A tokenizer ferrochunk can chunk with.

    Build one with :meth:`cl100k`, :meth:`o200k` (embedded, exact tiktoken ids, no
    download, no extra), :meth:`from_tiktoken` (extra ``[tiktoken]``),
    :meth:`from_huggingface` (extra ``[huggingface]``) or :meth:`from_callable`.

    >>> from ferrochunk import Tokenizer
    >>> tok = Tokenizer.cl100k()
    >>> tok.encode("hello world").tolist(), tok.count("hello world")
    ([15339, 1917], 2)
    >>> [offsets.tolist() for offsets in tok.encode_with_offsets("hello world")]
    [[15339, 1917], [0, 5]]
    """

    __slots__ = ("_backend", "name", "special_tokens")

    def __init__(self, *, name: str, backend: _Backend, special_tokens: int = 0) -> None:
        """Private: use the class methods."""
        self.name = name
        self._backend = backend
        #: Special tokens reserved in every chunk's cap (what the model's post-processor
        #: adds to one sequence, e.g. 2 for ``[CLS]`` and ``[SEP]``); 0 unless reserved.
        self.special_tokens = special_tokens

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r})"

    def __reduce__(self) -> Any:
        backend = self._backend
        if isinstance(backend, _NativeBackend):
            return (_named, (backend.encoding,))
        if isinstance(backend, _JsonBackend):
            return (
                _from_json,
                (backend.json, self.special_tokens > 0, self.name, backend.exact),
            )
        return object.__reduce__(self)

    @property
    def engine(self) -> str:
        """Which path the tokenizer takes: ``"embedded"`` (cl100k, o200k), ``"native"`` (a
        ``tokenizer.json`` run in Rust) or ``"python"`` (called through Python)."""
        backend = self._backend
        if isinstance(backend, _NativeBackend):
            return "embedded"
        return "native" if isinstance(backend, _JsonBackend) else "python"

    @property
    def identity(self) -> str | None:
        """What names these exact ids across processes and releases, for a ledger's
        fingerprint: an embedded encoding's name, or a hash of the ``tokenizer.json`` (with
        the special tokens reserved). None for a tokenizer called through Python, which
        has no stable identity (a ``Ledger`` then asks for ``tokenizer_id``).

        >>> Tokenizer.cl100k().identity
        'embedded:cl100k_base'
        """
        backend = self._backend
        if isinstance(backend, _NativeBackend):
            return f"embedded:{backend.encoding}"
        if isinstance(backend, _JsonBackend):
            digest = _native.hash_ids([backend.json.encode("utf-8", "surrogatepass")])[0]
            return f"tokenizer.json:{digest}:reserve={self.special_tokens}"
        return None

    # -- constructors -------------------------------------------------------------
    @classmethod
    def cl100k(cls) -> Tokenizer:
        """The embedded ``cl100k_base`` (GPT-4, GPT-3.5)."""
        return _CL100K

    @classmethod
    def o200k(cls) -> Tokenizer:
        """The embedded ``o200k_base`` (GPT-4o)."""
        return _O200K

    @classmethod
    def from_name(cls, name: str) -> Tokenizer:
        """``"cl100k"``, ``"cl100k_base"``, ``"o200k"`` or ``"o200k_base"``."""
        if not isinstance(name, str) or name not in _NATIVE_NAMES:
            names = ", ".join(repr(n) for n in _NATIVE_NAMES)
            raise UnknownTokenizerError(f"tokenizer must be one of {names}, got {describe(name)}")
        return _CL100K if _NATIVE_NAMES[name] == "cl100k_base" else _O200K

    @classmethod
    def from_tiktoken(cls, encoding: Any) -> Tokenizer:
        """Adapts a ``tiktoken.Encoding``; special-token text is encoded as ordinary text."""
        if not all(
            callable(getattr(encoding, name, None))
            for name in ("encode_ordinary", "decode_single_token_bytes")
        ):
            raise UnknownTokenizerError(
                f"from_tiktoken needs a tiktoken.Encoding, got {describe(encoding)}"
            )
        return cls(
            name=f"tiktoken:{getattr(encoding, 'name', '?')}",
            backend=_TiktokenBackend(encoding),
        )

    @classmethod
    def from_huggingface(cls, tokenizer: Any, *, reserve_special_tokens: bool = True) -> Tokenizer:
        """Adapts a ``tokenizers.Tokenizer`` or a transformers fast tokenizer.

        When every component of its pipeline is one the native engine runs, the tokenizer
        runs in Rust (``engine == "native"``) with the same ids and offsets. Otherwise it
        is called through ``tokenizers``, with a :class:`UserWarning` naming the component.

        Ids never include special tokens; with ``reserve_special_tokens`` (the default)
        each chunk's cap leaves room for the ones the model adds (``special_tokens``).
        """
        inner = getattr(tokenizer, "backend_tokenizer", tokenizer)
        if not callable(getattr(inner, "encode", None)):
            raise UnknownTokenizerError(
                f"from_huggingface needs a tokenizers.Tokenizer, got {describe(tokenizer)}"
            )
        reserve = _require_bool("reserve_special_tokens", reserve_special_tokens)
        to_str = getattr(inner, "to_str", None)
        if callable(to_str):  # a real tokenizers.Tokenizer (duck-typed ones have none)
            try:
                json = to_str()
            except Exception as exc:  # a custom Python component has no JSON form
                why = f"it has no tokenizer.json form ({type(exc).__name__}: {exc})"
            else:
                try:
                    return _from_json(json, reserve, "huggingface", exact=True)
                except UnsupportedTokenizerError as exc:
                    why = str(exc)
            warnings.warn(
                f"ferrochunk runs this tokenizer through the tokenizers library, not "
                f"natively: {why}",
                UserWarning,
                stacklevel=2,
            )
        return cls(
            name="huggingface",
            backend=_HuggingFaceBackend(inner),
            special_tokens=_special_count(inner) if reserve else 0,
        )

    @classmethod
    def from_json(cls, json: str, *, reserve_special_tokens: bool = True) -> Tokenizer:
        """A ``tokenizer.json`` document, run natively.

        Raises :class:`~ferrochunk.errors.ConfigError` naming the JSON path of a malformed
        value, or :class:`~ferrochunk.errors.UnsupportedTokenizerError` (a ConfigError)
        for a component the native engine does not run. ``truncation`` and ``padding``
        are ignored: counts are of the whole text.
        """
        require_str("json", json)
        reserve = _require_bool("reserve_special_tokens", reserve_special_tokens)
        return _from_json(json, reserve, "tokenizer.json")

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], *, reserve_special_tokens: bool = True
    ) -> Tokenizer:
        """:meth:`from_json` of a file, e.g. a model folder's ``tokenizer.json``."""
        if not isinstance(path, (str, os.PathLike)):
            raise InputTypeError(f"path must be a str or os.PathLike, got {describe(path)}")
        try:
            with open(path, encoding="utf-8") as f:
                json = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read tokenizer file {os.fspath(path)!r}: {exc}") from exc
        reserve = _require_bool("reserve_special_tokens", reserve_special_tokens)
        return _from_json(json, reserve, os.fspath(path))

    @classmethod
    def from_callable(
        cls,
        fn: Callable[[str], tuple[Sequence[int], Sequence[int]]],
        *,
        name: str = "callable",
    ) -> Tokenizer:
        """Adapts ``fn(text) -> (ids, char_starts)``.

        ``char_starts[i]`` is the code-point index in ``text`` where token ``i`` starts.
        Starts must be non-decreasing and within the text; token ``i`` is taken to run to
        the next token's start, so characters a tokenizer skips stay in a chunk.
        """
        if not callable(fn):
            raise UnknownTokenizerError(f"from_callable needs a callable, got {describe(fn)}")
        return cls(name=name, backend=_CallableBackend(fn))

    # -- operations ---------------------------------------------------------------
    @property
    def native_encoding(self) -> str | None:
        """The embedded encoding's name, or ``None`` for a Python tokenizer."""
        backend = self._backend
        return backend.encoding if isinstance(backend, _NativeBackend) else None

    @property
    def _native_source(self) -> str | _native.HfTokenizer | None:
        """What the extension's batch calls take: an embedded encoding's name, a
        ``tokenizer.json`` handle, or ``None`` for a tokenizer called through Python."""
        backend = self._backend
        if isinstance(backend, _NativeBackend):
            return backend.encoding
        return backend._handle if isinstance(backend, _JsonBackend) else None

    def _raw(self, text: str) -> Raw:
        """The token starts the tokenizer itself gives (for the reference, which converts
        them in plain Python). Not for the embedded encodings: the reference runs tiktoken."""
        backend = self._backend
        if isinstance(backend, _NativeBackend):
            raise TypeError("the embedded encodings have no raw form; use tiktoken")
        return backend.raw(utf8_safe(text))  # type: ignore[attr-defined, no-any-return]

    def encode(self, text: str) -> IdArray:
        """Token ids (for the embedded encodings, tiktoken's ``encode_ordinary`` ids).

        Every method reads a surrogate code point (text with no UTF-8 form) as U+FFFD, one
        for one, so offsets still index the original string; tiktoken does the same for a
        lone surrogate (it would join two that form a UTF-16 pair).
        """
        text = require_str("text", text)
        if isinstance(self._backend, (_NativeBackend, _JsonBackend)):
            return self._backend.encode(text)
        return self._backend.encode(utf8_safe(text))

    def encode_list(self, text: str) -> list[int]:
        """The ids of :meth:`encode` as a Python list, the shape tiktoken's
        ``encode_ordinary`` returns.

        The embedded encodings build the list in Rust from shared ints: each id's int is
        made the first time a list needs it and kept for the process (at most one per
        vocabulary entry, about 8 MB for ``o200k``), so a list costs a reference per id
        rather than an allocation. The other tokenizers return ``encode(text).tolist()``.
        """
        text = require_str("text", text)
        if isinstance(self._backend, _NativeBackend):
            return self._backend.encode_list(text)
        return self.encode(text).tolist()  # type: ignore[no-any-return]

    def encode_with_offsets(self, text: str) -> tuple[IdArray, OffsetArray]:
        """Ids and the UTF-8 byte offset where each token starts.

        Text with lone surrogates is encoded as :func:`offset_safe` text, whose byte
        offsets these are (each surrogate counts as the 3 bytes of U+FFFD).
        """
        text = require_str("text", text)
        if isinstance(self._backend, (_NativeBackend, _JsonBackend)):
            return self._backend.encode_with_offsets(text)
        return self._backend.encode_with_offsets(utf8_safe(text))

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        text = require_str("text", text)
        if isinstance(self._backend, (_NativeBackend, _JsonBackend)):
            return self._backend.count(text)
        return len(self._backend.encode(utf8_safe(text)))

    def count_batch(self, texts: Iterable[str], batch_size: int | None = None) -> Counts:
        """Token counts of many texts, as an ``int64`` array.

        Texts are consumed ``batch_size`` at a time (default 4096), so memory stays
        bounded however many there are; the embedded encodings count each batch in
        parallel without the GIL.
        """
        size = (
            _DEFAULT_BATCH
            if batch_size is None
            else require_int("batch_size", batch_size, minimum=1)
        )
        if isinstance(texts, str) or not isinstance(texts, Iterable):
            raise InputTypeError(f"texts must be an iterable of str, got {describe(texts)}")
        parts: list[Counts] = []
        batch: list[str] = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InputTypeError(f"texts[{i}] must be a str, got {describe(text)}")
            batch.append(text)
            if len(batch) == size:
                parts.append(self._count_many(batch))
                batch = []
        if batch:
            parts.append(self._count_many(batch))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _count_many(self, texts: list[str]) -> Counts:
        if isinstance(self._backend, (_NativeBackend, _JsonBackend)):
            return self._backend.count_many(texts)
        return np.fromiter((self.count(t) for t in texts), dtype=np.int64, count=len(texts))


def _require_bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigTypeError(f"{field} must be a bool, got {describe(value)}")
    return value


def utf8_call(fn: Callable[[str], T], text: str) -> tuple[T, str]:
    """``fn(text)`` and ``text``; when ``text`` has no UTF-8 form (the extension raises
    ``UnicodeEncodeError`` reading it), ``fn`` of its :func:`offset_safe` form and that.

    For native calls only, which raise that error on reading their argument and never
    later: ordinary text then pays no scan for surrogates.
    """
    try:
        return fn(text), text
    except UnicodeEncodeError:
        safe = offset_safe(text)
        return fn(safe), safe


def _is_utf8(text: str) -> bool:
    """False when ``text`` holds a surrogate code point (it has no UTF-8 form)."""
    return text.isascii() or _SURROGATE.search(text) is None


def utf8_safe(text: str) -> str:
    """``text``, or :func:`offset_safe` text when it has no UTF-8 form."""
    return text if _is_utf8(text) else offset_safe(text)


_CL100K = Tokenizer(name="cl100k_base", backend=_NativeBackend("cl100k_base"))
_O200K = Tokenizer(name="o200k_base", backend=_NativeBackend("o200k_base"))


def _named(name: str) -> Tokenizer:
    """An embedded encoding by name (what a pickled one rebuilds from)."""
    return Tokenizer.from_name(name)


def resolve(tokenizer: Tokenizer | str | None) -> Tokenizer:
    """``None`` -> embedded cl100k; a name -> that embedded encoding; a Tokenizer as is."""
    if tokenizer is None:
        return _CL100K
    if isinstance(tokenizer, Tokenizer):
        return tokenizer
    if isinstance(tokenizer, str):
        return Tokenizer.from_name(tokenizer)
    raise UnknownTokenizerError(
        f"tokenizer must be a Tokenizer, a name or None, got {describe(tokenizer)}"
    )
