"""`ferrochunk chunk --spark / --dask`: the rows of a local run, in a folder of part files
that replaces only what an engine wrote and stays as it was when a run fails."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ferrochunk.cli import engines, main, sources

pa = pytest.importorskip("pyarrow", reason="test extra: pyarrow")
pytest.importorskip("dask.dataframe", reason="test extra: dask[dataframe]")
pytest.importorskip("distributed", reason="test extra: distributed")
pytest.importorskip("pyspark", reason="test extra: pyspark")
import pyarrow.parquet as pq  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]

OPTIONS = ["--chunker", "delimiter", "--max-tokens", "12", "--delimiter", ". "]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    for i in range(5):
        (docs / f"note{i}.txt").write_text(f"Note {i}. " + "Words and more words. " * (i * 7))
    with (docs / "sub" / "records.jsonl").open("w") as f:
        for i in range(9):
            f.write(json.dumps({"id": f"r{i}", "text": None if i == 4 else "Rec. " * i}) + "\n")
    (docs / "bad.txt").write_bytes(b"caf\xe9 is not utf-8")
    return docs


def _key(row):
    return (row["source"], str(row["id"]), row["chunk_index"])


def _local_rows(inputs, tmp_path, capsys):
    out = tmp_path / "local.jsonl"
    assert main(["chunk", str(inputs), *OPTIONS, "-o", str(out)]) == 1
    summary = capsys.readouterr().err.splitlines()[-1]
    return sorted((json.loads(line) for line in out.open()), key=_key), summary


def _folder_rows(folder: Path, fmt: str):
    parts = [p for p in folder.iterdir() if p.name.startswith("part")]
    assert parts
    if fmt == "parquet":
        rows = [r for p in parts for r in pq.read_table(p).to_pylist()]
    else:
        rows = [json.loads(line) for p in parts for line in p.open()]
    return sorted(rows, key=_key)


@pytest.mark.parametrize(
    ("engine", "fmt"),
    [
        (["--dask"], "jsonl"),
        (["--dask"], "parquet"),
        (["--spark", "local[2]"], "parquet"),
    ],
)
def test_an_engine_writes_the_local_runs_rows(engine, fmt, inputs, tmp_path, capsys, monkeypatch):
    want, summary = _local_rows(inputs, tmp_path, capsys)
    # The records file in parts of a few lines, read by different tasks: the rows (ids
    # numbered by record across the whole file) are still the local run's.
    monkeypatch.setattr(sources, "PART_BYTES", 60)
    assert (
        len(
            sources.record_parts(
                sources.Source(inputs / "sub" / "records.jsonl", "jsonl"), "text", None
            )
        )
        > 3
    )
    out = tmp_path / "out"
    code = main(["chunk", str(inputs), *OPTIONS, *engine, "--format", fmt, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1, err  # bad.txt is skipped and listed, as a local run does
    assert "skipped" in err
    assert "bad.txt" in err
    assert f"written to {out}/" in err
    # The same documents, chunks and tokens as the local run counts.
    assert err.splitlines()[-1].split(" (")[0] == summary.split(" (")[0]
    assert (out / engines.MARK).exists()
    assert _folder_rows(out, fmt) == want


def test_an_earlier_engine_output_is_replaced(inputs, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    first = _folder_rows(out, "jsonl")
    assert main(["chunk", str(inputs / "note3.txt"), "--dask", "-o", str(out)]) == 0
    second = _folder_rows(out, "jsonl")
    assert {r["source"] for r in first} == {str(inputs / "note1.txt")}
    assert {r["source"] for r in second} == {str(inputs / "note3.txt")}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


@pytest.mark.parametrize("kind", ["foreign folder", "file", "marked folder with a stranger"])
def test_a_target_an_engine_did_not_write_is_refused(kind, inputs, tmp_path, capsys):
    out = tmp_path / "mine"
    if kind == "file":
        out.write_text("keep me\n")
    else:
        out.mkdir()
        (out / "thesis.tex").write_text("keep me\n")
        if kind.startswith("marked"):
            (out / engines.MARK).write_text("")
            (out / "part.00000.jsonl").write_text("{}\n")
    assert main(["chunk", str(inputs), "--dask", "-o", str(out)]) == 2
    assert f"cannot write {out}" in capsys.readouterr().err
    kept = out if kind == "file" else out / "thesis.tex"
    assert kept.read_text() == "keep me\n"


def test_an_output_folder_holding_an_input_is_refused(inputs, tmp_path, capsys):
    out = inputs / "chunks"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["chunk", str(inputs), "--dask", "-o", str(out)]) == 2
    assert f"the output {out} holds an input" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_file_added_during_the_job_is_kept(inputs, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    real = engines._dask

    def adds_a_file(job, sources, fmt, folder):
        (out / "notes.txt").write_text("mine\n")  # the user, while the job runs
        real(job, sources, fmt, folder)

    monkeypatch.setattr(engines, "_dask", adds_a_file)
    assert main(["chunk", str(inputs / "note2.txt"), "--dask", "-o", str(out)]) == 2
    assert "'notes.txt', which the last engine run did not write" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "mine\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


@pytest.mark.parametrize("added", ["partners.csv", "part-archive/old.jsonl", "part.9.jsonl"])
def test_a_rerun_keeps_what_the_user_added_to_the_folder(added, inputs, tmp_path, capsys):
    # Names an engine might write count for nothing: only the marker's list does.
    out = tmp_path / "out"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    before = sorted(p.name for p in out.iterdir())
    mine = out / added
    mine.parent.mkdir(exist_ok=True)
    mine.write_text("mine\n")
    assert main(["chunk", str(inputs / "note2.txt"), "--dask", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"the folder holds {added!r}, which the last engine run did not write" in err
    assert mine.read_text() == "mine\n"
    assert sorted(p.name for p in out.iterdir()) == sorted({*before, added.split("/")[0]})


def test_a_folder_with_an_unlisted_marker_is_refused(inputs, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / engines.MARK).write_text("part files written by ferrochunk chunk\n")  # no list
    (out / "part.00000.jsonl").write_text("{}\n")
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 2
    assert f"no {engines.MARK} list" in capsys.readouterr().err
    assert (out / "part.00000.jsonl").read_text() == "{}\n"


def test_a_replaced_folder_keeps_its_mode_and_group(inputs, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    out.chmod(0o750)
    if os.getuid() == 0:
        os.chown(out, -1, 4242)  # root may give it any group; others keep their own
    before = os.stat(out)
    assert main(["chunk", str(inputs / "note2.txt"), "--dask", "-o", str(out)]) == 0
    after = os.stat(out)
    assert after.st_ino != before.st_ino  # a new folder
    assert (stat.S_IMODE(after.st_mode), after.st_gid) == (0o750, before.st_gid)


def test_a_failed_job_leaves_the_earlier_output(inputs, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert main(["chunk", str(inputs / "note1.txt"), "--dask", "-o", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def fails_halfway(job, sources, fmt, folder):
        os.mkdir(folder)
        Path(folder, "part.00000.jsonl").write_text('{"half": "written"}\n')
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(engines, "_dask", fails_halfway)
    assert main(["chunk", str(inputs), "--dask", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the dask job failed (OSError: [Errno 28] No space left on device)" in err
    assert f"{out} is as it was" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "out"]


def test_a_worker_error_is_named_in_one_line():
    trace = (
        "An exception was thrown from the Python worker:\nTraceback (most recent call last):\n"
        '  File "x.py", line 1\nferrochunk.errors.ConfigError: Recursive.max_tokens must be an '
        "integer >= 1, got 0\n SQLSTATE: 38000"
    )
    assert engines._reason(RuntimeError(trace)) == (
        "ConfigError: Recursive.max_tokens must be an integer >= 1, got 0"
    )
    other = "An exception was thrown:\nTraceback:\nModuleNotFoundError: No module named 'x'"
    assert engines._reason(RuntimeError(other)) == "ModuleNotFoundError: No module named 'x'"


def test_every_input_skipped_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\xfa")
    out = tmp_path / "out"
    assert main(["chunk", str(bad), "--dask", "-o", str(out)]) == 1
    assert f"nothing read, {out} left as it was" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--dask"], "--dask writes a folder of part files: name it with -o FOLDER"),
        (["-", "--dask", "-o", "{tmp}/o"], "stdin cannot be read with --spark or --dask"),
        (["--spark", "--dask", "-o", "{tmp}/o"], "not allowed with argument"),
        (
            ["--config", "{tmp}/dify.json", "--spark", "-o", "{tmp}/o"],
            "--spark does not apply cleaning rules",
        ),
        (
            ["--config", "{tmp}/dify.json", "--ray", "-o", "{tmp}/o.jsonl"],
            "--ray does not apply cleaning rules",
        ),
    ],
)
def test_usage_errors(args, words, tmp_path, capsys, monkeypatch):
    rule = {
        "mode": "custom",
        "rules": {
            "pre_processing_rules": [{"id": "remove_extra_spaces", "enabled": True}],
            "segmentation": {"separator": "\n", "max_tokens": 100},
        },
    }
    (tmp_path / "dify.json").write_text(json.dumps(rule))
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115
    try:
        code = main(["chunk", *(a.format(tmp=tmp_path) for a in args)])
    except SystemExit as exc:  # argparse
        code = exc.code
    assert code == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="bind mounts need root")
def test_a_mounted_output_folder_is_written_in_place(inputs, tmp_path):
    # A mount point cannot be renamed over; in a mount namespace of the test's own, so
    # the mount never leaves it.
    volume, out = tmp_path / "volume", tmp_path / "out"
    volume.mkdir()
    out.mkdir()
    run = f"{sys.executable} -m ferrochunk.cli chunk --threads 1 --dask -o {out}"
    script = (
        f"mount --bind {volume} {out} && {run} {inputs / 'note1.txt'} && "
        f"{run} {inputs / 'note2.txt'}"
    )
    try:
        done = subprocess.run(
            ["unshare", "--mount", "sh", "-c", script],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if "mount:" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    rows = _folder_rows(volume, "jsonl")  # what the mount holds, seen from outside it
    assert {r["source"] for r in rows} == {str(inputs / "note2.txt")}
    names = {p.name for p in volume.iterdir()}
    assert engines.MARK in names
    assert not [n for n in names if n.startswith(".")]  # no hidden folder left
