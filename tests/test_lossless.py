"""Lossless on a 2 MB slice of the bundled corpus, for every config of scripts/lossless.py."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from support import corpus_files, read_corpus

import ferrochunk as fc
from ferrochunk.bench.quality import Audit, audit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from lossless import configs

CONFIGS = configs()


@pytest.fixture(scope="module")
def texts() -> list[str]:
    out, size = [], 0
    for path in corpus_files():
        text = read_corpus(path)[:300_000]
        out.append(text)
        size += len(text.encode())
        if size >= 2_000_000:
            break
    return out


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_config_is_lossless(name, texts):
    config = CONFIGS[name]
    total = Audit(0, 0, 0, 0, 0, 0)
    for text in texts:
        total = total + audit(text, fc.chunk(text, config), config)
    assert total.chunks > 0
    assert total.clean, total


def test_the_audit_sees_damage():
    text = "one two three four five six seven eight nine ten " * 20
    config = fc.TokenWindows(8)
    chunks = fc.chunk(text, config)
    assert audit(text, chunks, config).clean
    assert audit(text, chunks[:-2], config).lost > 0  # the last chunk is the final space
    broken = [*chunks[:3], replace(chunks[3], text=chunks[3].text + "\ufffd"), *chunks[4:]]
    found = audit(text, broken, config)
    assert (found.wrong_offsets, found.replacement) == (1, 1)
    assert audit(text, chunks[::-1], config).out_of_order > 0
    big = [replace(c, token_end=c.token_start + 9, token_count=9) for c in chunks]
    assert audit(text, big, config).over_cap == len(chunks)


def test_the_audit_reads_lone_surrogates():
    # Found by atheris: the audit's delimiter scan could not encode a lone surrogate.
    text = "\n\n\udf0aab\n\nVVVV\ud800\n-x"
    config = fc.DelimiterMerge(token_size=4, delimiters=("\n",))
    chunks = fc.chunk(text, config)
    assert "".join(c.text for c in chunks).count("\udf0a") == 1
    assert audit(text, chunks, config).clean
