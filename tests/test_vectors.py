"""Replays every upstream vector file on both backends; nothing is skipped silently."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from support import DATA

from ferrochunk.testing import matches, replay

VECTORS = DATA / "vectors"
ALL_FILES = sorted(p.relative_to(VECTORS).as_posix() for p in VECTORS.glob("*/*.jsonl.gz"))


def _pending() -> dict[str, int]:
    entries = {}
    for line in (VECTORS / "PENDING").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, issue = re.fullmatch(r"(\S+)\s+#(\d+)", line.strip()).groups()  # type: ignore[union-attr]
            entries[name] = int(issue)
    return entries


PENDING = _pending()
REPLAYED = [f for f in ALL_FILES if f not in PENDING]


def _records(name: str) -> list[dict]:
    with gzip.open(VECTORS / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_every_file_is_replayed_or_pending():
    assert ALL_FILES, "no vector files found"
    assert set(PENDING) <= set(ALL_FILES), "PENDING names a file that does not exist"
    assert REPLAYED, "no vector file is replayed"
    assert all(issue in (3, 4, 5) for issue in PENDING.values())


# Dify's fixed separator goes through codecs' unicode_escape, which warns on unknown escapes
# exactly as upstream does.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", REPLAYED)
def test_vector_file(name, backend):
    records = _records(name)
    assert records
    failures = [r.get("id", i) for i, r in enumerate(records) if not matches(r, replay(r, backend))]
    assert not failures, f"{len(failures)}/{len(records)} records differ: {failures[:10]}"


def test_replay_reports_a_missing_family():
    # VoltAgent's MarkdownChunker is outside the ported surface (see docs/voltagent.md).
    with pytest.raises(LookupError, match="not built yet"):
        replay({"fn": "MarkdownChunker.chunk", "args": {}, "expected": None})
