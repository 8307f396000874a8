"""The command line: bundled sample, files and folders, output file, summary."""

from __future__ import annotations

import json

from ferrochunk.cli import main


def test_bundled_sample_to_stdout(capsys):
    assert main(["chunk", "--max-tokens", "128", "--overlap-tokens", "16"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) > 10
    assert all(r["source"] == "<bundled sample>" and r["token_count"] <= 128 for r in rows)
    assert rows[1]["token_start"] == rows[0]["token_end"] - 16
    assert "1 documents" in err
    assert "MB/s" in err


def test_folder_to_output_file(tmp_path, capsys):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("alpha beta gamma " * 40, encoding="utf-8")
    (docs / "sub" / "b.md").write_text("# 标题\n\n你好，世界。" * 30, encoding="utf-8")
    (docs / "binary.bin").write_bytes(b"\xff\xfe\x00")
    (docs / ".hidden").write_text("skip me", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert (
        main(["chunk", str(docs), "--tokenizer", "o200k", "--max-tokens", "32", "-o", str(out)])
        == 0
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    sources = {r["source"] for r in rows}
    assert sources == {str(docs / "a.txt"), str(docs / "sub" / "b.md")}
    text_b = "".join(r["text"] for r in rows if r["source"].endswith("b.md"))
    assert text_b == "# 标题\n\n你好，世界。" * 30
    err = capsys.readouterr().err
    assert "skipping" in err
    assert "binary.bin" in err
    assert "2 documents" in err


def test_bad_arguments_exit_nonzero(tmp_path, capsys):
    assert main(["chunk", str(tmp_path / "missing.txt")]) == 2
    assert main(["chunk", "-o", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["chunk", "--max-tokens", "0"]) == 2
    assert "max_tokens" in capsys.readouterr().err
