"""The sync ledger: changes a store can apply, a fast path, and a state that survives
exceptions, kills, a full disk and a second writer."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk import ids
from ferrochunk.errors import LedgerError

CONFIG = fc.Recursive(64)


def _doc(i: int, edit: int = 0) -> str:
    sentences = [f"Sentence {k} of document {i} says something. " for k in range(60)]
    if edit:
        sentences[edit] = f"An edited sentence in document {i}. "
    return f"# Document {i}\n\n" + "".join(sentences)


def _corpus(n: int = 12) -> dict[str, str]:
    return {f"doc-{i}.md": _doc(i) for i in range(n)}


class Store:
    """What a vector store keeps: record id -> (doc id, chunk id, chunk index)."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, str, int]] = {}
        self.embedded = 0

    def apply(self, changes: fc.Changes) -> None:
        for rid in changes.removed:
            del self.rows[rid]
        for c in changes.added:
            assert c.record_id not in self.rows
            self.rows[c.record_id] = (c.doc_id, c.chunk_id, c.index)
            self.embedded += 1
        for c in changes.moved:
            doc_id, chunk_id, _ = self.rows[c.record_id]
            assert (doc_id, chunk_id) == (c.doc_id, c.chunk_id)
            self.rows[c.record_id] = (doc_id, chunk_id, c.index)


def _current(docs: dict[str, str], config: fc.Config = CONFIG) -> dict[str, tuple[str, str, int]]:
    """What the store must hold after a sync of ``docs``: computed without the ledger."""
    out = {}
    for doc_id, text in docs.items():
        chunks = fc.chunk(text, config)
        for c, rid in zip(chunks, ids.record_ids(doc_id, chunks), strict=True):
            out[rid] = (doc_id, c.chunk_id, c.index)
    return out


def test_a_store_that_applies_the_changes_holds_exactly_the_current_chunks(tmp_path):
    docs = _corpus()
    store = Store()
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with ledger.sync(docs, CONFIG) as changes:
            store.apply(changes)
        assert store.rows == _current(docs)
        assert changes.new_documents == 12
        assert changes.kept == 0
        first = store.embedded

        docs["doc-3.md"] = _doc(3, edit=30)  # one sentence in the middle
        docs["doc-new.md"] = _doc(99)
        del docs["doc-5.md"]
        with ledger.sync(docs, CONFIG, delete_missing=True) as changes:
            store.apply(changes)
        assert store.rows == _current(docs)
        assert (changes.changed_documents, changes.new_documents) == (1, 1)
        assert changes.removed_documents == 1
        edited = len(fc.chunk(docs["doc-3.md"], CONFIG))
        assert 0 < len(changes.added) - len(fc.chunk(docs["doc-new.md"], CONFIG)) < edited
        assert changes.kept > first // 2
        assert changes.summary().startswith("12 documents: 1 changed, 1 new, 1 removed; ")

        with ledger.sync(docs, CONFIG, delete_missing=True) as changes:
            store.apply(changes)
        assert (changes.added, changes.moved, changes.removed) == ([], [], [])
        assert changes.kept == len(store.rows)
        assert sorted(ledger.record_ids()) == sorted(store.rows)


def test_only_the_documents_given_are_touched_by_default(tmp_path):
    docs = _corpus(4)
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with ledger.sync(docs, CONFIG):
            pass
        with ledger.sync({"doc-0.md": docs["doc-0.md"]}, CONFIG) as changes:
            assert changes.removed == []
            assert changes.documents == 1
        assert sorted(ledger.documents()) == sorted(docs)
        with ledger.forget(["doc-1.md", "not-there.md"]) as changes:
            assert changes.removed_documents == 1
            assert sorted(changes.removed) == sorted(
                ids.record_ids("doc-1.md", fc.chunk(docs["doc-1.md"], CONFIG))
            )
        assert "doc-1.md" not in ledger.documents()


def test_unchanged_documents_are_skipped_without_tokenizing(tmp_path):
    calls = []

    def words(text: str) -> tuple[list[int], list[int]]:
        calls.append(text)
        starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == " " and i + 1 < len(text)]
        return list(range(len(starts))), starts

    tok = fc.Tokenizer.from_callable(words, name="words")
    docs = _corpus(6)
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with pytest.raises(ValueError, match="tokenizer_id="):
            ledger.sync(docs, CONFIG, tokenizer=tok)
        with ledger.sync(docs, CONFIG, tokenizer=tok, tokenizer_id="words-v1") as changes:
            assert len(changes.added) > 6
        assert calls
        calls.clear()
        docs["doc-2.md"] = _doc(2, edit=10)
        with ledger.sync(docs, CONFIG, tokenizer=tok, tokenizer_id="words-v1") as changes:
            assert changes.changed_documents == 1
        assert calls
        assert all(docs["doc-2.md"] in c or c in docs["doc-2.md"] for c in calls)
        calls.clear()
        with ledger.sync(docs, CONFIG, tokenizer=tok, tokenizer_id="words-v2") as changes:
            # A new tokenizer id re-chunks everything; these words cut the same chunks,
            # so every record is kept and nothing is embedded again.
            assert changes.added == []
            assert changes.removed == []
        assert len(calls) >= 6


