"""Things other people hand over, round 3 (issue 32 rows 11, 12, 13, 15, 19): a plan whose api_key_env names any
variable or sends a key over plain http, agent budgets of nan and inf, a batch folder edited by hand (an F1 of
1e308, a NaN, a batch.json that says another task), a leaderboard that merged a model's staged and agent runs
and costed the agent at nothing, and `own_code_runs` counting `cat notes.md`."""

from __future__ import annotations

import csv
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from analysis_factory import FakeRun, batch_record, run_record, write_batch, write_json
from runner_support import bakeoff_cli, make_tiny_corpus, write_script

from bakeoff.analysis.admit import BatchRefused, admit
from bakeoff.analysis.cost import model_costs, run_cost
from bakeoff.analysis.leaderboard import pooled_board
from bakeoff.batchfolder.read import read_batch
from bakeoff.models.api_key import ApiKeyNameRefused, ApiKeyOverPlainHttp, key_route
from bakeoff.models.openai_compat import HttpSettings, OpenAICompatBackend
from bakeoff.records import (
    Capture,
    CaptureReason,
    CaptureStatus,
    Command,
    Commit,
    CompletionRecord,
    FileWritten,
    LoopUsage,
    Prompt,
    Timings,
)
from bakeoff.runner.plan import PlanError, plan_from_mapping
from bakeoff.runner.preflight import KeyNotSendable, check_endpoint, key_routes, served_models
from bakeoff.scaffolds.agent.loop import own_code_runs
from bakeoff.scaffolds.agent.records import StepRecord, ToolResult
from bakeoff.scaffolds.registry import step_readers
from bakeoff.tasks.spam_classifier.words import HEADLINE as F1

KEY_VAR = "BAKEOFF_HANDOVER_API_KEY"


# -- row 11: api_key_env ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["HOME", "PATH"])
def test_a_plan_whose_api_key_env_names_no_key_is_refused_by_name(tmp_path, name):
    own = {"models": [{"spec": "openai:https://api.example.com/v1#m", "api_key_env": name}], "corpus": "c"}
    with pytest.raises(PlanError, match=f"api_key_env = '{name}'.*API key"):
        plan_from_mapping(own, tmp_path)
    shared = {"models": ["openai:https://api.example.com/v1#m"], "corpus": "c", "model_options": {"api_key_env": name}}
    with pytest.raises(PlanError, match=f"api_key_env = '{name}'"):
        plan_from_mapping(shared, tmp_path)
    with pytest.raises(ApiKeyNameRefused):  # `bakeoff ask --api-key-env HOME` opens the backend directly
        OpenAICompatBackend("https://api.example.com/v1", "m", HttpSettings(api_key_env=name))


def test_key_names_that_look_like_keys_are_taken(tmp_path):
    for name in ("OPENAI_API_KEY", "VLLM_API_KEY", "HF_TOKEN", "OPENAI_KEY", ""):
        spec = {"spec": "openai:https://api.example.com/v1#m", "api_key_env": name}
        plan_from_mapping({"models": [spec], "corpus": "c"}, tmp_path)


def test_a_key_that_is_set_is_never_sent_over_plain_http_to_another_host(tmp_path, monkeypatch):
    """Refused before anything is sent: the backend at construction, the preflight before it lists models
    (the lister here only records what it would have sent: nothing leaves this machine)."""
    monkeypatch.setenv(KEY_VAR, "s3cret")
    far = "http://192.0.2.10:8000/v1"  # TEST-NET-1
    with pytest.raises(ApiKeyOverPlainHttp, match=f"\\${KEY_VAR} would be sent to 192.0.2.10 over plain http"):
        OpenAICompatBackend(far, "m", HttpSettings(api_key_env=KEY_VAR))
    plan = plan_from_mapping({"models": [{"spec": f"openai:{far}#m", "api_key_env": KEY_VAR}], "corpus": "c"}, tmp_path)
    asked: list[tuple[str, str]] = []

    def lister(url: str, variable: str) -> list[str]:
        asked.append((url, variable))
        return ["m"]

    with pytest.raises(KeyNotSendable, match="model m: .*plain http"):
        check_endpoint(plan.models[0], lister)
    assert asked == []
    assert key_route(KEY_VAR, "https://api.example.com/v1").is_set  # https goes anywhere
    assert key_route(KEY_VAR, "http://[::1]:8000/v1").is_set and key_route(KEY_VAR, "http://localhost/v1").is_set
    monkeypatch.delenv(KEY_VAR)
    assert not key_route(KEY_VAR, far).is_set  # unset: no key is sent, nothing to refuse


