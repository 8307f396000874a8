"""Grammar loading is not a code-execution path, and a grammar's ABI is checked where a
config is built and where it is unpickled (a Ray or Spark worker), not at its first chunk.

Language strings arrive from ``--chunker`` specs, TOML configs and pipeline YAML, so a
``"module:function"`` imports only ``tree_sitter_<name>`` grammar modules, unless the
operator lists another module in ``FERROCHUNK_GRAMMAR_MODULES``.
"""

from __future__ import annotations

import ctypes
import pickle
import sys
import textwrap

import pytest

import ferrochunk as fc
from ferrochunk import _grammars
from ferrochunk.errors import ConfigError

pytest.importorskip("tree_sitter_python")


@pytest.mark.parametrize("target", ["this:main", "os:getcwd", "subprocess:run", "tree_sitter:x"])
def test_a_module_that_is_not_a_grammar_is_never_imported(target, capsys, monkeypatch) -> None:
    monkeypatch.delenv(_grammars.ALLOW_ENV, raising=False)
    module = target.partition(":")[0]
    was_loaded = module in sys.modules
    with pytest.raises(ConfigError, match=r"Code\.language='.*': only grammar modules"):
        fc.Code(64, language=target)
    assert (module in sys.modules) == was_loaded  # `this` prints the Zen when imported
    assert capsys.readouterr().out == ""


def test_grammar_entry_points_load(monkeypatch) -> None:
    monkeypatch.delenv(_grammars.ALLOW_ENV, raising=False)
    config = fc.Code(64, language="tree_sitter_python:language")
    assert fc.chunk("def f():\n    return 1\n", config)[0].text.startswith("def f")


def _fake_grammar(tmp_path, monkeypatch, abi: int) -> ctypes.Array[ctypes.c_char]:
    """A module ``fake_grammar`` whose ``language()`` returns a capsule named as grammar
    packages name theirs, over zeroed memory whose first field (the ABI) is ``abi``."""
    buffer = ctypes.create_string_buffer(4096)
    ctypes.c_uint32.from_buffer(buffer).value = abi
    (tmp_path / "fake_grammar.py").write_text(
        textwrap.dedent(
            """
            import ctypes
            new = ctypes.pythonapi.PyCapsule_New
            new.restype = ctypes.py_object
            new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            ADDRESS = None
            def language():
                return new(ADDRESS, b"tree_sitter.Language", None)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import fake_grammar  # type: ignore[import-not-found]

    fake_grammar.ADDRESS = ctypes.addressof(buffer)
    return buffer


@pytest.fixture(autouse=True)
def _forget_resolved_grammars():
    """A fake capsule must not outlive its buffer in the resolver's cache."""
    _grammars._named.cache_clear()
    yield
    _grammars._named.cache_clear()


def test_another_module_needs_the_explicit_opt_in(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(_grammars.ALLOW_ENV, raising=False)
    keep = _fake_grammar(tmp_path, monkeypatch, abi=99)
    with pytest.raises(ConfigError, match="FERROCHUNK_GRAMMAR_MODULES"):
        fc.Code(64, language="fake_grammar:language")
    monkeypatch.setenv(_grammars.ALLOW_ENV, "other, fake_grammar")
    # Imported now, and its capsule's ABI refused where the config is built.
    with pytest.raises(ConfigError, match=r"Code\.language must be a grammar of ABI \d+ to \d+"):
        fc.Code(64, language="fake_grammar:language")
    with pytest.raises(ConfigError, match="got a grammar of ABI version 99"):
        fc.Code(64, language="fake_grammar:language")
    del keep


def test_the_abi_is_checked_when_a_config_is_unpickled(tmp_path, monkeypatch) -> None:
    import tree_sitter_python

    monkeypatch.setenv(_grammars.ALLOW_ENV, "fake_grammar")
    keep = _fake_grammar(tmp_path, monkeypatch, abi=99)
    import fake_grammar

    monkeypatch.setattr(fake_grammar, "language", tree_sitter_python.language)
    _grammars._named.cache_clear()
    state = pickle.dumps(fc.Code(64, language="fake_grammar:language"))
    # The worker's process has another build of the module: a grammar of an unknown ABI.
    monkeypatch.undo()
    monkeypatch.setenv(_grammars.ALLOW_ENV, "fake_grammar")
    keep = _fake_grammar(tmp_path, monkeypatch, abi=99)
    _grammars._named.cache_clear()  # a fresh process resolves the name anew
    with pytest.raises(ConfigError, match="ABI version 99"):
        pickle.loads(state)
    del keep
