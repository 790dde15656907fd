"""Resource peaks of a stage, sampled with psutil in a background thread."""

from __future__ import annotations

import threading
from dataclasses import dataclass

SAMPLE_EVERY_S = 0.5


@dataclass(frozen=True)
class ResourcePeaks:
    harness_peak_rss_bytes: int
    system_peak_used_bytes: int
    sandbox_peak_memory_bytes: int | None = None  # the drivers do not report it yet


class PeakSampler:
    """Context manager: samples this process (and its children) and the machine until it exits."""

    def __init__(self, every_s: float = SAMPLE_EVERY_S) -> None:
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rss = 0
        self._used = 0

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
        return ResourcePeaks(self._rss, self._used)
