"""Files as blocks of bytes, and blocks decoded incrementally, naming the byte where a
decode fails."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator

from .errors import InputDecodeError


def blocks(path: str, size: int, progress: Callable[[int], None] | None) -> Iterator[bytes]:
    read = 0
    with open(path, "rb") as f:
        while block := f.read(size):
            read += len(block)
            yield block
            if progress is not None:
                progress(read)


def decoded(blocks: Iterable[bytes], codec: codecs.CodecInfo, errors: str) -> Iterator[str]:
    decoder = codec.incrementaldecoder(errors)
    at = 0
    try:
        for block in blocks:
            yield decoder.decode(block)
            at += len(block)
        yield decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        offset = at + exc.start
        raise InputDecodeError(
            f"cannot decode the input as {codec.name} at byte {offset}: {exc.reason}", offset
        ) from exc
