"""`benches/ab.py` (what `make bench-ab` runs): each `--op` times the call it names on both
builds and compares their results, and a bad option is refused before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ferrochunk._native as native

AB = Path(__file__).resolve().parent.parent / "benches" / "ab.py"


def _ab(*args: str) -> subprocess.CompletedProcess[str]:
    so = native.__file__
    cmd = [sys.executable, str(AB), so, so, "--encodings", "o200k", "--slices", "en",
           "--runs", "1", "--limit", "20000", *args]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("op", ["encode", "encode_list", "count"])
def test_each_op_runs_on_two_copies_of_one_build(op):
    out = _ab("--op", op)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| o200k | en |")]
    assert len(rows) == 1, out.stdout
    ratio = float(rows[0].split("|")[3])
    assert ratio > 0


def test_unknown_op_is_refused():
    out = _ab("--op", "decode")
    assert out.returncode == 2
    assert "--op" in out.stderr
    assert "decode" in out.stderr


def test_block_feeds_documents_back_to_back_and_is_checked():
    out = _ab("--block", "3")
    assert out.returncode == 0, out.stderr
    assert any(line.startswith("| o200k | en |") for line in out.stdout.splitlines())
    refused = _ab("--block", "0")
    assert refused.returncode == 2
    assert "--block must be at least 1, not 0" in refused.stderr
