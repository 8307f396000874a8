"""Dify drop-ins against upstream's own call shapes: the index processors' ``transform``.

``data/upstream/dify.jsonl.gz`` was recorded by running Dify e738086's
``ParagraphIndexProcessor`` and ``ParentChildIndexProcessor`` on its pydantic ``Document``s
(database look-ups for image attachments stubbed to none). Random ``doc_id``s are compared
by shape; everything else exactly, on both backends.
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pydantic
import pytest
from pydantic import BaseModel, Field
from support import DATA

from ferrochunk.compat import dify as native
from ferrochunk.reference import dify as reference
from ferrochunk.reference.dify import processors as reference_processors

MODULES = {
    "native": (native.ParagraphIndexProcessor, native.ParentChildIndexProcessor),
    "reference": (
        reference_processors.ParagraphIndexProcessor,
        reference_processors.ParentChildIndexProcessor,
    ),
}
with gzip.open(DATA / "upstream" / "dify.jsonl.gz", "rt", encoding="utf-8") as _lines:
    RECORDS = [json.loads(line) for line in _lines]
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


class ChildDocument(BaseModel):
    """Shaped as Dify's ``core.rag.models.document.ChildDocument``."""

    page_content: str
    vector: list[float] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Document(BaseModel):
    """Shaped as Dify's ``core.rag.models.document.Document``."""

    page_content: str
    vector: list[float] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    provider: str | None = "dify"
    children: list[ChildDocument] | None = None
    attachments: list[Any] | None = None


class Embedder:
    """An embedding model instance; upstream's splitters never ask it for counts."""

    def __init__(self) -> None:
        self.calls = 0

    def get_text_embedding_num_tokens(self, texts: list[str]) -> list[int]:
        self.calls += 1
        return [len(t) for t in texts]


def _metadata(meta: dict[str, Any]) -> dict[str, Any]:
    out = dict(meta)
    if "doc_id" in out:
        assert UUID4.match(out["doc_id"]), out["doc_id"]
        out["doc_id"] = "<uuid4>"
    return out


def _encode(doc: Any) -> dict[str, Any]:
    children = None
    if doc.children is not None:
        children = [
            {
                "type": type(c).__name__,
                "page_content": c.page_content,
                "metadata": _metadata(c.metadata),
                "vector": c.vector,
            }
            for c in doc.children
        ]
    return {
        "type": type(doc).__name__,
        "page_content": doc.page_content,
        "metadata": _metadata(doc.metadata),
        "children": children,
    }


def _run(record: dict[str, Any], backend: str) -> dict[str, Any]:
    paragraph, parent_child = MODULES[backend]
    processor = paragraph() if record["kind"] == "paragraph" else parent_child()
    docs = [Document(page_content=t, metadata=dict(m)) for t, m in record["documents"]]
    embedder = Embedder()
    try:
        out = processor.transform(
            docs,
            None,
            session=None,
            process_rule=record["process_rule"],
            embedding_model_instance=embedder,
            preview=record["preview"],
        )
    except Exception as exc:
        message = re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/<v>/", str(exc))
        return {"error": type(exc).__name__, "module": type(exc).__module__, "message": message}
    return {
        "documents": [_encode(d) for d in out],
        "inputs_after": [d.page_content for d in docs],
        "embedder_calls": embedder.calls,
    }


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_processor_transform_as_dify_calls_it(record, backend):
    assert _run(record, backend) == record["expected"]


def test_outputs_are_the_callers_documents(backend):
    paragraph, _ = MODULES[backend]
    rule = {"mode": "automatic", "rules": {}}
    (doc,) = paragraph().transform([Document(page_content="One. Two.")], process_rule=rule)
    assert isinstance(doc, Document)
    own = reference.Document(page_content="One. Two.")
    assert isinstance(paragraph().transform([own], process_rule=rule)[0], reference.Document)


def test_parents_of_a_type_without_children_become_ferrochunk_documents(backend):
    from langchain_core.documents import Document as LCDocument

    _, parent_child = MODULES[backend]
    rule = {
        "mode": "hierarchical",
        "rules": {
            "parent_mode": "paragraph",
            "segmentation": {"separator": "\n\n", "max_tokens": 100},
            "subchunk_segmentation": {"separator": ". ", "max_tokens": 50},
        },
    }
    docs = [LCDocument(page_content="One sentence. Two sentence.\n\nThree.", metadata={"a": 1})]
    parents = parent_child().transform(docs, process_rule=rule)
    assert [p.page_content for p in parents] == ["One sentence. Two sentence.", "Three."]
    assert all(isinstance(p, reference.Document) for p in parents)  # LangChain's has no children
    # Dify splits on the fixed separator with str.split, so ". " goes.
    assert [c.page_content for c in parents[0].children] == ["One sentence", "Two sentence."]
    assert parents[0].metadata["a"] == 1
    full = {"mode": "hierarchical", "rules": {**rule["rules"], "parent_mode": "full-doc"}}
    (whole,) = parent_child().transform(docs, process_rule=full)
    assert isinstance(whole, reference.Document)
    assert whole.children


@pytest.mark.parametrize("record", [r for r in RECORDS if "error" not in r["expected"]][:6])
def test_without_pydantic_the_hand_validator_gives_the_same_chunks(record, backend, monkeypatch):
    monkeypatch.setattr(reference_processors, "_pydantic_rule", lambda: None)
    got = _run(record, backend)
    assert got == record["expected"]


@pytest.mark.parametrize(
    "record", [r for r in RECORDS if r["expected"].get("error") == "ValidationError"]
)
def test_without_pydantic_bad_rules_still_fail_by_name(record, backend, monkeypatch):
    monkeypatch.setattr(reference_processors, "_pydantic_rule", lambda: None)
    got = _run(record, backend)
    assert got["error"] == "ValidationError"
    assert got["module"] == "ferrochunk.reference.dify.processors"
    assert issubclass(reference_processors.ValidationError, ValueError)


def test_invalid_rule_raises_pydantics_own_validation_error(backend):
    paragraph, _ = MODULES[backend]
    rule = {"mode": "custom", "rules": {"segmentation": {"max_tokens": "many"}}}
    with pytest.raises(pydantic.ValidationError):
        paragraph().transform([Document(page_content="x")], process_rule=rule)
    # The plain-text entry points raise the same class.
    m = native if backend == "native" else reference
    with pytest.raises(pydantic.ValidationError):
        m.paragraph_transform(["x"], rule)
