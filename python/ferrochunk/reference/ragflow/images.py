"""§7 image objects: upstream's ``LazyImage`` (``rag/utils/lazy_image.py``) and ``concat_img``.

RAGFlow's parsers hand the merge either ``LazyImage`` objects (encoded blobs kept in a
private ``_blobs`` list, decoded with Pillow on demand) or Pillow images. A lazy image is
recognised by that ``_blobs`` list, so upstream's own class works here too, and a merged one
is rebuilt with ``type(img)``. Pillow is imported only when a decoded image is needed.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any


def lazy_blobs(img: Any) -> list[bytes] | None:
    """The blob list of a lazy image, or None for anything else.

    Read from the instance dict: upstream's ``__getattr__`` would decode the image to answer.
    """
    blobs = getattr(img, "__dict__", {}).get("_blobs")
    return blobs if isinstance(blobs, list) else None


class LazyImage:
    """Encoded image blobs, stacked vertically when decoded (empty blobs are dropped)."""

    def __init__(self, blobs: Any, source: Any = None) -> None:
        self._blobs: list[bytes] = [b for b in (blobs or []) if b]
        self.source = source
        self._pil: Any = None

    def __bool__(self) -> bool:
        return bool(self._blobs)

    def __repr__(self) -> str:
        return f"LazyImage({self._blobs!r})"

    def to_pil(self) -> Any:
        """The blobs decoded (RGB) and stacked, cached; None when no blob decodes."""
        if self._pil is not None:
            return self._pil
        from PIL import Image

        stacked = None
        for blob in self._blobs:
            try:
                image = Image.open(BytesIO(blob)).convert("RGB")
            except Exception:  # upstream skips a bad blob and logs it
                continue
            stacked = image if stacked is None else concat_img(stacked, image)
        self._pil = stacked
        return stacked

    def to_pil_detached(self) -> Any:
        pil = self.to_pil()
        self._pil = None
        return pil

    def close(self) -> None:
        if self._pil is not None:
            self._pil.close()
            self._pil = None

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the object lacks: forward to the decoded image, as upstream.
        if name.startswith("__") or name in ("_blobs", "_pil", "source"):
            raise AttributeError(name)
        pil = self.to_pil()
        if pil is None:
            raise AttributeError(name)
        return getattr(pil, name)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        pil = self.to_pil()
        return np.array([] if pil is None else pil, dtype=dtype)

    def __enter__(self) -> Any:
        return self.to_pil()

    def __exit__(self, *_: object) -> None:
        self.close()

    @staticmethod
    def merge(a: Any, b: Any) -> Any:
        """The two blob lists joined, or None when both are empty."""
        combined = (lazy_blobs(a) or []) + (lazy_blobs(b) or [])
        return LazyImage(combined) if combined else None


def _pil_image(img: Any) -> Any:
    """upstream ``ensure_pil_image``: a Pillow image as is, a lazy one decoded, else None."""
    if lazy_blobs(img) is not None:
        return img.to_pil()
    try:
        from PIL import Image
    except ImportError:
        return None
    return img if isinstance(img, Image.Image) else None


def concat_img(img1: Any, img2: Any) -> Any:
    """Upstream ``concat_img``: the same object stays; lazy images join their blob lists;
    Pillow images (or a lazy one beside a Pillow one) are stacked top to bottom."""
    if img1 is img2:
        return img1
    blobs1, blobs2 = lazy_blobs(img1), lazy_blobs(img2)
    if (img1 is None or blobs1 is not None) and (img2 is None or blobs2 is not None):
        if not (img1 and img2):
            return img1 or img2 or None
        return type(img1)((blobs1 or []) + (blobs2 or []))
    img1 = _pil_image(img1) or img1
    img2 = _pil_image(img2) or img2
    if not (img1 and img2):
        return img1 or img2 or None  # upstream's three cases: the one that is set, or None
    if img1 is img2:
        return img1
    from PIL import Image

    if (
        isinstance(img1, Image.Image)
        and isinstance(img2, Image.Image)
        and img1.tobytes() == img2.tobytes()
    ):
        return img1
    (width1, height1), (width2, height2) = img1.size, img2.size
    stacked = Image.new("RGB", (max(width1, width2), height1 + height2))
    stacked.paste(img1, (0, 0))
    stacked.paste(img2, (0, height1))
    return stacked
