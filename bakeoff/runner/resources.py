"""Resource peaks of a stage, sampled with psutil (and NVML, when a GPU probe is given) in a background thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from bakeoff.models.memory import GpuMemoryProbe

SAMPLE_EVERY_S = 0.5


@dataclass(frozen=True)
class ResourcePeaks:
    harness_peak_rss_bytes: int
    system_peak_used_bytes: int
    sandbox_peak_memory_bytes: int | None = None  # the drivers do not report it yet
    engine_peak_rss_bytes: int | None = None  # the model's engine process; None where the backend has none
    gpu_peak_used_bytes: int | None = None  # the GPU's used memory (every process on it); None without a GPU


class PeakSampler:
    """Context manager: samples this process (and its children), the machine, the model's engine process
    (`engine_pid()`, None while it has none) and the GPU (`gpu`) until it exits."""

    def __init__(self, every_s: float = SAMPLE_EVERY_S, engine_pid: Callable[[], int | None] | None = None,
                 gpu: GpuMemoryProbe | None = None) -> None:
        self.every_s = every_s
        self._engine_pid = engine_pid
        self._gpu = gpu
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rss = 0
        self._used = 0
        self._engine: int | None = None
        self._gpu_used: int | None = None

    def _sample(self) -> None:
        import psutil

        process = psutil.Process()
        rss = 0
        for member in [process, *process.children(recursive=True)]:
            try:
                rss += member.memory_info().rss
            except psutil.Error:
                continue  # a child that ended between listing and reading
        self._rss = max(self._rss, rss)
        self._used = max(self._used, psutil.virtual_memory().used)
        self._sample_engine(psutil)
        self._sample_gpu()

    def _sample_engine(self, psutil) -> None:
        pid = self._engine_pid() if self._engine_pid is not None else None
        if pid is None:
            return
        try:
            rss = psutil.Process(pid).memory_info().rss
        except psutil.Error:
            return  # the engine died or was restarted between turns
        self._engine = max(self._engine or 0, rss)

    def _sample_gpu(self) -> None:
        reading = self._gpu.read() if self._gpu is not None else None
        if reading is not None:
            self._gpu_used = max(self._gpu_used or 0, reading.total_bytes - reading.free_bytes)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.every_s)

    def __enter__(self) -> PeakSampler:
        self._sample()
        self._thread = threading.Thread(target=self._loop, name="bakeoff-peaks", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()

    def peaks(self) -> ResourcePeaks:
        return ResourcePeaks(self._rss, self._used, engine_peak_rss_bytes=self._engine,
                             gpu_peak_used_bytes=self._gpu_used)
