"""The questions an evaluation asks, each with the exact character spans that answer it.

Two formats are read:

* JSON lines, one question per line: ``{"question": ..., "references": [{"doc": ID,
  "char_start": a, "char_end": b} | {"doc": ID, "text": EXCERPT}, ...]}``. An excerpt must
  occur exactly once in its document.
* Chroma's ``questions_df.csv`` as ``chunking_evaluation`` publishes it: columns
  ``question``, ``references`` (a JSON list of ``{content, start_index, end_index}``) and
  ``corpus_id``, whose document is ``<corpus_id>.md``. Each ``content`` must equal the text
  at its indices.

Offsets are Python string indices (code points), as ``Chunk.char_start`` is.
"""

from __future__ import annotations

import csv
import itertools
import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import FerrochunkError


class QuestionsError(FerrochunkError):
    """A questions file that is malformed or does not match its documents (the message
    names the question and the document)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """An answer span: ``documents[doc][start:end]``."""

    doc: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Question:
    """A question and the spans that answer it; ``id`` says where it was read."""

    id: str
    text: str
    references: tuple[Reference, ...]


def read_questions(path: str | Path, documents: Mapping[str, str]) -> list[Question]:
    """The questions of ``path``: Chroma's CSV when it ends in ``.csv``, else JSON lines."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionsError(f"cannot read the questions file {path}: {exc}") from exc
    try:
        if path.suffix.lower() == ".csv":
            questions = list(_chroma_csv(raw, documents))
        else:
            questions = list(_json_lines(raw, documents))
    except QuestionsError as exc:
        raise QuestionsError(f"{path}: {exc}") from None
    if not questions:
        raise QuestionsError(f"{path} holds no questions")
    return questions


def _json_lines(raw: str, documents: Mapping[str, str]) -> Iterator[Question]:
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{where} is not JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise QuestionsError(f"{where} is not a JSON object")
        text = row.get("question")
        if not isinstance(text, str) or not text.strip():
            raise QuestionsError(f"{where}: 'question' must be a non-empty string, got {text!r}")
        refs = row.get("references")
        if not isinstance(refs, list) or not refs:
            raise QuestionsError(f"{where}: 'references' must be a non-empty list, got {refs!r}")
        question = Question(where, text, tuple(_reference(where, r, documents) for r in refs))
        _warn_overlaps(question)
        yield question


def _warn_overlaps(question: Question) -> None:
    """Chroma's metrics add the lengths of the references, so two that overlap count the
    shared characters twice: say so, naming both."""
    refs = sorted(question.references, key=lambda r: (r.doc, r.start, r.end))
    for a, b in itertools.pairwise(refs):
        if a.doc == b.doc and b.start < a.end:
            warnings.warn(
                f"{question.id}: references {a.start}:{a.end} and {b.start}:{b.end} of "
                f"{a.doc!r} overlap; the scores count the shared characters twice, as "
                "Chroma's do",
                UserWarning,
                stacklevel=4,
            )
            return


def check_questions(questions: Sequence[Question], documents: Mapping[str, str]) -> None:
    """Raises ``QuestionsError`` for a question the readers would refuse: an empty text, no
    references, a document that is not given, or a span outside its document or empty."""
    for q in questions:
        where = f"question {q.id!r}"
        if not isinstance(q.text, str) or not q.text.strip():
            raise QuestionsError(f"{where}: the text must be a non-empty string, got {q.text!r}")
        if not isinstance(q.references, tuple | list) or not q.references:
            raise QuestionsError(
                f"{where}: references must be a non-empty tuple of Reference, got {q.references!r}"
            )
        for ref in q.references:
            if not isinstance(ref, Reference):
                raise QuestionsError(f"{where}: a reference must be a Reference, got {ref!r}")
            text = _document(where, ref.doc, documents)
            _span(where, ref.doc, text, ref.start, ref.end)


def _document(where: str, doc: Any, documents: Mapping[str, str]) -> str:
    if not isinstance(doc, str) or doc not in documents:
        known = ", ".join(sorted(documents)[:5])
        raise QuestionsError(f"{where}: no document {doc!r} (documents: {known}, ...)")
    return documents[doc]


def _reference(where: str, ref: Any, documents: Mapping[str, str]) -> Reference:
    if not isinstance(ref, dict):
        raise QuestionsError(f"{where}: a reference must be an object, got {ref!r}")
    doc = ref.get("doc")
    text = _document(where, doc, documents)
    assert isinstance(doc, str)  # _document checked it
    if "text" in ref:
        return Reference(doc, *locate(where, doc, text, ref["text"]))
    start, end = ref.get("char_start"), ref.get("char_end")
    return Reference(doc, *_span(where, doc, text, start, end))


def locate(where: str, doc: str, text: str, excerpt: Any) -> tuple[int, int]:
    """The one place ``excerpt`` occurs in ``text``; none or two (overlapping included)
    is an error."""
    if not isinstance(excerpt, str) or not excerpt:
        raise QuestionsError(f"{where}: an excerpt must be a non-empty string, got {excerpt!r}")
    at = text.find(excerpt)
    if at < 0:
        raise QuestionsError(f"{where}: the excerpt {_short(excerpt)} is not in {doc!r}")
    again = text.find(excerpt, at + 1)
    if again >= 0:
        raise QuestionsError(
            f"{where}: the excerpt {_short(excerpt)} occurs more than once in {doc!r} "
            f"(at characters {at} and {again}); give char_start and char_end"
        )
    return at, at + len(excerpt)


def _span(where: str, doc: str, text: str, start: Any, end: Any) -> tuple[int, int]:
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
    if not ints or not 0 <= start < end <= len(text):
        raise QuestionsError(
            f"{where}: char_start and char_end must be integers with 0 <= start < end <= "
            f"{len(text)} (the length of {doc!r}), got {start!r} and {end!r}"
        )
    return start, end


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def chroma_document(corpus_id: str, documents: Mapping[str, str]) -> str:
    """The document id of a Chroma ``corpus_id``: ``<corpus_id>.md`` (or the id itself)."""
    return corpus_id if corpus_id in documents else f"{corpus_id}.md"


def _chroma_csv(raw: str, documents: Mapping[str, str]) -> Iterator[Question]:
    rows = csv.DictReader(raw.splitlines(keepends=True))
    missing = {"question", "references", "corpus_id"} - set(rows.fieldnames or ())
    if missing:
        raise QuestionsError(
            f"a Chroma questions CSV needs the columns question, references and corpus_id; "
            f"missing {', '.join(sorted(missing))}"
        )
    for n, row in enumerate(rows):
        where = f"row {n}"
        doc = chroma_document(row["corpus_id"], documents)
        text = _document(where, doc, documents)
        try:
            refs = json.loads(row["references"])
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{where}: references is not JSON: {exc}") from exc
        if not isinstance(refs, list) or not refs:
            raise QuestionsError(f"{where}: references must be a non-empty JSON list")
        out = []
        for ref in refs:
            if not isinstance(ref, dict):
                raise QuestionsError(f"{where}: a reference must be an object, got {ref!r}")
            start, end = _span(where, doc, text, ref.get("start_index"), ref.get("end_index"))
            if text[start:end] != ref.get("content"):
                raise QuestionsError(
                    f"{where}: the content {_short(str(ref.get('content')))} is not the text "
                    f"of {doc!r} at {start}:{end} ({_short(text[start:end])})"
                )
            out.append(Reference(doc, start, end))
        yield Question(where, row["question"], tuple(out))