def test_a_config_change_keeps_every_chunk_whose_text_did_not_change(tmp_path):
    short = {f"s{i}.md": f"# Title {i}\n\nA short section {i}.\n" for i in range(5)}
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with ledger.sync(short, fc.Markdown(40)) as changes:
            n = len(changes.added)
        with ledger.sync(short, fc.Markdown(48)) as changes:
            assert changes.changed_documents == 0
            assert changes.added == []
            assert changes.kept == n


def test_an_exception_in_the_block_leaves_the_previous_state(tmp_path):
    docs = _corpus(5)
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with ledger.sync(docs, CONFIG):
            pass
        before = ledger.record_ids()
        docs["doc-1.md"] = _doc(1, edit=5)
        seen = []

        def fail_in_the_block() -> None:
            with ledger.sync(docs, CONFIG) as changes:
                seen.append(([c.record_id for c in changes.added], changes.removed))
                raise RuntimeError("store is down")

        with pytest.raises(RuntimeError, match="store is down"):
            fail_in_the_block()
        (first,) = seen
        assert first[0]
        assert ledger.record_ids() == before
        with ledger.sync(docs, CONFIG) as changes:
            assert ([c.record_id for c in changes.added], changes.removed) == first


def test_a_fresh_sync_gives_the_same_record_ids(tmp_path):
    docs = _corpus(5)
    for name in ("a.db", "b.db"):
        with fc.Ledger(tmp_path / name) as ledger, ledger.sync(docs, CONFIG):
            pass
    with fc.Ledger(tmp_path / "a.db") as a, fc.Ledger(tmp_path / "b.db") as b:
        assert a.record_ids() == b.record_ids() == sorted(_current(docs))


def test_a_second_writer_gets_a_clear_error(tmp_path):
    path = tmp_path / "index.db"
    with fc.Ledger(path) as one, fc.Ledger(path) as two:
        with (
            one.sync(_corpus(2), CONFIG),
            pytest.raises(LedgerError, match="another process is syncing it"),
            two.sync(_corpus(2), CONFIG),
        ):
            pass
        with two.sync(_corpus(2), CONFIG) as changes:
            assert changes.kept > 0
            assert changes.added == []


def test_bad_ledgers_and_bad_documents_are_named(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database, just words " * 100, encoding="utf-8")
    with pytest.raises(LedgerError, match="not a ferrochunk ledger"):
        fc.Ledger(text_file)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    db.close()
    with pytest.raises(LedgerError, match="SQLite database but not a ferrochunk ledger"):
        fc.Ledger(other)
    newer = tmp_path / "newer.db"
    fc.Ledger(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 7")
    db.close()
    with pytest.raises(LedgerError, match="schema version 7, newer than this ferrochunk's 1"):
        fc.Ledger(newer)
    with pytest.raises(LedgerError, match="cannot be written"):
        fc.Ledger("/proc/ferrochunk-ledger.db")
    with fc.Ledger(tmp_path / "index.db") as ledger:
        bad = [
            ([(7, "text")], TypeError, r"document ids must be str, got 7 \(int\)"),
            ([("a", "x"), ("b", "y"), ("a", "z")], ValueError, "document id 'a' is given twice"),
            # Apart by more than a batch of documents (256), and after one given once.
            (
                [(f"d{i}", "t") for i in range(300)] + [("d7", "u")],
                ValueError,
                "document id 'd7' is given twice",
            ),
            (["just a string"], TypeError, r"must be a \(doc_id, text\) pair"),
        ]
        for docs, error, message in bad:
            with pytest.raises(error, match=message), ledger.sync(docs, CONFIG):
                pass
        with pytest.raises(TypeError, match="config must be one of"):
            ledger.sync({}, "recursive")
        assert ledger.documents() == {}


_CHILD = textwrap.dedent(
    """
    import json, sys
    import ferrochunk as fc
    sys.path.insert(0, {here!r})
    from test_ledger import _doc
    docs = {{f"doc-{{i}}.md": _doc(i, edit=i % 7) for i in range({n})}}
    with fc.Ledger(sys.argv[1]) as ledger:
        with ledger.sync(docs, fc.Recursive(64), delete_missing=True) as changes:
            print(len(changes.added), flush=True)
    print("committed", flush=True)
    """
)


def _child(n: int) -> str:
    return _CHILD.format(here=str(Path(__file__).parent), n=n)


def _state(path: Path) -> tuple[list[str], dict[str, int]]:
    with fc.Ledger(path) as ledger:
        return ledger.record_ids(), ledger.documents()


@pytest.mark.slow
def test_a_kill_at_any_point_leaves_the_old_or_the_new_state(tmp_path):
    n = 150
    base = tmp_path / "base.db"
    with fc.Ledger(base) as ledger, ledger.sync(_corpus(n), CONFIG):
        pass
    done = tmp_path / "done.db"
    shutil.copy(base, done)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _child(n), str(done)], check=True, capture_output=True)
    took = time.perf_counter() - start
    old, new = _state(base), _state(done)
    assert old != new
    rng = random.Random(54)
    seen = set()
    for k in range(8):
        path = tmp_path / f"killed-{k}.db"
        shutil.copy(base, path)
        child = subprocess.Popen(
            [sys.executable, "-c", _child(n), str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.0, took))
        child.send_signal(signal.SIGKILL)
        child.wait()
        state = _state(path)
        assert state in (old, new)
        seen.add(state == new)
        # A re-run after the kill brings the ledger to the same end as an unbroken run.
        subprocess.run(
            [sys.executable, "-c", _child(n), str(path)], check=True, capture_output=True
        )
        assert _state(path) == new
    assert False in seen, "no kill landed before the commit"


