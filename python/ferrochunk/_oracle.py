"""The product's one door to its oracle, for ``backend="reference"``.

The native API never imports ``ferrochunk.reference``. When a caller asks for the
reference backend, :func:`oracle` imports ``ferrochunk.reference._twins`` lazily and takes
its constant ``ORACLE``: the reference may use the product's configs, nothing in the
product depends on the oracle that checks it, and there is no registry to fill.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reference._twins import Oracle


def oracle() -> Oracle:
    """The reference's twins of the pipeline's steps (importing the reference the first
    time)."""
    from .reference._twins import ORACLE

    return ORACLE
