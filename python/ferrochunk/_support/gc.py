"""The cyclic garbage collector, paused while many result objects are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses the cyclic garbage collector while many chunks are built: each allocation
    counts toward a collection, and collections then traverse every chunk built so far.
    (The objects built hold no cycles, so nothing is left for it to find.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
