"""Drop-in replacements that keep upstream names, signatures, defaults and outputs.

Switch by changing one import, e.g.
``from ferrochunk.compat.ragflow import num_tokens_from_string``.
"""

PURE_PYTHON: dict[str, tuple[str, ...]] = {
    "ragflow": (
        "bullets_category",
        "compile_delimiter_pattern",
        "normalize_overlapped_percent",
        "not_bullet",
        "not_title",
        "title_frequency",
        "token_chunker._compile_delimiter_pattern",
        "token_chunker._split_text_by_pattern",
        "tree_merge",
    ),
    "dify": ("remove_leading_symbols",),
    "voltagent": ("cosineSimilarity", "detectFormat", "normalizeText"),
}
"""Compat names (as the vector files name them) that are deliberately pure Python on both
faces: small regex and arithmetic helpers with nothing to gain from Rust. Everything else
enters the core on its normal path; ``tests/test_independence.py`` checks this list against
an instrumented run of every vector."""
