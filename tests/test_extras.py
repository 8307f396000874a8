"""Every optional package, when missing, fails with a message that names the extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    ("pyarrow", "import ferrochunk as fc; from ferrochunk.arrow import chunk_table; "
     "chunk_table(None, fc.Recursive(8))", "ferrochunk[arrow]"),
    ("ray", "import ferrochunk as fc; from ferrochunk.ray import chunk_dataset; "
     "chunk_dataset(None, fc.Recursive(8))", "ferrochunk[ray]"),
    ("pyspark", "import ferrochunk as fc; from ferrochunk.spark import chunk_dataframe; "
     "chunk_dataframe(None, fc.Recursive(8))", "ferrochunk[spark]"),
    ("dask.dataframe", "import ferrochunk as fc; from ferrochunk.dask import chunk_dataframe; "
     "chunk_dataframe(None, fc.Recursive(8))", "ferrochunk[dask]"),
    ("haystack", "import ferrochunk.integrations.haystack", "ferrochunk[haystack]"),
    ("tiktoken", "import ferrochunk as fc; fc.chunk('a b', fc.Recursive(8), backend='reference')",
     "ferrochunk[reference]"),
    ("langchain_text_splitters", "import ferrochunk.integrations.langchain",
     "ferrochunk[langchain]"),
    ("llama_index.core", "import ferrochunk.integrations.llama_index", "ferrochunk[llama-index]"),
    ("matplotlib", "from ferrochunk.cli import main; sys.exit(main(['bench', '--chunkers', "
     "'windows', '--repeat', '1', '--plot', 'x.png']))", "ferrochunk[bench]"),
]  # fmt: skip


@pytest.mark.parametrize(("module", "code", "extra"), CASES, ids=[c[0] for c in CASES])
def test_a_missing_extra_is_named(tmp_path, module, code, extra):
    script = f"import sys; sys.modules[{module!r}] = None\n{code}\n"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert run.returncode != 0
    # The library raises ImportError; the CLI says it in one line and exits 2.
    if code.startswith("from ferrochunk.cli"):
        assert run.returncode == 2
        assert "Traceback" not in run.stderr
    else:
        assert "ImportError" in run.stderr
    assert f"pip install '{extra}'" in run.stderr
