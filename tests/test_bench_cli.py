"""`ferrochunk bench`: the table, its files, its inputs and exit codes, and that each column
counts what it says (checked with contenders that misbehave on purpose)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk import bench
from ferrochunk.bench.contenders import _strings
from ferrochunk.cli import main

DOC = "First paragraph, with a comma.\n\nSecond one。第二段，有逗号。\nThird line.\n" * 40


def _fake(key: str, fn, pieces=_strings, cap: int | None = 8) -> bench.Contender:
    return bench.Contender(key, key, "peer", lambda: fn, pieces, cap, "bench")


def test_bundled_sample_writes_table_json_markdown_and_plot(tmp_path, capsys):
    out = {n: tmp_path / n for n in ("b.json", "b.md", "b.png")}
    code = main(
        ["bench", "--chunkers", "native,ragflow,floor", "--repeat", "2", "--max-tokens", "128",
         "--overlap", "16", "--json", str(out["b.json"]), "--markdown", str(out["b.md"]),
         "--plot", str(out["b.png"])]
    )  # fmt: skip
    printed, progress = capsys.readouterr()
    assert code == 0
    assert "ferrochunk Recursive" in printed
    assert "chunks" in printed
    assert "1 document(s)" in progress
    data = json.loads(out["b.json"].read_text())
    rows = {r["key"]: r for r in data["results"]}
    assert set(rows) >= {"windows", "recursive", "delimiter", "sentence", "parent-child", "ragflow"}
    for key in ("windows", "recursive", "delimiter", "sentence", "parent-child", "markdown"):
        r = rows[key]
        assert r["mb_per_s"] > 0
        assert 1 <= r["runs"] <= 2
        assert r["chunks"] > 1
        assert (r["lost"], r["replacement"], r["wrong_offsets"]) == (0, 0, 0)
        assert r["peak_mb"] is None or r["peak_mb"] >= 0
        assert r["first_mb_per_s"] > 0
    sample = (Path(fc.__file__).parent / "data" / "sample.md").read_text()
    assert rows["windows"]["chunks"] == len(
        fc.chunk(sample, fc.TokenWindows(128, overlap_tokens=16))
    )
    assert rows["ragflow"]["wrong_offsets"] is None  # naive_merge reports no offsets
    # Markdown rows get the structure columns, judged by markdown-it; ferrochunk keeps them.
    md = rows["markdown"]
    assert (md["over_cap"], md["code_cut"], md["rows_cut"], md["heading_end"]) == (0, 0, 0, 0)
    assert rows["recursive"]["code_cut"] is None
    table = out["b.md"].read_text()
    assert table.count("\n| ferrochunk ") == 6
    assert "| code cut | rows cut | ends on heading |" in table
    assert out["b.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_folder_and_records_are_the_documents(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(DOC)
    (tmp_path / "docs" / "b.md").write_text(DOC.upper())
    (tmp_path / "docs" / "c.jsonl").write_text(json.dumps({"text": DOC[:300]}) + "\n")
    report = tmp_path / "r.json"
    code = main(["bench", str(tmp_path / "docs"), "--chunkers", "windows", "--repeat", "1",
                 "--json", str(report)])  # fmt: skip
    capsys.readouterr()
    assert code == 0
    data = json.loads(report.read_text())
    assert data["documents"] == 3
    assert data["bytes"] == len((DOC + DOC.upper() + DOC[:300]).encode())
    expected = sum(len(fc.chunk(t, fc.TokenWindows(512, overlap_tokens=51)))
                   for t in (DOC, DOC.upper(), DOC[:300]))  # fmt: skip
    assert data["results"][0]["chunks"] == expected


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.txt", "no such file"),
        (lambda d: (d / "bad.txt").write_bytes(b"ok \xff\xfe") and d / "bad.txt", "not utf-8"),
        (lambda d: (d / "empty").mkdir() or d / "empty", "no text"),
    ],
)
def test_unreadable_input_fails_clearly_and_writes_nothing(tmp_path, capsys, make, message):
    path = make(tmp_path)
    report = tmp_path / "r.json"
    code = main(["bench", str(path), "--chunkers", "windows", "--json", str(report)])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err.lower()
    assert "ferrochunk bench: cannot read" in err
    assert not report.exists()


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--chunkers", "windows,nope"], "'nope'"),
        (["--overlap", "512"], "--overlap"),
        (["--max-tokens", "0"], "--max-tokens"),
        (["--repeat", "0"], "--repeat"),
        (["--budget", "nan"], "--budget"),
    ],
)
def test_bad_options_name_the_option(capsys, args, field):
    assert main(["bench", *args]) == 2
    assert field in capsys.readouterr().err


def test_list_names_every_contender(capsys):
    assert main(["bench", "--list"]) == 0
    listed = capsys.readouterr().out
    for key in ("windows", "dify-reference", "langchain-recursive", "semchunk", "tiktoken"):
        assert key in listed


def test_each_column_counts_what_it_says():
    text = "alpha beta gamma delta " * 20 + "é"
    words = text.split(" ")
    rows = [
        _fake("drops", lambda t: [w for w in t.split(" ") if w != "gamma"]),
        _fake("mangles", lambda t: [t.replace("é", "\ufffd")]),
        _fake("misplaces", lambda t: [(w, 0) for w in t.split(" ")[:3]], pieces=list),
        _fake("long", lambda t: [t]),
    ]
    got = {r.key: r for r in bench.run([text], rows, repeat=1)}
    assert got["drops"].lost == 20 * len("gamma")
    assert got["drops"].chunks == len(words) - 20
    assert got["drops"].wrong_offsets is None  # no offsets reported
    assert got["mangles"].replacement == 1
    assert got["mangles"].lost == 1
    assert got["misplaces"].wrong_offsets == 2  # "beta" and "gamma" are not at 0
    assert got["long"].over_cap == 1
    assert got["drops"].over_cap == 0


def test_a_failing_or_missing_peer_is_reported_and_the_run_goes_on():
    def boom(text: str):
        raise ZeroDivisionError("the peer broke")

    def missing():
        raise ImportError("No module named 'nothing'")

    rows = [
        _fake("boom", boom),
        bench.Contender("absent", "absent", "peer", missing, None, None, "bench"),
        *bench.contenders(64, 8, ["windows"]),
    ]
    got = bench.run([DOC], rows, repeat=1)
    assert got[0].error == "ZeroDivisionError: the peer broke"
    assert got[0].mb_per_s is None
    assert got[1].skipped == "pip install 'ferrochunk[bench]'"
    assert got[2].error is None
    assert got[2].chunks == len(fc.chunk(DOC, fc.TokenWindows(64, overlap_tokens=8)))


def test_our_own_failure_is_a_non_zero_exit(monkeypatch, capsys):
    def broken(max_tokens, overlap, keys, tokenizer=None):
        return [bench.Contender("windows", "ferrochunk TokenWindows", "native",
                                lambda: (lambda t: 1 / 0), None, None, "")]  # fmt: skip

    monkeypatch.setattr(bench, "contenders", broken)
    assert main(["bench", "--repeat", "1"]) == 1
    assert "error: ZeroDivisionError" in capsys.readouterr().out


def test_markdown_quality_counts_what_a_splitter_breaks():
    from ferrochunk.bench.quality import markdown_quality

    text = "# A\n\nintro\n\n```py\nx = 1\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    for located in (True, False):

        def pieces(*cuts, located=located):
            bounds = [0, *cuts, len(text)]
            return [[(text[a:b], a if located else None) for a, b in pairwise(bounds)]]

        whole = markdown_quality([text], pieces(), 64)
        assert (whole.code_cut, whole.rows_cut, whole.heading_end) == (0, 0, 0)
        fence, row = text.index("y = 2"), text.index("| 1 | 2 |") + 4
        broken = markdown_quality([text], pieces(fence, row), 64)
        assert (broken.code_cut, broken.rows_cut) == (1, 1)
        assert markdown_quality([text], pieces(5), 64).heading_end == 1


def test_small_documents_are_timed_over_a_megabyte():
    calls: list[str] = []
    row = _fake("counts", lambda t: calls.append(t) or [t])
    text = "small document " * 100  # 1.5 KB
    assert bench.passes(len(text)) == 667
    assert bench.passes(2_000_000) == 1
    (result,) = bench.run([text], [row], repeat=1, budget=0.0)
    # One timed run reads the text 667 times (a megabyte), then the checks read it once.
    assert calls.count(text) == 667 + 1
    assert result.mb_per_s is not None


def test_chunker_specs_are_rows_and_questions_add_recall_and_iou_where_offsets_are_exact(
    tmp_path, capsys
):
    """`bench --chunker SPEC` (eval's syntax) and `--questions`: the metric columns fill
    only the rows with exact offsets; a peer row shows none."""
    text = "".join(f"Paragraph {i} says the code word is w{i}x{i * 7}.\n\n" for i in range(60))
    (tmp_path / "doc.txt").write_text(text)
    questions = [
        {"question": f"code word w{i}x{i * 7}", "references": [{"doc": "doc.txt",
         "text": f"the code word is w{i}x{i * 7}."}]}
        for i in range(0, 60, 6)
    ]  # fmt: skip
    (tmp_path / "q.jsonl").write_text("\n".join(json.dumps(q) for q in questions))
    report = tmp_path / "b.json"
    code = main(
        ["bench", str(tmp_path / "doc.txt"), "--chunker", "recursive:max_tokens=16",
         "--chunkers", "langchain-token", "--questions", str(tmp_path / "q.jsonl"), "-k", "1",
         "--repeat", "1", "--json", str(report)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "recall" in printed
    assert "IoU" in printed
    rows = {r["key"]: r for r in json.loads(report.read_text())["results"]}
    assert set(rows) == {"recursive:max_tokens=16", "langchain-token"}
    spec = rows["recursive:max_tokens=16"]
    assert spec["first_mb_per_s"] > 0  # the fresh-process pass knows spec rows too
    assert spec["recall"] == 1.0  # a 16-token chunk holds each answer sentence
    assert 0 < spec["iou"] <= 1
    assert rows["langchain-token"]["recall"] is None
    assert rows["langchain-token"]["iou"] is None


def test_a_bad_chunker_spec_or_code_among_specs_exits_2(capsys):
    assert main(["bench", "--chunker", "recursive:max_tokens=0"]) == 2
    assert "Recursive.max_tokens" in capsys.readouterr().err
    assert main(["bench", "--chunker", "code", "--chunker", "windows:max_tokens=8"]) == 2
    assert "--chunker code runs alone" in capsys.readouterr().err
