"""Truncation caught, not graded (issue 37): a turn whose prompt the server cut is uncaptured (context_truncated).

bakeoff's own count of the prompt it sent (Completion.prompt_floor) against the server's `usage.prompt_tokens`,
with the scripted backend replaying a server's report and a loopback OpenAI-compatible server answering as
llama.cpp's server and a silently cutting one do; and the preflight's context probe against the same servers."""

from __future__ import annotations

import json

import pytest
from test_models_openai import ScriptedServer, ok_body

from bakeoff.answers import audit, audit_tool_calls
from bakeoff.models.base import Completion, GenerationSettings, Message
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.models.tools import ToolCall, ToolSpec
from bakeoff.models.truncation import MAX_CHARS_PER_TOKEN, is_context_refusal, text_floor
from bakeoff.records import ModelEntry
from bakeoff.records.enums import UNCAPTURED_REASONS, CaptureReason, CaptureStatus
from bakeoff.runner.context_preflight import CODE_WORD, ContextCheck, ContextTooSmall, context_check_for, probe_prompt
from bakeoff.runner.preflight import EndpointNotAnswering
from bakeoff.taskapi.spec import MODEL_STAGES, TaskSettings

SETTINGS = GenerationSettings(max_tokens=64)
LONG = [Message("system", "You write Python."), Message("user", "word " * 3000)]
# llama.cpp's server refusing a prompt longer than its context (its real answer, HTTP 400)
LLAMA_REFUSAL = {"error": {"code": 400, "message": "request (6335 tokens) exceeds the available context size "
                           "(2048 tokens), try increasing it", "type": "exceed_context_size_error",
                           "n_prompt_tokens": 6335, "n_ctx": 2048}}


def completion(prompt_tokens: int, prompt_floor: int | None, text: str = "an answer") -> Completion:
    return Completion(text=text, finish_reason="stop", prompt_tokens=prompt_tokens, completion_tokens=3,
                      prompt_seconds=0.0, generation_seconds=0.0, backend="test", prompt_floor=prompt_floor)


def test_context_truncated_is_an_uncaptured_reason():
    assert CaptureReason.CONTEXT_TRUNCATED in UNCAPTURED_REASONS


def test_a_server_reading_fewer_tokens_than_were_sent_is_uncaptured_not_graded():
    cut = audit(completion(prompt_tokens=4096, prompt_floor=9000), expect="code")
    assert (cut.status, cut.reason) == (CaptureStatus.UNCAPTURED, CaptureReason.CONTEXT_TRUNCATED)
    assert "4096" in cut.detail and "9000" in cut.detail


def test_a_whole_prompt_or_an_unreported_one_is_judged_as_before():
    assert audit(completion(prompt_tokens=9000, prompt_floor=9000)).captured
    assert audit(completion(prompt_tokens=0, prompt_floor=9000)).captured  # no usage: nothing to compare
    assert audit(completion(prompt_tokens=10, prompt_floor=None)).captured  # not counted
    assert audit(completion(prompt_tokens=5, prompt_floor=200)).captured  # too short a prompt for any context to cut


def test_an_agent_step_on_a_cut_prompt_is_uncaptured_whatever_its_calls():
    tools = [ToolSpec("submit", "end", {"type": "object", "properties": {}})]
    step = Completion(text="", finish_reason="stop", prompt_tokens=100, completion_tokens=3, prompt_seconds=0.0,
                      generation_seconds=0.0, backend="test", prompt_floor=900,
                      tool_calls=(ToolCall("submit", "{}"),))
    capture, _problems = audit_tool_calls(step, tools)
    assert capture.reason == CaptureReason.CONTEXT_TRUNCATED and not capture.captured


def test_the_scripted_backend_replays_a_server_that_cut_the_prompt(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"text": "fine", "reported_prompt_tokens": 100}) + "\n"
                      + json.dumps({"text": "fine"}) + "\n")
    backend = open_backend(f"scripted:{script}")
    cut = backend.chat(LONG, key="a#1", settings=SETTINGS)
    assert (cut.prompt_tokens, cut.prompt_floor) == (100, 3003)
    assert audit(cut).reason == CaptureReason.CONTEXT_TRUNCATED
    whole = backend.chat(LONG, key="a#2", settings=SETTINGS)
    assert whole.prompt_tokens == whole.prompt_floor == 3003 and audit(whole).captured


def test_the_text_floor_is_below_any_tokenizer_and_refusals_are_recognised():
    assert text_floor(LONG) == (len("You write Python.") + len("word " * 3000)) // MAX_CHARS_PER_TOKEN
    assert is_context_refusal(400, json.dumps(LLAMA_REFUSAL))
    assert is_context_refusal(400, "This model's maximum context length is 8192 tokens. However, you requested 9000")
    assert not is_context_refusal(400, '{"error": "bad temperature"}')
    assert not is_context_refusal(500, json.dumps(LLAMA_REFUSAL))


