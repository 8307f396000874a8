"""Churn: what each chunker would re-embed over a repository's real history.

For every commit (first parent, no merges) that modifies a file of ``paths``, each such file
before and after it is chunked. An after-chunk is **re-embedded** when its embedded text
(its chunk id) is not among the before-chunks'; **touched** when it overlaps a changed line
(no chunker can keep those); **excess** counts the re-embedded chunks that were not touched,
the ones a moved boundary alone made new. The figures are per revision, so chunkers compare
on the same edits; ``ferrochunk churn`` prints them. Besides configs, :func:`churn` takes
named chunk functions (a peer library, say), whose chunks carry exact offsets.

>>> import ferrochunk as fc
>>> edit = Edit("a.md", "One. Two. Three. Four.", "One. Two! Three. Four.")
>>> [round(r.reembedded_chunks, 1) for r in churn([[edit]], [fc.Recursive(2)])]
[1.0]
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .config import Config
from .errors import FerrochunkError
from .pipeline import chunk
from .spec import config_spec
from .tokenizers import Tokenizer, resolve
from .types import Chunk

__all__ = ["Chunker", "Churn", "Edit", "churn", "revisions"]

Chunker = Config | tuple[str, Callable[[str], Sequence[Chunk]]]
"""A config, or a name and a function from a text to its chunks."""


@dataclass(frozen=True)
class Edit:
    """One file a commit modified: its text before and after."""

    path: str
    before: str
    after: str


@dataclass(frozen=True)
class Churn:
    """One chunker over a history: per revision, the chunks and tokens re-embedded and the
    excess; over every after-file, the mean chunk size in tokens."""

    chunker: str
    revisions: int
    files: int
    reembedded_chunks: float
    reembedded_tokens: float
    excess: float
    mean_tokens: float


def _git_path() -> str:
    git = shutil.which("git")
    if git is None:
        raise FerrochunkError("churn needs the git executable on PATH")
    return git


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run([_git_path(), "-C", str(repo), *args], capture_output=True, check=False)
    if out.returncode != 0:
        why = os.fsdecode(out.stderr).strip() or "failed"
        raise FerrochunkError(f"git {args[0]} in {repo}: {why}")
    # Paths are bytes to git; fsdecode keeps a name that is not UTF-8 round-trippable.
    return os.fsdecode(out.stdout)


class _Blobs:
    """``git cat-file --batch``: one process reads every blob."""

    def __init__(self, repo: Path) -> None:
        self.process = subprocess.Popen(
            [_git_path(), "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, rev: str, path: str) -> bytes | None:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None  # both pipes were asked for
        assert stdout is not None
        stdin.write(f"{rev}:".encode() + os.fsencode(path) + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            return None  # "<name> missing": not in that revision
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the object, read whatever its type
        return data if header[1] == b"blob" else None

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process.wait()


def revisions(
    repo: str | os.PathLike[str],
    paths: Sequence[str] = (),
    *,
    since: str | None = None,
    max_revisions: int | None = None,
) -> Iterator[list[Edit]]:
    """The edits of each commit of ``repo`` that modifies files of ``paths`` (git
    pathspecs relative to ``repo``, such as ``*.md``; every file under ``repo`` by default),
    oldest first. Files that are not UTF-8 text, and names with a line break, are left
    out."""
    root = Path(repo)
    if not root.is_dir():
        raise FerrochunkError(f"{root} is not a folder")
    try:
        _git(root, "rev-parse", "--git-dir")  # a work tree or a bare repository
    except FerrochunkError:
        raise FerrochunkError(f"{root} is not a git repository") from None
    paths = tuple(paths) or (".",)  # "." is the folder given, not the whole repository
    log = ["log", "--first-parent", "--no-merges", "--diff-filter=M", "--format=%H", "--reverse"]
    if since is not None:
        log.append(f"--since={since}")
    commits = _git(root, *log, "--", *paths).split()
    if max_revisions is not None:
        commits = commits[-max_revisions:]
    blobs = _Blobs(root)
    try:
        for commit in commits:
            names = _git(
                root, "diff-tree", "--no-commit-id", "-r", "--diff-filter=M", "--name-only",
                "-z", commit, "--", *paths,
            ).split("\0")  # fmt: skip
            edits = []
            for name in filter(None, names):
                if "\n" in name:
                    continue  # cat-file --batch reads one name a line
                before, after = blobs.read(f"{commit}^", name), blobs.read(commit, name)
                if before is None or after is None:
                    continue
                try:
                    edits.append(Edit(name, before.decode("utf-8"), after.decode("utf-8")))
                except UnicodeDecodeError:
                    continue
            if edits:
                yield edits
    finally:
        blobs.close()


def _changed(before: str, after: str) -> list[tuple[int, int]]:
    """The character ranges of ``after`` that an edit wrote, by lines; a deletion is the
    characters either side of where it was."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    starts = [0]
    for line in b:
        starts.append(starts[-1] + len(line))
    out = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lo, hi = starts[j1], starts[j2]
        out.append((lo, hi) if hi > lo else (max(lo - 1, 0), lo + 1))
    return out


def _touched(c: Chunk, ranges: list[tuple[int, int]], ends: list[int]) -> bool:
    # Ranges are sorted and disjoint: look at those that end after the chunk starts.
    i = bisect_right(ends, c.char_start)
    return i < len(ranges) and ranges[i][0] < c.char_end


def churn(
    history: Iterable[Sequence[Edit]],
    configs: Sequence[Chunker],
    *,
    tokenizer: Tokenizer | str | None = None,
) -> list[Churn]:
    """Each chunker's :class:`Churn` over ``history`` (the edits of each revision); configs
    chunk with ``tokenizer``."""
    tok = resolve(tokenizer)

    def chunker(config: Config) -> Callable[[str], Sequence[Chunk]]:
        return lambda text: chunk(text, config, tokenizer=tok)

    names: list[str] = []
    functions: list[Callable[[str], Sequence[Chunk]]] = []
    for config in configs:
        if isinstance(config, tuple):
            names.append(config[0])
            functions.append(config[1])
        else:
            names.append(config_spec(config))
            functions.append(chunker(config))
    n = len(configs)
    chunks_new = [0] * n
    tokens_new = [0] * n
    excess = [0] * n
    sizes = [0] * n
    counts = [0] * n
    revs = files = 0
    for edits in history:
        revs += 1
        for edit in edits:
            files += 1
            ranges = _changed(edit.before, edit.after)
            ends = [hi for _, hi in ranges]
            for k, function in enumerate(functions):
                old = {c.chunk_id for c in function(edit.before)}
                for c in function(edit.after):
                    sizes[k] += c.token_count
                    counts[k] += 1
                    if c.chunk_id in old:
                        continue
                    chunks_new[k] += 1
                    tokens_new[k] += c.token_count
                    if not _touched(c, ranges, ends):
                        excess[k] += 1
    per = max(revs, 1)
    return [
        Churn(
            chunker=names[k],
            revisions=revs,
            files=files,
            reembedded_chunks=chunks_new[k] / per,
            reembedded_tokens=tokens_new[k] / per,
            excess=excess[k] / per,
            mean_tokens=sizes[k] / max(counts[k], 1),
        )
        for k in range(n)
    ]
