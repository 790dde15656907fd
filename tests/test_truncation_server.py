"""Acceptance of issue 37's truncation part: a real llama-server started with a small context (`-c 2048`) behind an
`openai:` plan entry. The preflight refuses it, naming truncation and the fix; a batch forced past the preflight
(BAKEOFF_SKIP_CONTEXT_CHECK=1) records its long turns as `context_truncated` (uncaptured), none graded as the
model's. llama-server refuses an over-long prompt with HTTP 400 ("exceeds the available context size"): that
real answer is what the batch meets, and it is recorded as truncation, not as a backend error."""

from __future__ import annotations

import csv
import subprocess

import pytest
from deadline import wait_until_answering
from runner_support import SANDBOX_LIMITS, make_tiny_corpus, stage_records
from test_models_openai import free_port

from bakeoff.models.registry import default_model_path

pytestmark = [pytest.mark.llama]

SMALL_CONTEXT = 2048
STAGES = ("explore", "decide", "implement", "repair", "docs")
EXCERPT_CHARS = 12000  # the data excerpt every prompt carries: about 3,500 tokens, past the server's 2,048


@pytest.fixture(scope="module")
def small_server(tmp_path_factory):
    """The real llama-server (the one setup.sh builds) serving the default model with a 2,048-token context."""
    from bakeoff.models.llama_server import find_server_build

    port = free_port()
    log_path = tmp_path_factory.mktemp("small-server") / "server.log"
    log = log_path.open("wb")  # a file, not a pipe: a full pipe would block the server
    process = subprocess.Popen(
        [str(find_server_build().path), "-m", str(default_model_path()), "-c", str(SMALL_CONTEXT),
         "--alias", "smollm2", "--host", "127.0.0.1", "--port", str(port), "-t", "2"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_until_answering(process, f"{url}/health", log_path, "llama-server")
    yield f"{url}/v1"
    process.terminate()
    process.wait(timeout=60)
    log.close()


def plan_mapping(server: str, corpus) -> dict:
    return {"models": [{"label": "small", "spec": f"openai:{server}#smollm2", "api_key_env": ""}], "runs": 1,
            "corpus": str(corpus), "sandbox": "docker", "limits": SANDBOX_LIMITS, "seed": 5,
            # short answers keep the test quick; the context stays the take-home's 16K, far past the server's
            "task_settings": {"smoke_rows": 50, "max_tokens": dict.fromkeys(STAGES, 48),
                              "reasoning_tokens": dict.fromkeys(STAGES, 0)}}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The tiny corpus with a longer excerpt of its training file, so every turn's prompt is a long one."""
    folder = make_tiny_corpus(tmp_path_factory.mktemp("truncation") / "corpus")
    lines = (folder / "train.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    excerpt, used = [], 0
    for line in lines:
        if used + len(line) > EXCERPT_CHARS:
            break
        excerpt.append(line)
        used += len(line)
    (folder / "excerpt.txt").write_text("".join(excerpt), encoding="utf-8")
    return folder


def run(mapping: dict, out):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    return run_plan(plan_from_mapping(mapping, out.parent), BatchOptions(out_dir=out, wheelhouse=default_wheelhouse()))


@pytest.mark.slow
@pytest.mark.docker
def test_the_preflight_refuses_a_server_whose_context_is_too_small(small_server, corpus, tmp_path, monkeypatch):
    from bakeoff.runner.context_preflight import ContextTooSmall

    monkeypatch.delenv("BAKEOFF_SKIP_CONTEXT_CHECK", raising=False)
    with pytest.raises(ContextTooSmall) as refused:
        run(plan_mapping(small_server, corpus), tmp_path / "batch")
    message = str(refused.value)
    assert "truncated" in message and "exceeds the available context size (2048 tokens)" in message
    assert "llama-server -c 16384" in message and "num_ctx" in message
    assert not (tmp_path / "batch").exists()  # nothing was started


@pytest.mark.slow
@pytest.mark.docker
def test_a_batch_forced_past_the_preflight_records_cut_turns_uncaptured_never_graded(small_server, corpus, tmp_path,
                                                                                     monkeypatch):
    from bakeoff.tasks import report_batch

    monkeypatch.setenv("BAKEOFF_SKIP_CONTEXT_CHECK", "1")
    result = run(plan_mapping(small_server, corpus), tmp_path / "batch")
    (record,) = [r.to_json() for r in result.records]
    stages = stage_records(tmp_path / "batch" / "runs" / record["run_id"])
    captures = [s["capture"] for s in stages if s.get("capture")]
    truncated = [c for c in captures if c["reason"] == "context_truncated"]
    assert truncated and all(c["status"] == "uncaptured" for c in truncated)
    assert all(s["attribution"] == "uncaptured" for s in stages if (s.get("capture") or {}).get("reason")
               == "context_truncated")
    assert not any(c["reason"] in ("transport_error", "backend_error") for c in captures)
    assert record["capture"]["uncaptured"] >= len(truncated)
    report = report_batch(tmp_path / "batch")
    with open(report.folder / "tables" / "models.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["graded"] == "0" and row["uncaptured_runs"] == "1"  # never graded as the model's failure
    with open(report.folder / "tables" / "capture_reasons.csv", newline="") as handle:
        reasons = {(r["status"], r["reason"]) for r in csv.DictReader(handle)}
    assert ("uncaptured", "context_truncated") in reasons


def test_the_in_process_engine_names_a_prompt_its_context_cannot_hold(tmp_path):
    from bakeoff.answers import audit
    from bakeoff.models.base import GenerationSettings, Message
    from bakeoff.models.registry import BackendOptions, open_backend

    backend = open_backend("default", BackendOptions(n_ctx=512, hash_cache_file=tmp_path / "h.json"))
    try:
        completion = backend.chat([Message("user", "the quick brown fox jumps over the lazy dog. " * 200)], key="a#1",
                                  settings=GenerationSettings(max_tokens=8))
    finally:
        backend.close()
    assert completion.error_kind == "context_truncated" and "does not fit n_ctx=512" in (completion.error or "")
    assert audit(completion).reason == "context_truncated"
