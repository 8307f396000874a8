"""Where `-o` writes, and how: the one place that opens, writes and replaces the output.

:func:`target` classifies the output once, before anything is read:

- a regular file, or a new path, is replaced atomically: a temporary file beside it, renamed
  at the end. A replaced file keeps its mode, owner and group; a new one gets the umask's
  mode. A symlink is followed, so the file it names is replaced and the link stays a link (a
  dangling link creates its target);
- a file with other hard links, or one its mode makes read-only, is refused unless
  ``--force`` is given (a replaced file is a new inode: its other names keep the old data);
- a file something is mounted on (a bind mount, as containers make) is written in place,
  since it cannot be renamed over;
- ``/dev/null``, a terminal or a FIFO is opened and written directly (not atomic); any
  other character or block device is refused unless ``--force`` is given;
- ``/dev/stdout``, ``/dev/fd/N`` and ``/proc/self/fd/N`` are written to that descriptor,
  never reopened, so a ``>>`` log is appended to and a ``>`` redirect is not cut off.

The output is opened when the first input has been read: a run that reads nothing leaves it
as it was, and a failed run removes its temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TextIO

from .._support.optional import require
from ..config import Config
from ..errors import FerrochunkError
from ..records import arrow_safe, json_line
from .sources import label

FORMATS = ("jsonl", "parquet")

# Paths that name one of this process's descriptors; opening them again would truncate
# the file a shell redirected to, or lose an O_APPEND.
_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_LINKS_MAX = 40  # as the kernel's limit on symlinks in one lookup


class OutputError(FerrochunkError):
    """The output cannot be written; the message names it and the reason."""


@dataclass(frozen=True)
class Target:
    """What ``-o`` names, classified once.

    ``kind`` is ``stdout`` (no ``-o``), ``fd`` (a descriptor path), ``file`` (an existing
    regular file), ``new`` (no file there yet), ``device`` or ``fifo``. ``path`` is where a
    write lands, symlinks followed; ``old`` is the replaced file's status (mode, owner).
    """

    given: Path | None
    kind: str
    path: str | None = None
    fd: int | None = None
    old: os.stat_result | None = None

    @property
    def name(self) -> str:
        return "stdout" if self.given is None else label(self.given)

    @property
    def atomic(self) -> bool:
        return self.kind in ("file", "new")

    def holds(self, path: Path) -> bool:
        """Whether writing here would overwrite the file ``path``."""
        try:
            if self.fd is not None:
                mine = os.fstat(self.fd)
            elif self.path is not None:
                mine = os.stat(self.path)
            else:
                return False
            theirs = os.stat(path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def _descriptor(path: str) -> int | None:
    """The descriptor an absolute path names (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), or None."""
    if path in _STANDARD:
        return _STANDARD[path]
    parent, _, name = path.rpartition("/")
    own = ("/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", f"/proc/{os.getpid()}/fd")
    if parent in own and name.isascii() and name.isdigit():
        return int(name)
    return None


def _physical(path: str) -> str:
    """``path`` with its folder's symlinks and ``..`` resolved, but not its last part.

    Not ``abspath`` first: it drops ``link/..`` by text, where the kernel follows ``link``
    and then goes up from its target (``realpath`` resolves in the kernel's order)."""
    parent, name = os.path.split(path)
    return os.path.join(os.path.realpath(parent or "."), name)


def _follow(given: str) -> tuple[str, int | None]:
    """The path a write to ``given`` lands on (symlinks followed), or the descriptor it names."""
    path = given
    for _ in range(_LINKS_MAX):
        for spelling in (os.path.abspath(path), _physical(path)):
            fd = _descriptor(spelling)
            if fd is not None:
                return spelling, fd
        path = _physical(path)
        if not os.path.islink(path):
            return path, None
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), given)