def test_a_full_disk_leaves_the_previous_state(tmp_path):
    path = tmp_path / "index.db"
    with fc.Ledger(path) as ledger, ledger.sync(_corpus(3), CONFIG):
        pass
    before = _state(path)
    limit = os.path.getsize(path) + 16 * 1024
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        import ferrochunk as fc
        from ferrochunk.errors import LedgerError
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_ledger import _doc
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        docs = {{f"doc-{{i}}.md": _doc(i, edit=3) for i in range(40)}}
        try:
            with fc.Ledger(sys.argv[1]) as ledger:
                with ledger.sync(docs, fc.Recursive(64)) as changes:
                    pass
        except LedgerError as error:
            print("LedgerError", error)
            sys.exit(3)
        """
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True)
    assert out.returncode == 3, out.stdout + out.stderr
    assert str(path) in out.stdout
    assert _state(path) == before
    with fc.Ledger(path) as ledger, ledger.sync(_corpus(3), CONFIG) as changes:
        assert changes.kept > 0
        assert changes.added == []


def test_stored_chunks_are_chunks(tmp_path):
    with (
        fc.Ledger(tmp_path / "index.db") as ledger,
        ledger.sync({"a.md": "One. Two. Three."}, fc.Recursive(4)) as changes,
    ):
        c = changes.added[0]
    assert isinstance(c, fc.Chunk)
    assert c.doc_id == "a.md"
    assert c.record_id == ids.record_id("a.md", c.chunk_id, 0)
    assert json.loads(json.dumps(c.to_dict()))["chunk_id"] == c.chunk_id


def test_a_sync_runs_once_and_a_retry_calls_sync_again(tmp_path):
    docs = _corpus(3)
    with fc.Ledger(tmp_path / "index.db") as ledger:
        once = ledger.sync(docs, CONFIG, delete_missing=True)
        with once:
            pass
        with pytest.raises(ValueError, match="a sync runs once"), once:
            pass
        with ledger.sync(iter(docs.items()), CONFIG, delete_missing=True) as changes:
            assert changes.kept > 0
            assert changes.removed == []
        assert sorted(ledger.documents()) == sorted(docs)


def test_no_documents_never_delete_them_all(tmp_path):
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with ledger.sync(_corpus(2), CONFIG):
            pass
        with (
            pytest.raises(ValueError, match="would remove all 2"),
            ledger.sync({}, CONFIG, delete_missing=True),
        ):
            pass
        assert len(ledger.documents()) == 2
        with ledger.forget(list(_corpus(2))) as changes:
            assert changes.removed_documents == 2


def test_ids_that_utf8_cannot_hold_and_parent_child_are_refused(tmp_path):
    with fc.Ledger(tmp_path / "index.db") as ledger:
        with (
            pytest.raises(TypeError, match="lone surrogate"),
            ledger.sync({"caf\udce9.md": "text"}, CONFIG),
        ):
            pass
        with pytest.raises(ValueError, match="does not take ParentChild"):
            ledger.sync({}, fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10)))


def test_a_reader_does_not_make_the_commit_fail(tmp_path):
    path = tmp_path / "index.db"
    with fc.Ledger(path) as ledger:
        with ledger.sync(_corpus(2), CONFIG):
            pass
        reader = sqlite3.connect(path, isolation_level=None)
        try:
            reader.execute("BEGIN")
            assert reader.execute("SELECT count(*) FROM docs").fetchone()[0] == 2
            with ledger.sync(_corpus(4), CONFIG) as changes:
                assert changes.new_documents == 2
            reader.execute("COMMIT")
        finally:
            reader.close()
        assert len(ledger.documents()) == 4


def test_batches_give_what_one_sync_gives_each_committed_on_its_own(tmp_path):
    docs = _corpus(11)
    one, batched = Store(), Store()
    with fc.Ledger(tmp_path / "one.db") as a, fc.Ledger(tmp_path / "batched.db") as b:
        for edit in range(3):
            if edit == 1:
                docs["doc-3.md"] = _doc(3, edit=30)
                docs["doc-new.md"] = _doc(99)
                del docs["doc-5.md"], docs["doc-9.md"]
            with a.sync(docs, CONFIG, delete_missing=True) as changes:
                one.apply(changes)
            sizes = []
            for batch in b.sync_batches(docs, CONFIG, delete_missing=True, batch_docs=4):
                with batch as changes:
                    batched.apply(changes)
                    sizes.append(changes.documents)
                # Committed already: a second connection sees this batch's documents.
                seen = sqlite3.connect(tmp_path / "batched.db")
                assert seen.execute("SELECT count(*) FROM docs").fetchone()[0] >= min(
                    sum(sizes), len(docs)
                )
                seen.close()
            # Batches of 4 documents, then the removals as a batch of their own.
            assert sizes == [4, 4, len(docs) - 8, 0]
            assert batched.rows == one.rows == _current(docs)
            assert b.record_ids() == a.record_ids()
            assert b.documents() == a.documents()
        assert batched.embedded == one.embedded


def _all_batches(ledger, docs, apply=lambda changes: None, **kwargs):
    """Run every batch of a ``sync_batches``, handing each one's changes to ``apply``."""
    for batch in ledger.sync_batches(docs, CONFIG, **kwargs):
        with batch as changes:
            apply(changes)


