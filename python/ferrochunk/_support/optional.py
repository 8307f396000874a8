"""Optional dependencies, imported on first use with a message that names their extra."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str) -> ModuleType:
    """``import module``, or an ``ImportError`` that says which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{module} is needed here and is not installed; "
            f"install it with: pip install 'ferrochunk[{extra}]'"
        ) from exc
