"""The sync ledger: which chunks of which documents a vector store holds, in SQLite.

``Ledger.sync`` compares the documents given with what the ledger holds and yields the
changes a store must apply: record ids to delete, chunks to embed, and kept chunks whose
position moved. The ledger is written only when the ``with`` block exits normally, in one
SQLite transaction, so an exception, a kill or a full disk leaves the previous state and a
re-run yields the same changes.

>>> import ferrochunk as fc, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "index.db")
>>> with fc.Ledger(path) as ledger:
...     with ledger.sync({"a.md": "One. Two."}, fc.Recursive(64)) as changes:
...         print(len(changes.added), changes.kept)
...     with ledger.sync({"a.md": "One. Two."}, fc.Recursive(64)) as changes:
...         print(len(changes.added), changes.kept)
1 0
0 1
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from itertools import islice
from operator import attrgetter
from types import TracebackType
from typing import Any

from . import _native
from ._support.validate import describe, require_int
from .config import Config, ParentChild
from .errors import ConfigError, FerrochunkError, InputTypeError, LedgerError
from .ids import SCHEME, utf8
from .pipeline import _require_config, _tokenizer, chunk, chunk_many
from .records import OFFSET_FIELDS
from .spec import config_spec
from .tokenizers import Tokenizer
from .types import Chunk

__all__ = ["SCHEMA_VERSION", "Changes", "Ledger", "StoredChunk"]

SCHEMA_VERSION = 1
"""The ledger's schema (SQLite's ``user_version``); ``Ledger`` refuses a newer one."""

# SQLite's `application_id`: "FCLG". A database without it is not a ledger.
_APPLICATION_ID = 0x46434C47
# Documents per step: their texts, chunks and old records are what a step holds; the
# changes (added chunks with their text) gather for the block, so memory follows them.
_BATCH_DOCS = 256
_BATCH_BYTES = 8 << 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    doc_id TEXT PRIMARY KEY,
    text_hash TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    n_records INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    record_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    chunk_index INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    byte_start INTEGER NOT NULL,
    byte_end INTEGER NOT NULL,
    token_start INTEGER NOT NULL,
    token_end INTEGER NOT NULL,
    token_count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_doc ON records (doc_id);
"""
# What a record keeps of its chunk's place; a kept chunk whose place changed has moved.
_POSITION = ("chunk_index", *OFFSET_FIELDS)


@dataclass(frozen=True, slots=True)
class StoredChunk(Chunk):
    """A chunk as a store holds it: the :class:`Chunk`, its document and its record id
    (:func:`ferrochunk.ids.record_id`), the key to upsert it by."""

    doc_id: str = ""
    record_id: str = ""


@dataclass
class Changes:
    """What one sync changes: apply them to the store inside the ``with`` block.

    ``removed`` are record ids to delete (``removed_doc_ids`` their documents, in the same
    order); ``added`` the chunks to embed and upsert;
    ``moved`` kept chunks whose index or offsets changed (update their metadata, no
    embedding); ``kept`` counts the chunks left as they are.

    >>> Changes(kept=12044, documents=412, changed_documents=3).summary()
    '412 documents: 3 changed, 0 new, 0 removed; 0 chunks to embed, 0 to delete, 12 044 kept'
    """

    added: list[StoredChunk] = field(default_factory=list)
    moved: list[StoredChunk] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    removed_doc_ids: list[str] = field(default_factory=list)
    kept: int = 0
    documents: int = 0
    changed_documents: int = 0
    new_documents: int = 0
    removed_documents: int = 0

    def summary(self) -> str:
        """One line, e.g. ``"412 documents: 3 changed, 1 new, 2 removed; 9 chunks to embed,
        7 to delete, 12 044 kept"``."""
        n = _grouped
        return (
            f"{n(self.documents)} document{'s' * (self.documents != 1)}: "
            f"{n(self.changed_documents)} changed, {n(self.new_documents)} new, "
            f"{n(self.removed_documents)} removed; {n(len(self.added))} "
            f"chunk{'s' * (len(self.added) != 1)} to embed, {n(len(self.removed))} to delete, "
            f"{n(self.kept)} kept"
        )


