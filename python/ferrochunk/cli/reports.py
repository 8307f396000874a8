"""Report files of ``bench`` and ``eval`` (JSON, Markdown, plots), each written beside its
target and renamed into place, so a failed run leaves an earlier file as it was."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def write_report(path: str, text: str) -> None:
    target = Path(path)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, target)


def save_figure(fig: Any, path: str) -> None:
    """Saves and closes a matplotlib figure."""
    import matplotlib.pyplot as plt

    target = Path(path)
    temp = target.with_name(f".{os.getpid()}.{target.name}")  # keeps the format suffix
    fig.savefig(temp, dpi=120)
    plt.close(fig)
    os.replace(temp, target)
