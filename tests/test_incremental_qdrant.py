"""docs/incremental.md's loop on a real embedded vector database (Qdrant's local mode, on
disk): sync a folder, edit one file, sync again; the store holds exactly the current chunks
and the embedder saw only the new ones."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import ferrochunk as fc
from ferrochunk import ids

qdrant = pytest.importorskip("qdrant_client", reason="test extra: qdrant-client")
models = qdrant.models

CONFIG = fc.Markdown(64)


class Embedder:
    """A stand-in model: a vector from the text's bytes, and a count of what it embedded."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return [[float(b) + 1.0 for b in ids.chunk_id(t).encode()[:8]] for t in texts]


def _point(record_id: str) -> str:
    return str(uuid.UUID(hex=record_id))  # Qdrant's ids are UUIDs (or ints)


def _sync(folder: Path, ledger: fc.Ledger, client, embed: Embedder) -> fc.Changes:  # type: ignore[no-untyped-def]
    docs = {p.relative_to(folder).as_posix(): p.read_text("utf-8") for p in folder.rglob("*.md")}
    with ledger.sync(docs, CONFIG, delete_missing=True) as changes:
        if changes.removed:
            gone = [_point(r) for r in changes.removed]
            client.delete("docs", points_selector=models.PointIdsList(points=gone))
        if changes.added:
            texts = [c.metadata["context"] + c.text for c in changes.added]
            client.upsert(
                "docs",
                points=[
                    models.PointStruct(
                        id=_point(c.record_id),
                        vector=v,
                        payload={"doc_id": c.doc_id, "text": c.text, "char_start": c.char_start},
                    )
                    for c, v in zip(changes.added, embed(texts), strict=True)
                ],
            )
        for c in changes.moved:  # metadata only: no embedding
            client.set_payload("docs", {"char_start": c.char_start}, points=[_point(c.record_id)])
    return changes


def _current(folder: Path) -> dict[str, tuple[str, str, int]]:
    out = {}
    for p in folder.rglob("*.md"):
        doc_id = p.relative_to(folder).as_posix()
        chunks = fc.chunk(p.read_text("utf-8"), CONFIG)
        for c, rid in zip(chunks, ids.record_ids(doc_id, chunks), strict=True):
            out[_point(rid)] = (doc_id, c.text, c.char_start)
    return out


def _held(client) -> dict[str, tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    points, _ = client.scroll("docs", limit=10_000, with_payload=True)
    return {
        str(p.id): (p.payload["doc_id"], p.payload["text"], p.payload["char_start"]) for p in points
    }


def test_a_folder_synced_twice_into_qdrant_embeds_only_what_changed(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    for i in range(5):
        body = "".join(f"## Step {k}\n\nDo step {k} of guide {i} with care.\n\n" for k in range(12))
        (folder / f"guide-{i}.md").write_text(f"# Guide {i}\n\n{body}", encoding="utf-8")
    client = qdrant.QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        client.create_collection(
            "docs", vectors_config=models.VectorParams(size=8, distance=models.Distance.COSINE)
        )
        embed = Embedder()
        with fc.Ledger(tmp_path / "index.db") as ledger:
            first = _sync(folder, ledger, client, embed)
            assert len(embed.seen) == len(first.added) == len(_current(folder))
            assert _held(client) == _current(folder)

            page = folder / "guide-2.md"
            text = page.read_text("utf-8").replace(
                "Do step 1 of guide 2", "First, do step 1 of guide 2"
            )
            page.write_text(text, encoding="utf-8")
            (folder / "guide-4.md").unlink()
            embed.seen.clear()
            second = _sync(folder, ledger, client, embed)
            assert _held(client) == _current(folder)
            assert second.moved  # later chunks of guide-2 moved: payload updated, not embedded
            assert 0 < len(embed.seen) == len(second.added) <= 2
            assert all("First, do step 1" in t for t in embed.seen)
            assert second.removed_documents == 1
    finally:
        client.close()
