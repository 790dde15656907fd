"""Issue 37, `ollama:NAME[:TAG]`: Ollama's native chat API with the take-home's context window (`num_ctx`), the
seed and temperature sent, and its usage (counts; load, prompt and generation durations in nanoseconds) recorded.

Ollama itself cannot be installed here: the server is a loopback one answering with the shapes Ollama's API
documentation gives for `GET /api/version`, `GET /api/tags`, `POST /api/show` and a non-streamed `POST /api/chat`."""

from __future__ import annotations

import json

import pytest
from json_server import JsonServer, Reply, Request
from runner_support import SANDBOX_LIMITS, answers, implementation, make_tiny_corpus

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.errors import EndpointNotAnswering, ReasoningModeUnsupported
from bakeoff.models.kinds import kind_of
from bakeoff.models.options import BackendOptions
from bakeoff.models.spec import parse_spec
from bakeoff.models.tools import ToolSpec

SETTINGS = GenerationSettings(max_tokens=64, temperature=0.3, seed=17, timeout_s=60)
TAGS = {"models": [{"name": "qwen3:8b", "model": "qwen3:8b", "modified_at": "2026-11-30T10:00:00Z", "size": 5225388164,
                    "digest": "500a1f067a9f", "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8.2B",
                                                         "quantization_level": "Q4_K_M"}}]}
SHOW = {"parameters": "temperature 0.6\nnum_ctx 4096", "template": "{{ .Prompt }}",
        "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4_K_M"}}


def chat_answer(content: str, **extra) -> dict:
    return {"model": "qwen3:8b", "created_at": "2026-12-06T10:00:00.1Z",
            "message": {"role": "assistant", "content": content, **extra}, "done_reason": "stop", "done": True,
            "total_duration": 5_191_566_416, "load_duration": 2_154_458, "prompt_eval_count": 26,
            "prompt_eval_duration": 383_809_000, "eval_count": 298, "eval_duration": 4_799_921_000}


class FakeOllama(JsonServer):
    """Answers /api/chat from `replies` in order (the last repeated), records every request body."""

    def __init__(self, replies: list[dict]) -> None:
        known = {"/api/tags": TAGS, "/api/version": {"version": "0.12.3"}}

        def route(request: Request) -> Reply:
            if request.method == "GET":
                return Reply(known[request.path]) if request.path in known else Reply({"error": "not found"}, 404)
            if request.path == "/api/show":
                return Reply(SHOW)
            if request.path == "/api/chat":
                return Reply(replies[min(len(self.chats()), len(replies)) - 1])
            return Reply({"error": "not found"}, 404)

        super().__init__(route)
        self.host = self.origin

    def chats(self) -> list[dict]:
        return [r.body for r in self.posts("/api/chat")]


@pytest.fixture
def fake():
    servers: list[FakeOllama] = []

    def start(replies: list[dict]) -> FakeOllama:
        servers.append(FakeOllama(replies))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def open_model(server: FakeOllama, **options):
    spec = parse_spec(f"ollama:{server.host}#qwen3:8b")
    return kind_of(spec).build(spec, BackendOptions(**options))


def test_the_context_seed_and_temperature_go_in_options_and_ollamas_usage_is_the_cost(fake):
    server = fake([chat_answer("Hello there.")])
    backend = open_model(server, n_ctx=16384)
    try:
        completion = backend.chat([Message("user", "hi")], key="c#1", settings=SETTINGS)
    finally:
        backend.close()
    (sent,) = server.chats()
    assert sent["stream"] is False and sent["model"] == "qwen3:8b"
    assert sent["options"] == {"num_ctx": 16384, "seed": 17, "temperature": 0.3, "num_predict": 64}
    assert completion.error is None and completion.text == "Hello there."
    assert (completion.prompt_tokens, completion.completion_tokens) == (26, 298)
    assert completion.prompt_seconds == pytest.approx(0.383809) and completion.generation_seconds == pytest.approx(4.799921)
    assert completion.model_info["load_seconds"] == pytest.approx(0.002154458)
    assert (completion.model_info["engine"], completion.model_info["quantization"]) == ("ollama", "Q4_K_M")
    assert completion.backend == f"ollama:{server.host}#qwen3:8b"


