"""`ferrochunk churn` and `ferrochunk.churn` over a real git history made in the test."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk.churn import Edit, churn, revisions
from ferrochunk.cli import main
from ferrochunk.errors import FerrochunkError


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def _section(k: int, word: str = "thing") -> str:
    return f"## Part {k}\n\n" + f"Sentence about the {word} number {k}. " * 12 + "\n\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    book = root / "book.md"
    sections = [_section(k) for k in range(12)]
    book.write_text("# Book\n\n" + "".join(sections), encoding="utf-8")
    (root / "code.py").write_text("x = 1\n", encoding="utf-8")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "first")
    for k in (3, 8):  # two revisions, each editing one section
        sections[k] = _section(k, "edited thing")
        book.write_text("# Book\n\n" + "".join(sections), encoding="utf-8")
        _git(root, "commit", "-q", "-am", f"edit {k}")
    (root / "code.py").write_text("x = 2\n", encoding="utf-8")
    _git(root, "commit", "-q", "-am", "code")
    return root


def test_revisions_are_the_commits_that_modify_the_paths(repo):
    history = list(revisions(repo, ["*.md"]))
    assert len(history) == 2
    assert [e.path for edits in history for e in edits] == ["book.md", "book.md"]
    first = history[0][0]
    assert "edited thing number 3" in first.after
    assert "edited thing number 3" not in first.before
    assert len(list(revisions(repo))) == 3
    assert len(list(revisions(repo, max_revisions=1))) == 1


def _by_hand(edits: list[Edit], config: fc.Config) -> tuple[int, int]:
    """Re-embedded and excess chunks, counted without `churn`. Each revision of the fixture
    changes one block of lines, found here by the common leading and trailing lines."""
    new = excess = 0
    for e in edits:
        a, b = e.before.splitlines(keepends=True), e.after.splitlines(keepends=True)
        head = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
        tail = next(i for i, (x, y) in enumerate(zip(a[::-1], b[::-1], strict=False)) if x != y)
        lo, hi = len("".join(b[:head])), len(e.after) - len("".join(b[len(b) - tail :]))
        old = {c.metadata.get("context", "") + c.text for c in fc.chunk(e.before, config)}
        for c in fc.chunk(e.after, config):
            if c.metadata.get("context", "") + c.text in old:
                continue
            new += 1
            excess += not (c.char_start < hi and lo < c.char_end)
    return new, excess


@pytest.mark.parametrize(
    "config",
    [fc.Markdown(64), fc.Recursive(64), fc.TokenWindows(64)],
    ids=lambda c: type(c).__name__,
)
def test_the_figures_count_what_each_revision_re_embeds(repo, config):
    history = list(revisions(repo, ["*.md"]))
    (row,) = churn(history, [config])
    assert row.revisions == 2
    assert row.files == 2
    new, excess = (sum(x) for x in zip(*(_by_hand(h, config) for h in history), strict=True))
    assert row.reembedded_chunks == new / 2
    assert row.excess == excess / 2
    assert 0 < row.mean_tokens <= 64


def test_a_named_function_is_replayed_as_a_config_is(repo):
    history = list(revisions(repo, ["*.md"]))
    config = fc.Recursive(64, boundaries="content")
    by_config, by_name = churn(history, [config, ("mine", lambda t: fc.chunk(t, config))])
    assert by_name.chunker == "mine"
    assert dataclasses.replace(by_name, chunker=by_config.chunker) == by_config


def test_structure_keeps_an_edit_local_where_windows_do_not(repo):
    history = list(revisions(repo, ["*.md"]))
    markdown, windows = churn(history, [fc.Markdown(64), fc.TokenWindows(64)])
    assert markdown.excess < windows.excess
    assert markdown.reembedded_chunks < windows.reembedded_chunks


def test_the_command_prints_writes_json_and_plots(repo, tmp_path, capsys):
    out = tmp_path / "churn.json"
    plot = tmp_path / "churn.png"
    chunkers = ["--chunker", "markdown:max_tokens=64", "--chunker", "windows:max_tokens=64"]
    args = [
        "churn",
        str(repo),
        "--paths",
        "*.md",
        *chunkers,
        "--json",
        str(out),
        "--plot",
        str(plot),
    ]
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "markdown:max_tokens=64" in printed.out
    assert "2 revisions, 2 file edits" in printed.err
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert [r["chunker"] for r in rows] == ["markdown:max_tokens=64", "windows:max_tokens=64"]
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_a_folder_that_is_not_a_repository_is_named(tmp_path, capsys):
    with pytest.raises(FerrochunkError, match="is not a git repository"):
        list(revisions(tmp_path))
    assert main(["churn", str(tmp_path)]) == 2
    assert "is not a git repository" in capsys.readouterr().err
    assert main(["churn", str(tmp_path / "nowhere")]) == 2
