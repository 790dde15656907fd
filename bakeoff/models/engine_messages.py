"""The messages between the parent and the llama.cpp engine child (bakeoff.models.engine, engine_child).

Both sides import this module and nothing of each other's: the parent starts the child by name and the
Pipe carries these frozen dataclasses, pickled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.gguf_header import GgufInfo
from bakeoff.models.memory import GpuMemory, MemoryEstimate
from bakeoff.models.template_process import TemplateLimits
from bakeoff.models.tools import ToolCall


@dataclass(frozen=True)
class LoadConfig:
    """Everything the child needs to load the model: sent once, at start (and again at each restart)."""

    info: GgufInfo
    n_ctx: int
    n_gpu_layers: int
    load_seed: int
    n_threads: int | None
    n_threads_batch: int | None
    gpu: GpuMemory | None  # the free-memory reading the fit check runs against
    gpu_simulated: bool = False  # an injected reading stands for a GPU the build can use
    reasoning: str = "default"  # the reasoning mode, set through the model's chat template
    template_limits: TemplateLimits = field(default_factory=TemplateLimits)  # the chat template's process


@dataclass(frozen=True)
class EngineFacts:
    """What the child reports once the model is loaded: the build it runs and what it loaded."""

    pid: int
    llama_cpp_python_version: str
    libraries: dict[str, str]
    system_info: str
    gpu_offload_supported: bool
    n_ctx: int
    estimate: MemoryEstimate
    chat_template_sha256: str = ""
    reasoning_format: str = "none"  # bakeoff.models.reasoning.ReasoningFormat value
    reasoning_kwargs: dict[str, Any] = field(default_factory=dict)  # template variables the mode sets
    tool_syntax: str = "text"  # bakeoff.models.tools.ToolSyntax: how the template writes tool calls
    n_threads: int = 0  # the generation and prompt threads llama.cpp was loaded with
    n_threads_batch: int = 0


@dataclass(frozen=True)
class LoadFailed:
    """The child could not load the model; `error` is the BakeoffError the parent raises."""

    error: Exception


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    settings: GenerationSettings


@dataclass(frozen=True)
class ChatReply:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float
    generation_seconds: float
    cached_prompt_tokens: int = 0
    error: str | None = None
    error_kind: str | None = None
    partial_text: str = ""
    reasoning: str = ""
    reasoning_tokens: int = 0
    reasoning_unfinished: bool = False
    token_budget: int | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class RenderRequest:
    """The prompt the chat template makes of these messages (answered with `Rendered`)."""

    messages: tuple[Message, ...]
    tools: tuple[Any, ...] = ()  # bakeoff.models.tools.ToolSpec: offered the model's way


@dataclass(frozen=True)
class Rendered:
    prompt: str


@dataclass(frozen=True)
class RenderFailed:
    """The chat template could not render these messages; `error` is the BakeoffError the parent raises."""

    error: Exception


@dataclass(frozen=True)
class ResetRequest:
    """Forget the KV cache (benchmarks use it for a cold start); answered with `Done`."""


@dataclass(frozen=True)
class Done:
    pass


@dataclass(frozen=True)
class StopRequest:
    """End the child's loop; the child closes the model and exits 0."""
