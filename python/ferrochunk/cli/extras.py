"""Optional packages on the command line: checked before a run, and, when one is missing
anyway, reported as one line (exit 2) rather than a traceback."""

from __future__ import annotations

from .._support.optional import require
from ..errors import FerrochunkError

# A missing module with no install hint of its own: the extra that brings it.
EXTRAS = {
    "matplotlib": "bench",
    "markdown_it": "bench",
    "pyarrow": "arrow",
    "ray": "ray",
    "pyspark": "spark",
    "dask": "dask",
    "distributed": "dask",
    "pandas": "dask",
    "tiktoken": "reference",
    "tree_sitter": "code",
}


def need(module: str, extra: str, why: str) -> None:
    """Imports an optional module before anything is read, so that a missing extra is one
    line (exit 2) rather than a traceback, and is said before the work, not after it."""
    try:
        require(module, extra)
    except ImportError as exc:
        root = module.partition(".")[0]
        cause = exc.__cause__
        missing = getattr(cause, "name", None) or ""
        if isinstance(cause, ModuleNotFoundError) and missing.partition(".")[0] == root:
            raise FerrochunkError(f"{why} needs {root}: pip install 'ferrochunk[{extra}]'") from exc
        raise FerrochunkError(f"{why} needs {root}, which fails to import: {cause}") from exc


def need_plot(path: str | None) -> None:
    """``--plot FILE``: matplotlib, checked before the run starts."""
    if path is not None:
        need("matplotlib", "bench", "--plot")


def missing_package(exc: ImportError) -> str | None:
    """The one line to print for an ``ImportError`` that says a package is not installed
    (naming it and how to install it), or None for any other (ferrochunk's own modules, a
    name a module lacks): those are bugs, and keep their traceback."""
    found: ModuleNotFoundError | None = None
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, ModuleNotFoundError):
            found = link
            break
        link = link.__cause__ or link.__context__
    name = found.name if found is not None else None
    if not name:
        return None
    root = name.partition(".")[0]
    if root == "ferrochunk":
        return None
    message = " ".join(str(exc).split())  # one line
    if "pip install" in message:  # ours (require, the grammars) name the package already
        return message
    hint = f"'ferrochunk[{EXTRAS[root]}]'" if root in EXTRAS else root.replace("_", "-")
    return f"{root} is needed here and is not installed; install it with: pip install {hint}"