def test_a_server_that_refuses_the_long_prompt_is_context_truncated_not_a_backend_error():
    with ScriptedServer([(400, LLAMA_REFUSAL, {}, 0)]) as server:
        backend = open_backend(f"openai:{server.base_url}#m", BackendOptions(backoff_s=0.0))
        refused = backend.chat(LONG, key="a#1", settings=SETTINGS)
    assert refused.error_kind == "context_truncated" and "exceeds the available context size" in refused.error
    assert audit(refused).reason == CaptureReason.CONTEXT_TRUNCATED


def test_a_server_that_silently_cuts_the_prompt_is_caught_by_its_usage():
    with ScriptedServer([(200, ok_body("fine"), {}, 0)]) as server:  # usage: 7 prompt tokens
        backend = open_backend(f"openai:{server.base_url}#m", BackendOptions(backoff_s=0.0))
        answer = backend.chat(LONG, key="a#1", settings=SETTINGS)
    assert answer.error is None and answer.prompt_floor == text_floor(LONG)
    assert audit(answer).reason == CaptureReason.CONTEXT_TRUNCATED


def test_the_probe_prompt_holds_the_fact_first_and_stays_within_its_size():
    prompt = probe_prompt(20000)
    assert 19000 < len(prompt) <= 20000
    assert prompt.index(CODE_WORD) < 200 and prompt.rstrip().endswith("code word only.")


def test_the_probe_is_sized_by_the_tasks_longest_prompt_and_can_be_skipped(monkeypatch):
    settings = TaskSettings(context_tokens=8192, max_tokens={"implement": 4096})
    check = context_check_for(settings, MODEL_STAGES)
    assert check is not None and check.context_tokens == 8192
    assert check.prompt_chars == max(settings.prompt_budget_chars(stage) for stage in MODEL_STAGES)
    monkeypatch.setenv("BAKEOFF_SKIP_CONTEXT_CHECK", "1")
    assert context_check_for(settings, MODEL_STAGES) is None


def probe(server: ScriptedServer) -> None:
    ContextCheck(prompt_chars=30000, context_tokens=16384, timeout_s=10).check(
        ModelEntry("m", f"openai:{server.base_url}#m", options=(("max_retries", 0),)))


def test_the_probe_refuses_by_name_an_endpoint_that_refuses_or_cuts_the_long_prompt():
    for reply in ((400, LLAMA_REFUSAL, {}, 0), (200, ok_body(f"It is {CODE_WORD}"), {}, 0)):
        with ScriptedServer([reply]) as server, pytest.raises(ContextTooSmall) as refused:
            probe(server)
        message = str(refused.value)
        assert "truncat" in message and "llama-server -c 16384" in message and "num_ctx" in message
        assert server.requests[0][2]["messages"][0]["content"].startswith("Remember this fact")


def test_the_probe_refuses_a_forgetful_endpoint_that_reports_no_usage_and_passes_an_honest_one():
    no_usage = {**ok_body("I do not know"), "usage": None}
    with ScriptedServer([(200, no_usage, {}, 0)]) as server, pytest.raises(ContextTooSmall, match="forgot"):
        probe(server)
    honest = {**ok_body("I do not know"), "usage": {"prompt_tokens": 9000, "completion_tokens": 4}}
    with ScriptedServer([(200, honest, {}, 0)]) as server:
        probe(server)  # the whole prompt read: what the model answered is its own business
    with ScriptedServer([(200, {**ok_body(CODE_WORD), "usage": None}, {}, 0)]) as server:
        probe(server)


def test_the_probe_names_an_endpoint_that_fails_otherwise():
    with ScriptedServer([(500, {"error": "boom"}, {}, 0)]) as server, pytest.raises(EndpointNotAnswering):
        probe(server)


def test_an_answer_the_servers_context_ended_short_of_its_budget_is_uncaptured():
    # a server whose context holds a 3,100-token prompt and 217 tokens of the answer, not the 1,024 asked for
    body = {**ok_body("# file: explore.py\n```python\nimport pandas", finish_reason="length"),
            "usage": {"prompt_tokens": 3100, "completion_tokens": 217}}
    with ScriptedServer([(200, body, {}, 0), (200, {**body, "usage": {"prompt_tokens": 3100,
                                                                       "completion_tokens": 1024}}, {}, 0)]) as server:
        backend = open_backend(f"openai:{server.base_url}#m", BackendOptions(backoff_s=0.0))
        short = backend.chat(LONG, key="a#1", settings=GenerationSettings(max_tokens=1024))
        spent = backend.chat(LONG, key="a#2", settings=GenerationSettings(max_tokens=1024))
    assert short.context_filled and not spent.context_filled
    capture = audit(short, expect="code")
    assert (capture.status, capture.reason) == (CaptureStatus.UNCAPTURED, CaptureReason.CONTEXT_TRUNCATED)
    assert "context filled after 3100 prompt and 217 answer tokens" in capture.detail
    assert audit(spent, expect="code").reason == CaptureReason.CUT_OFF  # our own budget ended it: the model's
