"""RAGFlow drop-ins against upstream's own objects and call shapes.

The records in ``data/upstream/ragflow.jsonl.gz`` were made by running RAGFlow b1b8cd6 itself
(its ``LazyImage`` and Pillow images, its ``MergeStrategy``, its ``TokenChunker`` through
``ProcessBase.invoke``). The vector replay cannot express these inputs, so each kind has its
own small driver here; both backends must reproduce every record.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import json
import pickle
import re
from enum import Enum
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support import DATA

import ferrochunk as fc
from ferrochunk.compat import ragflow as native
from ferrochunk.reference import ragflow as reference

MODULES = {"native": native, "reference": reference}
with gzip.open(DATA / "upstream" / "ragflow.jsonl.gz", "rt", encoding="utf-8") as _lines:
    RECORDS = [json.loads(line) for line in _lines]


def _records(kind: str) -> list[dict[str, Any]]:
    chosen = [r for r in RECORDS if r["kind"] == kind]
    assert chosen, kind
    return chosen


class UpstreamLazyImage:
    """Shaped as ``rag.utils.lazy_image.LazyImage``: private ``_blobs``, falsy when empty,
    unknown attributes forwarded to the decoded Pillow image."""

    def __init__(self, blobs: Any, source: Any = None) -> None:
        self._blobs = [b for b in (blobs or []) if b]
        self.source = source
        self._pil: Any = None

    def __bool__(self) -> bool:
        return bool(self._blobs)

    def to_pil(self) -> Any:
        if self._pil is None:
            images = [Image.open(io.BytesIO(b)).convert("RGB") for b in self._blobs]
            stacked = None
            for image in images:
                stacked = image if stacked is None else native.concat_img(stacked, image)
            self._pil = stacked
        return self._pil

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_blobs", "_pil", "source"):
            raise AttributeError(name)
        pil = self.to_pil()
        if pil is None:
            raise AttributeError(name)
        return getattr(pil, name)


class UpstreamMergeStrategy(Enum):
    """Shaped as ``rag.nlp.MergeStrategy``: a plain Enum of its own."""

    UNDER_CAP = "under_cap"
    OVER_CAP = "over_cap"


def _png(spec: list[Any]) -> bytes:
    width, height, rgb = spec
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), tuple(rgb)).save(buffer, format="PNG")
    return buffer.getvalue()


def _images(specs: list[Any], lazy_class: Any) -> list[Any]:
    made: list[Any] = []
    for spec in specs:
        if spec is None:
            made.append(None)
        elif "same" in spec:
            made.append(made[spec["same"]])
        elif "lazy" in spec:
            made.append(lazy_class([_png(x) if x else b"" for x in spec["lazy"]]))
        else:
            width, height, rgb = spec["pil"]
            made.append(Image.new("RGB", (width, height), tuple(rgb)))
    return made


def _encode_image(image: Any, inputs: list[Any]) -> Any:
    if image is None:
        return None
    for k, given in enumerate(inputs):
        if given is image:
            return {"input": k}
    if isinstance(image, Image.Image):
        digest = hashlib.sha256(image.tobytes()).hexdigest()
        return {"pil": {"size": list(image.size), "mode": image.mode, "sha256": digest}}
    blobs = vars(image)["_blobs"]
    return {"lazy": [hashlib.sha256(b).hexdigest() for b in blobs], "truthy": bool(image)}


@pytest.mark.parametrize("lazy", ["own", "upstream-shaped"])
@pytest.mark.parametrize("record", _records("naive_merge_with_images"), ids=lambda r: r["id"])
def test_images_as_ragflow_parsers_make_them(record, lazy, backend):
    m = MODULES[backend]
    lazy_class = m.LazyImage if lazy == "own" else UpstreamLazyImage
    images = _images(record["images"], lazy_class)
    chunks, merged = m.naive_merge_with_images(
        record["texts"], images, record["chunk_token_num"], record["delimiter"]
    )
    assert chunks == record["expected"]["chunks"]
    assert [_encode_image(i, images) for i in merged] == record["expected"]["images"]
    for image in merged:
        if image is not None and not isinstance(image, Image.Image):
            assert type(image) is lazy_class  # rebuilt with the caller's own class


def test_merged_lazy_images_decode_to_the_stacked_picture(backend):
    m = MODULES[backend]
    red, green = m.LazyImage([_png([4, 3, [255, 0, 0]])]), m.LazyImage([_png([2, 2, [0, 255, 0]])])
    _, (merged,) = m.naive_merge_with_images(["a", "b"], [red, green], 128, "\n")
    assert merged.size == (4, 5)  # forwarded to the decoded Pillow image, as upstream
    assert merged.getpixel((0, 0)) == (255, 0, 0)
    assert merged.getpixel((0, 4)) == (0, 255, 0)


def test_a_lazy_image_works_where_upstreams_does(backend):
    m = MODULES[backend]
    image = m.LazyImage([_png([3, 2, [0, 0, 255]])])
    assert np.asarray(image).shape == (2, 3, 3)
    assert np.asarray(m.LazyImage([])).shape == (0,)
    with image as pil:
        assert pil.size == (3, 2)
    copied = pickle.loads(pickle.dumps(image))  # upstream's recurses here; ours pickles
    assert vars(copied)["_blobs"] == vars(image)["_blobs"]


def test_an_empty_lazy_image_is_falsy(backend):
    (record,) = _records("lazy_truthiness")
    image = MODULES[backend].LazyImage([b"" if b is None else b for b in record["blobs"]])
    assert bool(image) is record["expected"]["truthy"]
    assert len(vars(image)["_blobs"]) == record["expected"]["blobs"]


def _strategies(spec: dict[str, str], m: Any) -> list[Any]:
    """A plain string as is; an enum member from each of the three enums that name it."""
    if "str" in spec:
        return [spec["str"]]
    name = spec["enum"]
    return [UpstreamMergeStrategy[name], m.MergeStrategy[name], fc.MergeStrategy[name]]


@pytest.mark.parametrize("record", _records("merge_paragraphs"), ids=lambda r: r["id"])
def test_merge_paragraphs_strategy_as_upstream_compares_it(record, backend):
    m = MODULES[backend]
    for strategy in _strategies(record["strategy"], m):
        got = m.merge_paragraphs(record["paragraphs"], record["token_size"], strategy, size=len)
        assert got == record["expected"], strategy


@pytest.mark.parametrize("record", _records("naive_merge"), ids=lambda r: r["id"])
def test_naive_merge_takes_any_under_cap_member(record, backend):
    m = MODULES[backend]
    for strategy in _strategies(record["strategy"], m):
        got = m.naive_merge(
            record["sections"], record["chunk_token_num"], record["delimiter"], 0, strategy
        )
        assert got == record["expected"], strategy


def test_compat_merge_strategy_is_a_plain_enum():
    assert not isinstance(native.MergeStrategy.UNDER_CAP, str)
    assert native.MergeStrategy.UNDER_CAP != "under_cap"
    assert isinstance(fc.MergeStrategy.UNDER_CAP, str)  # the native config's enum is unchanged


class Canvas:
    """What a RAGFlow canvas gives a component: a progress callback taking its id first."""

    def __init__(self) -> None:
        self.calls: list[list[Any]] = []

    def callback(self, component_id: str, progress: float, message: str = "") -> None:
        self.calls.append([component_id, progress, message])


def _normalise(error: Any) -> Any:
    if isinstance(error, str):
        return re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/<v>/", error)
    return error


@pytest.mark.parametrize("record", _records("invoke"), ids=lambda r: r["id"])
def test_token_chunker_upstream_constructor_and_async_invoke(record, backend):
    m = MODULES[backend]
    param = m.TokenChunkerParam()
    vars(param).update(record["param"])
    canvas = Canvas()
    component = m.TokenChunker(canvas, "TokenChunker:7", param)
    expected = record["expected"]
    if "raises" in expected:
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the class is checked below
            asyncio.run(component.invoke(**record["input"]))
        assert type(caught.value).__name__ == expected["raises"]
        return
    outputs = asyncio.run(component.invoke(**record["input"]))
    assert list(outputs) == expected["keys"]
    assert isinstance(outputs["_elapsed_time"], float)
    shown = {k: _normalise(v) for k, v in outputs.items() if not k.startswith("_") or k == "_ERROR"}
    assert shown == expected["outputs"]
    assert (component.error() is not None) is expected["error"]
    assert component.output("chunks") == outputs.get("chunks", "")
    assert [c for c in canvas.calls if c[1] in (1, -1)] == expected["callbacks"]
    for key, value in expected["param_after_check"].items():
        assert getattr(param, key) == value, key


def test_token_chunker_without_a_canvas_and_the_sync_helper(backend):
    m = MODULES[backend]
    component = m.TokenChunker(None, "TokenChunker:0", m.TokenChunkerParam())
    outputs = component.invoke_sync(name="a.txt", output_format="text", text="one\ntwo")
    assert outputs["chunks"] == [{"text": "one\ntwo"}]
    param = m.TokenChunkerParam()
    param.chunk_token_size = 0
    with pytest.raises(ValueError, match="Chunk token size"):
        m.TokenChunker(None, "TokenChunker:0", param)  # checked on construction, as upstream


def test_input_errors_are_pydantics_own_text(backend):
    m = MODULES[backend]
    component = m.TokenChunker(None, "TokenChunker:0", m.TokenChunkerParam())
    asyncio.run(component._invoke(name="a", output_format="pdf"))
    assert "Input should be 'json', 'markdown', 'text', 'html' or 'chunks'" in component.error()
    assert "[type=literal_error, input_value='pdf', input_type=str]" in component.error()
