"""The documentation runs: the README's Python blocks in order, every docstring example,
and `help()` on a config reads as a reference."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pydoc
import re
import warnings
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

import ferrochunk as fc

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

MODULES = [
    "ferrochunk.config",
    "ferrochunk.pipeline",
    "ferrochunk.tokenizers",
    "ferrochunk.types",
    "ferrochunk.ids",
    "ferrochunk.ledger",
    "ferrochunk.records",
    "ferrochunk.rules",
    "ferrochunk.spec",
    "ferrochunk.eval.run",
    "ferrochunk.eval.retrieve",
    "ferrochunk.errors",
    "ferrochunk.arrow",
    "ferrochunk.ray",
    "ferrochunk.spark",
    "ferrochunk.dask",
    "ferrochunk.bench",
    "ferrochunk.bench.quality",
    "ferrochunk.integrations.langchain",
    "ferrochunk.integrations.llama_index",
    "ferrochunk.integrations.haystack",
    "ferrochunk.compat.ragflow",
    "ferrochunk.compat.dify",
    "ferrochunk.compat.voltagent",
    "ferrochunk.compat.token_aware",
]


def test_the_readme_is_a_front_door():
    """At most 20 000 characters: the detail lives in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) <= 20_000


def test_the_readme_python_blocks_run_in_order(tmp_path, monkeypatch):
    """Like a reader pasting each block into one session, in a fresh folder."""
    blocks = BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for i, block in enumerate(blocks):
        with warnings.catch_warnings():
            # Ray and LlamaIndex warn about their own dependencies; that is not ours to fix.
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
            except Exception as exc:
                pytest.fail(f"README python block {i + 1} fails: {exc!r}\n{block}")


DOC_PAGES = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.name)
def test_the_docs_pages_python_blocks_run_in_order(page, tmp_path, monkeypatch, capsys):
    """Each page's Python blocks run as one session; a ``text`` block right after a
    block that prints is that block's output, word for word."""
    source = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```\n(?:\n```text\n(.*?)^```)?", source, re.S | re.M)
    assert blocks, f"{page.name} has no Python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for i, (block, shown) in enumerate(blocks):
        with warnings.catch_warnings():
            # As in the README: Ray and LlamaIndex warn about their own dependencies.
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(block, f"{page.name} python block {i + 1}", "exec"), namespace)
        printed = capsys.readouterr().out
        if shown:
            assert printed == shown, f"{page.name} block {i + 1} prints something else"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def _public_of(module_name: str) -> list[object]:
    module = importlib.import_module(module_name)
    return [
        getattr(module, n)
        for n in module.__all__
        if inspect.isclass(getattr(module, n)) or inspect.isfunction(getattr(module, n))
    ]


@pytest.mark.parametrize(
    "module_name",
    ["ferrochunk", "ferrochunk.arrow", "ferrochunk.ray", "ferrochunk.integrations.langchain",
     "ferrochunk.integrations.llama_index"],
)  # fmt: skip
def test_public_classes_and_functions_carry_an_example(module_name):
    missing = [
        getattr(obj, "__name__", repr(obj))
        for obj in _public_of(module_name)
        if ">>>" not in (inspect.getdoc(obj) or "")
    ]
    assert missing == []


@pytest.mark.parametrize("config", [*fc.config.CONFIGS, fc.CleanRules])
def test_help_names_every_field_with_its_meaning_and_default(config):
    page = pydoc.render_doc(config, renderer=pydoc.plaintext)
    head = page.split("Methods defined here")[0]
    assert ">>>" in head
    section = inspect.getdoc(config).split("Fields", 1)[1].split("\n\n")[0]
    for f in fields(config):
        if f.name == "_":
            continue
        entry = re.search(rf"^\s*{f.name}: (.*?)(?=^\s*\w+: |\Z)", section, re.S | re.M)
        assert entry is not None, f"{config.__name__}.{f.name} is not described"
        if f.default is not MISSING and f.default not in ((), None, 0, False):
            assert "default" in entry.group(1), f"{config.__name__}.{f.name}: no default"
