"""The capture audit: every uncaptured and unusable reason, through real backends where it can be provoked."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bakeoff.answers import argument_problem, audit, audit_tool_calls, call_problem
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.models.tools import ToolCall, ToolSpec
from bakeoff.records.enums import CaptureReason, CaptureStatus
from bakeoff.records.parts import Capture

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


# --- pinned by mutation testing (bench/mutation.py): the exact outcome and detail of each rule -------------------

def completion(text="", **fields):
    return Completion(text, fields.pop("finish_reason", "stop"), 10, fields.pop("completion_tokens", 5), 0.1, 0.2,
                      "scripted", **fields)


READ = ToolSpec("read", "read a file", {"type": "object", "properties": {"path": {"type": "string"},
                                                                          "lines": {"type": "integer"},
                                                                          "scale": {"type": "number"}},
                                        "required": ["path"], "additionalProperties": False})
OPEN = ToolSpec("open", "takes anything", {"properties": {"flag": {"type": "boolean"}, "n": {}}})


def test_an_error_kind_outside_the_uncaptured_reasons_is_a_backend_error_with_its_message():
    assert audit(completion(error="boom", error_kind="weird")) == Capture(
        CaptureStatus.UNCAPTURED, CaptureReason.BACKEND_ERROR, "boom")
    assert audit(completion(error="", error_kind="timeout")) == Capture(
        CaptureStatus.UNCAPTURED, CaptureReason.TIMEOUT, "")
    with pytest.raises(ValueError, match=r"^expect must be 'code', 'verdict' or 'text', not 'json'$"):
        audit(completion("x"), expect="json")


@pytest.mark.parametrize("arguments, problem", [
    ([1], "the arguments are a JSON list, not an object"),
    ({}, "missing argument(s): path"),
    ({"path": "a", "x": 1, "w": 2}, "unknown argument(s): w, x; the tool takes path, lines, scale"),
    ({"path": 3}, "argument path must be a JSON string, not int"),
    ({"path": "a", "lines": True}, "argument lines must be a JSON integer, not bool"),
    ({"path": "a", "scale": False}, "argument scale must be a JSON number, not bool"),
    ({"path": "a", "lines": 2, "scale": 0.5}, None),
])
def test_argument_problems_are_named_exactly(arguments, problem):
    assert argument_problem(arguments, READ.parameters) == problem


def test_a_schema_that_allows_more_or_names_no_type_lets_the_value_through():
    assert argument_problem({"flag": True, "n": [1], "extra": None}, OPEN.parameters) is None
    assert argument_problem({"flag": 1}, OPEN.parameters) == "argument flag must be a JSON boolean, not int"
    assert argument_problem({"a": 1}, {"additionalProperties": False}) == "unknown argument(s): a; the tool takes none"
    assert argument_problem({"a": 1, "b": True}, {"properties": {"a": {"type": ["integer"]}}}) is None


def test_call_problems_are_named_exactly():
    tools = {"read": READ, "open": OPEN}
    assert call_problem(ToolCall("x" * 100, "{}"), tools) == (
        CaptureReason.UNKNOWN_TOOL, f"there is no tool {'x' * 80!r}; the tools are read, open")
    assert call_problem(ToolCall("read", "", error="no name"), tools) == (CaptureReason.MALFORMED_CALL, "no name")
    assert call_problem(ToolCall("read", '{"path": "a",}'), tools)[0] == CaptureReason.MALFORMED_CALL
    assert call_problem(ToolCall("read", '{"path": 1}'), tools) == (
        CaptureReason.BAD_ARGUMENTS, "read: argument path must be a JSON string, not int")
    assert call_problem(ToolCall("open", ""), tools) is None


def test_a_step_without_calls_is_audited_as_text_with_the_token_budget():
    cut = completion("half an answer", finish_reason="length", completion_tokens=64)
    assert audit_tool_calls(cut, [READ], token_budget=64) == (
        Capture(CaptureStatus.UNUSABLE, CaptureReason.CUT_OFF, "stopped at the token limit after 64 tokens",
                budget_cut=True), ())
    assert audit_tool_calls(completion("prose only"), [READ]) == (
        Capture(CaptureStatus.UNUSABLE, CaptureReason.NO_TOOL_CALL, "the answer calls no tool"), ())
    calls = (ToolCall("read", '{"path": "a"}'), ToolCall("nope", "{}"))
    capture, problems = audit_tool_calls(completion("", tool_calls=calls), [READ])
    assert problems == (None, (CaptureReason.UNKNOWN_TOOL, "there is no tool 'nope'; the tools are read"))
    assert capture == Capture(CaptureStatus.UNUSABLE, CaptureReason.UNKNOWN_TOOL, problems[1][1])
    assert audit_tool_calls(completion("", tool_calls=calls[:1]), [READ]) == (
        Capture(CaptureStatus.CAPTURED, CaptureReason.OK), (None,))


def test_reasoning_without_an_answer_is_no_answer_or_runaway_with_its_detail():
    assert audit(completion("", reasoning="thinking", reasoning_tokens=3)) == Capture(
        CaptureStatus.UNUSABLE, CaptureReason.NO_ANSWER, "the model reasoned and then stopped without answering")
    assert audit(completion(" ", reasoning="thinking", reasoning_tokens=3, finish_reason="length",
                            completion_tokens=9), token_budget=10) == Capture(
        CaptureStatus.UNUSABLE, CaptureReason.RUNAWAY_REASONING,
        "the budget ran out while the model was still reasoning (3 reasoning tokens)", budget_cut=False)


def test_an_answer_without_a_named_file_is_no_code_with_its_detail():
    assert audit(completion("```python\nprint(1)\n```\n"), expect="code") == Capture(
        CaptureStatus.UNUSABLE, CaptureReason.NO_CODE, "no closed, named, fenced file in the answer")
