"""The batching engine for gguf: models: llama.cpp's llama-server, owned by bakeoff, spoken to over OpenAI's API.

`engine = "server"` starts the server (bakeoff.models.llama_server) when the backend opens, with
`--parallel max_concurrent` slots and continuous batching, so up to that many runs in flight are
answered in one batch; the requests go through the OpenAI-compatible backend. Crash containment is the
engine child's: a server that dies fails the turns it was answering with error_kind "backend_crash"
(its exit status and the end of its log in the error), and the next turn starts a fresh one; after
MAX_CONSECUTIVE_CRASHES deaths with no answer in between it is not restarted again. A server that hangs
(stopped, wedged) is one too: after a turn that timed out, a server that does not answer /health within
HEALTH_DEADLINE_S is killed, that turn stays a timeout, and the next turn starts a fresh server (without this,
every later turn would wait out its whole timeout). `close()` stops it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.engine_kind import Engine
from bakeoff.models.errors import ModelFileNotFound
from bakeoff.models.filehash import file_sha256
from bakeoff.models.gguf import BACKEND_CRASH, MAX_CONSECUTIVE_CRASHES
from bakeoff.models.gguf_header import read_info, read_metadata
from bakeoff.models.llama_server import (
    HEALTH_DEADLINE_S,
    NOTICE_S,
    ServerBuild,
    ServerCommand,
    ServerProcess,
    find_server_build,
)
from bakeoff.models.openai_compat import HttpSettings, OpenAICompatBackend, reasoning_fields
from bakeoff.models.scheduling import default_threads
from bakeoff.models.tools import ToolSyntax


@dataclass(frozen=True)
class ServerSettings:
    n_ctx: int = 4096  # per slot
    n_gpu_layers: int = -1
    load_seed: int = 0
    n_threads: int | None = None  # None: bakeoff.models.scheduling.default_threads()
    n_threads_batch: int | None = None  # None: n_threads
    reasoning: str = "default"
    max_concurrent: int = 1  # the server's slots (--parallel)
    hash_cache_file: Path | None = None
    load_timeout_s: float = 900.0


class LlamaServerBackend:
    def __init__(self, path: Path, settings: ServerSettings = ServerSettings(), build: ServerBuild | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelFileNotFound(f"no such GGUF file: {self.path}")
        self.settings = settings
        self.info = read_info(self.path)
        reasoning_fields(settings.reasoning, "llama.cpp")  # an unknown mode is refused before the server starts
        self.build = build or find_server_build()
        threads = settings.n_threads or default_threads()
        self.command = ServerCommand(
            model=self.path, parallel=settings.max_concurrent, n_ctx=settings.n_ctx, n_threads=threads,
            n_threads_batch=settings.n_threads_batch or threads, n_gpu_layers=settings.n_gpu_layers,
            seed=settings.load_seed,
        )
        self._lock = threading.Lock()  # guards the server's restart; chats themselves run at once
        self._server: ServerProcess | None = None
        self._client: OpenAICompatBackend | None = None
        self._starts = 0
        self._crashes = 0  # server deaths with no answer in between
        self._last_crash = ""
        self._start()
        self._model_info = self._describe()

    @property
    def identity(self) -> str:
        return f"gguf:{self.path}"

    @property
    def tool_syntax(self) -> str:
        """A turn's tools go to the server as the request's `tools`, its calls come back as `tool_calls` (read
        by the server from the model's own syntax), as from any OpenAI-compatible server."""
        return ToolSyntax.OPENAI.value

    @property
    def base_url(self) -> str | None:
        """Where the running server listens (http://127.0.0.1:PORT), None while none runs."""
        return self._server.base_url if self._server is not None else None

    @property
    def auth_headers(self) -> dict[str, str]:
        """What a request to the running server must carry (its API key), {} while none runs."""
        return self._server.auth_headers if self._server is not None else {}

    @property
    def server_pid(self) -> int | None:
        """The llama-server's own process id (benchmarks read its CPU time)."""
        return self._server.server_pid if self._server is not None else None

    def _start(self) -> tuple[ServerProcess, OpenAICompatBackend]:
        if self._client is not None:  # the dead server's connections
            self._client.close()
            self._client = None
        self._starts += 1
        server = ServerProcess.start(self.build, self.command, self.settings.load_timeout_s)
        http = HttpSettings(api_key_env="", max_retries=0, backoff_s=0.0, reasoning=self.settings.reasoning,
                            server="llama.cpp")
        self._server = server
        self._client = OpenAICompatBackend(f"{server.base_url}/v1", self.path.stem, http, server_api_key=server.api_key)
        return server, self._client

    def _describe(self) -> dict:
        template = read_metadata(self.path).get("tokenizer.chat_template")
        return {
            "engine": Engine.SERVER.value,
            "path": str(self.path),
            "sha256": file_sha256(self.path, self.settings.hash_cache_file),
            "file_bytes": self.info.file_bytes,
            "architecture": self.info.architecture,
            "model_name": self.info.name,
            "quantization": self.info.quantization,
            "parameters": self.info.parameters,  # from the header's tensor table, as the binding's
            "n_ctx": self.settings.n_ctx,
            "n_layer": self.info.n_layer,
            "n_gpu_layers_requested": self.settings.n_gpu_layers,
            "chat_template": "server_jinja",
            "chat_template_sha256": hashlib.sha256(template.encode()).hexdigest() if isinstance(template, str) else "",
            "reasoning_mode": self.settings.reasoning,
            "server_build": self.build.to_dict(),
            "llama_cpp_build_flags": self.build.flags,
            "llama_cpp_build_key": self.build.key,
            "server_parallel": self.command.parallel,
            "n_threads": self.command.n_threads,
            "n_threads_batch": self.command.n_threads_batch,
        }

    def _info(self, server: ServerProcess | None) -> dict:
        return {**self._model_info, "server_starts": self._starts,
                "server_pid": server.server_pid if server is not None else None}

    def _running(self) -> tuple[ServerProcess, OpenAICompatBackend]:
        """The server, started again when it died (a turn that was being answered has been failed already)."""
        if self._server is not None and not self._server.alive:
            self._server.stop()
            self._server = None
        if self._server is None or self._client is None:
            return self._start()
        return self._server, self._client

    def chat(self, messages: Sequence[Message], *, key: str, settings: GenerationSettings) -> Completion:
        with self._lock:
            if self._crashes >= MAX_CONSECUTIVE_CRASHES:
                return self._failure(
                    f"llama-server died {self._crashes} times with no answer in between (last: {self._last_crash}); "
                    "it is not restarted again and every later turn of this model fails at once", None)
            try:
                server, client = self._running()
            except BakeoffError as exc:
                self._crashes += 1
                self._last_crash = f"could not be restarted: {exc}"
                return self._failure(f"llama-server could not be restarted: {exc}", None)
        completion = client.chat(messages, key=key, settings=settings)
        if completion.error_kind in ("transport_error", "backend_error") and server.ended_within(NOTICE_S):
            return self._crashed(server, completion)
        if completion.error_kind in ("timeout", "transport_error") and not server.answers_health(HEALTH_DEADLINE_S):
            completion = self._hung(server, completion)
        if completion.error is None:
            with self._lock:
                self._crashes = 0
        return replace(completion, backend=self.identity, model_info={**completion.model_info, **self._info(server)})

    def _crashed(self, server: ServerProcess, completion: Completion) -> Completion:
        detail = f"llama-server {server.death()} while answering"
        crashes = self._retire(server, detail, server.stop)
        suffix = "; restarted for the next turn" if crashes < MAX_CONSECUTIVE_CRASHES else (
            f"; {MAX_CONSECUTIVE_CRASHES} deaths in a row: not restarted again")
        return replace(self._failure(detail + suffix, server), generation_seconds=completion.generation_seconds)

    def _hung(self, server: ServerProcess, completion: Completion) -> Completion:
        """The turn keeps its own failure (a timeout stays uncaptured); the server that hangs is killed."""
        detail = f"llama-server did not answer /health within {HEALTH_DEADLINE_S:g} s after this turn's {completion.error_kind}"
        self._retire(server, detail, server.kill)
        return replace(completion, error=f"{completion.error}; {detail}: killed, the next turn starts a fresh one")

    def _retire(self, server: ServerProcess, detail: str, end: Callable[[], object]) -> int:
        """Count a dead or hung server once (the first of its turns to notice), end it with `end`, and let the next
        turn start a fresh one; the crashes in a row so far."""
        with self._lock:
            if self._server is server:
                self._crashes += 1
                self._last_crash = detail
                end()
                self._server = None
            return self._crashes

    def _failure(self, error: str, server: ServerProcess | None) -> Completion:
        return Completion.failure(self.identity, error, BACKEND_CRASH, model_info=self._info(server))

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
            if self._server is not None:
                self._server.stop()
                self._server = None
