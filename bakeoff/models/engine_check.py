"""Can the installed llama.cpp engine generate here? Tried in a child process, so a crashing build is reported.

`probe_engine` starts the engine's own process (the same child the gguf backend
uses), loads a model with a small context and asks for one token. A build that
segfaults at its first matrix multiplication (a native AMX build on some CPUs)
kills that child only, and the probe says so. `require_engine` turns a failed
probe into the error `bakeoff run` and `bakeoff demo` stop with, naming the fix.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.engine import EngineDied, EngineOverran, EngineProcess
from bakeoff.models.engine_build import REBUILD_HINT, BuildStamp, build_flags_for, read_build_stamp
from bakeoff.models.engine_messages import ChatReply, ChatRequest, EngineFacts, LoadConfig
from bakeoff.models.kind import ModelSpec
from bakeoff.models.memory import GpuMemoryProbe, NvmlProbe

PROBE_N_CTX = 256
PROBE_TIMEOUT_S = 300.0  # loading a large model from a slow disk can take minutes


class EngineUnusable(BakeoffError):
    """No llama.cpp engine can generate on this machine (a crashing or missing build)."""


@dataclass(frozen=True)
class EngineProbe:
    generates: bool
    crashed: bool  # the engine process died (a signal or an exit status), as opposed to a reported error
    detail: str  # what happened: the token and the time, or why there was none
    model: str  # the GGUF file tried
    flags: str  # the build's flags (from setup.sh's stamp), or "unknown"
    facts: EngineFacts | None  # what the engine reported once loaded; None when it never got that far

    @property
    def system_info(self) -> str:
        return self.facts.system_info if self.facts else "unknown (the engine did not report it)"


def probe_engine(model_path: Path, n_gpu_layers: int = -1, entry: Callable | None = None,
                 gpu_probe: GpuMemoryProbe | None = None, stamp: BuildStamp | None = None,
                 timeout_s: float = PROBE_TIMEOUT_S) -> EngineProbe:
    """Load `model_path` in the engine's child process (`entry`, default engine_child.serve) and generate one token."""
    from bakeoff.models.gguf_header import read_info

    stamp = stamp or read_build_stamp()

    def result(generates: bool, crashed: bool, detail: str, facts: EngineFacts | None = None) -> EngineProbe:
        flags = build_flags_for(stamp, facts.llama_cpp_python_version if facts else None)
        return EngineProbe(generates, crashed, detail, str(model_path), flags, facts)

    try:
        info = read_info(Path(model_path))
    except BakeoffError as exc:
        return result(False, False, f"cannot read the model to try: {exc}")
    config = LoadConfig(info=info, n_ctx=PROBE_N_CTX, n_gpu_layers=n_gpu_layers, load_seed=0, n_threads=None,
                        n_threads_batch=None, gpu=(gpu_probe or NvmlProbe()).read(), gpu_simulated=gpu_probe is not None)
    started = time.perf_counter()
    try:
        engine = EngineProcess.start(config, entry, timeout_s)
    except EngineDied as died:
        return result(False, True, f"the engine process {died} while loading {info.path.name}")
    except EngineOverran:
        return result(False, False, f"the engine did not load {info.path.name} within {timeout_s:g} s")
    except BakeoffError as exc:
        return result(False, False, f"{type(exc).__name__}: {exc}")
    try:
        request = ChatRequest((Message("user", "Say hi."),), GenerationSettings(max_tokens=1, timeout_s=timeout_s))
        reply = engine.request(request, timeout_s + 10)
    except EngineDied as died:
        return result(False, True, f"the engine process {died} while generating its first token", engine.facts)
    except EngineOverran:
        return result(False, False, f"no token within {timeout_s:g} s", engine.facts)
    finally:
        engine.stop()
    return _from_reply(result, reply, engine.loaded_facts, time.perf_counter() - started, info.path.name)


def _from_reply(result, reply: ChatReply, facts: EngineFacts, seconds: float, model: str) -> EngineProbe:
    if reply.error is not None:
        return result(False, False, f"the engine answered with an error: {reply.error}", facts)
    if reply.completion_tokens < 1:
        return result(False, False, "the engine loaded but generated no token", facts)
    return result(True, False, f"{reply.completion_tokens} token ({reply.text!r}) from {model}, load and answer "
                               f"in {seconds:.1f} s", facts)


def require_engine(probe: EngineProbe) -> EngineProbe:
    """The probe when the engine generated; EngineUnusable naming the fix otherwise."""
    if probe.generates:
        return probe
    why = "this llama.cpp build crashes on this machine" if probe.crashed else "the llama.cpp engine cannot generate here"
    raise EngineUnusable(f"{why}: {probe.detail} (build flags: {probe.flags}). Fix: {REBUILD_HINT}; "
                         f"`bakeoff check` shows the engine, GPU and sandbox state")


def preflight_model(specs: Sequence[ModelSpec]) -> Path | None:
    """The model a batch's preflight tries: the default one when installed (small, quick), else the
    plan's first model that needs the engine; None when none does."""
    from bakeoff.models.errors import ModelFileNotFound
    from bakeoff.models.kinds import kind_of
    from bakeoff.models.kinds.gguf import default_model_path

    found = (kind_of(spec).engine_model(spec) for spec in specs)
    targets = [path for path in found if path is not None]
    if not targets:
        return None
    try:
        return default_model_path()
    except ModelFileNotFound:
        return targets[0]
