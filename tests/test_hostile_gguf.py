"""Hostile GGUF headers (round 2, row 5): arrays nested 5,000 deep, and a valid header fuzzed one change at a time.

Property of the header reader: any bytes give metadata or ModelFileInvalid, never another exception; and a bad
file is named by `bakeoff models` (the rest of the folder still listed), `bakeoff ask` and the plan check.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from click.testing import CliRunner
from fuzz_support import FUZZ, Reach
from hypothesis import given
from hypothesis import strategies as st
from test_models_memory import _string, write_gguf

from bakeoff.cli import main
from bakeoff.models.errors import ModelFileInvalid
from bakeoff.models.gguf_header import MAX_ARRAY_DEPTH, read_info, read_metadata
from bakeoff.models.registry import check_reasoning_mode

DEPTH = 5000


def nested_array_gguf(path, depth: int = DEPTH):
    """A GGUF header whose one value is an array of an array of ... `depth` levels, the innermost empty."""
    nested = b"".join(struct.pack("<IQ", 9, 1) for _ in range(depth - 1)) + struct.pack("<IQ", 0, 0)
    body = _string("general.architecture") + struct.pack("<I", 8) + _string("llama")
    body += _string("odd.nested") + struct.pack("<I", 9) + nested
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + body)
    return path


def test_a_header_nested_5000_deep_is_a_named_error_not_a_recursion_error(tmp_path):
    path = nested_array_gguf(tmp_path / "deep.gguf")
    with pytest.raises(ModelFileInvalid, match="nested more than"):
        read_metadata(path)
    assert read_metadata(nested_array_gguf(tmp_path / "shallow.gguf", depth=3))["general.architecture"] == "llama"


def test_bakeoff_models_names_the_deep_file_and_lists_the_rest(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    nested_array_gguf(folder / "deep.gguf")
    write_gguf(folder / "fine.gguf", {"general.architecture": "llama", "llama.block_count": 2,
                                      "llama.embedding_length": 64, "llama.attention.head_count": 4})
    result = CliRunner().invoke(main, ["models", "--dir", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    entries = {json.loads(line)["path"].rsplit("/", 1)[-1]: json.loads(line) for line in result.stdout.splitlines()}
    assert "nested more than" in entries["deep.gguf"]["note"] and entries["fine.gguf"]["architecture"] == "llama"


def test_ask_and_the_plan_check_name_the_deep_file(tmp_path):
    path = nested_array_gguf(tmp_path / "deep.gguf")
    result = CliRunner().invoke(main, ["ask", "--model", f"gguf:{path}", "hi"])
    assert result.exit_code != 0 and "error: ModelFileInvalid:" in result.output and "Traceback" not in result.output
    check_reasoning_mode(f"gguf:{path}", "off")  # a header that cannot be read is the load's to name: no traceback


def _header(entries: list[tuple[str, int, bytes]]) -> bytes:
    body = b"".join(_string(key) + struct.pack("<I", kind) + value for key, kind, value in entries)
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(entries)) + body


VALID = _header([
    ("general.architecture", 8, _string("llama")),
    ("llama.block_count", 4, struct.pack("<I", 2)),
    ("llama.embedding_length", 4, struct.pack("<I", 64)),
    ("llama.attention.head_count", 4, struct.pack("<I", 4)),
    ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + _string("a") + _string("b")),
    ("nested", 9, struct.pack("<IQ", 9, 2) + struct.pack("<IQ", 4, 1) + struct.pack("<I", 7) + struct.pack("<IQ", 0, 0)),
    ("tokenizer.chat_template", 8, _string("{{ messages }}")),
])


HEADER_CHANGES = ("none", "none", "tail", "text", "byte", "byte", "cut", "kind", "count")
TEXTS = [b"llama", b"{{ messages }}"]  # string values of VALID whose letters any letter may replace


@st.composite
def damaged_headers(draw: st.DrawFn) -> tuple[bytes, str]:
    """(VALID with one change, the change): bytes after the header, a letter of a string value replaced, one byte
    anywhere replaced, the header cut short, an entry's value kind or an array's count replaced."""
    change = draw(st.sampled_from(HEADER_CHANGES))
    data = bytearray(VALID)
    if change == "tail":
        data += draw(st.binary(min_size=1, max_size=40))
    elif change == "text":
        text = draw(st.sampled_from(TEXTS))
        at = data.find(text) + draw(st.integers(0, len(text) - 1))
        data[at] = draw(st.integers(0x20, 0x7E))
    elif change == "byte":
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    elif change == "cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif change != "none":  # a 4-byte kind or 8-byte count where one is written: found by its known value in VALID
        marks = [i for i in range(24, len(data) - 4) if data[i:i + 4] in (struct.pack("<I", 8), struct.pack("<I", 9))]
        at = draw(st.sampled_from(marks))
        size = 4 if change == "kind" else 8
        data[at:at + size] = draw(st.integers(0, 2 ** (8 * size) - 1)).to_bytes(size, "little")
    return bytes(data), change


@FUZZ
@given(case=damaged_headers())
def _fuzz_header(reach: Reach, folder, case) -> None:
    data, change = case
    path = folder / "fuzzed.gguf"
    path.write_bytes(data)
    try:
        info = read_info(path)
    except ModelFileInvalid:
        reach.saw(False, change)
        return
    reach.saw(True, change)
    assert info is not None


def test_any_damaged_header_gives_metadata_or_a_named_error(tmp_path):
    reach = Reach("GGUF header")
    _fuzz_header(reach, tmp_path)
    reach.check()


ARRAY_CHANGES = ("none", "none", "deeper", "wider", "kind")


@st.composite
def array_values(draw: st.DrawFn) -> tuple[tuple, str]:
    """(an array value's shape, the change). Valid: an array of scalars, of strings, or of arrays one level down,
    as real files hold; then one change: nested deeper (up to past the cap), more items, an unknown item kind."""
    shape: tuple[int, Any] = draw(st.sampled_from([(9, [(4, 3)]), (9, [(8, 2)]), (9, [(9, [(0, 1), (6, 2)]), (10, 1)])]))
    change = draw(st.sampled_from(ARRAY_CHANGES))
    if change == "deeper":
        for _ in range(draw(st.integers(1, MAX_ARRAY_DEPTH + 4))):
            shape = (9, [shape])
    elif change == "wider":
        shape = (9, shape[1] + draw(st.lists(st.tuples(st.sampled_from([0, 4, 6, 8, 10]), st.integers(0, 3)),
                                             min_size=1, max_size=3)))
    elif change == "kind":
        shape = (9, [(draw(st.sampled_from([13, 99, 2**31])), 1)])
    return shape, change


@FUZZ
@given(case=array_values())
def _fuzz_array_shape(reach: Reach, folder, case) -> None:
    def encode(node) -> bytes:
        kind, content = node
        if kind != 9:
            size = {0: 1, 4: 4, 6: 4, 10: 8}.get(kind, 1)
            items = b"".join(_string("s") for _ in range(content)) if kind == 8 else b"\x00" * (size * content)
            return struct.pack("<IQ", kind, content) + items
        return struct.pack("<IQ", 9, len(content)) + b"".join(encode(child) for child in content)

    shape, change = case
    path = folder / "arrays.gguf"
    path.write_bytes(_header([("general.architecture", 8, _string("llama")), ("x", 9, encode(shape))]))
    try:
        assert read_metadata(path)["general.architecture"] == "llama"
    except ModelFileInvalid as exc:
        reach.saw(False, change)
        assert change in ("deeper", "kind")
        assert change != "deeper" or "nested more than" in str(exc)
        return
    reach.saw(True, change)


def test_any_array_shape_is_skipped_or_refused_by_name(tmp_path):
    reach = Reach("GGUF arrays")
    _fuzz_array_shape(reach, tmp_path)
    reach.check()
