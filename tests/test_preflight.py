"""The whole plan checked before the first run (issue 27): a missing model file, a file whose GGUF header does not
read, an endpoint that does not answer its model list (or does not list the model), a missing sandbox image, a
batch folder another process writes: each a named error, and nothing started (no batch.json, no run). `bakeoff
run` exits 4 when a run ended harness-failed."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from runner_support import bakeoff_cli, make_tiny_corpus, write_plan

from bakeoff.batchfolder.lock import BatchLocked, batch_lock
from bakeoff.runner.plan import plan_from_mapping
from bakeoff.runner.preflight import (
    BatchingServerMissing,
    EndpointNotAnswering,
    ModelFileMissing,
    ModelHeaderUnreadable,
    PreflightChecks,
    SandboxNotReady,
    model_identity,
    preflight,
)

MODELS_ONLY = PreflightChecks(sandbox=False, lock=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_tiny_corpus(tmp_path_factory.mktemp("preflight") / "corpus")


class Models(BaseHTTPRequestHandler):
    """An OpenAI-compatible model list served on 127.0.0.1 by the test itself."""

    served = ("served-model",)

    def do_GET(self):  # noqa: N802 - the http.server name
        if self.path != "/v1/models":
            self.send_error(404)
            return
        body = json.dumps({"object": "list", "data": [{"id": name, "object": "model"} for name in self.served]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = HTTPServer(("127.0.0.1", 0), Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def plan_of(tmp_path: Path, *models) -> object:
    return plan_from_mapping({"models": list(models), "corpus": "corpus", "runs": 1}, tmp_path)


def test_a_missing_model_file_is_named_before_anything_runs(tmp_path):
    plan = plan_of(tmp_path, "scripted:answers.jsonl", "gguf:weights/none.gguf")
    with pytest.raises(ModelFileMissing, match="model answers: no scripted answers file at .*answers.jsonl"):
        preflight(plan, tmp_path / "batch", plan.models, MODELS_ONLY)
    (tmp_path / "answers.jsonl").write_text("{}\n")
    with pytest.raises(ModelFileMissing, match="no GGUF file at .*weights/none.gguf .*against the plan file's folder"):
        preflight(plan, tmp_path / "batch", plan.models, MODELS_ONLY)


def test_a_gguf_whose_header_does_not_read_is_named(tmp_path):
    (tmp_path / "broken.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 7)  # a header cut short
    (tmp_path / "text.gguf").write_text("not a model")
    for name in ("broken", "text"):
        plan = plan_of(tmp_path, f"gguf:{name}.gguf")
        with pytest.raises(ModelHeaderUnreadable, match=f"model {name}: "):
            preflight(plan, tmp_path / "batch", plan.models, MODELS_ONLY)


def test_a_model_on_the_batching_engine_needs_its_llama_server(tmp_path, monkeypatch):
    from bakeoff.models.llama_server import SERVER_ENV

    plan = plan_of(tmp_path, {"spec": "default", "engine": "server", "max_concurrent": 2})
    assert preflight(plan, tmp_path / "batch", plan.models, MODELS_ONLY)["default"]  # the server setup.sh built
    (tmp_path / "llama-server").write_text("#!/bin/sh\nexit 1\n")
    for named in (tmp_path / "absent", tmp_path / "llama-server"):  # none there; one that is not executable
        monkeypatch.setenv(SERVER_ENV, str(named))
        with pytest.raises(BatchingServerMissing, match=r"model default: engine = \"server\" needs"):
            preflight(plan, tmp_path / "batch", plan.models, MODELS_ONLY)
    binding = plan_of(tmp_path, "default")  # the in-process engine needs no server
    assert preflight(binding, tmp_path / "batch", binding.models, MODELS_ONLY)


def test_an_endpoint_must_answer_its_model_list_and_list_the_model(tmp_path, endpoint):
    good = plan_of(tmp_path, f"openai:{endpoint}#served-model")
    identities = preflight(good, tmp_path / "batch", good.models, MODELS_ONLY)
    assert identities == {"served-model": f"openai:{endpoint}#served-model"}
    wrong = plan_of(tmp_path, f"openai:{endpoint}#served-modle")
    with pytest.raises(EndpointNotAnswering, match="does not serve 'served-modle'; it lists served-model.*did you mean"):
        preflight(wrong, tmp_path / "batch", wrong.models, MODELS_ONLY)
    silent = plan_of(tmp_path, f"openai:http://127.0.0.1:{closed_port()}/v1#m")
    with pytest.raises(EndpointNotAnswering, match="does not answer its model list .*ConnectError"):
        preflight(silent, tmp_path / "batch", silent.models, MODELS_ONLY)


def test_a_folder_another_process_writes_is_refused(tmp_path):
    (tmp_path / "answers.jsonl").write_text("{}\n")
    plan = plan_of(tmp_path, "scripted:answers.jsonl")
    folder = tmp_path / "batch"
    folder.mkdir()
    with batch_lock(folder):  # held by this process on another open file: the preflight's own lock attempt fails
        with pytest.raises(BatchLocked, match="one batch folder has one writer"):
            preflight(plan, folder, plan.models, PreflightChecks(sandbox=False))
    assert preflight(plan, folder, plan.models, PreflightChecks(sandbox=False))  # free again


def test_identity_is_the_file_not_the_label(tmp_path):
    from bakeoff.models.spec import parse_spec

    (tmp_path / "a.jsonl").write_text('{"text": "same"}\n')
    (tmp_path / "b.jsonl").write_text('{"text": "same"}\n')
    (tmp_path / "c.jsonl").write_text('{"text": "other"}\n')
    ids = [model_identity(parse_spec(f"scripted:{tmp_path / n}")) for n in ("a.jsonl", "b.jsonl", "c.jsonl")]
    assert ids[0] == ids[1] != ids[2] and ids[0].startswith("sha256:")


@pytest.mark.docker
def test_a_missing_sandbox_image_is_named(tmp_path):
    plan = plan_of(tmp_path, "default")
    with pytest.raises(SandboxNotReady, match="bakeoff-no-such-image:0 is missing.*bakeoff sandbox build"):
        preflight(plan, tmp_path / "batch", [], PreflightChecks(image="bakeoff-no-such-image:0"))


def test_the_command_refuses_a_plan_with_a_missing_model_and_starts_nothing(tmp_path, corpus):
    plan = tmp_path / "plans" / "plan.toml"
    plan.parent.mkdir()
    write_plan(plan, corpus, Path("gone.jsonl"), runs=1)  # relative: read against plans/, where it is not
    out = tmp_path / "batch"
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert "error: ModelFileMissing: model scripted: no scripted answers file at" in done.stderr
    assert str(tmp_path / "plans" / "gone.jsonl") in done.stderr and "Traceback" not in done.stderr
    assert not (out / "batch.json").exists() and not (out / "runs").exists()


@pytest.mark.docker
@pytest.mark.slow
def test_a_run_that_harness_failed_makes_the_command_exit_4(tmp_path, corpus):
    script = tmp_path / "unreadable.jsonl"
    script.write_text("this is not JSON\n")  # there for the preflight; the backend cannot read it: the run's failure
    plan = write_plan(tmp_path / "plan.toml", corpus, script, runs=1)
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(tmp_path / "batch"))
    assert done.returncode == 4, done.stderr
    assert "runs: 1, harness failures: 1" in done.stdout
    assert "1 runs ended harness_failed" in done.stderr
    record = json.loads((tmp_path / "batch" / "runs" / "scripted-r01" / "run.json").read_text())
    assert record["status"] == "harness_failed"
