"""§7 image objects: upstream's ``LazyImage`` reduced to its blob list, and ``concat_img``."""

from __future__ import annotations

from typing import Any


class LazyImage:
    """An image made of encoded blobs, stacked lazily (identity matters, §7)."""

    __slots__ = ("blobs",)

    def __init__(self, blobs: list[bytes]) -> None:
        self.blobs = list(blobs)

    def __repr__(self) -> str:
        return f"LazyImage({self.blobs!r})"


def concat_img(acc: Any, nxt: Any) -> Any:
    """The same object stays; a missing one yields the other; otherwise the blobs stack."""
    if acc is nxt:
        return acc
    if acc is None:
        return nxt
    if nxt is None:
        return acc
    return LazyImage(acc.blobs + nxt.blobs)
