"""The capture audit: every uncaptured and unusable reason, through real backends where it can be provoked."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bakeoff.answers import audit
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.records.enums import CaptureStatus

HELLO = [Message("user", "Write a Python script that prints hello.")]
GOOD_CODE = "Here:\n```python train.py\nprint('hello')\n```\n"


def scripted(tmp_path, rows):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return open_backend(f"scripted:{path}")


def answer(backend, settings=GenerationSettings()):
    return backend.chat(HELLO, key="t#1", settings=settings)


# --- through the scripted backend ------------------------------------------------

@pytest.mark.parametrize(
    "row, expect, status, reason",
    [
        ({"text": ""}, "code", CaptureStatus.UNCAPTURED, "empty"),
        ({"text": "  \n\t "}, "text", CaptureStatus.UNCAPTURED, "whitespace_only"),
        ({"error": "model crashed"}, "code", CaptureStatus.UNCAPTURED, "backend_error"),
        ({"error": "read timed out", "error_kind": "timeout"}, "code", CaptureStatus.UNCAPTURED, "timeout"),
        ({"error": "connection refused", "error_kind": "transport_error"}, "text", CaptureStatus.UNCAPTURED, "transport_error"),
        ({"text": GOOD_CODE, "finish_reason": "length"}, "code", CaptureStatus.UNUSABLE, "cut_off"),
        ({"text": "I would use pandas and a logistic regression."}, "code", CaptureStatus.UNUSABLE, "no_code"),
        ({"text": "```python\nprint('unnamed')\n```"}, "code", CaptureStatus.UNUSABLE, "no_code"),
        ({"text": "The split looks fine to me."}, "verdict", CaptureStatus.UNUSABLE, "no_verdict"),
        ({"text": GOOD_CODE}, "code", CaptureStatus.CAPTURED, "ok"),
        ({"text": "PROBLEM: the scaler is fit on the test set."}, "verdict", CaptureStatus.CAPTURED, "ok"),
        ({"text": "Any prose at all."}, "text", CaptureStatus.CAPTURED, "ok"),
    ],
)
def test_reasons_through_the_scripted_backend(tmp_path, row, expect, status, reason):
    capture = audit(answer(scripted(tmp_path, [row])), expect=expect)
    assert (capture.status, capture.reason) == (status, reason)
    assert capture.graded == (status != CaptureStatus.UNCAPTURED)


def test_caller_supplied_verdict_parser(tmp_path):
    backend = scripted(tmp_path, [{"text": "Verdict: sound"}, {"text": "Verdict: sound"}])
    assert audit(answer(backend), expect="verdict").reason == "no_verdict"
    assert audit(answer(backend), expect="verdict", has_verdict=lambda t: "Verdict:" in t).status == CaptureStatus.CAPTURED


def test_unknown_expectation_is_refused(tmp_path):
    with pytest.raises(ValueError):
        audit(answer(scripted(tmp_path, [{"text": "x"}])), expect="poem")


# --- through the real OpenAI-compatible backend on loopback ------------------------

def test_unreachable_loopback_port_is_uncaptured_transport_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = open_backend(f"openai:http://127.0.0.1:{port}/v1#m", BackendOptions(max_retries=1, backoff_s=0.01))
    capture = audit(answer(backend), expect="code")
    assert (capture.status, capture.reason) == (CaptureStatus.UNCAPTURED, "transport_error")


class _Server:
    """A loopback server that answers every POST after `delay` seconds with `status`."""

    def __init__(self, status: int, delay: float, body: dict | None = None):
        payload = json.dumps(body or {}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length") or 0))
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_slow_loopback_server_is_uncaptured_timeout():
    server = _Server(200, delay=3.0)
    try:
        completion = answer(open_backend(f"openai:{server.url}#m"), GenerationSettings(timeout_s=0.3))
    finally:
        server.close()
    assert (audit(completion).status, audit(completion).reason) == (CaptureStatus.UNCAPTURED, "timeout")


def test_http_400_is_uncaptured_backend_error():
    server = _Server(400, delay=0)
    try:
        completion = answer(open_backend(f"openai:{server.url}#m"))
    finally:
        server.close()
    assert (audit(completion).status, audit(completion).reason) == (CaptureStatus.UNCAPTURED, "backend_error")


@pytest.mark.parametrize("content, reason", [("", "empty"), (None, "empty"), (" \n ", "whitespace_only")])
def test_server_answering_nothing_is_uncaptured(content, reason):
    body = {"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 0}}
    server = _Server(200, delay=0, body=body)
    try:
        completion = answer(open_backend(f"openai:{server.url}#m"))
    finally:
        server.close()
    assert completion.error is None
    assert (audit(completion, expect="code").status, audit(completion, expect="code").reason) == (CaptureStatus.UNCAPTURED, reason)


# --- through the real llama.cpp backend ----------------------------------------------

@pytest.fixture(scope="module")
def default_backend(tmp_path_factory):
    backend = open_backend("default", BackendOptions(n_ctx=1024, hash_cache_file=tmp_path_factory.mktemp("h") / "h.json"))
    yield backend
    backend.close()


@pytest.mark.llama
def test_tiny_token_limit_is_unusable_cut_off(default_backend):
    completion = answer(default_backend, GenerationSettings(max_tokens=3, temperature=0.0))
    assert completion.finish_reason == "length" and completion.completion_tokens == 3
    capture = audit(completion, expect="code")
    assert (capture.status, capture.reason) == (CaptureStatus.UNUSABLE, "cut_off")


@pytest.mark.llama
def test_in_process_deadline_is_uncaptured_timeout(default_backend):
    completion = answer(default_backend, GenerationSettings(max_tokens=400, temperature=0.8, seed=1, timeout_s=0.05))
    capture = audit(completion, expect="code")
    assert (capture.status, capture.reason) == (CaptureStatus.UNCAPTURED, "timeout")
