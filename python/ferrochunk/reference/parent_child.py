"""``ParentChild`` in plain Python, written from its contract (``ferrochunk.ParentChild``).

Parents are ``Recursive`` chunks of the text (``"full-doc"``: the text itself, one parent);
the children of a parent are ``Recursive`` chunks of the parent's own span, cut over the
parent's tokens, the first of which is taken to start at the parent's first byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._offsets import byte_to_char
from .recursive import Span, Tokens, cut_spans, whole_text_tokens
from .rows import Batch, Rows, row

if TYPE_CHECKING:
    from ..config import ParentChild, Recursive


def _children(tokens: Tokens, parent: Span, child: Recursive) -> list[Span]:
    ts, te, bs, be, _ = parent
    starts = [tokens.bound(i) for i in range(ts, te)]
    if starts:
        starts[0] = bs
    words = None if tokens.words is None else [tokens.word(i) for i in range(ts, te)]
    return cut_spans(Tokens(tokens.data, starts, ts, be, words), bs, child)


def batch(text: str, byte_starts: Sequence[int], config: ParentChild) -> Batch:
    """Each parent row followed by its children's rows (see ``rows.py``)."""
    data = text.encode("utf-8")
    tokens = whole_text_tokens(data, byte_starts)
    if not isinstance(config.parent, str):
        parents = cut_spans(tokens, 0, config.parent)
        families = [(p, _children(tokens, p, config.child)) for p in parents]
    elif data:
        families = [((0, tokens.n, 0, len(data), False), cut_spans(tokens, 0, config.child))]
    else:
        families = []
    positions = [x for p, kids in families for s in (p, *kids) for x in s[2:4]]
    chars = dict(zip(positions, byte_to_char(data, positions), strict=True))
    table = []
    for i, (parent, kids) in enumerate(families):
        for index, up, (ts, te, bs, be, big) in [(i, -1, parent)] + [
            (j, i, kid) for j, kid in enumerate(kids)
        ]:
            table.append(
                row(index, up, (ts, te), (bs, be, chars[bs], chars[be]), oversize=int(big))
            )
    return Rows(table, [], [text[r[6] : r[7]] for r in table], None)
