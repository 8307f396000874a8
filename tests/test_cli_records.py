"""`ferrochunk chunk` on records files: read by batches, Parquet through `chunk_table` as
Arrow, with the very rows the JSON-lines path (``chunk_many``) writes for the same records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import corpus_files, read_corpus

import ferrochunk.arrow
from ferrochunk.cli import main, sources

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
pq = pytest.importorskip("pyarrow.parquet", reason="test extra: pyarrow")

CHUNKERS = [
    ["--chunker", "recursive", "--max-tokens", "64", "--overlap-tokens", "8"],
    ["--chunker", "markdown", "--max-tokens", "64"],
    ["--chunker", "delimiter", "--max-tokens", "48", "--delimiter", ". "],
    ["--chunker", "parent-child", "--max-tokens", "96", "--child-max-tokens", "24"],
]


@pytest.fixture(scope="module")
def records() -> list[dict[str, object]]:
    texts = [read_corpus(p)[: 2000 + 500 * i] for i, p in enumerate(corpus_files()[:6])]
    rows: list[dict[str, object]] = [{"id": 100 + i, "text": t} for i, t in enumerate(texts)]
    rows[2:2] = [{"id": 7, "text": ""}, {"id": 8, "text": None}]
    return rows


def _write(folder: Path, rows: list[dict[str, object]]) -> tuple[Path, Path]:
    parquet, jsonl = folder / "docs.parquet", folder / "docs.jsonl"
    pq.write_table(pa.Table.from_pylist(rows), parquet, row_group_size=3)
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return parquet, jsonl


def _rows(path: Path) -> list[dict[str, object]]:
    if path.suffix == ".parquet":
        got = pq.read_table(path).to_pylist()
    else:
        got = [json.loads(line) for line in path.read_text().splitlines()]
    for r in got:
        r.pop("source")
    return got


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("chunker", CHUNKERS, ids=lambda c: c[1])
@pytest.mark.parametrize("id_field", [None, "id"])
def test_parquet_goes_through_arrow_with_the_rows_json_lines_give(
    records, tmp_path, monkeypatch, capsys, fmt, chunker, id_field
):
    parquet, jsonl = _write(tmp_path, records)
    monkeypatch.setattr(sources, "BATCH_BYTES", 3000)  # several batches per file
    calls = []
    real = ferrochunk.arrow.chunk_table

    def spy(*args, **kwargs):
        calls.append(args[0].num_rows)
        return real(*args, **kwargs)

    monkeypatch.setattr(ferrochunk.arrow, "chunk_table", spy)
    ids = [] if id_field is None else ["--id-field", id_field]
    out_p, out_j = tmp_path / f"p.{fmt}", tmp_path / f"j.{fmt}"
    assert main(["chunk", str(parquet), *chunker, *ids, "--format", fmt, "-o", str(out_p)]) == 0
    summary_p = capsys.readouterr().err.splitlines()[-1]
    assert len(calls) > 1
    assert sum(calls) == len(records)
    calls.clear()
    assert main(["chunk", str(jsonl), *chunker, *ids, "--format", fmt, "-o", str(out_j)]) == 0
    summary_j = capsys.readouterr().err.splitlines()[-1]
    assert not calls  # JSON lines go through chunk_many
    assert _rows(out_p) == _rows(out_j)
    # The same documents, chunks and source tokens.
    assert summary_p.split(" (")[0] == summary_j.split(" (")[0]
    assert f"{len(records) - 1} documents" in summary_p  # the null text is not a document


def test_a_bad_record_skips_the_file_before_any_of_it_is_written(tmp_path, capsys):
    good = tmp_path / "a.jsonl"
    good.write_text(json.dumps({"text": "A good document."}) + "\n")
    bad = tmp_path / "b.jsonl"
    lines = "".join(json.dumps({"text": f"document {i}. " * 50}) + "\n" for i in range(50))
    bad.write_text(lines + '{"text": 5}\n')
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(good), str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "skipped" in err
    assert "record 50: 'text' is not a string" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["source"] for r in rows} == {str(good)}  # nothing of the bad file


def test_a_parquet_text_column_that_is_not_a_string_is_skipped(tmp_path, capsys):
    src = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"text": [1, 2, 3]}), src)
    assert main(["chunk", str(src), "-o", str(tmp_path / "out.jsonl")]) == 1
    assert "column 'text' is int64, not a string" in capsys.readouterr().err


@pytest.mark.parametrize("statistics", [True, False])
def test_documents_are_counted_from_the_footer_or_the_batches(tmp_path, capsys, statistics):
    # A nested column before the text shifts the leaf indices the footer is read by.
    src = tmp_path / "docs.parquet"
    table = pa.table(
        {
            "meta": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}],
            "text": ["One. Two.", None, "Three."],
        }
    )
    pq.write_table(table, src, write_statistics=statistics)
    assert sources.check_records(sources.Source(src, "parquet"), "text", None) == 2
    assert main(["chunk", str(src), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert "2 documents" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["jsonl", "parquet"])
def test_a_records_file_read_in_parts_gives_the_whole_files_records(
    records, tmp_path, monkeypatch, kind
):
    # The engines' workers each read a part; together the parts are the file.
    parquet, jsonl = _write(tmp_path, [*records, {"id": 1, "text": ""}] * 3)
    source = sources.Source(parquet if kind == "parquet" else jsonl, kind)
    whole = list(sources.read_records(source, "text", None))
    parts = sources.record_parts(source, "text", None)
    assert len(parts) == 1  # small: one part
    monkeypatch.setattr(sources, "PART_BYTES", 3000)
    parts = sources.record_parts(source, "text", None)
    assert len(parts) > 3
    pieces = [r for p in parts for r in sources.read_records(source, "text", None, p)]
    assert pieces == whole  # ids are the record numbers of the whole file
