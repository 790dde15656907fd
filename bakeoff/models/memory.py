"""Will a GGUF model fit the GPU? Estimated from its header, checked before loading.

The free-memory reading is a small Protocol so that a test can stand in a
2 GB GPU; production reads NVML through nvidia-ml-py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bakeoff.models.errors import ModelDoesNotFit
from bakeoff.models.gguf_header import GgufInfo

MIB = 1024**2
GIB = 1024**3
# llama.cpp also allocates compute buffers (scratch space for one batch) beside
# weights and KV cache; a fixed floor plus a share of the weights covers them.
COMPUTE_OVERHEAD_FLOOR = 256 * MIB
COMPUTE_OVERHEAD_SHARE = 0.05


@dataclass(frozen=True)
class GpuMemory:
    """Free and total memory of the GPU a model would be loaded on."""

    name: str
    free_bytes: int
    total_bytes: int


class GpuMemoryProbe(Protocol):
    def read(self) -> GpuMemory | None:
        """The GPU's memory, or None where there is no GPU (or no driver)."""
        ...


class NvmlProbe:
    """Reads GPU 0's memory through NVML; None where NVML or a GPU is missing."""

    def __init__(self, device_index: int = 0) -> None:
        self.device_index = device_index

    def read(self) -> GpuMemory | None:
        try:
            import pynvml
        except ImportError:
            return None
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError:
            return None  # no driver: a CPU-only machine
        try:
            if pynvml.nvmlDeviceGetCount() <= self.device_index:
                return None
            handle = pynvml.nvmlDeviceGetHandleByIndex(self.device_index)
            info = pynvml.nvmlDeviceGetMemoryInfo(handle)
            name = pynvml.nvmlDeviceGetName(handle)
            if isinstance(name, bytes):
                name = name.decode()
            return GpuMemory(name=str(name), free_bytes=int(info.free), total_bytes=int(info.total))
        except pynvml.NVMLError:
            return None
        finally:
            pynvml.nvmlShutdown()


@dataclass(frozen=True)
class FixedProbe:
    """A probe that reports a fixed reading: a simulated GPU (or None for no GPU)."""

    memory: GpuMemory | None

    def read(self) -> GpuMemory | None:
        return self.memory


@dataclass(frozen=True)
class MemoryEstimate:
    weights_bytes: int  # the share of the weights that goes to the GPU
    kv_cache_bytes: int
    overhead_bytes: int
    offloaded_layers: int

    @property
    def total_bytes(self) -> int:
        return self.weights_bytes + self.kv_cache_bytes + self.overhead_bytes


def offloaded_layers(info: GgufInfo, n_gpu_layers: int) -> int:
    """How many repeating layers go to the GPU (-1 means all of them)."""
    if n_gpu_layers < 0:
        return info.n_layer
    return min(n_gpu_layers, info.n_layer)


def estimate_gpu_memory(info: GgufInfo, n_ctx: int, n_gpu_layers: int) -> MemoryEstimate:
    """GPU memory for the offloaded share of weights and KV cache, plus compute buffers."""
    layers = offloaded_layers(info, n_gpu_layers)
    share = layers / info.n_layer if info.n_layer else 1.0
    weights = int(info.file_bytes * share)
    kv_cache = int(info.kv_cache_bytes(n_ctx) * share)
    overhead = max(COMPUTE_OVERHEAD_FLOOR, int(COMPUTE_OVERHEAD_SHARE * weights)) if layers else 0
    return MemoryEstimate(weights, kv_cache, overhead, layers)


def check_fits(info: GgufInfo, n_ctx: int, n_gpu_layers: int, gpu: GpuMemory | None) -> MemoryEstimate:
    """Raise ModelDoesNotFit when the estimate exceeds the GPU's free memory.

    Without a GPU, or with nothing offloaded, there is nothing to check here:
    llama.cpp then maps the weights from disk into host memory.
    """
    estimate = estimate_gpu_memory(info, n_ctx, n_gpu_layers)
    if gpu is None or estimate.offloaded_layers == 0:
        return estimate
    if estimate.total_bytes > gpu.free_bytes:
        raise ModelDoesNotFit(
            f"{info.path.name} ({info.quantization}) needs about {estimate.total_bytes / GIB:.2f} GiB "
            f"on the GPU (weights {estimate.weights_bytes / GIB:.2f}, KV cache for n_ctx={n_ctx} "
            f"{estimate.kv_cache_bytes / GIB:.2f}, compute buffers {estimate.overhead_bytes / GIB:.2f}) "
            f"but {gpu.name} has {gpu.free_bytes / GIB:.2f} GiB free; choose a smaller quantization, "
            f"a smaller n_ctx, or offload fewer layers (n_gpu_layers)"
        )
    return estimate
