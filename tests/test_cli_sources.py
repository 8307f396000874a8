"""One reader for the commands that hold every document (``bench``, ``eval``): one id rule,
one set of errors."""

from __future__ import annotations

import io
import json

import pytest

from ferrochunk.cli import bench as bench_cli
from ferrochunk.cli import eval as eval_cli
from ferrochunk.cli.sources import Unreadable, read_texts


def _folder(tmp_path):
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\r\nbeta\n", encoding="utf-8")
    (root / "sub" / "b.md").write_text("# B\n", encoding="utf-8")
    (root / ".hidden.txt").write_text("never read", encoding="utf-8")
    rows = [{"text": "one", "id": "x"}, {"text": "two", "id": "y"}, {"text": None}]
    (root / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def test_ids_are_paths_in_the_folder_given_and_records_by_number_or_field(tmp_path):
    root = _folder(tmp_path)
    docs = read_texts([str(root)])
    assert docs == {"a.txt": "alpha\nbeta\n", "r.jsonl#0": "one", "r.jsonl#1": "two",
                    "sub/b.md": "# B\n"}  # fmt: skip
    assert set(read_texts([str(root)], id_field="id")) == {"a.txt", "r.jsonl#x", "r.jsonl#y",
                                                           "sub/b.md"}  # fmt: skip
    assert read_texts([str(root / "sub" / "b.md")]) == {"b.md": "# B\n"}
    # eval and bench read through it: the same documents, bench keeping the texts.
    assert eval_cli.read_documents([str(root)], "text") == docs
    assert bench_cli._documents([str(root)], "text") == list(docs.values())


def test_stdin_is_one_document_named_dash(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("from stdin"))
    assert read_texts(["-"]) == {"-": "from stdin"}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: [str(root / "nope")], r"nope: no such file or folder"),
        (lambda root: [str(root / "a.txt")] * 2, "two documents are named 'a.txt'"),
        (lambda root: [str(root / "bad.txt")], r"bad\.txt: not utf-8 text \(byte 1\)"),
        (lambda root: [str(root / "notext.jsonl")], "no 'text' field; name the field with --text"),
    ],
)  # fmt: skip
def test_one_set_of_errors_names_the_input(tmp_path, make, message):
    root = _folder(tmp_path)
    (root / "bad.txt").write_bytes(b"a\xffb")
    (root / "notext.jsonl").write_text('{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(Unreadable, match=message):
        read_texts(make(root))