def test_the_allow_list_of_key_names_is_the_one_docs_models_md_shows():
    from bakeoff.models.api_key import KEY_NAMES

    docs = (Path(__file__).resolve().parents[1] / "docs" / "models.md").read_text(encoding="utf-8")
    shown = docs.split("or one of the allow-list", 1)[1].split(";", 1)[0]
    assert sorted(KEY_NAMES) == sorted(name.strip(" `,\n") for name in shown.split(",") if name.strip(" `,\n"))


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str | None] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).seen.append(self.headers.get("Authorization"))
        body = json.dumps({"data": [{"id": "m"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def loopback_server():
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_loopback_http_gets_the_key_and_the_preflight_says_which_variable_goes_where(tmp_path, monkeypatch,
                                                                                    loopback_server):
    monkeypatch.setenv(KEY_VAR, "s3cret")
    assert served_models(loopback_server, KEY_VAR) == ["m"]
    assert _Recorder.seen == ["Bearer s3cret"]
    plan = plan_from_mapping({"models": [{"spec": f"openai:{loopback_server}#m", "api_key_env": KEY_VAR}],
                              "corpus": "c"}, tmp_path)
    assert key_routes(plan.models) == [f"api key: model m: ${KEY_VAR} (set) -> 127.0.0.1 over http"]


def test_bakeoff_run_prints_which_variable_goes_to_which_host(tmp_path, loopback_server):
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "c"\nmodels = [{{ spec = "openai:{loopback_server}#m", '
                    f'api_key_env = "{KEY_VAR}" }}]\n', encoding="utf-8")
    # the corpus "c" is not there: refused right after the key's route is said, nothing started
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch"), env_extra={KEY_VAR: "s3cret"})
    assert f"api key: model m: ${KEY_VAR} (set) -> 127.0.0.1 over http" in done.stderr, done.stderr
    assert "s3cret" not in done.stderr + done.stdout and not (tmp_path / "batch").exists()


# -- row 13: nan and inf in budgets and timeouts -----------------------------------------------------

@pytest.mark.parametrize(("table", "key", "value"), [
    ("scaffold_settings.agent", "wall_s", "nan"),
    ("scaffold_settings.agent", "cpu_s", "inf"),
    ("scaffold_settings.agent", "run_timeout_s", "nan"),
    ("task_settings", "model_timeout_s", "inf"),
    ("model_options", "backoff_s", "inf"),
])
def test_nan_and_inf_are_refused_before_the_batch_folder_is_made(tmp_path, table, key, value):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "agent.jsonl", [{"key": "agent#1", "text": "",
                                                      "tool_calls": [{"name": "submit", "arguments": {}}]}])
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "{corpus}"\nsandbox = "none"\nscaffolds = ["agent"]\n'
                    f'models = [{{ spec = "scripted:{script}", label = "s" }}]\n[{table}]\n{key} = {value}\n',
                    encoding="utf-8")
    out = tmp_path / "batch"
    done = bakeoff_cli("run", "--plan", str(plan), "--out", str(out), "--unsafe-no-isolation", timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"{key}" in done.stderr and value in done.stderr and "error:" in done.stderr, done.stderr
    assert not out.exists()


# -- row 15: a batch folder edited by hand -------------------------------------------------------------

def _table(batch: Path, name: str) -> list[dict[str, str]]:
    with open(batch / "report" / "tables" / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _hand_edited(folder: Path) -> Path:
    """Two sound models, one whose F1 is 1e308 and one whose F1 is NaN (not JSON: the record does not read)."""
    return write_batch(folder, [FakeRun("good", 1, f1=0.70), FakeRun("fair", 1, f1=0.60),
                                FakeRun("huge", 1, f1=1e308), FakeRun("nan", 1, f1=float("nan"))])


def test_report_refuses_the_damaged_runs_by_name_and_reports_the_rest(tmp_path):
    batch = _hand_edited(tmp_path / "batch")
    done = bakeoff_cli("report", str(batch))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "refused run huge-r01" in done.stderr and "1e+308" in done.stderr
    assert "refused run nan-r01" in done.stderr
    assert [row["model"] for row in _table(batch, "leaderboard")] == ["good", "fair"]
    assert "Left out: refused run huge-r01" in (batch / "report" / "report.md").read_text(encoding="utf-8")


def test_the_leaderboard_refuses_a_batch_whose_task_its_runs_contradict_and_ranks_the_rest(tmp_path):
    batch = _hand_edited(tmp_path / "batch")
    other = write_batch(tmp_path / "other", [FakeRun("spam", 1, f1=0.9), FakeRun("spam", 2, f1=0.8)])
    record = json.loads((other / "batch.json").read_text(encoding="utf-8"))
    record["plan"]["task"] = "ab_test"  # its runs are spam runs: their F1s must not be read as Winkler scores
    (other / "batch.json").write_text(json.dumps(record), encoding="utf-8")
    done = bakeoff_cli("leaderboard", str(batch), str(other), "--out", str(tmp_path / "board"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"refused batch {other}" in done.stderr and "'spam_classifier', the batch's is 'ab_test'" in done.stderr
    assert "refused run huge-r01" in done.stderr and "refused run nan-r01" in done.stderr
    board = (tmp_path / "board" / "leaderboard.md").read_text(encoding="utf-8")
    ranked = board.split("## Left out", 1)[0] + board.split("## spam_classifier", 1)[1]
    assert "good" in ranked and "fair" in ranked and "huge" not in ranked and "Winkler" not in board
    assert "refused run huge-r01" in board and f"refused batch {other}" in board  # the page says what it left out
    alone = bakeoff_cli("report", str(other))  # the report of that batch alone: refused whole, by name
    assert alone.returncode != 0 and "Traceback" not in alone.stderr, alone.stderr
    assert "error: BatchRefused" in alone.stderr and "spam-r01" in alone.stderr and not (other / "report").exists()


def test_admit_checks_the_headline_range_name_and_direction(tmp_path):
    batch = write_batch(tmp_path / "b", [FakeRun("ok", 1, f1=0.5), FakeRun("neg", 1, f1=-0.1),
                                         FakeRun("over", 1, f1=1.5)])
    admitted = admit(read_batch(batch), F1, "spam_classifier")
    assert [run.run_id for run in admitted.runs] == ["ok-r01"]
    assert {r.run_id for r in admitted.refused} == {"neg-r01", "over-r01"}
    from bakeoff.tasks.ab_test.words import HEADLINE as WINKLER

    with pytest.raises(BatchRefused, match="ok-r01: its record says task 'spam_classifier', the batch's is 'ab_test'"):
        admit(read_batch(batch), WINKLER, "ab_test")


# -- row 12: a model's staged and agent runs -----------------------------------------------------------

AGENT_PROMPT_TOKENS, AGENT_ANSWER_TOKENS = 900, 150


def _step(run_id: str, number: int, results: tuple[ToolResult, ...] = ()) -> StepRecord:
    completion = CompletionRecord(text="", finish_reason="stop", prompt_tokens=AGENT_PROMPT_TOKENS,
                                  completion_tokens=AGENT_ANSWER_TOKENS, prompt_seconds=0.5, generation_seconds=1.5,
                                  backend="scripted")
    return StepRecord(run_id=run_id, step=number, prompt=Prompt(f"agent#{number}", (), 0, 0), completion=completion,
                      capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK),
                      results=results, files_changed=(), commit=Commit("0" * 40, "step", "2026-12-06T00:00:00Z"),
                      timings=Timings("2026-12-06T00:00:00Z", "2026-12-06T00:00:02Z", wall_s=2.0, model_s=2.0),
                      usage=LoopUsage(number, number * AGENT_ANSWER_TOKENS, 2.0 * number, 0.0))


def _add_agent_run(folder: Path, model: str, index: int, f1: float, steps: int) -> str:
    """An agent run of `model` beside the batch's staged runs: its run record and its step records."""
    import dataclasses

    staged = run_record(FakeRun(model, index, f1=f1))
    run_id = f"{model}-agent-r{index:02d}"
    write_json(folder / "runs" / run_id / "run.json", dataclasses.replace(staged, run_id=run_id, scaffold="agent").to_json())
    for number in range(1, steps + 1):
        write_json(folder / "runs" / run_id / "steps" / f"{number:03d}.json", _step(run_id, number).to_json())
    return run_id


def _one_file(folder: Path) -> Path:
    """Every run of the batch used the same model file, as a real batch records it (batch.json's identities,
    each run record's model sha256)."""
    record = json.loads((folder / "batch.json").read_text(encoding="utf-8"))
    record["identities"] = {"m": "sha256:" + "a" * 64}
    (folder / "batch.json").write_text(json.dumps(record), encoding="utf-8")
    for path in (folder / "runs").glob("*/run.json"):
        run = json.loads(path.read_text(encoding="utf-8"))
        run["model"]["info"] = {**run["model"].get("info", {}), "sha256": "a" * 64}
        path.write_text(json.dumps(run), encoding="utf-8")
    return folder


def test_a_models_staged_and_agent_runs_are_two_rows_and_the_agent_is_costed_from_its_steps(tmp_path):
    one = write_batch(tmp_path / "one", [FakeRun("m", 1, f1=0.8), FakeRun("m", 2, f1=0.7)])
    agent_id = _add_agent_run(one, "m", 1, 0.2, steps=3)
    records = read_batch(_one_file(one), step_readers=step_readers)  # the agent's steps: its decoder, handed down
    board = pooled_board([records], F1, "spam_classifier")
    rows = {row.model: row for row in board.rows}
    assert set(rows) == {"m", "m-agent"} and rows["m"].runs == 2 and rows["m-agent"].runs == 1
    assert rows["m-agent"].scaffold == "agent" and rows["m"].scaffold == "staged"
    (agent,) = [run for run in records.runs if run.run_id == agent_id]
    cost = run_cost(agent)
    assert cost.calls == 3 and cost.prompt_tokens == 3 * AGENT_PROMPT_TOKENS
    assert cost.answer_tokens == 3 * AGENT_ANSWER_TOKENS
    by_model = model_costs([run_cost(run) for run in records.runs], ["m", "m-agent"])
    assert by_model["m-agent"].runs == 1 and by_model["m-agent"].answer_tokens_per_run == 3 * AGENT_ANSWER_TOKENS
    # Across batches too: an agent-only batch of the same file never joins the staged row.
    two = tmp_path / "two"
    write_json(two / "batch.json", batch_record([FakeRun("m", 1)]).to_json())
    _add_agent_run(two, "m", 1, 0.3, steps=2)
    batches = [read_batch(one, step_readers=step_readers), read_batch(_one_file(two), step_readers=step_readers)]
    pooled = pooled_board(batches, F1, "spam_classifier", allow_mixed=True)
    rows = {row.model: row for row in pooled.rows}
    assert set(rows) == {"m", "m-agent"} and rows["m"].runs == 2 and rows["m-agent"].runs == 2


def test_the_report_keeps_a_models_staged_and_agent_rows_apart_with_the_agents_tokens(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("m", 1, f1=0.8)])
    _add_agent_run(batch, "m", 1, 0.2, steps=2)
    done = bakeoff_cli("report", str(_one_file(batch)))
    assert done.returncode == 0, done.stderr
    rows = {row["model"]: row for row in _table(batch, "leaderboard")}
    assert set(rows) == {"m", "m-agent"} and rows["m-agent"]["scaffold"] == "agent"
    assert float(rows["m-agent"]["tokens_in_per_run"]) == 2 * AGENT_PROMPT_TOKENS


# -- row 19: own_code_runs ---------------------------------------------------------------------------

def _wrote(*paths: str) -> ToolResult:
    return ToolResult("write_file", True, "written", files_written=tuple(FileWritten(p, 10, "ab" * 32) for p in paths))


def _ran(command: str) -> ToolResult:
    record = Command("agent_run", ("sh", "-c", command), 0, False, False, 0.1, "", "")
    return ToolResult("run", True, "exit status 0", command=record)


def test_own_code_runs_counts_only_commands_that_execute_a_file_the_agent_wrote():
    wrote = _step("r", 1, (_wrote("notes.md", "notes_analysis.py", "tools/fit.sh"),))
    reading = [_step("r", 2, (_ran("cat notes.md"),)), _step("r", 3, (_ran("grep -c x notes_analysis.py"),)),
               _step("r", 4, (_ran("echo 1 > notes_analysis.py; cat tools/fit.sh"),))]
    assert own_code_runs([wrote, *reading]) == (0, None)
    assert own_code_runs([wrote, _step("r", 2, (_ran("cat notes.md"),)),
                          _step("r", 3, (_ran("python notes_analysis.py"),))]) == (1, 3)
    executing = ["python3 -u notes_analysis.py > out.txt 2>&1", "./tools/fit.sh", "bash tools/fit.sh",
                 "cd tools && sh fit.sh", "timeout 60 python notes_analysis.py"]
    steps = [wrote, *(_step("r", n, (_ran(c),)) for n, c in enumerate(executing, 2))]
    assert own_code_runs(steps) == (len(executing), 2)
    assert own_code_runs([_step("r", 1, (_ran("python notes_analysis.py"),)), wrote]) == (0, None)  # not yet written
