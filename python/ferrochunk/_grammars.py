"""Tree-sitter grammars for :class:`ferrochunk.Code`: names, packages, and the capsule.

The wheel ships no grammar. A grammar package (``tree_sitter_python``) has a function that
returns a capsule named ``tree_sitter.Language`` holding the grammar's ``TSLanguage``
pointer; the core reads that pointer (``rust/python/grammar.rs``). A name or
``"module:function"`` is the form that travels (it pickles), and is resolved in each
process, once.

Language strings arrive from ``--chunker`` specs, TOML configs and pipeline YAML, so a
``"module:function"`` imports only a grammar module (``tree_sitter_<name>:language…``),
or a module the operator lists in ``FERROCHUNK_GRAMMAR_MODULES``: never ``os:getcwd``.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import types
from typing import Any

from ._support.validate import describe
from .errors import ConfigError, ConfigTypeError

__all__ = ["EXTENSIONS", "GRAMMARS", "capsule", "checked", "is_capsule"]

# name: (package to install, module, function)
GRAMMARS: dict[str, tuple[str, str, str]] = {
    "python": ("tree-sitter-python", "tree_sitter_python", "language"),
    "javascript": ("tree-sitter-javascript", "tree_sitter_javascript", "language"),
    "typescript": ("tree-sitter-typescript", "tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree-sitter-typescript", "tree_sitter_typescript", "language_tsx"),
    "rust": ("tree-sitter-rust", "tree_sitter_rust", "language"),
    "go": ("tree-sitter-go", "tree_sitter_go", "language"),
    "java": ("tree-sitter-java", "tree_sitter_java", "language"),
    "c": ("tree-sitter-c", "tree_sitter_c", "language"),
    "cpp": ("tree-sitter-cpp", "tree_sitter_cpp", "language"),
    "c_sharp": ("tree-sitter-c-sharp", "tree_sitter_c_sharp", "language"),
    "ruby": ("tree-sitter-ruby", "tree_sitter_ruby", "language"),
    "php": ("tree-sitter-php", "tree_sitter_php", "language_php"),
    "bash": ("tree-sitter-bash", "tree_sitter_bash", "language"),
}

# `ferrochunk chunk --language auto`: a file's grammar by its extension.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "c_sharp",
    ".rb": "ruby",
    ".php": "php",
    ".sh": "bash",
    ".bash": "bash",
}

_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*\Z")
# A grammar package's module and its documented entry points (`language`, `language_tsx`).
_GRAMMAR_TARGET = re.compile(r"tree_sitter_[a-z0-9_]+:language(_[a-z0-9_]+)?\Z")
ALLOW_ENV = "FERROCHUNK_GRAMMAR_MODULES"
"""Comma-separated modules whose functions ``"module:function"`` may call besides the
``tree_sitter_<name>`` grammar packages: the explicit opt-in for a grammar elsewhere."""
_EXPECTED = (
    "a grammar name (one of " + ", ".join(sorted(GRAMMARS)) + "), 'module:function', or the "
    "capsule a grammar package returns (tree_sitter_python.language())"
)


def is_capsule(value: Any) -> bool:
    return type(value).__name__ == "PyCapsule" and type(value).__module__ == "builtins"


def check(language: Any) -> None:
    """Raises ``ConfigTypeError`` or ``ConfigError`` for a ``language`` no grammar can come
    from, with a hint for the usual mistakes."""
    if isinstance(language, str):
        if language not in GRAMMARS and not _TARGET.match(language):
            raise ConfigError(f"Code.language must be {_EXPECTED}, got {language!r}")
        if language not in GRAMMARS and not _allowed(language):
            raise ConfigError(
                f"Code.language={language!r}: only grammar modules are imported "
                "('tree_sitter_<name>:language' or 'language_<variant>'); to load a grammar "
                f"from another module, list the module in {ALLOW_ENV}"
            )
        return
    if is_capsule(language):
        return
    if isinstance(language, types.ModuleType):
        hint = f"pass {language.__name__}.language() or the grammar's name"
    elif callable(language) and not isinstance(language, type):
        hint = "pass its result (call it) or the grammar's name"
    elif type(language).__module__.startswith("tree_sitter") and type(language).__name__ == (
        "Language"
    ):
        hint = "pass the grammar's name or its package's language() capsule, not a Language"
    elif isinstance(language, int) and not isinstance(language, bool):
        hint = "grammar packages older than 0.22 return ints; install a newer one"
    else:
        hint = "pass the grammar's name"
    raise ConfigTypeError(f"Code.language must be {_EXPECTED}, got {describe(language)}: {hint}")


def _allowed(target: str) -> bool:
    """Whether a ``"module:function"`` may be imported and called."""
    if _GRAMMAR_TARGET.match(target):
        return True
    module = target.partition(":")[0]
    return module in {m.strip() for m in os.environ.get(ALLOW_ENV, "").split(",")}


@functools.cache
def _named(target: str) -> Any:
    if target in GRAMMARS:
        package, module, function = GRAMMARS[target]
    else:
        module, function = target.split(":")
        package = module.replace("_", "-")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"Code.language={target!r} needs the grammar package {package!r}: "
            f"pip install {package} (or 'ferrochunk[code]' for all twelve)"
        ) from exc
    fn = getattr(mod, function, None)
    if not callable(fn):
        raise ConfigError(f"Code.language={target!r}: {module} has no function {function!r}")
    result = fn()
    if not is_capsule(result):
        raise ConfigTypeError(
            f"Code.language={target!r}: {module}.{function}() returned {describe(result)}, "
            "not a grammar capsule (grammar packages older than 0.22 return ints; install a "
            "newer one)"
        )
    return result


def capsule(language: Any) -> Any:
    """The grammar capsule for ``language`` (checked already by :func:`check`)."""
    check(language)
    return language if is_capsule(language) else _named(language)


def checked(language: Any) -> Any:
    """:func:`capsule`, its ABI one the core's runtime reads, so that a config fails where
    it is built or unpickled, not at a worker's first ``chunk()``. (The reference reads
    the grammar with py-tree-sitter, which checks it its own way, and never calls here.)"""
    found = capsule(language)
    from . import _native  # the extension, only when a config is built

    _native.grammar_abi(found)
    return found
