"""Documents and configs the data-frame engine tests (Spark, Dask) share, and the rows
``chunk_table`` gives for them: what every engine must return."""

from __future__ import annotations

import ferrochunk as fc

ROWS = [
    {
        "id": i,
        "text": None
        if i % 11 == 5
        else f"# Doc {i}\n\nSome words, then more. " * (i % 7) + "你好。世界。" * (i % 3) + "end.",
    }
    for i in range(48)
]
"""48 documents: Markdown headings, CJK, nulls, and one of only ``end.``."""

CONFIGS = {
    "delimiter": fc.DelimiterMerge(12, delimiters=(". ", "。"), child_delimiters=(",",)),
    "markdown": fc.Markdown(24, overlap_tokens=4),
    "parent-child": fc.ParentChild(fc.Recursive(40), child=fc.Recursive(10, overlap_tokens=2)),
    "windows": fc.TokenWindows(9, overlap_tokens=3),
}
"""A config of each metadata shape: spans, headings, children, overlaps."""


def by_chunk(rows):  # type: ignore[no-untyped-def]
    """Rows in (document id, chunk index) order."""
    return sorted(rows, key=lambda r: (r["id"], r["chunk_index"]))


def expected(config, **kwargs):  # type: ignore[no-untyped-def]
    """``chunk_table``'s rows for :data:`ROWS`, keeping ``id``."""
    import pyarrow as pa

    from ferrochunk.arrow import chunk_table

    schema = pa.schema([("id", pa.int64()), ("text", pa.string())])
    table = pa.Table.from_pylist(ROWS, schema=schema)
    return by_chunk(chunk_table(table, config, keep_columns=["id"], **kwargs).to_pylist())


# Arguments every engine's chunk_dataframe refuses, with the error and words it raises.
BAD_ARGUMENTS = [
    ({"text_column": "body"}, "ConfigError", "'body'"),
    ({"text_column": "id"}, "ConfigError", "'id'"),
    ({"keep_columns": ["nope"]}, "ConfigError", "nope"),
    ({"keep_columns": "id"}, "ConfigTypeError", "keep"),
    ({"keep_columns": ["token_count"]}, "ConfigError", "token_count"),
    ({"config": {"max_tokens": 5}}, "ConfigTypeError", "config"),
    ({"threads": 0}, "ConfigError", "threads"),
    (
        {"tokenizer": fc.Tokenizer.from_callable(lambda t: ([], []))},
        "ConfigError",
        "needs a native tokenizer",
    ),
]
"""``(keyword arguments, ferrochunk.errors name, words)``; a frame of ``id``, ``text``
and ``token_count`` columns."""


def versions() -> tuple[dict[str, str], dict[str, str]]:
    """Two versions of a small corpus: one page edited, one removed, one added."""
    page = "# Guide\n\n" + "".join(
        f"## Part {k}\n\nCall the function {k} times.\n\n" for k in range(9)
    )
    old = {f"doc-{i}.md": page.replace("Guide", f"Guide {i}") for i in range(4)}
    new = dict(old)
    new["doc-1.md"] = old["doc-1.md"].replace("function 4", "method 4")
    del new["doc-2.md"]
    new["doc-9.md"] = "A new page.\n"
    return old, new


DIFF_CONFIG = fc.Markdown(24)


def local_diff(old: dict[str, str], new: dict[str, str]) -> tuple[set[str], set[str]]:
    """The record ids to add and to delete, by ``chunk_table`` and ``diff_tables``."""
    import pyarrow as pa

    from ferrochunk.arrow import chunk_table, diff_tables

    def table(docs: dict[str, str]):  # type: ignore[no-untyped-def]
        data = pa.table({"doc_id": list(docs), "text": list(docs.values())})
        return chunk_table(data, DIFF_CONFIG, keep_columns=["doc_id"], id_column="doc_id")

    diff = diff_tables(table(old), table(new))
    return set(diff.added.column("record_id").to_pylist()), set(
        diff.removed.column("record_id").to_pylist()
    )
