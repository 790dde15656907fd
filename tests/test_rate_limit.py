"""An endpoint's rate limit is waited for, within a budget, and past it recorded `uncaptured` (rate_limited): the
key's limit, never the model's failure. Against real loopback servers that answer 429 (with Retry-After in
seconds or as an HTTP date) and then 200, or 429 for ever."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest
from json_server import JsonServer, Reply, Request
from test_models_openai import HELLO, ScriptedServer, backend_for, ok_body

from bakeoff.answers import audit
from bakeoff.models.base import GenerationSettings
from bakeoff.models.rate_limit import MAX_RATE_LIMIT_RETRIES, retry_after_s
from bakeoff.models.registry import BackendOptions, open_backend, options_from_plan
from bakeoff.records import CaptureReason, CaptureStatus

LIMITED = {"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}


def ask(server, sleeps, **options):
    return backend_for(server.base_url, sleeps, **options).chat(HELLO, key="a#1", settings=GenerationSettings())


def test_a_429_with_retry_after_seconds_is_waited_for_then_answered():
    sleeps = []
    with ScriptedServer([(429, LIMITED, {"Retry-After": "7"}, 0), (429, LIMITED, {"Retry-After": "3"}, 0),
                         (200, ok_body("fine"), {}, 0)]) as server:
        completion = ask(server, sleeps, max_retries=0)  # waits on a rate limit are not retries of a failure
    assert completion.error is None and completion.text == "fine" and len(server.requests) == 3
    assert sleeps == [7.0, 3.0]
    assert completion.model_info["rate_limit_wait_s"] == 10.0
    assert completion.model_info["attempt_failures"] == ["HTTP 429", "HTTP 429"]
    assert audit(completion).status == CaptureStatus.CAPTURED


def test_a_429_with_an_http_date_is_waited_for_until_then():
    sleeps = []
    later = formatdate(time.time() + 30, usegmt=True)
    with ScriptedServer([(429, LIMITED, {"Retry-After": later}, 0), (200, ok_body(), {}, 0)]) as server:
        completion = ask(server, sleeps)
    assert completion.error is None and len(server.requests) == 2
    assert len(sleeps) == 1 and 27 <= sleeps[0] <= 30


def test_a_429_without_retry_after_backs_off_doubling():
    sleeps = []
    with ScriptedServer([(429, LIMITED, {}, 0)] * 3 + [(200, ok_body(), {}, 0)]) as server:
        completion = ask(server, sleeps)
    assert completion.error is None and sleeps == [0.01, 0.02, 0.04]


def test_a_429_for_ever_is_uncaptured_rate_limited_once_the_budget_is_spent():
    sleeps = []
    with ScriptedServer([(429, LIMITED, {"Retry-After": "2"}, 0)] * 10) as server:
        completion = ask(server, sleeps, rate_limit_wait_s=5)
    assert len(server.requests) == 3 and sleeps == [2.0, 2.0]  # a third wait would pass the 5 s budget
    assert completion.error_kind == "rate_limited" and completion.finish_reason == "error"
    assert completion.error == ("HTTP 429: rate limited; 2 waits (4 s) then it asked for 2 s more, past the 5 s "
                                "budget (rate_limit_wait_s)")
    assert completion.model_info["rate_limit_wait_s"] == 4.0
    capture = audit(completion, expect="code")
    assert (capture.status, capture.reason) == (CaptureStatus.UNCAPTURED, CaptureReason.RATE_LIMITED)
    assert not capture.graded  # never the model's failure


def test_a_wait_past_the_budget_is_not_slept():
    sleeps = []
    with ScriptedServer([(429, LIMITED, {"Retry-After": "3600"}, 0), (200, ok_body(), {}, 0)]) as server:
        completion = ask(server, sleeps)  # the default budget is minutes, not an hour
    assert sleeps == [] and len(server.requests) == 1 and completion.error_kind == "rate_limited"


def test_a_503_that_says_when_to_come_back_is_waited_for_as_a_rate_limit():
    sleeps = []
    with ScriptedServer([(503, {}, {"Retry-After": "4"}, 0), (200, ok_body(), {}, 0)]) as server:
        completion = ask(server, sleeps, max_retries=0)
    assert completion.error is None and sleeps == [4.0]


def test_retry_after_zero_for_ever_stops_at_a_count():
    sleeps = []
    with ScriptedServer([(429, LIMITED, {"Retry-After": "0"}, 0)] * (MAX_RATE_LIMIT_RETRIES + 5)) as server:
        completion = ask(server, sleeps)
    assert len(sleeps) == MAX_RATE_LIMIT_RETRIES and completion.error_kind == "rate_limited"


def test_a_real_wait_against_a_real_server():
    with ScriptedServer([(429, LIMITED, {"Retry-After": "1"}, 0), (200, ok_body("waited"), {}, 0)]) as server:
        backend = open_backend(f"openai:{server.base_url}#test-model", BackendOptions(backoff_s=0.01))
        began = time.monotonic()
        completion = backend.chat(HELLO, key="a#1", settings=GenerationSettings())
    assert completion.text == "waited" and time.monotonic() - began >= 1.0
    assert completion.generation_seconds < 1.0  # the answer's own time: the wait was not the model's


def test_the_budget_is_a_plan_option_of_an_endpoint():
    options = options_from_plan({"rate_limit_wait_s": 12.5})
    backend = open_backend("openai:http://127.0.0.1:9/v1#m", options)
    assert backend.http.rate_limit_wait_s == 12.5
    with pytest.raises(Exception, match="rate_limit_wait_s must be a number >= 0"):
        options_from_plan({"rate_limit_wait_s": -1})


@pytest.mark.parametrize("value, expected", [
    ("120", 120.0), (" 5 ", 5.0), (None, None), ("", None), ("soon", None), ("-3", None), ("1.5", None),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date gone by: send again now
])
def test_retry_after_reads_seconds_or_an_http_date(value, expected):
    assert retry_after_s(value, time.time()) == expected


def test_a_recorded_rate_limited_answer_replays_as_one(tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"key": "a#1", "text": "", "error": "HTTP 429: rate limited", "error_kind": "rate_limited"}\n')
    completion = open_backend(f"scripted:{answers}").chat(HELLO, key="a#1", settings=GenerationSettings())
    assert audit(completion).reason == CaptureReason.RATE_LIMITED


def limited_for_ever() -> JsonServer:
    """Lists its model (GET /v1/models) and answers every chat with 429, Retry-After 30 s."""
    listed = {"object": "list", "data": [{"id": "served-model", "object": "model"}]}

    def route(request: Request) -> Reply:
        if request.method == "GET":
            return Reply(listed) if request.path == "/v1/models" else Reply({}, 404)
        return Reply(LIMITED, 429, {"Retry-After": "30"})

    return JsonServer(route)


@pytest.mark.docker
def test_a_run_whose_endpoint_is_rate_limited_for_ever_ends_uncaptured_with_its_reason(tmp_path, monkeypatch):
    """Issue 37's acceptance: a whole run against a replayed 429 (Retry-After past the plan's budget) is recorded
    uncaptured, reason rate_limited, in its records and the report; never graded as the model's failure."""
    import csv

    from runner_support import SANDBOX_LIMITS, make_tiny_corpus

    from bakeoff.batchfolder.read import read_batch
    from bakeoff.report.build import write_report
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan, task_plugin
    from sandbox.wheelhouse import default_wheelhouse

    monkeypatch.setenv("BAKEOFF_SKIP_CONTEXT_CHECK", "1")  # the context probe would meet the same 429
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    server = limited_for_ever()
    try:
        plan = plan_from_mapping({
            "models": [{"spec": f"openai:{server.origin}/v1#served-model", "label": "limited", "api_key_env": ""}],
            "model_options": {"rate_limit_wait_s": 1}, "runs": 1, "sandbox": "docker", "limits": SANDBOX_LIMITS,
            "seed": 5, "corpus": str(make_tiny_corpus(tmp_path / "corpus")), "task_settings": {"smoke_rows": 50},
        }, tmp_path)
        run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse))
    finally:
        server.close()
    (run,) = read_batch(tmp_path / "batch").runs
    captures = [capture for record in run.stages.values() for _, _, capture in record.model_calls()]
    assert server.posts() and captures
    assert all(c.status == CaptureStatus.UNCAPTURED and c.reason == CaptureReason.RATE_LIMITED for c in captures)
    files = write_report(tmp_path / "batch", task_plugin("spam_classifier"))
    with open(files.folder / "tables" / "capture_reasons.csv", newline="") as handle:
        reasons = {(row["model"], row["reason"]) for row in csv.DictReader(handle)}
    assert ("limited", "rate_limited") in reasons
