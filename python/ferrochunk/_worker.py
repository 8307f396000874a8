"""One chunking step that a data-frame engine ships to its workers (Spark, Dask).

Engines unpickle a task's closure once per task, and a ``tokenizer.json`` tokenizer costs a
few hundred milliseconds to build. So the step carries its config and tokenizer as pickled
bytes under a digest, and each worker process unpickles them once: later tasks with the
same digest reuse what the first one built.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .arrow import chunk_table
from .config import Config
from .tokenizers import Tokenizer

if TYPE_CHECKING:
    import pyarrow as pa

_BUILT: dict[str, tuple[Config, Tokenizer]] = {}
_LOCK = threading.Lock()
_KEEP = 8  # distinct steps held per worker; a long-lived worker may run many jobs


def _built(digest: str, payload: bytes) -> tuple[Config, Tokenizer]:
    with _LOCK:
        found = _BUILT.get(digest)
        if found is None:
            found = pickle.loads(payload)
            if len(_BUILT) >= _KEEP:
                _BUILT.pop(next(iter(_BUILT)))
            _BUILT[digest] = found
        return found


class ChunkStep:
    """``chunk_table`` with a fixed config, columns and tokenizer; cheap to pickle again.

    >>> import pyarrow as pa, ferrochunk as fc
    >>> step = ChunkStep(fc.Recursive(4), fc.Tokenizer.cl100k(), "text", (), threads=1)
    >>> step(pa.table({"text": ["One. Two three four."]}))["text"].to_pylist()
    ['One. ', 'Two three four.']
    """

    def __init__(
        self,
        config: Config,
        tokenizer: Tokenizer,
        text_column: str,
        keep_columns: Sequence[str],
        *,
        threads: int,
        id_column: str | None = None,
    ) -> None:
        self.payload = pickle.dumps((config, tokenizer), protocol=pickle.HIGHEST_PROTOCOL)
        self.digest = hashlib.sha256(self.payload).hexdigest()
        self.text_column = text_column
        self.keep_columns = tuple(keep_columns)
        self.threads = threads
        self.id_column = id_column

    def __call__(self, data: pa.Table | pa.RecordBatch) -> pa.Table:
        config, tokenizer = _built(self.digest, self.payload)
        return chunk_table(
            data,
            config,
            text_column=self.text_column,
            keep_columns=self.keep_columns,
            tokenizer=tokenizer,
            threads=self.threads,
            id_column=self.id_column,
        )
