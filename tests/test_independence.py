"""The reference is an independent oracle, and the compat names that stay in Python are
exactly the listed ones."""

from __future__ import annotations

import ast
import gzip
import json
from collections import defaultdict
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk import _native, testing
from ferrochunk.compat import PURE_PYTHON

PACKAGE = Path(fc.__file__).parent
VECTORS = Path(__file__).parent / "data" / "vectors"
DESIGN = Path(__file__).resolve().parent.parent / "docs" / "design.md"


def _imports(path: Path, module: str) -> set[str]:
    """Modules ``path`` imports when it loads: module-level imports, ``TYPE_CHECKING``
    blocks and imports inside functions left out (a function's import runs only when a
    caller runs it; the instrumented tests below cover the calls)."""
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _module_file(name: str) -> Path | None:
    """The file of a ferrochunk module (the package's own ``__init__``, the public API,
    is not followed: ``from ... import _native`` still shows up as ``ferrochunk._native``)."""
    if not name.startswith("ferrochunk."):
        return None
    rel = Path(*name.split(".")[1:])
    for candidate in (PACKAGE / rel.with_suffix(".py"), PACKAGE / rel / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def test_the_reference_never_imports_the_extension():
    """Walk the import graph from every reference module; the extension and the modules
    that call it must be unreachable."""
    start = [
        "ferrochunk.reference."
        + ".".join(p.relative_to(PACKAGE / "reference").with_suffix("").parts)
        for p in (PACKAGE / "reference").rglob("*.py")
    ]
    seen: set[str] = set()
    todo = [m.removesuffix(".__init__") for m in start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(name)
        if path is not None:
            todo.extend(m for m in _imports(path, name) if m.startswith("ferrochunk"))
    forbidden = {"ferrochunk._native", "ferrochunk.tokenizers", "ferrochunk.pipeline"}
    assert not seen & forbidden, sorted(seen & forbidden)
    assert not [m for m in seen if m.startswith("ferrochunk.compat")]
    assert "ferrochunk.reference.recursive" in seen


@pytest.fixture
def no_native(monkeypatch):
    """Every extension function raises: any call from the reference fails the test."""

    def refuse(name):
        def call(*args, **kwargs):
            raise AssertionError(f"the reference called _native.{name}")

        return call

    for name in dir(_native):
        if not name.startswith("__") and callable(getattr(_native, name)):
            monkeypatch.setattr(_native, name, refuse(name))


CONFIGS = [
    fc.TokenWindows(6, overlap_tokens=2),
    fc.Recursive(6, overlap_tokens=1),
    fc.SentenceWindows(8),
    fc.DelimiterMerge(5, child_delimiters=(",",), overlap=20),
    fc.ParentChild(fc.Recursive(10), child=fc.Recursive(4)),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("tokenizer", ["cl100k", "o200k", "callable"])
def test_the_reference_backend_runs_without_the_extension(config, tokenizer, no_native):
    tok = (
        fc.Tokenizer.from_callable(lambda t: (list(range(len(t))), list(range(len(t)))))
        if tokenizer == "callable"
        else tokenizer
    )
    text = "One sentence, and another. 第二句，中文。\n\nA last line 😀."
    chunks = fc.chunk(text, config, tokenizer=tok, backend="reference")
    assert chunks
    cleaned = fc.chunk(
        text,
        config,
        tokenizer=tok,
        backend="reference",
        clean=fc.CleanRules(remove_urls_emails=True, remove_extra_spaces=True),
    )
    assert cleaned


def _records():
    for path in sorted(VECTORS.rglob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                yield path.parent.name, json.loads(line)


def test_reference_replays_never_enter_the_extension(no_native):
    replayed = 0
    for _, record in _records():
        testing.replay(record, backend="reference")
        replayed += 1
    assert replayed > 5000


def test_pure_python_compat_names_are_exactly_the_listed_ones(monkeypatch):
    entered = [False]

    def counting(fn):
        def call(*args, **kwargs):
            entered[0] = True
            return fn(*args, **kwargs)

        return call

    for name in dir(_native):
        value = getattr(_native, name)
        if not name.startswith("__") and callable(value):
            monkeypatch.setattr(_native, name, counting(value))
    native_calls: dict[tuple[str, str], int] = defaultdict(int)
    for family, record in _records():
        entered[0] = False
        testing.replay(record, backend="native")
        native_calls[(family, record["fn"])] += entered[0]
    python_only = {key for key, hits in native_calls.items() if hits == 0}
    listed = {(family, name) for family, names in PURE_PYTHON.items() for name in names}
    assert python_only == listed
    design = DESIGN.read_text()
    for _, name in listed:
        assert f"`{name}`" in design, f"docs/design.md does not list {name}"
