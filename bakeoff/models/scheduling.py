"""How a model's engine is sized for the work around it: its CPU threads and its concurrency, stated once.

Threads:

- One run at a time (the sequential loop): while the engine generates nothing of the batch runs beside
  it, so a CPU engine takes every core this process may use (llama-cpp-python's own default is half of
  them) that other processes of the machine are not keeping busy.
- Several runs in flight on one machine: while the engine answers one run, the others execute code in
  their sandboxes, each capped at the plan's `limits.cpus`. The engine keeps the cores those sandboxes
  cannot take: cores - min(cores - 1, ceil((in_flight - 1) * sandbox_cpus)), and of those the ones other
  processes leave free; at least one.
- Under Ray a run's engine gets the CPUs the run holds on its node (`cpus_per_run`, at least one).

Why the cores other processes keep busy are left out: llama.cpp's threads meet at a barrier after every
operation, so a thread that has to wait for a core stalls the others. On the 2-core development machine,
with other work keeping both cores busy, 2 threads generated 2.6 tokens/s where 1 thread generated 36
(llama-batched-bench, the default model); on the idle machine 2 threads are twice as fast as 1. The busy
cores are read from /proc/stat over a quarter of a second, before the engine starts.

A plan's own n_threads / n_threads_batch always win. The counts chosen are in every gguf model_info.

Concurrency: a model serves at most `max_concurrent` generations at once (default 1), and never more
than there are runs in flight to ask; the server engine gets that many slots.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bakeoff.models.options import BackendOptions

BUSY_SAMPLE_S = 0.25
PROC_STAT = Path("/proc/stat")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or taskset narrows)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of all CPUs since boot, or None where /proc/stat cannot be read."""
    try:
        fields = PROC_STAT.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    values = [int(v) for v in fields[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle and iowait
    return sum(values[:8]) - idle, sum(values[:8])


def busy_cores(sample_s: float = BUSY_SAMPLE_S, cores: int | None = None) -> int:
    """How many of the machine's cores other work keeps busy now (0 where it cannot be told)."""
    before = _cpu_times()
    time.sleep(sample_s)
    after = _cpu_times()
    if before is None or after is None or after[1] <= before[1]:
        return 0
    share = (after[0] - before[0]) / (after[1] - before[1])
    return round(share * (cores or os.cpu_count() or 1))


def engine_threads(cores: int, in_flight: int, sandbox_cpus: float, busy: int = 0) -> int:
    """The engine's threads on `cores` cores with `in_flight` runs at once whose sandboxes take `sandbox_cpus` each,
    while other processes keep `busy` cores busy."""
    reserved = 0 if in_flight <= 1 else min(cores - 1, math.ceil((in_flight - 1) * max(0.0, sandbox_cpus)))
    return max(1, cores - max(reserved, busy))


def default_threads() -> int:
    """The threads of an engine opened on its own (one run at a time, `bakeoff ask`, the review benchmark)."""
    cores = usable_cores()
    return engine_threads(cores, 1, 0.0, busy_cores(cores=cores))


def ray_run_threads(cpus_per_run: float) -> int:
    """A Ray run's engine threads: the CPUs the run holds on its node."""
    return max(1, math.floor(cpus_per_run))


def scheduled_options(options: BackendOptions, in_flight: int, sandbox_cpus: float,
                      cores: int | None = None, busy: int | None = None) -> BackendOptions:
    """A model's backend options with its threads and concurrency set for `in_flight` runs at once on this machine
    (`cores` None: this machine's usable cores; `busy` None: measured now). Thread counts the plan set are kept."""
    n_threads, n_threads_batch = options.n_threads, options.n_threads_batch
    if n_threads is None or n_threads_batch is None:
        cores = cores or usable_cores()
        threads = engine_threads(cores, in_flight, sandbox_cpus, busy_cores(cores=cores) if busy is None else busy)
        n_threads, n_threads_batch = n_threads or threads, n_threads_batch or threads
    return replace(options, n_threads=n_threads, n_threads_batch=n_threads_batch,
                   max_concurrent=max(1, min(options.max_concurrent, in_flight)))
