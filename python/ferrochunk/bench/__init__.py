"""Chunkers side by side on the same documents: speed, and what each did to the text.

This is the engine of ``ferrochunk bench`` and of the peer tables in ``BENCHMARKS.md``, so
what users run and what we publish are one thing. Every contender runs in this process on
one thread, over the same documents:

* ferrochunk's native configs (``chunk_many(..., threads=1)``);
* the compat surfaces (RAGFlow, Dify, VoltAgent), each beside its pure-Python reference,
  which runs upstream's algorithm at upstream's speed;
* the peers that are installed (LangChain, chonkie, semchunk, semantic-text-splitter),
  and tiktoken / quicktok encoding the text, the floor any token chunker pays.

>>> from ferrochunk.bench import contenders, run
>>> [r.chunks > 0 for r in run(["One sentence. " * 200], contenders(64, 8, ["windows"]))]
[True]
"""

from __future__ import annotations

from .contenders import CODE_CONTENDERS, KINDS, Contender, Result, contenders, select, spec_row
from .quality import Audit, audit, audit_texts, code_quality, markdown_quality
from .timing import CodeRow, environment, measure_code, passes, run

__all__ = [
    "CODE_CONTENDERS",
    "KINDS",
    "Audit",
    "CodeRow",
    "Contender",
    "Result",
    "audit",
    "audit_texts",
    "code_quality",
    "contenders",
    "environment",
    "markdown_quality",
    "measure_code",
    "passes",
    "run",
    "select",
    "spec_row",
]
