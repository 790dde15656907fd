"""The OpenAI-compatible backend reading reasoning the way each server returns it.

A real HTTP server on 127.0.0.1 answers like llama.cpp's server (`reasoning_content`,
a /tokenize endpoint), vLLM (`reasoning`), Ollama's OpenAI endpoint (`reasoning`,
no tokenizer), a body carrying both fields, and a server that leaves the markup in
`content`. The backend does not stream, so only whole bodies are served.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bakeoff.answers import audit, extract_files
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.errors import ReasoningModeUnsupported
from bakeoff.models.registry import BackendOptions, open_backend

ASK = [Message("user", "Write train.py.")]
THOUGHT = "First a draft:\n# file: utils.py\n```python\nDRAFT = 1\n```\nEXPECTED_F1: 0.99"
ANSWER = "# file: train.py\n```python\nprint('final')\n```\nEXPECTED_F1: 0.8"


class Server:
    """Answers chat completions with `message` (and `usage`); /tokenize splits on spaces when `tokenizes`."""

    def __init__(self, message, finish_reason="stop", tokenizes=False, usage=None):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                server.requests.append((self.path, body))
                if self.path == "/v1/chat/completions":
                    reply = {"model": "served", "choices": [{"index": 0, "message": {"role": "assistant", **message},
                                                             "finish_reason": finish_reason}],
                             "usage": usage or {"prompt_tokens": 9, "completion_tokens": 40}}
                    status = 200
                elif self.path == "/tokenize" and tokenizes:
                    reply, status = {"tokens": list(range(len(body["content"].split())))}, 200
                else:
                    reply, status = {"error": "not found"}, 404
                payload = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def backend(self, **options):
        url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        return open_backend(f"openai:{url}#m", BackendOptions(max_retries=0, **options))

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def ask(message, settings=GenerationSettings(max_tokens=100), **server_options):
    server = Server(message, **server_options)
    try:
        backend = server.backend()
        return backend.chat(ASK, key="implement#1", settings=settings), server.requests
    finally:
        server.close()


def test_llama_cpp_server_reasoning_content_counted_with_its_tokenizer():
    completion, requests = ask({"content": ANSWER, "reasoning_content": THOUGHT}, tokenizes=True)
    assert completion.text == ANSWER and completion.reasoning == THOUGHT
    assert completion.reasoning_tokens == len(THOUGHT.split())
    assert completion.model_info["reasoning_tokens_counted_by"] == "server_tokenizer"
    assert requests[1] == ("/tokenize", {"content": THOUGHT, "prompt": THOUGHT, "model": "m", "add_special": False})
    assert extract_files(completion.text) == {"train.py": "print('final')\n"}


def test_vllm_and_ollama_reasoning_field_without_a_tokenizer_is_a_share_of_the_tokens():
    completion, requests = ask({"content": ANSWER, "reasoning": THOUGHT})
    assert completion.reasoning == THOUGHT and completion.text == ANSWER
    expected = round(40 * len(THOUGHT) / (len(THOUGHT) + len(ANSWER)))
    assert completion.reasoning_tokens == expected and completion.model_info["reasoning_tokens_counted_by"] == "share"
    assert [path for path, _ in requests] == ["/v1/chat/completions", "/tokenize"]  # asked once, then not again


def test_reported_reasoning_tokens_are_taken_as_reported():
    usage = {"prompt_tokens": 9, "completion_tokens": 40, "completion_tokens_details": {"reasoning_tokens": 17}}
    completion, requests = ask({"content": ANSWER, "reasoning": THOUGHT}, usage=usage)
    assert completion.reasoning_tokens == 17 and completion.model_info["reasoning_tokens_counted_by"] == "server_usage"
    assert len(requests) == 1


def test_both_fields_with_the_same_text_count_once():
    completion, _ = ask({"content": ANSWER, "reasoning_content": THOUGHT, "reasoning": THOUGHT}, tokenizes=True)
    assert completion.reasoning == THOUGHT and completion.reasoning_tokens == len(THOUGHT.split())


@pytest.mark.parametrize("content", [f"<think>{THOUGHT}</think>\n{ANSWER}", f"{THOUGHT}</think>{ANSWER}",
                                     f"<|channel|>analysis<|message|>{THOUGHT}<|end|><|start|>assistant"
                                     f"<|channel|>final<|message|>{ANSWER}<|return|>"],
                         ids=["think", "opened_by_template", "harmony"])
def test_markup_left_in_content_is_split_like_in_process(content):
    completion, _ = ask({"content": content})
    assert completion.text.strip() == ANSWER and completion.reasoning.strip() == THOUGHT
    assert extract_files(completion.text) == {"train.py": "print('final')\n"}


def test_no_reasoning_is_untouched_and_not_counted():
    completion, requests = ask({"content": "Plain <think> mention, no reasoning."})
    assert completion.text == "Plain <think> mention, no reasoning." and completion.reasoning == ""
    assert completion.reasoning_tokens == 0 and len(requests) == 1


def test_cut_off_while_reasoning_is_runaway_reasoning_from_the_harness_budget():
    settings = GenerationSettings(max_tokens=30, reasoning_tokens=10)
    usage = {"prompt_tokens": 9, "completion_tokens": 40}
    completion, requests = ask({"content": None, "reasoning": THOUGHT}, finish_reason="length", usage=usage,
                               settings=settings)
    assert requests[0][1]["max_tokens"] == 40  # the answer's budget plus room for reasoning
    capture = audit(completion, expect="code")
    assert (capture.status, capture.reason, capture.budget_cut) == ("unusable", "runaway_reasoning", True)
    answered, _ = ask({"content": "# file: train.py\n```python\nx = 1", "reasoning": THOUGHT}, finish_reason="length",
                      usage={"prompt_tokens": 9, "completion_tokens": 12}, settings=settings)
    cut = audit(answered, expect="code")
    assert cut.reason == "context_truncated"  # the server stopped it short of our budget: its context filled


def test_reasoning_mode_is_sent_in_the_servers_field():
    server = Server({"content": "ok"})
    try:
        server.backend(reasoning="off", server="llama.cpp").chat(ASK, key="a#1", settings=GenerationSettings(max_tokens=5))
        server.backend(reasoning="high", server="vllm").chat(ASK, key="a#1", settings=GenerationSettings(max_tokens=5))
        with pytest.raises(ReasoningModeUnsupported, match="which server"):
            server.backend(reasoning="off")
    finally:
        server.close()
    off, high = server.requests[0][1], server.requests[1][1]
    assert off["chat_template_kwargs"] == {"enable_thinking": False} and "reasoning_effort" not in off
    assert high["reasoning_effort"] == "high" and high["chat_template_kwargs"] == {"reasoning_effort": "high"}


def test_a_plain_answer_whose_code_closes_a_think_tag_is_all_answer():
    """Hostile input round 2, row 13: the code went into `reasoning` and the run was recorded as no code."""
    content = "# file: train.py\n```python\nSTOP = '</think>'\nprint(STOP)\n```\nEXPECTED_F1: 0.8"
    completion, _ = ask({"content": content})
    assert completion.text == content and completion.reasoning == "" and completion.reasoning_tokens == 0
    assert audit(completion, expect="code").status == "captured"
