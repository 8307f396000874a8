"""The embedded tokenizers against quicktok and tiktoken, per language slice, on one thread.

Two ways to feed them, because caches matter (ours keeps a per-thread memo of pieces,
quicktok keeps its own):

* ``same``: one 1 MB slice, timed again and again, as pytest-benchmark does. Every round
  after the first reads text the caches have seen.
* ``new``: 100,000-character documents from the same language, each timed once and never again, as a
  pipeline reads a corpus (up to 3 MB, so 30 rounds). quicktok keeps a cache of pieces as
  well, so each library must see each document once: the count rows read the odd
  documents, the encode rows the even ones, and a language's ``new`` rows run before its
  ``same`` rows. ``benches/first_pass.py`` gives the fairer first-pass table (the two
  libraries alternate document by document, each in a fresh process).

Slices come from the shared corpus; without it, the bundled sample (``tests/data/corpus``)
stands in, with a first part of each language's files. Run with ``RAYON_NUM_THREADS=1``
(``make bench`` does) so that nothing runs on a second core.
"""

from __future__ import annotations

import gzip
import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import ferrochunk as fc
from ferrochunk.reference._tiktoken import cl100k, o200k

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"
BUNDLED = ROOT / "tests" / "data" / "corpus"

SLICES = {
    "en": ["en/shakespeare-comedies.md", "en/linux-6.1-admin-guide-part1.rst",
           "en/python311-docs-library-part1.rst.txt", "en/fortunes-en.txt"],
    "zh": ["zh/debian-handbook-zh-cn.txt", "zh/fortunes-zh.txt",
           "zh/linux-6.1-translations-zh_CN.rst"],
    "ja": ["mixed/debian-handbook-ja.txt", "mixed/debian-reference-ja.txt",
           "mixed/manpages-ja-man1.txt"],
    "ko": ["mixed/debian-handbook-ko.txt", "mixed/debian-faq-ko.txt"],
    "code": ["mixed/rust-book.md", "mixed/d2l-zh-part1.md", "mixed/ragflow-docs.md"],
}  # fmt: skip
MB = 1_000_000


def _text(lang: str, limit: int) -> str:
    return read_files(SLICES[lang], limit)


def read_files(names: list[str], limit: int) -> str:
    """The named corpus files joined, cut to ``limit`` bytes (at a character)."""
    parts = []
    for name in names:
        shared, bundled = SHARED / name, BUNDLED / (name.replace("/", "__") + ".gz")
        if shared.exists():
            parts.append(shared.read_text(encoding="utf-8", errors="replace"))
        elif bundled.exists():
            parts.append(gzip.decompress(bundled.read_bytes()).decode("utf-8", "replace"))
    return "".join(parts).encode("utf-8")[:limit].decode("utf-8", "ignore")


def _quicktok(name: str) -> Any:
    import quicktok

    return quicktok.get_encoding(name)


OPS: dict[str, Callable[[], Callable[[str], Any]]] = {
    "ferrochunk cl100k encode": lambda: fc.Tokenizer.cl100k().encode,
    "ferrochunk cl100k count": lambda: fc.Tokenizer.cl100k().count,
    "quicktok cl100k encode": lambda: _quicktok("cl100k_base").encode_ordinary,
    "quicktok cl100k count": lambda: _quicktok("cl100k_base").count,
    "tiktoken cl100k encode": lambda: cl100k().encode_ordinary,
    "ferrochunk o200k encode": lambda: fc.Tokenizer.o200k().encode,
    "tiktoken o200k encode": lambda: o200k().encode_ordinary,
}


def _smoke(config: pytest.Config) -> bool:
    return bool(config.getoption("benchmark_disable")) and not config.getoption("benchmark_enable")


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("feed", ["new", "same"])
@pytest.mark.parametrize("lang", list(SLICES))
def test_tokenizer(benchmark, request, lang, feed, op):
    if op.startswith("quicktok") and importlib.util.find_spec("quicktok") is None:
        pytest.skip("bench extra: quicktok-v1")
    smoke = _smoke(request.config)
    text = _text(lang, (MB // 10) if smoke else (MB if feed == "same" else 3 * MB))
    assert text, f"no {lang} text: neither ../shared/corpus nor tests/data/corpus has it"
    fn = OPS[op]()
    fn("warm up the engine, not the text")
    benchmark.group = f"tokenizer {lang} ({feed} text)"
    if feed == "same":
        benchmark.extra_info["bytes"] = len(text.encode("utf-8"))
        out = benchmark(fn, text)
    else:
        size = 10_000 if smoke else 100_000
        every = [text[i : i + size] for i in range(0, len(text), size)]
        docs = (every[1::2] if op.endswith("count") else every[0::2]) or every
        # Documents differ in size and content: MB/s is all bytes over all the time (the
        # mean), not a median document's.
        benchmark.extra_info["bytes"] = sum(len(d.encode("utf-8")) for d in docs) / len(docs)
        benchmark.extra_info["stat"] = "mean"
        feed_docs: Iterator[str] = iter(docs)
        benchmark.pedantic(
            fn, setup=lambda: ((next(feed_docs),), {}), rounds=len(docs), iterations=1
        )
        text = docs[0]
        out = fn(text)
    if op == "ferrochunk cl100k encode":
        assert out.tolist() == cl100k().encode_ordinary(text)
    if op == "ferrochunk o200k encode":
        assert out.tolist() == o200k().encode_ordinary(text)


def test_first_pass_script_reports_both_sides():
    """``benches/first_pass.py`` (the interleaved first-pass table) runs and measures both."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(ROOT / "benches" / "first_pass.py"), "--child", "en", "0", "1"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result = json.loads(out.stdout)
    assert result["bytes"] > 0
    ours, theirs = result["seconds"]
    assert ours > 0
    assert theirs > 0


def test_ab_script_compares_a_build_with_itself() -> None:
    """``benches/ab.py`` (two builds in one process) loads the installed extension twice,
    checks that both return the same ids and reports a row per encoding and slice."""
    import subprocess
    import sys

    from ferrochunk import _native

    out = subprocess.run(
        [sys.executable, str(ROOT / "benches" / "ab.py"), _native.__file__, _native.__file__,
         "--runs", "1", "--slices", "en,zh", "--limit", "200000"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [line.split("|")[1:-1] for line in out.stdout.splitlines()[2:]]
    assert [(r[0].strip(), r[1].strip()) for r in rows] == [
        ("o200k", "en"),
        ("o200k", "zh"),
        ("cl100k", "en"),
        ("cl100k", "zh"),
    ]


def test_ab_script_refuses_a_missing_build(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(ROOT / "benches" / "ab.py"), str(tmp_path / "old.so"),
         str(tmp_path / "new.so")],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 2
    assert "old.so" in out.stderr
