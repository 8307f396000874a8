"""`ferrochunk sync`: change lines a store can apply, a ledger committed only after the
output is in place, and exit codes that tell the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk import ids
from ferrochunk.cli import main

ARGS = ["--max-tokens", "48"]


def _write_docs(folder: Path) -> None:
    (folder / "guide").mkdir(parents=True)
    for i in range(4):
        body = "".join(f"Line {k} of page {i} explains one thing.\n\n" for k in range(30))
        (folder / "guide" / f"page-{i}.md").write_text(f"# Page {i}\n\n{body}", encoding="utf-8")
    (folder / "notes.txt").write_text("A short note.\r\nWith a CRLF line.\r\n", encoding="utf-8")


def _sync(tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, object]]]:
    out = tmp_path / "changes.jsonl"
    status = main(["sync", str(tmp_path / "docs"), "--state", str(tmp_path / "index.db"),
                   *ARGS, "-o", str(out), *extra])  # fmt: skip
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    return status, [json.loads(line) for line in lines]


def _apply(store: dict[str, dict[str, object]], lines: list[dict[str, object]]) -> None:
    for line in lines:
        rid = str(line["record_id"])
        if line["op"] == "delete":
            del store[rid]
        elif line["op"] == "add":
            assert rid not in store
            store[rid] = line
        else:
            assert line["op"] == "move"
            assert store[rid]["chunk_id"] == line["chunk_id"]
            store[rid] = {**store[rid], **line, "op": "add"}


def _expected(folder: Path) -> dict[str, tuple[str, str, int, int]]:
    """record id -> (doc id, text, char_start, chunk_index), computed without the CLI."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        doc_id = path.relative_to(folder).as_posix()
        chunks = fc.chunk(path.read_bytes().decode("utf-8"), fc.Recursive(48))
        for c, rid in zip(chunks, ids.record_ids(doc_id, chunks), strict=True):
            out[rid] = (doc_id, c.text, c.char_start, c.index)
    return out


def _held(store: dict[str, dict[str, object]]) -> dict[str, tuple[object, ...]]:
    return {
        rid: (r["doc_id"], r["text"], r["char_start"], r["chunk_index"]) for rid, r in store.items()
    }


def test_applying_the_lines_keeps_a_store_equal_to_the_folder(tmp_path, capsys):
    docs = tmp_path / "docs"
    _write_docs(docs)
    store: dict[str, dict[str, object]] = {}
    status, lines = _sync(tmp_path)
    assert status == 0
    assert {line["op"] for line in lines} == {"add"}
    _apply(store, lines)
    assert _held(store) == _expected(docs)
    assert "5 documents: 0 changed, 5 new, 0 removed;" in capsys.readouterr().err
    assert all(line["chunk_id"] == ids.chunk_id(str(line["text"])) for line in lines)

    page = docs / "guide" / "page-2.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Line 3 ", "Line three "))
    (docs / "guide" / "page-3.md").unlink()
    status, lines = _sync(tmp_path, "--delete-missing")
    assert status == 0
    _apply(store, lines)
    assert _held(store) == _expected(docs)
    added = [line for line in lines if line["op"] == "add"]
    assert added
    assert {line["doc_id"] for line in added} == {"guide/page-2.md"}
    err = capsys.readouterr().err
    assert "4 documents: 1 changed, 0 new, 1 removed;" in err

    status, lines = _sync(tmp_path, "--delete-missing")
    assert (status, lines) == (0, [])


def test_a_dry_run_leaves_the_ledger_as_it_was(tmp_path):
    _write_docs(tmp_path / "docs")
    status, first = _sync(tmp_path, "--dry-run")
    assert status == 0
    assert first
    status, again = _sync(tmp_path)
    assert (status, again) == (0, first)


def test_a_failed_write_changes_nothing(tmp_path, capsys):
    _write_docs(tmp_path / "docs")
    state = str(tmp_path / "index.db")
    bad = str(tmp_path / "no-such-folder" / "changes.jsonl")
    assert main(["sync", str(tmp_path / "docs"), "--state", state, *ARGS, "-o", bad]) == 2
    assert "cannot write" in capsys.readouterr().err
    status, lines = _sync(tmp_path)
    assert status == 0
    assert len(lines) == len(_expected(tmp_path / "docs"))


def test_an_unreadable_input_is_skipped_and_never_deleted(tmp_path, capsys):
    _write_docs(tmp_path / "docs")
    assert _sync(tmp_path)[0] == 0
    (tmp_path / "docs" / "notes.txt").write_bytes(b"caf\xe9 latin-1 text\n")
    _refused_then_skipped(tmp_path, capsys, "skipped", "notes.txt")


def _refused_then_skipped(tmp_path: Path, capsys, reason: str, kept: str) -> None:  # type: ignore[no-untyped-def]
    """With --delete-missing the run stops (exit 2); without it the input is skipped (exit
    1) and the ledger still holds ``kept``."""
    status, _ = _sync(tmp_path, "--delete-missing")
    assert status == 2
    assert "--delete-missing would delete them" in capsys.readouterr().err
    status, lines = _sync(tmp_path)
    assert status == 1
    assert lines == []
    assert reason in capsys.readouterr().err
    with fc.Ledger(tmp_path / "index.db") as ledger:
        assert kept in ledger.documents()


def test_parquet_changes(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="test extra: pyarrow")
    _write_docs(tmp_path / "docs")
    out = tmp_path / "changes.parquet"
    args = ["sync", str(tmp_path / "docs"), "--state", str(tmp_path / "i.db"), *ARGS]
    assert main([*args, "-o", str(out)]) == 0
    (tmp_path / "docs" / "notes.txt").unlink()
    assert main([*args, "-o", str(out), "--delete-missing"]) == 0
    rows = pq.read_table(out).to_pylist()
    assert rows
    assert {r["op"] for r in rows} == {"delete"}
    assert all(r["doc_id"] == "notes.txt" and r["text"] is None for r in rows)


def test_a_bad_ledger_is_named(tmp_path, capsys):
    _write_docs(tmp_path / "docs")
    state = tmp_path / "index.db"
    state.write_text("these are notes, not a ledger\n" * 50, encoding="utf-8")
    assert main(["sync", str(tmp_path / "docs"), "--state", str(state), *ARGS]) == 2
    err = capsys.readouterr().err
    assert "not a ferrochunk ledger" in err
    assert str(state) in err


def test_a_folder_that_cannot_be_read_is_listed_and_never_deleted(tmp_path, monkeypatch, capsys):
    import os

    _write_docs(tmp_path / "docs")
    assert _sync(tmp_path)[0] == 0
    locked = str(tmp_path / "docs" / "guide")
    real = os.scandir

    def scandir(path="."):  # type: ignore[no-untyped-def]
        if os.fspath(path) == locked:  # as for a folder without read permission
            raise PermissionError(13, "Permission denied", locked)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    _refused_then_skipped(tmp_path, capsys, "Permission denied", "guide/page-0.md")
