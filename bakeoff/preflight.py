"""`bakeoff check`: what this machine offers a batch, in one table.

Each row is a finding that was tried, not assumed: the engine generates a token
in its own process, the Docker check runs a command in a real sandbox, bwrap
opens its namespaces, NVML is asked for the GPU's free memory.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from bakeoff.models.engine_build import CUDA_REBUILD_COMMAND, REBUILD_HINT, UNKNOWN
from bakeoff.models.engine_check import EngineProbe, probe_engine
from bakeoff.models.memory import GIB, GpuMemory, GpuMemoryProbe, NvmlProbe

MIN_FREE_DISK = 2 * GIB  # a corpus, its runs' repositories and the report: far less, but leave room for wheels


class State(StrEnum):
    OK = "ok"
    NO = "no"  # absent, and not needed for the batch asked about
    FAIL = "FAIL"  # needed, and not working


@dataclass(frozen=True)
class CheckRow:
    item: str
    state: State
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"item": self.item, "state": self.state.value, "detail": self.detail}


@dataclass(frozen=True)
class MachineReport:
    rows: tuple[CheckRow, ...]

    @property
    def ready(self) -> bool:
        return all(row.state is not State.FAIL for row in self.rows)

    def row(self, item: str) -> CheckRow:
        return next(row for row in self.rows if row.item == item)


@dataclass(frozen=True)
class CheckOptions:
    image: str
    out_dir: Path  # where the batch will write
    model_path: Path | None  # the GGUF the engine is tried with; None: no model to try it with
    sandbox: str = "docker"  # the isolation the batch will use: its failure is a FAIL, the other's a "no"
    n_gpu_layers: int = -1
    engine_entry: Callable | None = None  # the engine child's entry point (tests pass a crashing one)
    gpu_probe: GpuMemoryProbe | None = None  # None: NVML is asked (a test hands down a FixedProbe: a GPU seen)


def engine_rows(probe: EngineProbe, gpu: GpuMemory | None) -> list[CheckRow]:
    """The engine's build, whether it generates, and whether it can offload (`gpu`: the GPU this machine shows,
    None where it shows none: a CPU build is then no failure)."""
    facts = probe.facts
    version = facts.llama_cpp_python_version if facts else "?"
    build_state = State.NO if probe.flags.startswith(UNKNOWN) else State.OK
    rows = [
        CheckRow("engine build", build_state,
                 f"llama-cpp-python {version}; flags: {probe.flags}; system info: {probe.system_info}"),
        CheckRow("engine generates", State.OK if probe.generates else State.FAIL,
                 probe.detail if probe.generates else f"{probe.detail}; fix: {REBUILD_HINT}"),
    ]
    if facts is None:
        rows.append(CheckRow("GPU offload", State.NO, "unknown: the engine did not report its build"))
    elif facts.gpu_offload_supported:
        rows.append(CheckRow("GPU offload", State.OK, "this build offloads layers to the GPU"))
    else:
        rows.append(offload_row_of_cpu_build(gpu))
    return rows


def offload_row_of_cpu_build(gpu: GpuMemory | None) -> CheckRow:
    """A build that cannot offload: harmless where there is no GPU, a failure beside one (every run would
    silently load no layer on it)."""
    if gpu is None:
        return CheckRow("GPU offload", State.NO, f"a CPU build ({CUDA_REBUILD_COMMAND} builds with CUDA)")
    return CheckRow("GPU offload", State.FAIL,
                    f"a CPU build on a machine with a GPU ({gpu.name}): runs would put no layer on it; "
                    f"fix: rebuild the engine with `{CUDA_REBUILD_COMMAND}`")


def server_row() -> CheckRow:
    """The batching engine's llama-server: present and runnable (it is started only by a batch that asks for it)."""
    from bakeoff.errors import BakeoffError
    from bakeoff.models.llama_server import find_server_build

    try:
        build = find_server_build()
    except BakeoffError as exc:
        return CheckRow("batching server", State.NO, str(exc))
    return CheckRow("batching server", State.OK, f"{build.path}: {build.version}; flags: {build.flags}")


def gpu_row(gpu: GpuMemory | None) -> CheckRow:
    if gpu is None:
        return CheckRow("GPU memory", State.NO, "no NVIDIA GPU found through NVML (no driver or no GPU here)")
    return CheckRow("GPU memory", State.OK, f"{gpu.name}: {gpu.free_bytes / GIB:.1f} GiB free of {gpu.total_bytes / GIB:.1f} GiB")


def docker_rows(image: str, needed: bool) -> list[CheckRow]:
    from docker.errors import DockerException

    from sandbox.availability import check_docker
    from sandbox.docker import connect
    from sandbox.errors import SandboxError

    missing = State.FAIL if needed else State.NO
    try:
        client = connect()
        try:
            version = client.version().get("Version", "?")
        finally:
            client.close()
    except (SandboxError, DockerException) as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return [CheckRow("docker engine", missing, reason), CheckRow("sandbox image", missing, "no engine to ask")]
    usable = check_docker(image)
    return [CheckRow("docker engine", State.OK, f"engine {version} answers"),
            CheckRow("sandbox image", State.OK if usable.usable else missing, usable.detail)]


def bwrap_row(needed: bool) -> CheckRow:
    from sandbox.availability import check_bwrap

    usable = check_bwrap()
    return CheckRow("bubblewrap", State.OK if usable.usable else (State.FAIL if needed else State.NO), usable.detail)


def disk_row(out_dir: Path) -> CheckRow:
    existing = Path(out_dir).resolve()
    while not existing.exists():
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    state = State.OK if free >= MIN_FREE_DISK else State.FAIL
    return CheckRow("free disk", state, f"{free / GIB:.1f} GiB free at {existing} (the batch writes to {out_dir})")


def machine_report(options: CheckOptions) -> MachineReport:
    # The GPU is read once (NVML, or the probe the options hand down) and its reading given to every row about it.
    gpu = (options.gpu_probe or NvmlProbe()).read()
    rows: list[CheckRow] = []
    if options.model_path is None:
        rows.append(CheckRow("engine generates", State.FAIL, f"no GGUF model to try it with; fix: {REBUILD_HINT}"))
    else:
        probe = probe_engine(options.model_path, options.n_gpu_layers, options.engine_entry, options.gpu_probe)
        rows.extend(engine_rows(probe, gpu))
    rows.append(server_row())
    rows.append(gpu_row(gpu))
    rows.extend(docker_rows(options.image, needed=options.sandbox == "docker"))
    rows.append(bwrap_row(needed=options.sandbox == "bwrap"))
    rows.append(disk_row(options.out_dir))
    return MachineReport(tuple(rows))


def render(report: MachineReport) -> str:
    """One plain table: item, state, detail (details are never wrapped: paths and flags are copied from it)."""
    width = max(len(row.item) for row in report.rows)
    lines = [f"{'item':<{width}}  state  detail"]
    lines += [f"{row.item:<{width}}  {row.state.value:<5}  {row.detail}" for row in report.rows]
    verdict = "ready" if report.ready else "NOT ready: fix the FAIL rows"
    return "\n".join(lines + ["", f"this machine is {verdict}"])
