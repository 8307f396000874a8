"""CLI errors: a missing extra is one line on stderr and exit 2, wherever it is imported;
``--plot`` checks matplotlib before the run; an internal ``KeyError`` or ``IndexError`` is a
bug (a traceback, exit 1), not a usage error."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from ferrochunk import _grammars
from ferrochunk.cli import chunk_run as chunk_cli
from ferrochunk.cli import main


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def no_matplotlib(monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises


@pytest.fixture
def no_python_grammar(monkeypatch):
    _grammars._named.cache_clear()  # a grammar resolved earlier is cached
    monkeypatch.setitem(sys.modules, "tree_sitter_python", None)
    yield
    _grammars._named.cache_clear()


def _eval_inputs(tmp_path):
    (tmp_path / "a.txt").write_text("one two three four five six seven eight nine ten")
    (tmp_path / "q.jsonl").write_text(
        json.dumps({"question": "two", "references": [{"doc": "a.txt", "text": "two"}]}) + "\n"
    )
    return str(tmp_path / "a.txt"), str(tmp_path / "q.jsonl")


def test_a_missing_grammar_package_is_one_line_and_exit_2(tmp_path, capsys, no_python_grammar):
    src = tmp_path / "a.py"
    src.write_text("def f():\n    return 1\n")
    out = tmp_path / "out.jsonl"
    code = main(["chunk", str(src), "--chunker", "code", "--language", "python", "-o", str(out)])
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert "tree-sitter-python" in line
    assert "pip install" in line
    assert not out.exists()


def test_a_grammar_module_that_is_not_installed_is_one_line(tmp_path, capsys):
    src = tmp_path / "a.py"
    src.write_text("x = 1\n")
    code = main(
        [
            "chunk",
            str(src),
            "--chunker",
            "code",
            "--language",
            "tree_sitter_no_such_grammar:language",
        ]
    )
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert "pip install tree-sitter-no-such-grammar" in line


def test_bench_plot_checks_matplotlib_before_any_chunker_runs(
    tmp_path, capsys, monkeypatch, no_matplotlib
):
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    out = tmp_path / "b.json"
    code = main(["bench", "--chunkers", "windows", "--repeat", "1", "--json", str(out),
                 "--plot", str(tmp_path / "b.png")])  # fmt: skip
    assert code == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)  # no title, no progress line per chunker
    assert "matplotlib" in line
    assert "pip install 'ferrochunk[bench]'" in line
    assert captured.out == ""  # no table
    assert not out.exists()  # the run did not happen
    assert not (tmp_path / "b.png").exists()


def test_eval_plot_checks_matplotlib_before_any_chunking(tmp_path, capsys, no_matplotlib):
    doc, questions = _eval_inputs(tmp_path)
    out = tmp_path / "e.json"
    code = main(["eval", doc, "--questions", questions, "--chunker", "windows:max_tokens=4",
                 "--json", str(out), "--plot", str(tmp_path / "e.png")])  # fmt: skip
    assert code == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)  # no "N questions, M document(s)" line
    assert "matplotlib" in line
    assert "pip install 'ferrochunk[bench]'" in line
    assert captured.out == ""
    assert not out.exists()


def test_bench_code_refuses_plot_before_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    (tmp_path / "a.py").write_text("x = 1\n")
    code = main(["bench", str(tmp_path / "a.py"), "--chunker", "code",
                 "--plot", str(tmp_path / "c.png")])  # fmt: skip
    assert code == 2
    assert "--plot" in _one_line(capsys.readouterr().err)


def test_a_missing_module_raised_anywhere_is_one_line(tmp_path, capsys, monkeypatch):
    def missing(args):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")

    monkeypatch.setattr(chunk_cli, "build_config", missing)
    (tmp_path / "a.txt").write_text("text")
    assert main(["chunk", str(tmp_path / "a.txt")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "pyarrow" in line
    assert "pip install 'ferrochunk[arrow]'" in line


@pytest.mark.parametrize(
    "error",
    [
        KeyError("chunker"),
        IndexError("list index out of range"),
        LookupError("internal"),
        ModuleNotFoundError("No module named 'ferrochunk._gone'", name="ferrochunk._gone"),
        ImportError("cannot import name 'x' from 'ferrochunk.rules'"),
    ],
    ids=["KeyError", "IndexError", "LookupError", "own-module", "own-name"],
)
def test_an_internal_error_is_not_a_usage_error(tmp_path, capsys, monkeypatch, error):
    def broken(args):
        raise error

    monkeypatch.setattr(chunk_cli, "build_config", broken)
    (tmp_path / "a.txt").write_text("text")
    with pytest.raises(type(error)):
        main(["chunk", str(tmp_path / "a.txt")])
    assert "ferrochunk:" not in capsys.readouterr().err


def test_an_unknown_encoding_is_still_a_usage_error(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("text")
    assert main(["chunk", str(tmp_path / "a.txt"), "--encoding", "klingon"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--encoding" in line
    assert "klingon" in line


def _script(tmp_path, body: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "a.txt").write_text("text")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


def test_the_command_exits_2_for_a_missing_extra(tmp_path):
    run = _script(
        tmp_path,
        """
        import sys
        sys.modules["matplotlib"] = None
        from ferrochunk.cli import main
        sys.exit(main(["bench", "--chunkers", "windows", "--repeat", "1", "--plot", "x.png"]))
        """,
    )
    assert run.returncode == 2
    assert "pip install 'ferrochunk[bench]'" in _one_line(run.stderr)


def test_the_command_exits_1_with_a_traceback_for_an_internal_key_error(tmp_path):
    run = _script(
        tmp_path,
        """
        import sys
        from ferrochunk.cli import chunk_run as chunk, main

        def broken(args):
            raise KeyError("internal")

        chunk.build_config = broken
        sys.exit(main(["chunk", "a.txt"]))
        """,
    )
    assert run.returncode == 1
    assert "Traceback" in run.stderr
    assert "KeyError: 'internal'" in run.stderr
