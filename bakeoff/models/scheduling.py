"""How a model's engine is sized for the work around it: its CPU threads and its concurrency, stated once.

Threads:

- One run at a time (the sequential loop): while the engine generates nothing else runs, so a CPU
  engine takes every core this process may use (llama-cpp-python's own default is half of them).
- Several runs in flight on one machine: while the engine answers one run, the others execute code in
  their sandboxes, each capped at the plan's `limits.cpus`. The engine keeps the cores those sandboxes
  cannot take: cores - min(cores - 1, ceil((in_flight - 1) * sandbox_cpus)), at least one.
- Under Ray a run's engine gets the CPUs the run holds on its node (`cpus_per_run`, at least one).

A plan's own n_threads / n_threads_batch always win. The counts chosen are in every gguf model_info.

Concurrency: a model serves at most `max_concurrent` generations at once (default 1), and never more
than there are runs in flight to ask; the server engine gets that many slots.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or taskset narrows)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def engine_threads(cores: int, in_flight: int, sandbox_cpus: float) -> int:
    """The engine's threads on `cores` cores with `in_flight` runs at once whose sandboxes take `sandbox_cpus` each."""
    if in_flight <= 1:
        return max(1, cores)
    reserved = min(cores - 1, math.ceil((in_flight - 1) * max(0.0, sandbox_cpus)))
    return max(1, cores - reserved)


def ray_run_threads(cpus_per_run: float) -> int:
    """A Ray run's engine threads: the CPUs the run holds on its node."""
    return max(1, math.floor(cpus_per_run))


def scheduled_options(options: Mapping[str, Any], in_flight: int, sandbox_cpus: float,
                      cores: int | None = None) -> dict[str, Any]:
    """A model's backend options with its threads and concurrency set for `in_flight` runs at once on this machine."""
    sized = dict(options)
    threads = engine_threads(cores or usable_cores(), in_flight, sandbox_cpus)
    sized.setdefault("n_threads", threads)
    sized.setdefault("n_threads_batch", threads)
    sized["max_concurrent"] = max(1, min(int(sized.get("max_concurrent", 1)), in_flight))
    return sized