def target(output: Path | None, force: bool = False) -> Target:
    """Classifies the output; an error (exit 2) for what cannot or should not be written,
    before any input is read. ``force`` (``--force``) allows what is refused only because
    it could hurt: another device, a read-only file, a file with other hard links."""
    if output is None:
        return Target(None, "stdout")
    name = label(output)
    try:
        path, fd = _follow(os.fspath(output))
        if fd is not None:
            os.fstat(fd)  # EBADF now rather than after the run
            return Target(output, "fd", fd=fd)
        try:
            old = os.stat(path)
        except FileNotFoundError:
            folder = os.path.dirname(path)
            if not os.path.isdir(folder):
                raise OutputError(f"cannot write {name}: no such folder") from None
            _check_folder(name, folder)
            return Target(output, "new", path)
    except OSError as exc:
        raise OutputError(f"cannot write {name}: {exc.strerror or exc}") from exc
    mode = old.st_mode
    if stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {name}: it is a folder")
    if stat.S_ISFIFO(mode):
        return Target(output, "fifo", path)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        if not (force or _harmless(old)):
            kind = "block" if stat.S_ISBLK(mode) else "character"
            raise OutputError(
                f"cannot write {name}: it is a {kind} device; pass --force to write to it"
            )
        return Target(output, "device", path)
    if not stat.S_ISREG(mode):
        raise OutputError(f"cannot write {name}: not a file, device or FIFO")
    if not (force or _writable(old)):
        raise OutputError(f"cannot write {name}: the file is read-only; pass --force to replace it")
    if old.st_nlink > 1 and not force:
        raise OutputError(
            f"cannot write {name}: it has {old.st_nlink} hard links, and replacing it would "
            "leave the other names with the old data; pass --force to replace it anyway"
        )
    if is_mount_point(path):
        # A bind-mounted file cannot be renamed over: write it in place.
        return Target(output, "mount", path)
    _check_folder(name, os.path.dirname(path))
    return Target(output, "file", path, old=old)


# /dev/null, and the terminals: consoles and serial lines (4), /dev/tty and /dev/console
# (5), pseudo-terminals (136-143).
_NULL = os.makedev(1, 3)
_TERMINALS = {4, 5, *range(136, 144)}


def _harmless(st: os.stat_result) -> bool:
    """Whether a device is one that a run's output may go to without ``--force``."""
    return stat.S_ISCHR(st.st_mode) and (st.st_rdev == _NULL or os.major(st.st_rdev) in _TERMINALS)


def _writable(st: os.stat_result) -> bool:
    """Whether the mode bits let this user write the file; root, whom ``os.access`` always
    lets, needs a write bit for someone."""
    mode = stat.S_IMODE(st.st_mode)
    if os.geteuid() == 0:
        return bool(mode & 0o222)
    if st.st_uid == os.geteuid():
        return bool(mode & stat.S_IWUSR)
    if st.st_gid in (os.getegid(), *os.getgroups()):
        return bool(mode & stat.S_IWGRP)
    return bool(mode & stat.S_IWOTH)


def _unescape_mount(field: str) -> str:
    r"""A mount point as ``/proc/self/mountinfo`` writes it (``\040`` for a space)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def is_mount_point(path: str) -> bool:
    """Whether ``path`` (symlinks resolved) is where something is mounted, as
    ``/proc/self/mountinfo`` lists it (False where there is no such file)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            points = {_unescape_mount(line.split(" ")[4]) for line in f if line.count(" ") >= 4}
    except OSError:
        return False
    return os.path.realpath(path) in points


def _check_folder(name: str, folder: str) -> None:
    # The replacement is created beside the target; say so now rather than after the run.
    if not os.access(folder, os.W_OK | os.X_OK):
        read_only = os.statvfs(folder).f_flag & os.ST_RDONLY
        reason = os.strerror(errno.EROFS if read_only else errno.EACCES)
        raise OutputError(f"cannot write {name}: cannot create files in {label(folder)} ({reason})")


def _temporary(path: str, mode: int) -> tuple[int, str]:
    """A new file beside ``path``, created with ``mode`` (the umask applies)."""
    folder, name = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", path)


