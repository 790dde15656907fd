"""GGUF header reading and the fit check that refuses a model before loading it."""

from __future__ import annotations

import struct

import pytest

from bakeoff.models.errors import BackendUnavailable, ModelDoesNotFit, ModelFileInvalid
from bakeoff.models.gguf_header import read_info
from bakeoff.models.memory import GIB, MIB, FixedProbe, GpuMemory, NvmlProbe, check_fits, estimate_gpu_memory
from bakeoff.models.registry import BackendOptions, default_model_path, open_backend

SIMULATED_2GB = FixedProbe(GpuMemory("Simulated 2 GB GPU", free_bytes=2 * GIB, total_bytes=2 * GIB))
SIMULATED_80GB = FixedProbe(GpuMemory("Simulated 80 GB GPU", free_bytes=80 * GIB, total_bytes=80 * GIB))


def _string(value: str) -> bytes:
    data = value.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path, metadata: dict, size_bytes: int = 0):
    """A GGUF file with the given metadata and no tensors, padded (sparsely) to `size_bytes`."""
    body = b""
    for key, value in metadata.items():
        body += _string(key)
        if isinstance(value, str):
            body += struct.pack("<I", 8) + _string(value)
        elif isinstance(value, list):  # an array of strings, like a vocabulary
            body += struct.pack("<I", 9) + struct.pack("<IQ", 8, len(value)) + b"".join(_string(v) for v in value)
        else:
            body += struct.pack("<I", 4) + struct.pack("<I", value)
    with open(path, "wb") as stream:
        stream.write(b"GGUF" + struct.pack("<IQQ", 3, 0, len(metadata)) + body)
        if size_bytes:
            stream.truncate(size_bytes)  # sparse: takes no disk space
    return path


def seven_b_header(path, size_bytes=int(4.4 * GIB)):
    """The shape of a Llama-style 7B model at Q4_K_M, without its weights."""
    return write_gguf(
        path,
        {
            "general.architecture": "llama",
            "general.name": "Pretend 7B",
            "general.file_type": 15,
            "tokenizer.ggml.tokens": ["<s>", "</s>", "hello"],
            "llama.block_count": 32,
            "llama.embedding_length": 4096,
            "llama.attention.head_count": 32,
            "llama.attention.head_count_kv": 8,
            "llama.context_length": 32768,
        },
        size_bytes,
    )


def test_default_model_header():
    info = read_info(default_model_path())
    assert info.architecture == "llama" and info.quantization == "Q4_1"
    assert (info.n_layer, info.n_embd, info.n_head, info.n_head_kv) == (30, 576, 9, 3)
    assert info.head_dim_k == 64 and info.context_length == 8192
    # K and V, 30 layers, 3 KV heads of 64, f16: 23,040 bytes a token
    assert info.kv_cache_bytes(1) == 23040


def test_header_of_a_synthetic_file_skips_arrays(tmp_path):
    info = read_info(seven_b_header(tmp_path / "seven.gguf"))
    assert (info.name, info.quantization, info.n_layer, info.n_head_kv) == ("Pretend 7B", "Q4_K_M", 32, 8)
    assert info.file_bytes == int(4.4 * GIB)


def test_not_a_gguf_file(tmp_path):
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ModelFileInvalid, match="not a GGUF file"):
        read_info(path)
    path.write_bytes(b"GGUF" + struct.pack("<I", 3))
    with pytest.raises(ModelFileInvalid, match="ends early"):
        read_info(path)


def test_a_shape_that_is_not_a_number_is_invalid_not_a_crash(tmp_path):
    path = write_gguf(tmp_path / "odd.gguf", {"general.architecture": "llama", "llama.embedding_length": "wide"})
    with pytest.raises(ModelFileInvalid, match="embedding_length"):
        read_info(path)


@pytest.mark.parametrize(
    "body",
    [
        struct.pack("<Q", 2**63 - 1),  # a key longer than any file
        _string("vocab") + struct.pack("<IIQ", 9, 6, 2**62),  # an array of f32 reaching far past the end
        _string("vocab") + struct.pack("<IIQ", 9, 8, 1) + struct.pack("<Q", 2**40),  # a long string in an array
    ],
    ids=["key", "f32_array", "string_in_array"],
)
def test_a_length_past_the_end_of_the_file_is_invalid_not_a_crash(tmp_path, body):
    path = tmp_path / "corrupt.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + body)
    with pytest.raises(ModelFileInvalid, match="ends early"):
        read_info(path)


def test_estimate_counts_weights_kv_cache_and_partial_offload(tmp_path):
    info = read_info(seven_b_header(tmp_path / "seven.gguf"))
    full = estimate_gpu_memory(info, n_ctx=8192, n_gpu_layers=-1)
    # 32 layers x 8 KV heads x (128 + 128) x 8192 tokens x 2 bytes = 1 GiB
    assert full.kv_cache_bytes == 1 * GIB
    assert full.weights_bytes == info.file_bytes and full.offloaded_layers == 32
    half = estimate_gpu_memory(info, n_ctx=8192, n_gpu_layers=16)
    assert half.weights_bytes == info.file_bytes // 2 and half.kv_cache_bytes == GIB // 2
    assert estimate_gpu_memory(info, 8192, 0).total_bytes == 0


def test_check_fits_refuses_with_a_clear_message(tmp_path):
    info = read_info(seven_b_header(tmp_path / "seven.gguf"))
    with pytest.raises(ModelDoesNotFit, match=r"needs about 5\.\d\d GiB.*has 2\.00 GiB free"):
        check_fits(info, 8192, -1, SIMULATED_2GB.read())
    # Fewer layers on the GPU fit; no GPU means nothing to check.
    assert check_fits(info, 4096, 4, SIMULATED_2GB.read()).offloaded_layers == 4
    assert check_fits(info, 8192, -1, None).total_bytes > 2 * GIB


def test_backend_refuses_before_loading_on_a_simulated_2gb_gpu(tmp_path):
    path = seven_b_header(tmp_path / "seven.gguf")
    with pytest.raises(ModelDoesNotFit, match="Simulated 2 GB GPU"):
        open_backend(f"gguf:{path}", BackendOptions(gpu_probe=SIMULATED_2GB, n_ctx=8192))
    # With room on the GPU the same file gets past the check and only then fails
    # to load (it has no tensors): proof that the refusal came before loading.
    with pytest.raises(BackendUnavailable, match="could not load"):
        open_backend(f"gguf:{path}", BackendOptions(gpu_probe=SIMULATED_80GB, n_ctx=512))


def test_default_model_with_a_huge_context_is_refused_on_2gb():
    # 131,072 tokens x 23,040 bytes = 2.8 GiB of KV cache alone
    with pytest.raises(ModelDoesNotFit, match="n_ctx=131072"):
        open_backend("default", BackendOptions(gpu_probe=SIMULATED_2GB, n_ctx=131072))


@pytest.mark.llama
def test_default_model_fits_the_simulated_2gb_gpu_and_loads(tmp_path):
    backend = open_backend("default", BackendOptions(gpu_probe=SIMULATED_2GB, n_ctx=1024, hash_cache_file=tmp_path / "h.json"))
    try:
        assert backend.estimate.total_bytes < 2 * GIB
        assert backend.estimate.kv_cache_bytes == 1024 * 23040
        assert backend.estimate.overhead_bytes >= 256 * MIB
    finally:
        backend.close()


def test_nvml_probe_reads_a_gpu_or_reports_none():
    # No GPU on the CI machines: NVML is absent and the probe says so instead of raising.
    reading = NvmlProbe().read()
    assert reading is None or 0 <= reading.free_bytes <= reading.total_bytes
