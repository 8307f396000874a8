"""`ferrochunk chunk -o`: what each kind of output gets (regular files replaced atomically with
their mode and owner, symlinks followed, devices, FIFOs and descriptors written directly), a
run that reads nothing, write errors, missing extras, hints, progress and bench's option name.

Device nodes, FIFOs and symlinks are made in tmp_path, never in the real /dev. Runs that
write to stdout by path go through a symlink in tmp_path to /dev/stdout, never -o /dev/stdout
itself: if this ever regresses, a run replaces that link, not the system's /dev/stdout."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from ferrochunk.cli import main
from ferrochunk.cli.sink import _follow, target

DOC = "First paragraph, with a comma.\n\nSecond one。第二段，有逗号。\r\nThird line.\n" * 12

as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="making device nodes and giving files away need root"
)
not_root = pytest.mark.skipif(
    os.geteuid() == 0, reason="root writes to any folder, so nothing is refused"
)


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_bytes(DOC.encode())
    return path


def _chunked(doc: Path, capsys) -> bytes:
    """What the command writes to stdout for ``doc``: the expected content of any output."""
    assert main(["chunk", str(doc)]) == 0
    return capsys.readouterr().out.encode()


def _temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def _device(path: Path, minor: int) -> Path:
    """A private character device: 1,3 is a null device, 1,7 a full one."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))
    except PermissionError as exc:  # no CAP_MKNOD, or a nodev mount
        pytest.skip(f"cannot make or open a device node here: {exc}")
    return path


def _is_device(path: Path, minor: int) -> bool:
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, minor)