def _sync_folder(path: str) -> None:
    """The rename on disk too (the folder's entry), so what runs next (a sync's commit) can
    count on the new file after a power cut."""
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return  # a folder that cannot be opened (Windows): the rename stands as it is
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; nothing more can be done
    finally:
        os.close(fd)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Gives the replacement the replaced file's owner, group and mode."""
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            # Not root: the file becomes the runner's, as with `sed -i`; keep the group if
            # the runner is in it.
            with contextlib.suppress(PermissionError):
                os.fchown(fd, -1, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after chown, which clears set-id bits


class Sink:
    """Writes record batches as JSON lines or Parquet to a :class:`Target`."""

    def __init__(
        self, where: Target, fmt: str, config: Config, keep: Sequence[Any], stdout: TextIO
    ) -> None:
        self.target = where
        self.format = fmt
        self.config = config
        self.keep = keep
        self.stdout = stdout
        self.opened = False
        self.tmp: str | None = None
        self.binary: IO[bytes] | None = None
        self.text: IO[str] | None = None
        self.owned = False  # whether closing is ours (not for stdout's streams)
        self.writer: Any = None
        self.pa: Any = None
        self.schema: Any = None
        self.replaced = 0  # lone surrogates written to Parquet as U+FFFD

    def __enter__(self) -> Sink:
        return self

    @contextlib.contextmanager
    def _naming(self) -> Iterator[None]:
        """Output errors as one line that names the output (a gone reader stays a
        BrokenPipeError, which stops the run quietly)."""
        try:
            yield
        except BrokenPipeError as exc:
            if self.target.kind == "stdout" or self.target.fd == 1:
                raise  # our own reader went away: stop quietly, as `head` expects
            raise OutputError(f"cannot write {self.target.name}: {exc.strerror or exc}") from exc
        except OSError as exc:
            raise OutputError(f"cannot write {self.target.name}: {exc.strerror or exc}") from exc

    def open(self) -> None:
        """Opens the output, once; called when an input has been read."""
        if self.opened:
            return
        self.opened = True
        with self._naming():
            self._open()

    def _open(self) -> None:
        where = self.target
        if where.kind == "stdout" or where.fd == 1:
            # Our own stdout: its Python stream, so what is buffered there stays in order.
            if self.format == "jsonl":
                self.text = self.stdout
                return
            self.stdout.flush()
            self.binary = self.stdout.buffer
        elif where.fd is not None:
            self.binary, self.owned = os.fdopen(os.dup(where.fd), "wb"), True
        elif where.kind in ("device", "fifo", "mount"):
            assert where.path is not None
            flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
            if where.kind == "mount":
                flags |= os.O_TRUNC
            self.binary, self.owned = os.fdopen(os.open(where.path, flags), "wb"), True
        else:
            assert where.path is not None
            try:
                fd, self.tmp = _temporary(where.path, 0o600 if where.old else 0o666)
            except OSError as exc:
                folder = label(os.path.dirname(where.path))
                raise OutputError(
                    f"cannot write {where.name}: cannot create files in {folder} "
                    f"({exc.strerror or exc})"
                ) from exc
            self.binary, self.owned = os.fdopen(fd, "wb"), True
        if self.format == "parquet":
            self.pa = require("pyarrow", "arrow")
            pq = require("pyarrow.parquet", "arrow")
            from ..arrow import chunk_schema

            self.schema = chunk_schema(self.config, self.keep)
            self.writer = pq.ParquetWriter(self.binary, self.schema)
        else:
            self.text = io.TextIOWrapper(self.binary, encoding="utf-8")

    def write(self, rows: list[dict[str, Any]]) -> None:
        """Writes rows; with none, only opens the output (an input was read)."""
        self.open()
        if not rows:
            return
        with self._naming():
            if self.writer is not None:
                try:
                    table = self.pa.Table.from_pylist(rows, schema=self.schema)
                except UnicodeEncodeError:  # a lone surrogate, which Arrow cannot hold
                    rows, n = arrow_safe(rows)
                    self.replaced += n
                    table = self.pa.Table.from_pylist(rows, schema=self.schema)
                self.writer.write_table(table)
                return
            assert self.text is not None
            self.text.write("".join(map(json_line, rows)))

    def write_table(self, table: Any) -> None:
        """Writes a chunk table (``chunk_table``'s, with ``source`` and ``id`` first)."""
        self.open()
        if table.num_rows == 0:
            return
        with self._naming():
            if self.writer is not None:
                self.writer.write_table(table)
                return
            assert self.text is not None
            self.text.write("".join(map(json_line, table.to_pylist())))

    def _finish(self) -> None:
        if self.writer is not None:
            self.writer.close()
        for stream in (self.text, self.binary):
            if stream is not None:
                stream.flush()
        if self.tmp is not None:
            assert self.binary is not None
            if self.target.old is not None:
                _keep_owner_and_mode(self.binary.fileno(), self.target.old)
            # On disk before the rename, so a crash leaves the old file or the new one whole.
            os.fsync(self.binary.fileno())
        self._close()
        if self.tmp is not None:
            assert self.target.path is not None
            os.replace(self.tmp, self.target.path)
            self.tmp = None
            _sync_folder(self.target.path)

    def _close(self) -> None:
        if not self.owned:
            return
        self.owned = False
        if self.text is not None:
            self.text.close()  # closes the binary stream under it too
        elif self.binary is not None:
            self.binary.close()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if not self.opened:
            return  # nothing was read: the output stays as it was
        try:
            if kind is None:
                with self._naming():
                    self._finish()
        finally:
            # After a failure (of the run or of _finish); a no-op after a finished run.
            with contextlib.suppress(OSError):
                self._close()
                if kind is not None and self.text is self.stdout:
                    self.stdout.flush()
            if self.tmp is not None:  # the earlier output stays as it was
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.tmp)
