"""The child of a first pass (``timing._first_pass``): KEY MAX_TOKENS OVERLAP DOCUMENTS [TOK]."""

from __future__ import annotations

import json
import sys

from .timing import _child

key, size, over, path = sys.argv[1:5]
model = sys.argv[5] if len(sys.argv) > 5 else None
print(json.dumps(_child(key, int(size), int(over), path, model)))