class _Reader(threading.Thread):
    """Reads a FIFO to its end, as the process at the other end of a pipe would."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.data = b""
        self.start()

    def run(self) -> None:
        with open(self.path, "rb") as f:
            self.data = f.read()

    def finish(self) -> bytes:
        self.join(timeout=30)
        if self.is_alive():  # the writer never came: unblock the reader's open
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
            self.join(timeout=30)
            pytest.fail("the output FIFO was never opened for writing")
        return self.data


# -- classification ---------------------------------------------------------------------


def test_descriptor_paths_name_a_descriptor_and_are_not_followed(tmp_path):
    assert _follow("/dev/stdout")[1] == 1
    assert _follow("/dev/stderr")[1] == 2
    assert _follow("/dev/fd/7")[1] == 7
    assert _follow("/proc/self/fd/3")[1] == 3
    assert _follow(f"/proc/{os.getpid()}/fd/4")[1] == 4
    (tmp_path / "out").symlink_to("/dev/stdout")
    assert _follow(str(tmp_path / "out"))[1] == 1
    assert target(None).kind == "stdout"
    assert target(Path("/dev/stdout")).kind == "fd"


def test_each_kind_of_path_is_classified(tmp_path):
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to("chain")
    (tmp_path / "chain").symlink_to("sub/../file")
    (tmp_path / "sub").mkdir()
    (tmp_path / "dangling").symlink_to("made")
    assert target(tmp_path / "file").kind == "file"
    assert target(tmp_path / "fifo").kind == "fifo"
    assert target(tmp_path / "new").kind == "new"
    linked = target(tmp_path / "link")
    assert (linked.kind, linked.path) == ("file", str(tmp_path / "file"))
    dangling = target(tmp_path / "dangling")
    assert (dangling.kind, dangling.path) == ("new", str(tmp_path / "made"))


# -- regular files ----------------------------------------------------------------------


def test_a_regular_file_is_replaced_atomically_and_keeps_its_mode(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    out.chmod(0o604)
    before = out.stat()
    assert main(["chunk", str(doc), "-o", str(out)]) == 0
    after = out.stat()
    assert out.read_bytes() == want
    assert after.st_ino != before.st_ino  # a new file renamed over the old one
    assert stat.S_IMODE(after.st_mode) == 0o604
    assert _temporaries(tmp_path) == []


@as_root
def test_root_keeps_the_owner_and_group_of_a_replaced_file(doc, tmp_path, capsys):
    out = tmp_path / "theirs.jsonl"
    out.write_text("previous\n")
    os.chown(out, 4321, 8765)
    out.chmod(0o640)
    assert main(["chunk", str(doc), "-o", str(out)]) == 0
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 8765, 0o640)
    assert out.read_text() != "previous\n"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_new_file_gets_the_umask_mode(doc, tmp_path, umask, mode):
    out = tmp_path / "new.jsonl"
    old = os.umask(umask)
    try:
        assert main(["chunk", str(doc), "-o", str(out)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == mode


# -- symlinks ---------------------------------------------------------------------------


def test_a_symlink_is_followed_and_stays_a_symlink(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    real = tmp_path / "data" / "real.jsonl"
    real.parent.mkdir()
    real.write_text("previous\n")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to("hop.jsonl")
    (tmp_path / "hop.jsonl").symlink_to("data/../data/real.jsonl")
    assert main(["chunk", str(doc), "-o", str(link)]) == 0
    assert link.is_symlink()
    assert os.readlink(link) == "hop.jsonl"
    assert real.read_bytes() == want
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert _temporaries(tmp_path) == []
    assert _temporaries(real.parent) == []


@pytest.mark.parametrize("through_link", [False, True])
def test_dot_dot_after_a_symlinked_folder_goes_up_from_its_target(
    doc, tmp_path, capsys, through_link
):
    # `sub/..` is where the kernel goes: up from sub's target (real/), not back to tmp_path.
    want = _chunked(doc, capsys)
    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "sub").symlink_to("real/inner")
    bystander = tmp_path / "out.jsonl"
    bystander.write_text("not ours\n")
    output = tmp_path / "sub" / ".." / "out.jsonl"
    if through_link:
        (tmp_path / "link.jsonl").symlink_to("sub/../out.jsonl")
        output = tmp_path / "link.jsonl"
    assert main(["chunk", str(doc), "-o", str(output)]) == 0
    assert (tmp_path / "real" / "out.jsonl").read_bytes() == want
    assert bystander.read_text() == "not ours\n"


def test_a_dangling_symlink_creates_its_target(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    link = tmp_path / "link.jsonl"
    link.symlink_to("made.jsonl")
    assert main(["chunk", str(doc), "-o", str(link)]) == 0
    assert link.is_symlink()
    assert (tmp_path / "made.jsonl").read_bytes() == want


def test_a_symlink_loop_or_a_link_into_a_missing_folder_is_refused(doc, tmp_path, capsys):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    assert main(["chunk", str(doc), "-o", str(tmp_path / "a")]) == 2
    assert "Too many levels of symbolic links" in capsys.readouterr().err
    (tmp_path / "c").symlink_to("missing/out.jsonl")
    assert main(["chunk", str(doc), "-o", str(tmp_path / "c")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert (tmp_path / "a").is_symlink()
    assert (tmp_path / "c").is_symlink()


# -- FIFOs and devices ------------------------------------------------------------------


@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_written_directly(doc, tmp_path, capsys, through_link):
    want = _chunked(doc, capsys)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = fifo
    if through_link:
        out = tmp_path / "link"
        out.symlink_to("fifo")
    reader = _Reader(fifo)
    assert main(["chunk", str(doc), "-o", str(out)]) == 0
    assert reader.finish() == want
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _temporaries(tmp_path) == []


@as_root
@pytest.mark.parametrize("through_link", [False, True])
def test_a_null_device_stays_a_device(doc, tmp_path, capsys, through_link):
    null = _device(tmp_path / "null", 3)
    out = null
    if through_link:
        out = tmp_path / "link"
        out.symlink_to("null")
    assert main(["chunk", str(doc), "-o", str(out)]) == 0
    assert "written to" in capsys.readouterr().err
    assert _is_device(null, 3)
    assert out.is_symlink() == through_link
    assert _temporaries(tmp_path) == []


@as_root
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_full_device_is_a_clean_error(doc, tmp_path, capsys, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow.parquet")
    full = _device(tmp_path / "full", 7)
    assert main(["chunk", str(doc), "-o", str(full), "--format", fmt, "--force"]) == 2
    err = capsys.readouterr().err
    assert f"ferrochunk: cannot write {full}: No space left on device" in err
    assert "Traceback" not in err
    assert _is_device(full, 7)
    assert _temporaries(tmp_path) == []


# -- descriptors ------------------------------------------------------------------------


def _cli(args: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferrochunk.cli", "chunk", *args],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        timeout=300,
        **kwargs,
    )


def _stdout_link(folder: Path, to: str = "/dev/stdout") -> str:
    link = folder / "stdout"
    link.symlink_to(to)
    return str(link)


def test_dev_stdout_in_process_writes_to_sys_stdout(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    link = _stdout_link(tmp_path)
    assert main(["chunk", str(doc), "-o", link]) == 0
    out, err = capsys.readouterr()
    assert out.encode() == want
    assert err.rstrip("\n").splitlines()[-1].endswith(f"written to {link}")
    assert os.readlink(link) == "/dev/stdout"


@pytest.mark.parametrize("to", ["/dev/stdout", "/proc/self/fd/1"])
def test_stdout_paths_append_to_the_redirect_without_reopening_it(doc, tmp_path, capsys, to):
    want = _chunked(doc, capsys)
    path = _stdout_link(tmp_path, to)
    log = tmp_path / "log"
    log.write_bytes(b"earlier line\n")
    with open(log, "ab") as appending:  # as `>> log`
        done = _cli([str(doc), "-o", path], stdout=appending)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == b"earlier line\n" + want
    assert os.readlink(path) == to
    # As `{ echo header; ferrochunk chunk ... -o /dev/stdout; } > log`: reopening would cut.
    with open(log, "wb") as redirected:
        redirected.write(b"header\n")
        redirected.flush()
        done = _cli([str(doc), "-o", path], stdout=redirected)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == b"header\n" + want


@pytest.mark.parametrize("spelling", ["/dev/fd/{}", "/proc/self/fd/{}"])
def test_fd_paths_write_to_that_descriptor(doc, tmp_path, capsys, spelling):
    want = _chunked(doc, capsys)
    log = tmp_path / "log"
    log.write_bytes(b"kept\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        done = _cli([str(doc), "-o", spelling.format(fd)], pass_fds=(fd,))
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == b"kept\n" + want


def test_proc_self_fd_1_is_stdout(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    with open(tmp_path / "log", "wb") as f:
        done = _cli([str(doc), "-o", "/proc/self/fd/1"], stdout=f)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "log").read_bytes() == want


def test_a_closed_descriptor_is_a_clean_error(doc):
    done = _cli([str(doc), "-o", "/dev/fd/200"], stdout=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "cannot write /dev/fd/200: Bad file descriptor" in done.stderr
    assert "Traceback" not in done.stderr


def test_parquet_through_a_descriptor(doc, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    link = _stdout_link(tmp_path)
    with open(tmp_path / "out.parquet", "wb") as f:
        done = _cli([str(doc), "-o", link, "--format", "parquet"], stdout=f)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.num_rows > 0
    assert table.schema.field("source").type == pa.large_string()


# -- nothing read -----------------------------------------------------------------------


def test_a_run_that_reads_nothing_leaves_the_output_alone(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    os.utime(out, (1_000_000, 1_000_000))
    before = out.stat()
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"ok \xff")
    code = main(["chunk", str(tmp_path / "missing.txt"), str(binary), "-o", str(out)])
    assert code == 1
    after = out.stat()
    assert out.read_text() == "previous\n"
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)
    assert _temporaries(tmp_path) == []
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].endswith(f"nothing read, {out} left as it was")
    assert main(["chunk", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "new.jsonl")]) == 1
    assert not (tmp_path / "new.jsonl").exists()
    assert _temporaries(tmp_path) == []


def test_nothing_read_creates_no_parquet_file(tmp_path, capsys):
    pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "out.parquet"
    assert main(["chunk", str(tmp_path / "missing.txt"), "-o", str(out)]) == 1
    assert not out.exists()
    assert _temporaries(tmp_path) == []


@pytest.mark.parametrize("name", ["empty.txt", "empty.jsonl"])
def test_an_empty_readable_input_counts_as_read(tmp_path, capsys, name):
    empty = tmp_path / name
    empty.write_bytes(b"")
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    assert main(["chunk", str(empty), "-o", str(out)]) == 0
    assert out.read_bytes() == b""
    assert capsys.readouterr().err.rstrip("\n").endswith(f"written to {out}")


def test_ray_with_every_input_missing_reads_nothing(tmp_path, capsys):
    pytest.importorskip("ray")
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    assert main(["chunk", str(tmp_path / "missing.txt"), "--ray", "-o", str(out)]) == 1
    assert out.read_text() == "previous\n"


# -- write errors -----------------------------------------------------------------------


def test_an_output_that_is_a_folder_is_refused(doc, tmp_path, capsys):
    assert main(["chunk", str(doc), "-o", str(tmp_path)]) == 2
    assert f"cannot write {tmp_path}: it is a folder" in capsys.readouterr().err


@not_root
def test_a_folder_that_is_not_writable_is_a_clean_error(doc, tmp_path, capsys):
    folder = tmp_path / "read-only"
    folder.mkdir()
    (folder / "out.jsonl").write_text("previous\n")
    folder.chmod(0o555)
    try:
        for name in ("out.jsonl", "new.jsonl"):
            assert main(["chunk", str(doc), "-o", str(folder / name)]) == 2
            err = capsys.readouterr().err
            assert f"cannot write {folder / name}" in err
            assert "Permission denied" in err
        assert (folder / "out.jsonl").read_text() == "previous\n"
        assert sorted(p.name for p in folder.iterdir()) == ["out.jsonl"]
    finally:
        folder.chmod(0o755)


def test_an_error_reading_the_config_does_not_say_write(doc, capsys):
    assert main(["chunk", str(doc), "--config", "/nonexistent/config.toml"]) == 2
    err = capsys.readouterr().err
    assert "/nonexistent/config.toml" in err
    assert "cannot write" not in err


# -- missing extras ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("modules", "args", "message"),
    [
        (
            ("pyarrow", "pyarrow.parquet"),
            ["-o", "{tmp}/x.parquet"],
            "ferrochunk: -o {tmp}/x.parquet needs pyarrow: pip install 'ferrochunk[arrow]'",
        ),
        (
            ("pyarrow", "pyarrow.parquet"),
            ["--format", "parquet", "-o", "{tmp}/x.out"],
            "ferrochunk: --format parquet needs pyarrow: pip install 'ferrochunk[arrow]'",
        ),
        (
            ("ray", "ray.data"),
            ["--ray", "-o", "{tmp}/x.out"],
            "ferrochunk: --ray needs ray: pip install 'ferrochunk[ray]'",
        ),
        (
            ("pyspark", "pyspark.sql"),
            ["--spark", "-o", "{tmp}/x.out"],
            "ferrochunk: --spark needs pyspark: pip install 'ferrochunk[spark]'",
        ),
        (
            ("dask", "dask.dataframe", "distributed"),
            ["--dask", "-o", "{tmp}/x.out"],
            "ferrochunk: --dask needs dask: pip install 'ferrochunk[dask]'",
        ),
    ],
)
def test_a_missing_extra_is_one_line(doc, tmp_path, capsys, monkeypatch, modules, args, message):
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    argv = ["chunk", str(doc), *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    assert capsys.readouterr().err == message.format(tmp=tmp_path) + "\n"
    assert not list(tmp_path.glob("x.*"))


def test_a_parquet_input_without_pyarrow_is_one_line(tmp_path, capsys, monkeypatch):
    src = tmp_path / "docs.parquet"
    src.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert main(["chunk", str(src)]) == 2
    err = capsys.readouterr().err
    assert err == f"ferrochunk: reading {src} needs pyarrow: pip install 'ferrochunk[arrow]'\n"


def test_a_missing_extra_in_a_fresh_process_has_no_traceback(doc, tmp_path):
    script = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from ferrochunk.cli import main\n"
        f"sys.exit(main(['chunk', {str(doc)!r}, '-o', 'x.parquet']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 2
    assert (
        done.stderr == "ferrochunk: -o x.parquet needs pyarrow: pip install 'ferrochunk[arrow]'\n"
    )


# -- messages and progress --------------------------------------------------------------


def test_skip_reasons_suggest_the_option_and_precede_the_summary(doc, tmp_path, capsys):
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"abcdef\xff")
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"body": "x"}) + "\n")
    code = main(["chunk", str(doc), str(binary), str(records)])
    assert code == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        f"ferrochunk: skipped {binary}: not utf-8 text (byte 6); "
        "if it is text in another encoding, pass --encoding"
    )
    assert lines[1] == (
        f"ferrochunk: skipped {records}: record 0 has no 'text' field; "
        "name the field with --text-field"
    )
    assert lines[-1].startswith("ferrochunk: 1 document, ")
    assert len(lines) == 3


def test_parquet_columns_suggest_the_field_option(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"body": ["x"], "doc": [1]}), src)
    assert main(["chunk", str(src)]) == 1
    assert "no column 'text'" in (err := capsys.readouterr().err)
    assert "name the field with --text-field" in err
    assert main(["chunk", str(src), "--text-field", "body", "--id-field", "key"]) == 1
    assert "no column 'key'" in (err := capsys.readouterr().err)
    assert "name the field with --id-field" in err


def test_progress_counts_chunks_inside_one_large_file(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.txt"
    big.write_bytes(DOC.encode() * 3000)  # ~3.6 MB: several 1 MiB reads
    monkeypatch.setattr("ferrochunk.cli.chunk_run.STREAM_FROM", 100)
    clock = iter(range(1, 1_000_000))  # each update 1 s after the last: none is held back
    monkeypatch.setattr(
        "ferrochunk.cli.reports.time", types.SimpleNamespace(perf_counter=lambda: next(clock))
    )
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["chunk", str(big), "--progress", "-o", str(tmp_path / "out.jsonl")]) == 0
    updates = [u for u in err.getvalue().split("\r") if " docs " in u]
    inside = [u for u in updates if "  0 docs " in u]
    chunks = [int(u.split(" docs ")[1].split()[0]) for u in inside]
    assert len(chunks) >= 3
    assert chunks == sorted(chunks)
    assert chunks[0] > 0  # chunks counted before the document ends
    assert "1 docs" in updates[-1]


# -- bench --------------------------------------------------------------------------------


def test_bench_takes_overlap_tokens_and_still_the_old_name(tmp_path, capsys):
    report = tmp_path / "r.json"
    args = ["bench", "--chunkers", "windows", "--repeat", "1", "--max-tokens", "64"]
    assert main([*args, "--overlap-tokens", "8", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["overlap"] == 8
    assert "deprecated" not in capsys.readouterr().err
    assert main([*args, "--overlap", "9", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["overlap"] == 9
    assert "--overlap is deprecated; use --overlap-tokens" in capsys.readouterr().err
    assert main([*args, "--overlap-tokens", "64"]) == 2
    assert "--overlap-tokens must be" in capsys.readouterr().err


def test_bench_help_shows_only_the_new_name(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    text = capsys.readouterr().out
    assert "--overlap-tokens" in text
    assert "--overlap " not in text


# -- what could hurt is refused, unless --force -----------------------------------------


@as_root
@pytest.mark.parametrize("kind", [stat.S_IFCHR, stat.S_IFBLK])
def test_a_device_other_than_null_or_a_terminal_is_refused(doc, tmp_path, capsys, kind):
    # Major 60 is for local use: no driver here, and the node is never opened.
    node = tmp_path / "disk"
    try:
        os.mknod(node, 0o600 | kind, os.makedev(60, 0))
    except PermissionError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    assert main(["chunk", str(doc), "-o", str(node)]) == 2
    err = capsys.readouterr().err
    what = "block" if kind == stat.S_IFBLK else "character"
    assert f"cannot write {node}: it is a {what} device; pass --force" in err
    assert os.lstat(node).st_rdev == os.makedev(60, 0)


def test_a_read_only_file_is_refused_unless_forced(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    out.chmod(0o444)
    assert main(["chunk", str(doc), "-o", str(out)]) == 2
    assert "the file is read-only; pass --force" in capsys.readouterr().err
    assert out.read_text() == "previous\n"
    assert main(["chunk", str(doc), "-o", str(out), "--force"]) == 0
    assert out.read_bytes() == want
    assert stat.S_IMODE(out.stat().st_mode) == 0o444
    assert _temporaries(tmp_path) == []


def test_a_file_with_other_hard_links_is_refused_unless_forced(doc, tmp_path, capsys):
    want = _chunked(doc, capsys)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    other = tmp_path / "other-name.jsonl"
    os.link(out, other)
    assert main(["chunk", str(doc), "-o", str(out)]) == 2
    assert "it has 2 hard links" in capsys.readouterr().err
    assert out.read_text() == other.read_text() == "previous\n"
    assert main(["chunk", str(doc), "-o", str(out), "--force"]) == 0
    assert out.read_bytes() == want
    assert other.read_text() == "previous\n"  # a new inode: the other name keeps the old data


@as_root
def test_a_bind_mounted_file_is_written_in_place(doc, tmp_path, capsys):
    # In a mount namespace of its own, so the mount never leaves the test.
    want = _chunked(doc, capsys)
    source = tmp_path / "volume.jsonl"
    source.write_text("previous\n")
    out = tmp_path / "out.jsonl"
    out.write_text("")
    script = (
        f"mount --bind {source} {out} && {sys.executable} -m ferrochunk.cli chunk {doc} -o {out}"
    )
    try:
        done = subprocess.run(
            ["unshare", "--mount", "sh", "-c", script],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if "mount:" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert "written to" in done.stderr
    assert source.read_bytes() == want  # through the mount, in place
    assert _temporaries(tmp_path) == []


def test_mount_points_are_read_from_mountinfo():
    from ferrochunk.cli.sink import is_mount_point

    assert is_mount_point("/")
    assert is_mount_point("/proc")
    assert not is_mount_point("/proc/self")


# -- lone surrogates --------------------------------------------------------------------

# A JSON-lines input may escape a lone surrogate, and json.loads gives it back as one.
SURROGATE_DOC = '{"text": "before \\udc00 after, and \\ud83d alone."}\n'


def test_lone_surrogates_are_escaped_in_a_jsonl_file(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(SURROGATE_DOC)
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(src), "-o", str(out)]) == 0
    raw = out.read_bytes()
    raw.decode("utf-8")  # valid UTF-8
    rows = [json.loads(line) for line in raw.decode().splitlines()]
    assert "".join(r["text"] for r in rows) == "before \udc00 after, and \ud83d alone."


def test_lone_surrogates_on_stdout_are_escaped_without_a_traceback(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(SURROGATE_DOC)
    done = subprocess.run(
        [sys.executable, "-m", "ferrochunk.cli", "chunk", str(src)],
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    rows = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert "".join(r["text"] for r in rows) == "before \udc00 after, and \ud83d alone."


def test_lone_surrogates_in_parquet_are_replacement_characters(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "in.jsonl"
    src.write_text(SURROGATE_DOC)
    out = tmp_path / "out.parquet"
    assert main(["chunk", str(src), "-o", str(out)]) == 0
    assert "(2 lone surrogates written as U+FFFD)" in capsys.readouterr().err
    rows = pq.read_table(out).to_pylist()
    text = "".join(r["text"] for r in rows)
    assert text == "before \ufffd after, and \ufffd alone."
    # One code point for one: the offsets still index the source.
    assert [(r["char_start"], r["char_end"]) for r in rows][-1][1] == len(text)
