"""The command line: every chunker, config files, inputs and outputs, atomicity, exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk.cli import main, parser
from ferrochunk.records import record

DOC = "First paragraph, with a comma.\n\nSecond one。第二段，有逗号。\r\nThird line.\n" * 12


def _rows(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _run(args: list[str], capsys) -> tuple[int, list[dict], str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, _rows(out), err


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_bytes(DOC.encode())
    return path


def test_bundled_sample_to_stdout(capsys):
    code, rows, err = _run(["chunk", "--max-tokens", "128", "--overlap-tokens", "16"], capsys)
    assert code == 0
    assert len(rows) > 10
    assert all(r["source"] == "<bundled sample>" and r["token_count"] <= 128 for r in rows)
    assert "1 document," in err
    # The source's tokens, each counted once however much the chunks overlap.
    sample = (resources.files("ferrochunk") / "data" / "sample.md").read_text(encoding="utf-8")
    assert f" {fc.Tokenizer.cl100k().count(sample):,} source tokens " in err
    assert sum(r["token_count"] for r in rows) > fc.Tokenizer.cl100k().count(sample)
    assert "too small to time" in err  # 28 KB: a rate would be start-up time


CHUNKERS = {
    "windows": (["--overlap-tokens", "4"], fc.TokenWindows(24, overlap_tokens=4)),
    "recursive": (
        ["--separator", r"\n\n", "--separator", " "],
        fc.Recursive(24, separators=("\n\n", " ")),
    ),
    "delimiter": (
        [
            "--delimiter",
            r"\n",
            "--delimiter",
            "。",
            "--child-delimiter",
            "，",
            "--strategy",
            "under_cap",
            "--joiner",
            r"\n",
        ],
        fc.DelimiterMerge(
            24, delimiters=("\n", "。"), child_delimiters=("，",), strategy="under_cap", joiner="\n"
        ),
    ),
    "sentence": (["--overlap-ratio", "0.2"], fc.SentenceWindows(24, overlap_ratio=0.2)),
    "parent-child": (
        ["--child-max-tokens", "8"],
        fc.ParentChild(fc.Recursive(24), child=fc.Recursive(8)),
    ),
    "markdown": (["--overlap-tokens", "4"], fc.Markdown(24, overlap_tokens=4)),
    "markdown-no-context": (["--no-context"], fc.Markdown(24, context=False)),
}


@pytest.mark.parametrize("name", list(CHUNKERS))
def test_every_chunker_equals_the_library(name, doc, capsys):
    flags, config = CHUNKERS[name]
    chunker = name.removesuffix("-no-context")
    code, rows, _ = _run(
        ["chunk", str(doc), "--chunker", chunker, "--max-tokens", "24", *flags], capsys
    )
    assert code == 0
    expected = [
        {"source": str(doc), "id": None, **record(c, config)} for c in fc.chunk(DOC, config)
    ]
    assert rows == json.loads(json.dumps(expected))


def test_markdown_records_carry_headings_and_context(tmp_path, capsys):
    path = tmp_path / "guide.md"
    path.write_text("# Guide\n\nIntro text.\n\n## Install\n\n" + "Step one, then two. " * 30)
    code, rows, _ = _run(
        ["chunk", str(path), "--chunker", "markdown", "--max-tokens", "32"], capsys
    )
    assert code == 0
    assert rows[-1]["headings"] == [
        {"level": 1, "title": "Guide"},
        {"level": 2, "title": "Install"},
    ]
    assert rows[-1]["context"] == "# Guide\n## Install\n\n"
    counter = fc.Tokenizer.cl100k()
    assert all(counter.count(r["context"] + r["text"]) <= 32 for r in rows)


def test_offsets_index_the_file_as_stored(doc, capsys):
    _, rows, _ = _run(["chunk", str(doc), "--chunker", "windows", "--max-tokens", "7"], capsys)
    data = doc.read_bytes()
    assert b"\r\n" in data
    for r in rows:
        assert data[r["byte_start"] : r["byte_end"]].decode() == r["text"]


def test_large_files_stream_with_the_same_output(tmp_path, capsys, monkeypatch):
    path = tmp_path / "big.txt"
    path.write_bytes(DOC.encode() * 20)
    _, small, _ = _run(["chunk", str(path)], capsys)
    monkeypatch.setattr("ferrochunk.cli.chunk_run.STREAM_FROM", 100)
    _, streamed, _ = _run(["chunk", str(path), "--progress"], capsys)
    assert streamed == small


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "dify.json",
            {
                "mode": "custom",
                "rules": {
                    "pre_processing_rules": [],
                    "segmentation": {"separator": "\\n\\n", "max_tokens": 60, "chunk_overlap": 5},
                },
            },
            fc.from_process_rule(
                {
                    "mode": "custom",
                    "rules": {
                        "pre_processing_rules": [],
                        "segmentation": {
                            "separator": "\\n\\n",
                            "max_tokens": 60,
                            "chunk_overlap": 5,
                        },
                    },
                }
            )[0],
        ),
        (
            "ragflow.toml",
            'chunk_token_num = 40\ndelimiter = "\\n。"\noverlapped_percent = 10\n',
            fc.from_parser_config(
                {"chunk_token_num": 40, "delimiter": "\n。", "overlapped_percent": 10}
            ),
        ),
        ("native.toml", 'chunker = "sentence"\nmax_tokens = 30\n', fc.SentenceWindows(30)),
    ],
)
def test_config_files(name, content, expected, doc, tmp_path, capsys):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    code, rows, _ = _run(["chunk", str(doc), "--config", str(path)], capsys)
    assert code == 0
    assert [r["text"] for r in rows] == [c.text for c in fc.chunk(DOC, expected)]


def test_jsonl_records_in_and_stdin(tmp_path, capsys, monkeypatch):
    src = tmp_path / "docs.jsonl"
    src.write_text(
        "".join(
            json.dumps({"doc": i, "body": f"doc {i}. " + DOC[: i * 20]}) + "\n" for i in range(5)
        )
    )
    code, rows, _ = _run(["chunk", str(src), "--text-field", "body", "--id-field", "doc"], capsys)
    assert code == 0
    assert {r["id"] for r in rows} == {"0", "1", "2", "3", "4"}
    assert rows[0]["text"].startswith("doc 0.")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DOC.encode())))
    code, rows, _ = _run(["chunk", "-", "--chunker", "windows"], capsys)
    assert code == 0
    assert "".join(r["text"] for r in rows) == DOC
    assert {r["source"] for r in rows} == {"<stdin>"}


def test_parquet_in_and_out(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": [1, 2], "text": [DOC, "short one"]}), src)
    out = tmp_path / "chunks.parquet"
    code = main(
        [
            "chunk",
            str(src),
            "--id-field",
            "id",
            "--chunker",
            "delimiter",
            "--child-delimiter",
            "，",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    table = pq.read_table(out)
    assert table.column("id").to_pylist()[-1] == "2"
    from ferrochunk.arrow import chunk_schema, chunk_table

    assert table.schema.remove_metadata() == chunk_schema(
        fc.DelimiterMerge(512, child_delimiters=("，",)),
        [pa.field("source", pa.large_string()), pa.field("id", pa.large_string())],
    )
    want = chunk_table(
        pa.table({"text": [DOC, "short one"]}), fc.DelimiterMerge(512, child_delimiters=("，",))
    )
    assert table.drop_columns(["source", "id"]).to_pylist() == want.to_pylist()
    capsys.readouterr()


def test_a_failed_run_leaves_the_previous_output(doc, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    assert main(["chunk", str(doc), "--max-tokens", "0", "-o", str(out)]) == 2
    assert out.read_text() == "previous\n"
    bad = tmp_path / "bad.toml"
    bad.write_text('chunker = "windows"\nmax_tokens = "many"\n')
    assert main(["chunk", str(doc), "--config", str(bad), "-o", str(out)]) == 2
    assert "max_tokens" in capsys.readouterr().err
    assert out.read_text() == "previous\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.jsonl")]
    assert main(["chunk", str(doc), "-o", str(out)]) == 0
    assert out.read_text() != "previous\n"


def test_the_output_is_never_an_input(doc, capsys):
    before = doc.read_bytes()
    assert main(["chunk", str(doc), "-o", str(doc)]) == 2
    assert "is also an input" in capsys.readouterr().err
    assert doc.read_bytes() == before


def test_exit_status_lists_skipped_inputs(doc, tmp_path, capsys):
    binary = tmp_path / "binary.bin"
    binary.write_bytes(b"ok \xff\xfe")
    missing = tmp_path / "missing.txt"
    code, rows, err = _run(["chunk", str(doc), str(binary), str(missing)], capsys)
    assert code == 1
    assert {r["source"] for r in rows} == {str(doc)}
    assert f"skipped {binary}: not utf-8 text (byte 3)" in err
    assert f"skipped {missing}: no such file or folder" in err
    code, rows, err = _run(["chunk", str(missing)], capsys)
    assert code == 1
    assert rows == []


def test_folders_glob_and_hidden_files(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("alpha " * 30)
    (tmp_path / "sub" / "b.md").write_text("beta " * 30)
    (tmp_path / "c.txt").write_text("gamma " * 30)
    (tmp_path / ".hidden.md").write_text("skip")
    _, rows, _ = _run(["chunk", str(tmp_path), "--glob", "*.md"], capsys)
    assert {Path(r["source"]).name for r in rows} == {"a.md", "b.md"}


def test_non_utf8_file_names_and_encodings(tmp_path, capsys):
    name = os.fsdecode(b"caf\xe9.txt")
    path = tmp_path / name
    path.write_bytes("Grüße aus Köln".encode("latin-1"))
    code, rows, err = _run(["chunk", str(path), "--encoding", "latin-1"], capsys)
    assert code == 0
    assert rows[0]["text"] == "Grüße aus Köln"
    assert rows[0]["source"].endswith("caf\\xe9.txt")
    code, _, err = _run(["chunk", str(path)], capsys)
    assert code == 1
    assert "caf\\xe9.txt" in err


def test_usage_errors(doc, tmp_path, capsys):
    assert main(["chunk", str(doc), "--chunker", "windows", "--joiner", "x"]) == 2
    assert "--joiner does not apply to --chunker windows" in capsys.readouterr().err
    assert main(["chunk", str(doc), "-o", str(tmp_path / "no" / "dir.jsonl")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["chunk", str(doc), "--format", "parquet"]) == 2
    assert main(["chunk", str(doc), "--encoding", "klingon"]) == 2
    assert "klingon" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("ferrochunk ")


def test_help_reads_as_plain_text():
    sub = parser()._subparsers._group_actions[0].choices["chunk"]  # type: ignore[union-attr]
    text = sub.format_help()
    assert "``" not in text
    assert ":func:" not in text
    assert "--chunker" in text


def test_full_disk_is_a_clean_error(doc):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ferrochunk.cli", "chunk", str(doc)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2
    assert "No space left on device" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_summary_gives_a_rate_from_a_megabyte_on():
    from ferrochunk.cli.reports import summary_line

    assert "(2.00 MB in 1.00 s, 2.0 MB/s)" in summary_line(1, 2, 3, 2_000_000, 1.0, "done")
    assert "(0.03 MB in 0.20 s, too small to time)" in summary_line(1, 2, 3, 28_000, 0.2, "done")