def test_a_failing_batch_leaves_the_batches_before_it(tmp_path):
    docs = _corpus(10)
    store = Store()
    with fc.Ledger(tmp_path / "index.db") as ledger:
        done = []

        def apply(changes):
            if len(done) == 2:
                raise RuntimeError("store down")
            store.apply(changes)
            done.append(changes)

        with pytest.raises(RuntimeError, match="store down"):
            _all_batches(ledger, docs, apply, batch_docs=3)
        assert sorted(ledger.documents()) == sorted(docs)[:6]
        # The re-run skips what was committed and adds only the rest.
        for batch in ledger.sync_batches(docs, CONFIG, batch_docs=3):
            with batch as changes:
                store.apply(changes)
        assert store.rows == _current(docs)


def test_batches_must_be_taken_in_turn_and_bad_sizes_are_named(tmp_path):
    docs = _corpus(6)
    with fc.Ledger(tmp_path / "index.db") as ledger:
        batches = ledger.sync_batches(docs, CONFIG, batch_docs=2)
        next(batches)  # not entered
        with pytest.raises(ValueError, match="must be entered, and its block finished"):
            next(batches)
        assert ledger.documents() == {}
        for bad in (0, -1, 2.5, True, "4"):
            with pytest.raises((TypeError, ValueError), match=f"batch_docs .*got {bad!r}"):
                ledger.sync_batches(docs, CONFIG, batch_docs=bad)
        with pytest.raises(TypeError, match="delete_missing"):
            ledger.sync_batches(docs, CONFIG, delete_missing="yes")
        # An empty input with delete_missing is refused as sync() refuses it.
        with ledger.sync(docs, CONFIG):
            pass
        with pytest.raises(ValueError, match="no documents were given"):
            _all_batches(ledger, {}, delete_missing=True)
        assert sorted(ledger.documents()) == sorted(docs)
        # A duplicate id in a later batch is refused there.
        pairs = [*docs.items(), ("doc-1.md", "again")]
        with pytest.raises(ValueError, match=r"'doc-1\.md' is given twice"):
            _all_batches(ledger, pairs, batch_docs=4)