def _grouped(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def fingerprint(config: Config, tok: Tokenizer, tokenizer_id: str | None) -> str:
    """The config's spec, the tokenizer's identity and the id scheme. The spec names only
    the fields that differ from their defaults, so a field a release adds (with a default
    that keeps today's chunks) does not re-chunk a ledger."""
    identity = tok.identity
    if identity is None:
        if tokenizer_id is None:
            raise FerrochunkError(
                f"the tokenizer {tok.name!r} runs through Python and has no stable identity: "
                "pass tokenizer_id='...', a name that changes whenever its tokens do"
            )
        identity = f"user:{tokenizer_id}"
    return f"{SCHEME}|{identity}|{config_spec(config)}"


def _pairs(docs: Mapping[str, str] | Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    if isinstance(docs, Mapping):
        items: Iterable[Any] = docs.items()
    elif isinstance(docs, str | bytes) or not isinstance(docs, Iterable):
        raise InputTypeError(
            f"docs must be a mapping or (doc_id, text) pairs, got {describe(docs)}"
        )
    else:
        items = docs
    for i, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) != 2:
            raise InputTypeError(f"docs[{i}] must be a (doc_id, text) pair, got {describe(item)}")
        doc_id, text = item
        if not isinstance(doc_id, str):
            raise InputTypeError(f"document ids must be str, got {describe(doc_id)}")
        try:
            doc_id.encode("utf-8")
        except UnicodeEncodeError:
            raise InputTypeError(
                f"document id {doc_id!r:.80} holds a lone surrogate, which UTF-8 (and so the "
                "ledger) cannot store; name the document with valid text"
            ) from None
        if not isinstance(text, str):
            raise InputTypeError(
                f"the text of document {doc_id!r} must be a str, got {describe(text)}"
            )
        yield doc_id, text


def _batches(pairs: Iterator[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    batch: list[tuple[str, str]] = []
    size = 0
    for pair in pairs:
        batch.append(pair)
        size += len(pair[1])
        if len(batch) >= _BATCH_DOCS or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


# A chunk's fields in order, read with one C call (this runs once per changed chunk).
_FIELDS = attrgetter(*(f.name for f in fields(Chunk)))


def _stored(doc_id: str, chunks: list[Chunk]) -> list[StoredChunk]:
    prefix = utf8(doc_id) + b"\x00"
    keys: list[bytes] = []
    seen: dict[str, int] = {}
    for c in chunks:
        n = seen.get(c.chunk_id, 0)
        seen[c.chunk_id] = n + 1
        # `ids.record_key`'s bytes, without its checks: these ids are the pipeline's own.
        keys.append(b"%s%s\x00%d" % (prefix, c.chunk_id.encode("ascii"), n))
    rids = _native.hash_ids(keys)
    # Positional, from one C call per chunk (mypy cannot count a splat's fields).
    make: Any = StoredChunk
    return [make(*_FIELDS(c), doc_id, rid) for c, rid in zip(chunks, rids, strict=True)]


# The values of _POSITION's columns.
_POSITION_OF = attrgetter("index", *OFFSET_FIELDS)


class _Sync:
    """The ``with`` block of one sync: the changes on entry, the commit on a normal exit."""

    def __init__(self, ledger: Ledger, work: Any) -> None:
        self._ledger = ledger
        self._work = work
        self._entered = False
        self._committed = False

    def __enter__(self) -> Changes:
        if self._entered:
            # A second pass would read an iterator of documents that is used up, and with
            # delete_missing remove every document: call sync() again instead.
            raise FerrochunkError("a sync runs once; call Ledger.sync() again to retry")
        self._entered = True
        db = self._ledger._begin()
        try:
            changes: Changes = self._work(db)
        except sqlite3.Error as error:
            _rollback(db)
            raise self._ledger._error("could not sync", error) from error
        except BaseException:
            _rollback(db)
            raise
        return changes

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        db = self._ledger._db
        if kind is not None:
            _rollback(db)
            return
        try:
            db.execute("COMMIT")
        except sqlite3.Error as error:
            _rollback(db)
            raise self._ledger._error("could not commit the sync", error) from error
        self._committed = True


def _rollback(db: sqlite3.Connection) -> None:
    # SQLite rolls back on its own after some errors (a full disk): nothing left to undo.
    if db.in_transaction:
        db.execute("ROLLBACK")


class Ledger:
    """A ledger file: SQLite, from the standard library.

    ``Ledger(path)`` opens the ledger at ``path``, creating it if there is none. Use
    :meth:`sync` and :meth:`forget` as context managers; the ledger itself closes as one.

    >>> import ferrochunk as fc, tempfile, os
    >>> with fc.Ledger(os.path.join(tempfile.mkdtemp(), "index.db")) as ledger:
    ...     with ledger.sync([("a.md", "Text.")], fc.Recursive(64)) as changes:
    ...         [(c.doc_id, c.text) for c in changes.added]
    [('a.md', 'Text.')]
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, str | os.PathLike):
            raise InputTypeError(f"path must be a str or a path, got {describe(path)}")
        self.path = os.fspath(path)
        try:
            # Autocommit: the transactions are ours (BEGIN IMMEDIATE ... COMMIT). No wait
            # for a lock: a second writer gets an error at once.
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=0)
        except sqlite3.Error as error:
            raise self._error("cannot open the ledger", error) from error
        try:
            self._open()
        except sqlite3.Error as error:
            self._db.close()
            raise self._error("cannot open the ledger", error) from error
        except BaseException:
            self._db.close()
            raise

    def _error(self, what: str, error: sqlite3.Error) -> LedgerError:
        text = str(error)
        if "locked" in text or "busy" in text:
            why = "another process is syncing it (one writer at a time)"
        elif "full" in text or "disk I/O" in text:
            why = "it could not be written (a full disk or a file size limit?); it is unchanged"
        elif "readonly" in text or "unable to open" in text:
            why = "the path cannot be written (a read-only file, folder or file system?)"
        elif "not a database" in text:
            why = "the file is not a ferrochunk ledger (not an SQLite database)"
        else:
            why = text
        return LedgerError(f"{what} at {self.path!r}: {why} [{text}]")

    def _open(self) -> None:
        db = self._db
        db.execute("PRAGMA synchronous = FULL")
        (app,) = db.execute("PRAGMA application_id").fetchone()
        (version,) = db.execute("PRAGMA user_version").fetchone()
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app == 0 and version == 0 and tables == 0:
            # One script, one transaction: a ledger is created whole or not at all, and a
            # second process creating it at the same moment finds it made (IF NOT EXISTS).
            db.executescript(
                f"BEGIN IMMEDIATE; {_SCHEMA}"
                f"INSERT OR IGNORE INTO meta VALUES ('id_scheme', '{SCHEME}');"
                f"PRAGMA application_id = {_APPLICATION_ID};"
                f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            )
            self._wal()
            return
        if app != _APPLICATION_ID:
            raise LedgerError(
                f"{self.path!r} is an SQLite database but not a ferrochunk ledger "
                f"(application_id {app:#x}, not {_APPLICATION_ID:#x})"
            )
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger {self.path!r} has schema version {version}, newer than this "
                f"ferrochunk's {SCHEMA_VERSION}: upgrade ferrochunk to read it"
            )
        self._wal()

    def _wal(self) -> None:
        # Write-ahead logging: a reader (a backup, a query) never makes a sync's commit
        # fail, and a commit is still atomic across a kill.
        self._db.execute("PRAGMA journal_mode = WAL")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _begin(self) -> sqlite3.Connection:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._error("cannot start a sync", error) from error
        return self._db

    # -- what the ledger holds -----------------------------------------------------------

    def documents(self) -> dict[str, int]:
        """Each document the ledger holds, with its number of records."""
        return dict(self._db.execute("SELECT doc_id, n_records FROM docs ORDER BY doc_id"))

    def record_ids(self, doc_id: str | None = None) -> list[str]:
        """The record ids the ledger holds (of one document), sorted."""
        if doc_id is None:
            rows = self._db.execute("SELECT record_id FROM records ORDER BY record_id")
        else:
            rows = self._db.execute(
                "SELECT record_id FROM records WHERE doc_id = ? ORDER BY record_id", (doc_id,)
            )
        return [r for (r,) in rows]

    # -- syncing -------------------------------------------------------------------------

    def sync(
        self,
        docs: Mapping[str, str] | Iterable[tuple[str, str]],
        config: Config,
        *,
        tokenizer: Tokenizer | str | None = None,
        tokenizer_id: str | None = None,
        delete_missing: bool = False,
    ) -> _Sync:
        """The changes that bring the ledger (and the store it mirrors) to ``docs``.

        ``docs`` is a mapping of document id to text, or ``(doc_id, text)`` pairs, read
        once in batches. A document whose text and fingerprint (config and tokenizer)
        match the ledger's is skipped without tokenizing. ``delete_missing=True`` treats
        ``docs`` as the whole corpus and removes the documents it lacks. A tokenizer called
        through Python needs ``tokenizer_id``, a name that changes when its tokens do.
        """
        config, tok, print_ = self._prepared(config, tokenizer, tokenizer_id, delete_missing)

        def work(db: sqlite3.Connection) -> Changes:
            # Read here, on entry: a sync is one pass over docs.
            return _Diff(db, config, tok, print_).run(_pairs(docs), delete_missing)

        return _Sync(self, work)

    def sync_batches(
        self,
        docs: Mapping[str, str] | Iterable[tuple[str, str]],
        config: Config,
        *,
        tokenizer: Tokenizer | str | None = None,
        tokenizer_id: str | None = None,
        delete_missing: bool = False,
        batch_docs: int = 1_000,
    ) -> Iterator[_Sync]:
        """:meth:`sync` in batches of ``batch_docs`` documents, each committed on its own,
        so memory follows one batch's changes, not the corpus's (a first sync of millions).

        >>> import ferrochunk as fc, tempfile, os
        >>> docs = {f"{i}.md": f"Text {i}." for i in range(5)}
        >>> added = []
        >>> with fc.Ledger(os.path.join(tempfile.mkdtemp(), "index.db")) as ledger:
        ...     for batch in ledger.sync_batches(docs, fc.Recursive(64), batch_docs=2):
        ...         with batch as changes:
        ...             added.append(len(changes.added))
        >>> added
        [2, 2, 1]

        Enter each batch and finish its block before the next; a batch whose block raises
        is rolled back and ends the loop, and the batches before it stay committed (a
        re-run skips their documents as unchanged). With ``delete_missing``, the removals
        come as a last batch after every document has been read. Only the batches are
        transactions: another writer may commit between two of them.
        """
        config, tok, print_ = self._prepared(config, tokenizer, tokenizer_id, delete_missing)
        batch_docs = require_int("batch_docs", batch_docs, minimum=1)
        return self._batched(
            _pairs(docs), _Diff(self._db, config, tok, print_), delete_missing, batch_docs
        )

    def _batched(
        self, pairs: Iterator[tuple[str, str]], diff: _Diff, delete_missing: bool, size: int
    ) -> Iterator[_Sync]:
        given = 0

        def part_of(docs: list[tuple[str, str]], first: bool) -> Callable[..., Changes]:
            def work(db: sqlite3.Connection) -> Changes:
                diff.changes = Changes()
                if first:
                    diff.begin()
                return diff.feed(docs)

            return work

        while part := list(islice(pairs, size)):
            yield from self._each(_Sync(self, part_of(part, given == 0)))
            given += len(part)
        if delete_missing:

            def last(db: sqlite3.Connection) -> Changes:
                diff.changes = Changes()
                if given == 0:
                    diff.begin()
                return diff.finish(True, given)

            yield from self._each(_Sync(self, last))

    @staticmethod
    def _each(batch: _Sync) -> Iterator[_Sync]:
        yield batch
        if not batch._committed:
            raise FerrochunkError(
                "each batch of sync_batches must be entered, and its block finished, before "
                "the next"
            )

    def _prepared(
        self, config: Any, tokenizer: Any, tokenizer_id: Any, delete_missing: Any
    ) -> tuple[Config, Tokenizer, str]:
        """A sync's arguments checked: the config, its tokenizer and their fingerprint."""
        config = _require_config(config)
        if isinstance(config, ParentChild):
            # Its records would be the parents, while a store embeds the children: a change
            # to children alone would leave stale vectors. Not supported yet, so refused.
            raise ConfigError(
                "Ledger.sync does not take ParentChild yet: its children, what a store embeds, "
                "are not records of their own; sync the child config instead"
            )
        tok = _tokenizer(config, tokenizer)
        if tokenizer_id is not None and not isinstance(tokenizer_id, str):
            raise InputTypeError(f"tokenizer_id must be a str, got {describe(tokenizer_id)}")
        if not isinstance(delete_missing, bool):
            raise InputTypeError(f"delete_missing must be a bool, got {describe(delete_missing)}")
        return config, tok, fingerprint(config, tok, tokenizer_id)

    def forget(self, doc_ids: Iterable[str]) -> _Sync:
        """The deletions that remove ``doc_ids`` from the ledger (and the store)."""
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InputTypeError(f"doc_ids must be an iterable of str, got {doc_ids!r:.80}")

        def work(db: sqlite3.Connection) -> Changes:
            changes = Changes()
            for doc_id in doc_ids:
                if not isinstance(doc_id, str):
                    raise InputTypeError(f"document ids must be str, got {doc_id!r:.80}")
                if _remove(db, doc_id, changes):
                    changes.removed_documents += 1
            return changes

        return _Sync(self, work)


def _remove(db: sqlite3.Connection, doc_id: str, changes: Changes) -> bool:
    gone = db.execute("SELECT record_id FROM records WHERE doc_id = ?", (doc_id,)).fetchall()
    changes.removed.extend(r for (r,) in gone)
    changes.removed_doc_ids.extend(doc_id for _ in gone)
    db.execute("DELETE FROM records WHERE doc_id = ?", (doc_id,))
    return db.execute("DELETE FROM docs WHERE doc_id = ?", (doc_id,)).rowcount > 0


class _Diff:
    """One sync's pass over the documents, inside the open transaction."""

    def __init__(self, db: sqlite3.Connection, config: Config, tok: Tokenizer, fp: str) -> None:
        self.db, self.config, self.tok, self.fp = db, config, tok, fp
        self.changes = Changes()

    def run(self, pairs: Iterator[tuple[str, str]], delete_missing: bool) -> Changes:
        self.begin()
        self.feed(pairs)
        return self.finish(delete_missing, self.changes.documents)

    def begin(self) -> None:
        """Start the pass: no document seen yet (the ids stay across a pass's commits)."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS seen (doc_id TEXT PRIMARY KEY)")
        self.db.execute("DELETE FROM temp.seen")

    def feed(self, pairs: Iterable[tuple[str, str]]) -> Changes:
        for batch in _batches(iter(pairs)):
            self._batch(batch)
        return self.changes

    def finish(self, delete_missing: bool, given: int) -> Changes:
        """End the pass after ``given`` documents: remove the missing ones if asked."""
        db = self.db
        if delete_missing and given == 0:
            held = db.execute("SELECT count(*) FROM docs").fetchone()[0]
            if held:
                raise FerrochunkError(
                    f"no documents were given, and delete_missing would remove all {held} the "
                    "ledger holds (an empty or unmounted folder?); use forget() for that"
                )
        if delete_missing:
            missing = db.execute(
                "SELECT doc_id FROM docs WHERE doc_id NOT IN (SELECT doc_id FROM temp.seen)"
            ).fetchall()
            for (doc_id,) in missing:
                _remove(db, doc_id, self.changes)
                self.changes.removed_documents += 1
        db.execute("DELETE FROM temp.seen")
        return self.changes

    def _batch(self, batch: list[tuple[str, str]]) -> None:
        db, changes = self.db, self.changes
        for doc_id, _ in batch:
            try:
                db.execute("INSERT INTO temp.seen VALUES (?)", (doc_id,))
            except sqlite3.IntegrityError:
                raise FerrochunkError(
                    f"document id {doc_id!r} is given twice in one sync"
                ) from None
        changes.documents += len(batch)
        hashes = _native.hash_ids([utf8(text) for _, text in batch])
        marks = ",".join("?" * len(batch))
        known = {
            d: (h, f, n)
            for d, h, f, n in db.execute(
                "SELECT doc_id, text_hash, fingerprint, n_records FROM docs "
                f"WHERE doc_id IN ({marks})",
                [d for d, _ in batch],
            )
        }
        todo = []
        for (doc_id, text), text_hash in zip(batch, hashes, strict=True):
            old = known.get(doc_id)
            if old is not None and old[0] == text_hash and old[1] == self.fp:
                changes.kept += old[2]
                continue
            todo.append((doc_id, text, text_hash, old is None))
        if not todo:
            return
        texts = [text for _, text, _, _ in todo]
        if self.tok._native_source is not None:
            cut = chunk_many(texts, self.config, tokenizer=self.tok)
        else:
            cut = [chunk(t, self.config, tokenizer=self.tok) for t in texts]
        # The old records of the batch's known documents, in one query (new ones have none).
        olds = [doc_id for doc_id, _, _, new in todo if not new]
        before: dict[str, dict[str, tuple[int, ...]]] = {d: {} for d in olds}
        if olds:
            rows = db.execute(
                f"SELECT doc_id, record_id, {', '.join(_POSITION)} FROM records "
                f"WHERE doc_id IN ({','.join('?' * len(olds))})",
                olds,
            )
            for row in rows:
                before[row[0]][row[1]] = tuple(row[2:])
        writes = _Writes()
        for (doc_id, _, text_hash, new), chunks in zip(todo, cut, strict=True):
            now = _stored(doc_id, chunks)
            self._document(doc_id, now, before.get(doc_id, {}), new, writes)
            writes.docs.append((doc_id, text_hash, self.fp, len(now)))
        writes.apply(db)

    def _document(
        self,
        doc_id: str,
        now: list[StoredChunk],
        before: dict[str, tuple[int, ...]],
        new: bool,
        writes: _Writes,
    ) -> None:
        changes = self.changes
        keep = {c.record_id for c in now}
        gone = [rid for rid in before if rid not in keep]
        changes.removed.extend(gone)
        changes.removed_doc_ids.extend(doc_id for _ in gone)
        writes.deletes.extend((r,) for r in gone)
        added, moved = [], []
        for c in now:
            old = before.get(c.record_id)
            if old is None:
                added.append(c)
                writes.inserts.append((c.record_id, doc_id, c.chunk_id, *_POSITION_OF(c)))
            elif old != _POSITION_OF(c):
                moved.append(c)
                writes.updates.append((*_POSITION_OF(c), c.record_id))
            else:
                changes.kept += 1
        changes.added.extend(added)
        changes.moved.extend(moved)
        if new:
            changes.new_documents += 1
        elif added or moved or gone:
            changes.changed_documents += 1


@dataclass
class _Writes:
    """One batch's writes, each kind in one statement."""

    deletes: list[tuple[str]] = field(default_factory=list)
    inserts: list[tuple[Any, ...]] = field(default_factory=list)
    updates: list[tuple[Any, ...]] = field(default_factory=list)
    docs: list[tuple[str, str, str, int]] = field(default_factory=list)

    def apply(self, db: sqlite3.Connection) -> None:
        db.executemany("DELETE FROM records WHERE record_id = ?", self.deletes)
        db.executemany(f"INSERT INTO records VALUES ({','.join('?' * 11)})", self.inserts)
        db.executemany(
            f"UPDATE records SET {', '.join(f'{k} = ?' for k in _POSITION)} WHERE record_id = ?",
            self.updates,
        )
        db.executemany("INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?)", self.docs)
