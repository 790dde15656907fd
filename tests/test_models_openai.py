"""The OpenAI-compatible backend against real servers on loopback.

Retry behaviour runs against a tiny http.server that answers from a script;
the real-model test runs against llama-cpp-python's own server serving the default model.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from deadline import wait_until_answering

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.registry import BackendOptions, default_model_path, open_backend

HELLO = [Message("user", "Say hello in three words.")]


def ok_body(text="hi there", finish_reason="stop"):
    return {
        "id": "x",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
    }


class ScriptedServer:
    """An HTTP server on 127.0.0.1 answering each POST with the next (status, body, headers, delay)."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []  # (path, headers, json body) per request
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append((self.path, dict(self.headers), body))
                status, reply, headers, delay = server.replies.pop(0) if server.replies else (500, {}, {}, 0)
                time.sleep(delay)
                payload = json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def backend_for(url, sleeps, **options):
    backend = open_backend(f"openai:{url}#test-model", BackendOptions(backoff_s=0.01, **options))
    backend._sleep = sleeps.append  # record the backoff instead of sleeping it
    return backend


def test_503_then_200_is_retried_with_backoff():
    sleeps = []
    with ScriptedServer([(503, {"error": "busy"}, {}, 0), (503, {}, {}, 0), (200, ok_body("fine"), {}, 0)]) as server:
        completion = backend_for(server.base_url, sleeps).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert completion.error is None and completion.text == "fine"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 2)
    assert len(server.requests) == 3
    assert sleeps == [0.01, 0.02]  # exponential backoff
    assert completion.model_info["attempt_failures"] == ["HTTP 503", "HTTP 503"]


def test_429_honours_retry_after():
    sleeps = []
    with ScriptedServer([(429, {}, {"Retry-After": "2"}, 0), (200, ok_body(), {}, 0)]) as server:
        completion = backend_for(server.base_url, sleeps).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert completion.error is None and len(server.requests) == 2
    assert sleeps == [2.0]


def test_400_is_not_retried_and_is_a_backend_error():
    sleeps = []
    with ScriptedServer([(400, {"error": "bad request"}, {}, 0), (200, ok_body(), {}, 0)]) as server:
        completion = backend_for(server.base_url, sleeps).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert len(server.requests) == 1 and sleeps == []
    assert completion.error_kind == "backend_error" and completion.error.startswith("HTTP 400")
    assert completion.text == "" and completion.finish_reason == "error"


def test_5xx_until_retries_run_out_is_a_backend_error():
    sleeps = []
    with ScriptedServer([(502, {}, {}, 0)] * 3) as server:
        completion = backend_for(server.base_url, sleeps, max_retries=2).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert len(server.requests) == 3 and completion.error_kind == "backend_error"


def test_request_carries_settings_and_api_key_from_the_named_env_var(monkeypatch):
    monkeypatch.setenv("BAKEOFF_TEST_API_KEY", "sekret")
    settings = GenerationSettings(max_tokens=12, temperature=0.7, seed=42, stop=("END",))
    with ScriptedServer([(200, ok_body(), {}, 0)]) as server:
        backend_for(server.base_url, [], api_key_env="BAKEOFF_TEST_API_KEY").chat(HELLO, key="a#1", settings=settings)
    path, headers, body = server.requests[0]
    assert path == "/v1/chat/completions"
    assert headers.get("Authorization") == "Bearer sekret"
    assert body == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "Say hello in three words."}],
        "max_tokens": 12, "temperature": 0.7, "seed": 42, "stop": ["END"],
    }


def test_no_authorization_header_without_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedServer([(200, ok_body(), {}, 0)]) as server:
        backend_for(server.base_url, []).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert "Authorization" not in server.requests[0][1]


@pytest.mark.parametrize(
    "body",
    [
        {"choices": []},
        {**ok_body(), "usage": {"prompt_tokens": "many"}},
        {**ok_body(), "usage": ["not", "a", "mapping"]},
        {**ok_body(), "timings": {"prompt_ms": "fast", "predicted_ms": 1}},
        ok_body(text=["a", "list"]),
    ],
    ids=["no_choices", "token_count_not_a_number", "usage_not_a_mapping", "timing_not_a_number", "content_not_text"],
)
def test_malformed_body_is_a_backend_error(body):
    with ScriptedServer([(200, body, {}, 0)]) as server:
        completion = backend_for(server.base_url, []).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert completion.error_kind == "backend_error" and "malformed" in completion.error
    assert completion.model_info["attempts"] == 1


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_port_is_retried_then_a_transport_error():
    sleeps = []
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there any more
    completion = backend_for(url, sleeps, max_retries=2).chat(HELLO, key="a#1", settings=GenerationSettings())
    assert completion.error_kind == "transport_error" and "ConnectError" in completion.error
    assert len(sleeps) == 2


def test_slow_server_is_a_timeout_and_not_retried():
    sleeps = []
    with ScriptedServer([(200, ok_body(), {}, 3.0)]) as server:
        completion = backend_for(server.base_url, sleeps).chat(
            HELLO, key="a#1", settings=GenerationSettings(timeout_s=0.3)
        )
    assert completion.error_kind == "timeout" and sleeps == [] and len(server.requests) == 1
    assert completion.model_info["attempts"] == 1


def test_injected_transport_is_the_same_seam():
    def handler(request):
        return httpx.Response(200, json=ok_body("from the mock"))

    backend = open_backend("openai:http://model.invalid/v1#m", BackendOptions(transport=httpx.MockTransport(handler)))
    assert backend.chat(HELLO, key="a#1", settings=GenerationSettings()).text == "from the mock"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama-cpp-python's own OpenAI-compatible server, serving the default model on loopback."""
    port = free_port()
    # A file, not a pipe: the server logs a lot while loading and would block on a full pipe.
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_answering(process, f"{url}/v1/models", log_path, "llama_cpp.server")
    yield f"{url}/v1"
    process.terminate()
    process.wait()
    log.close()


@pytest.mark.llama
def test_real_llama_cpp_server_answers(llama_server):
    backend = open_backend(f"openai:{llama_server}#smollm2")
    settings = GenerationSettings(max_tokens=24, temperature=0.8, seed=7)
    first = backend.chat(HELLO, key="a#1", settings=settings)
    assert first.error is None and first.text.strip()
    assert first.finish_reason in ("stop", "length")
    assert first.prompt_tokens > 5 and 0 < first.completion_tokens <= 24
    assert first.generation_seconds > 0
    assert first.model_info["served_model"] == "smollm2" and first.model_info["attempts"] == 1
    # A second turn of the same conversation over the same kept-alive connection.
    second = backend.chat(HELLO + [Message("assistant", first.text), Message("user", "Again.")], key="a#2", settings=settings)
    assert second.error is None and second.prompt_tokens > first.prompt_tokens


@pytest.mark.llama
def test_real_server_tiny_token_limit_is_cut_off(llama_server):
    backend = open_backend(f"openai:{llama_server}#smollm2")
    completion = backend.chat(HELLO, key="a#1", settings=GenerationSettings(max_tokens=2))
    assert completion.finish_reason == "length" and completion.completion_tokens == 2
