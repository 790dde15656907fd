"""Read a GGUF file's metadata header without loading the model.

Only the key/value section at the start of the file is read; large arrays
(the tokenizer's vocabulary) are skipped, not kept. This is what lets
bakeoff estimate a model's memory need and list models cheaply.

A GGUF file is untrusted input: every length is checked against what is left
of the file before it is used, arrays of arrays are skipped with an explicit
stack (no recursion) and refused past MAX_ARRAY_DEPTH levels, and a string value
kept in memory may be at most MAX_STRING_BYTES long: each is a named
ModelFileInvalid, never a RecursionError or MemoryError.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from bakeoff.models.errors import ModelFileInvalid

GGUF_MAGIC = b"GGUF"

# GGUF value types (the file format's own numbering).
_SCALARS = {
    0: "<B",  # uint8
    1: "<b",  # int8
    2: "<H",  # uint16
    3: "<h",  # int16
    4: "<I",  # uint32
    5: "<i",  # int32
    6: "<f",  # float32
    7: "<?",  # bool
    10: "<Q",  # uint64
    11: "<q",  # int64
    12: "<d",  # float64
}
_STRING = 8
_ARRAY = 9
MAX_ARRAY_DEPTH = 16  # real files nest arrays one level deep; nothing needs more
MAX_STRING_BYTES = 64 << 20  # a chat template is kilobytes; a value this long is not metadata

# general.file_type: llama.cpp's llama_ftype numbering, the quantization of most tensors.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
    10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
    16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
    22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
    28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
}


@dataclass(frozen=True)
class GgufInfo:
    """What bakeoff needs from a GGUF header."""

    path: Path
    file_bytes: int
    version: int
    architecture: str
    name: str
    quantization: str  # e.g. "Q4_K_M", or "unknown"
    n_layer: int
    n_embd: int
    n_head: int
    n_head_kv: int
    head_dim_k: int
    head_dim_v: int
    context_length: int  # the context the model was trained for
    parameters: int = 0  # the weights' element count, summed over the tensor table (0: not read)

    def kv_cache_bytes(self, n_ctx: int, bytes_per_value: int = 2) -> int:
        """K and V caches for `n_ctx` tokens, f16 by default (llama.cpp's default cache type)."""
        per_token = self.n_layer * self.n_head_kv * (self.head_dim_k + self.head_dim_v)
        return per_token * n_ctx * bytes_per_value


class _Reader:
    def __init__(self, stream: BinaryIO, path: Path) -> None:
        self.stream = stream
        self.path = path
        self.size = os.fstat(stream.fileno()).st_size

    def _require(self, n: int) -> None:
        """A length read from the file is checked against what is left of it before it is used."""
        if n > self.size - self.stream.tell():
            raise ModelFileInvalid(f"{self.path}: GGUF header ends early")

    def take(self, n: int) -> bytes:
        self._require(n)
        return self.stream.read(n)

    def skip(self, n: int) -> None:
        self._require(n)
        self.stream.seek(n, 1)

    def scalar(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        length = self.scalar("<Q")
        self._require(length)
        if length > MAX_STRING_BYTES:
            raise ModelFileInvalid(f"{self.path}: a GGUF string of {length:,} bytes (more than {MAX_STRING_BYTES:,})")
        return self.take(length).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        self.skip(self.scalar("<Q"))

    def value(self, value_type: int):
        if value_type in _SCALARS:
            return self.scalar(_SCALARS[value_type])
        if value_type == _STRING:
            return self.string()
        if value_type == _ARRAY:
            return self.skip_array()
        raise ModelFileInvalid(f"{self.path}: unknown GGUF value type {value_type}")

    def skip_array(self) -> None:
        """Arrays (vocabularies, merges) are skipped: bakeoff needs none of them.

        An array of arrays is walked with a stack of (arrays left to skip at this level), never by recursion.
        """
        pending = [1]  # the one array whose header comes next
        while pending:
            if pending[-1] == 0:
                pending.pop()
                continue
            pending[-1] -= 1
            element_type, count = self.scalar("<I"), self.scalar("<Q")
            if element_type in _SCALARS:
                self.skip(struct.calcsize(_SCALARS[element_type]) * count)
            elif element_type == _STRING:
                self._require(count * 8)  # each string has at least its length
                for _ in range(count):
                    self.skip_string()
            elif element_type == _ARRAY:
                if len(pending) >= MAX_ARRAY_DEPTH:
                    raise ModelFileInvalid(
                        f"{self.path}: GGUF metadata arrays nested more than {MAX_ARRAY_DEPTH} levels deep")
                self._require(count * 12)  # each element array has at least its type and count
                pending.append(count)
            else:
                raise ModelFileInvalid(f"{self.path}: unknown GGUF value type {element_type}")
        return None


def read_metadata(path: Path) -> dict:
    """All scalar and string metadata of a GGUF file (arrays are left out)."""
    return _read_header(Path(path), with_tensors=False)[0]


MAX_DIMS = 8  # GGML_MAX_DIMS is 4; a table claiming more is not a GGUF's


def _parameters(reader: _Reader, tensors: int) -> int:
    """The element count of every tensor in the table that follows the metadata: the model's parameters."""
    total = 0
    for _ in range(tensors):
        reader.skip_string()  # the tensor's name
        dims = reader.scalar("<I")
        if dims > MAX_DIMS:
            raise ModelFileInvalid(f"{reader.path}: a tensor of {dims} dimensions")
        count = 1
        for _ in range(dims):
            count *= reader.scalar("<Q")
        reader.skip(4 + 8)  # its type and offset
        total += count
    return total


def _read_header(path: Path, with_tensors: bool) -> tuple[dict, int]:
    """(metadata, parameter count: 0 unless `with_tensors`)."""
    if not path.is_file():
        from bakeoff.models.errors import ModelFileNotFound

        raise ModelFileNotFound(f"no such GGUF file: {path}")
    with path.open("rb") as stream:
        reader = _Reader(stream, path)
        if stream.read(4) != GGUF_MAGIC:
            raise ModelFileInvalid(f"{path} is not a GGUF file (no GGUF magic number)")
        version = reader.scalar("<I")
        if version < 2:
            raise ModelFileInvalid(f"{path}: GGUF version {version} is too old (need 2 or later)")
        tensors = reader.scalar("<Q")
        kv_count = reader.scalar("<Q")
        metadata: dict = {"GGUF.version": version}
        for _ in range(kv_count):
            key = reader.string()
            value = reader.value(reader.scalar("<I"))
            if value is not None:
                metadata[key] = value
        parameters = _parameters(reader, tensors) if with_tensors else 0
    return metadata, parameters


def read_info(path: Path) -> GgufInfo:
    """The model's shape and quantization, from its header."""
    path = Path(path)
    meta, parameters = _read_header(path, with_tensors=True)
    arch = str(meta.get("general.architecture", ""))

    def number(suffix: str, default: int | None = None) -> int:
        value = meta.get(f"{arch}.{suffix}", default)
        if value is None:
            raise ModelFileInvalid(f"{path}: GGUF metadata lacks {arch}.{suffix}")
        if isinstance(value, str) or not float(value).is_integer():
            raise ModelFileInvalid(f"{path}: GGUF metadata {arch}.{suffix} is {value!r}, not a whole number")
        return int(value)

    n_embd = number("embedding_length")
    n_head = number("attention.head_count")
    head_dim = n_embd // n_head if n_head else 0
    file_type = meta.get("general.file_type")
    return GgufInfo(
        path=path,
        file_bytes=path.stat().st_size,
        version=int(meta["GGUF.version"]),
        architecture=arch,
        name=str(meta.get("general.name", path.stem)),
        quantization=FILE_TYPES.get(file_type, "unknown") if file_type is not None else "unknown",
        n_layer=number("block_count"),
        n_embd=n_embd,
        n_head=n_head,
        n_head_kv=number("attention.head_count_kv", n_head),
        head_dim_k=number("attention.key_length", head_dim),
        head_dim_v=number("attention.value_length", head_dim),
        context_length=number("context_length", 0),
        parameters=parameters,
    )