def test_thinking_is_kept_apart_and_reasoning_off_sends_think_false(fake):
    server = fake([chat_answer("42", thinking="Six times seven.")])
    backend = open_model(server, n_ctx=4096, reasoning="off")
    try:
        completion = backend.chat([Message("user", "6*7?")], key="c#1", settings=SETTINGS)
    finally:
        backend.close()
    assert server.chats()[0]["think"] is False
    assert (completion.text, completion.reasoning) == ("42", "Six times seven.")
    with pytest.raises(ReasoningModeUnsupported):
        kind_of(parse_spec("ollama:qwen3:8b")).check_reasoning(parse_spec("ollama:qwen3:8b"), "max", "", None)


def test_a_tool_call_with_object_arguments_reaches_bakeoff_as_json_text_and_goes_back_as_an_object(fake):
    call = {"function": {"name": "run", "arguments": {"command": "ls -la"}}}
    server = fake([chat_answer("", tool_calls=[call]), chat_answer("done")])
    tool = ToolSpec("run", "Run a shell command.", {"type": "object", "properties": {"command": {"type": "string"}}})
    settings = GenerationSettings(max_tokens=64, seed=1, timeout_s=60, tools=(tool,))
    backend = open_model(server, n_ctx=4096)
    try:
        first = backend.chat([Message("user", "list files")], key="c#1", settings=settings)
        (made,) = first.tool_calls
        assert (made.name, json.loads(made.arguments)) == ("run", {"command": "ls -la"})
        history = [Message("user", "list files"), Message("assistant", "", tool_calls=first.tool_calls),
                   Message("tool", "a.txt", tool_call_id=made.call_id, name="run")]
        backend.chat(history, key="c#2", settings=settings)
    finally:
        backend.close()
    second = server.chats()[1]
    assert second["messages"][1]["tool_calls"] == [{"function": {"name": "run", "arguments": {"command": "ls -la"}}}]
    assert second["tools"][0]["function"]["name"] == "run"


def test_a_model_ollama_does_not_list_is_refused_naming_ollama_pull(fake):
    server = fake([chat_answer("x")])
    spec = parse_spec(f"ollama:{server.host}#llama3.1")
    with pytest.raises(EndpointNotAnswering, match=r"does not serve 'llama3.1:latest' \(`ollama pull llama3.1:latest`"):
        kind_of(spec).check_ready(spec, "m", BackendOptions(), None)
    listed = parse_spec(f"ollama:{server.host}#qwen3:8b")
    kind_of(listed).check_ready(listed, "m", BackendOptions(), None)  # listed: no error


def test_a_malformed_answer_is_a_backend_error_not_a_crash(fake):
    server = fake([{"message": {"content": 7}}])
    backend = open_model(server, n_ctx=4096, max_retries=0)
    try:
        completion = backend.chat([Message("user", "hi")], key="c#1", settings=SETTINGS)
    finally:
        backend.close()
    assert completion.error_kind == "backend_error" and "malformed" in (completion.error or "")


@pytest.mark.docker
def test_a_batch_on_ollama_asks_for_the_take_homes_context_on_every_turn(fake, tmp_path, monkeypatch):
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    monkeypatch.setenv("BAKEOFF_SKIP_CONTEXT_CHECK", "1")  # the fake counts no long probe's tokens
    server = fake([chat_answer(line["text"]) for line in answers(implementation())])
    mapping = {"models": [{"spec": f"ollama:{server.host}#qwen3:8b", "label": "qwen"}], "runs": 1, "sandbox": "docker",
               "limits": SANDBOX_LIMITS, "seed": 5, "corpus": str(make_tiny_corpus(tmp_path / "corpus")),
               "task_settings": {"smoke_rows": 50, "context_tokens": 12000}}
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    run_plan(plan_from_mapping(mapping, tmp_path), BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse))
    assert len(server.chats()) >= 4 and {body["options"]["num_ctx"] for body in server.chats()} == {12000}
    (run,) = read_batch(tmp_path / "batch").runs
    assert run.run is not None and run.run.outcome.status == "scored"
