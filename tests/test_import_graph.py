"""The package's import graph, read from its source (every import, including the lazy ones
inside functions and those under ``TYPE_CHECKING``).

- The native API imports nothing from ``ferrochunk.reference``: the product never depends on
  the oracle that checks it. ``backend="reference"`` goes through ``ferrochunk._oracle``,
  whose one function imports the reference's ``ORACLE`` lazily.
- No two modules import each other, directly or through others.
- Every import keeps to the package map of ``docs/design.md``: a floor imports its own and
  those below, and the reference only what its line lists.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import ferrochunk

ROOT = Path(ferrochunk.__file__).resolve().parent
PACKAGE = "ferrochunk"

NATIVE_API = (
    "ferrochunk.config",
    "ferrochunk.pipeline",
    "ferrochunk.rules",
    "ferrochunk.tokenizers",
    "ferrochunk.arrow",
    "ferrochunk.ray",
    "ferrochunk.spark",
    "ferrochunk.dask",
    "ferrochunk._worker",
    "ferrochunk.records",
    "ferrochunk.types",
    "ferrochunk.cli",
    "ferrochunk.integrations",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    base = ROOT.parent / Path(*name.split("."))
    return (
        base.with_suffix(".py").exists()
        or base.with_suffix(".pyi").exists()
        or (base / "__init__.py").exists()
    )


@cache
def graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    edges: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = edges.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != PACKAGE:
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if _is_module(sub) else target)
    return edges


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_graph_is_read():
    edges = graph()
    assert "ferrochunk.pipeline" in edges["ferrochunk"]
    assert "ferrochunk.config" in edges["ferrochunk.reference._twins"]
    assert "ferrochunk._native" in edges["ferrochunk.tokenizers"]


def test_the_native_api_imports_nothing_from_the_reference():
    found = {
        (module, target)
        for module, targets in graph().items()
        if _in(module, NATIVE_API)
        for target in targets
        if _in(target, ("ferrochunk.reference",))
    }
    assert found == set()


def test_the_oracle_module_reaches_the_reference_lazily_in_one_place():
    """Of the modules the native API imports, only ``_oracle`` reaches the reference: one
    import, inside a function, of the twins' constant."""
    reaching = {
        module
        for module, targets in graph().items()
        if not _in(module, ("ferrochunk.reference", "ferrochunk.compat", "ferrochunk.bench"))
        and any(_in(t, ("ferrochunk.reference",)) for t in targets)
    }
    assert "ferrochunk._oracle" in reaching
    assert not reaching & {m for m in graph() if _in(m, NATIVE_API)}
    tree = ast.parse((ROOT / "_oracle.py").read_text(encoding="utf-8"))
    imports = [
        (node.module, [a.name for a in node.names])
        for fn in tree.body
        if isinstance(fn, ast.FunctionDef)
        for node in ast.walk(fn)
        if isinstance(node, ast.ImportFrom)
    ]
    assert imports == [("reference._twins", ["ORACLE"])]
    assert "ferrochunk._oracle" not in graph()["ferrochunk.reference._twins"]


def test_the_reference_backend_takes_its_twins():
    from ferrochunk import _oracle

    twins = _oracle.oracle()
    assert twins.run.__module__ == "ferrochunk.reference._twins"
    assert [
        c.text for c in ferrochunk.chunk("a b", ferrochunk.TokenWindows(1), backend="reference")
    ] == ["a", " b"]


def test_no_import_cycles():
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_row_layout_is_the_cores_and_the_reference_agrees():
    from ferrochunk import _native, _rows
    from ferrochunk.reference import rows

    assert _rows.ROW_COLUMNS == tuple(_native.ROW_COLUMNS) == rows.COLUMNS
    assert tuple(_native.SPAN_ROW_COLUMNS) == _rows.SPAN_ROW_COLUMNS
    assert _rows.SPAN_ROW_COLUMNS == ("byte_start", "byte_end", "char_start", "char_end")
    row = rows.row(3, -1, (1, 2), (10, 20, 5, 9), oversize=1, spans=(4, 6))
    named = dict(zip(rows.COLUMNS, row, strict=True))
    assert (named["char_start"], named["byte_end"], named["span_end"]) == (5, 20, 6)


DESIGN = Path(__file__).resolve().parent.parent / "docs" / "design.md"


def _unit(module: str) -> str:
    """The map's name for a module: its first level below the package (or the package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _package_map() -> tuple[dict[str, int], set[str], set[str]]:
    block = re.search(r"^```map\n(.*?)^```", DESIGN.read_text(encoding="utf-8"), re.S | re.M)
    assert block, "docs/design.md has no package map"
    floors: dict[str, int] = {}
    allowed: set[str] = set()
    entered_by: set[str] = set()
    for line in block.group(1).splitlines():
        head, _, rest = line.partition(":")
        if head.startswith("floor "):
            for name in rest.split():
                floors[name] = int(head.split()[1])
        elif head == "beside":
            imports, _, entered = rest.partition(";")
            assert imports.split()[:2] == ["reference", "imports"]
            allowed = set(imports.split()[2:])
            assert entered.split()[:2] == ["entered", "by"]
            entered_by = set(entered.split()[2:])
    return floors, allowed, entered_by


def test_every_import_keeps_to_the_package_map():
    floors, allowed, entered_by = _package_map()
    units = {_unit(m) for m in graph()}
    assert units - set(floors) - {"reference"} == set(), "modules the map does not place"
    wrong = set()
    for module, targets in graph().items():
        a = _unit(module)
        for target in targets:
            t = _unit(target)
            if a == t:
                continue
            if a == "reference":
                ok = t in allowed
            elif t == "reference":
                ok = a in entered_by
            else:
                ok = floors[a] >= floors[t]
            if not ok:
                wrong.add(f"{module} -> {target}")
    assert wrong == set()
