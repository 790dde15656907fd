"""Issue 37, "a frontier control, priced": a plan entry's price (US dollars per million input, cached-input and
output tokens) gives the report money beside time and tokens: a dollars column in both cost tables and a Pareto plot
of the headline against dollars per run.

The control is a loopback server answering OpenAI's chat completions with its real usage shape (cached prompt
tokens under `prompt_tokens_details`, reasoning under `completion_tokens_details`); the expected dollars are
summed from what that server answered, not from bakeoff's records."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from json_server import JsonServer, Reply, Request, not_found
from runner_support import SANDBOX_LIMITS, answers, implementation, make_tiny_corpus, write_script

from bakeoff.records.plan import Plan, Price
from bakeoff.runner.model_entries import ModelEntryError
from bakeoff.runner.plan import plan_from_mapping

PRICE = {"input": 3.0, "cached_input": 0.3, "output": 15.0}


def test_dollars_are_fresh_input_cached_input_and_output_at_their_prices():
    price = Price(input=3.0, output=15.0, cached_input=0.3)
    assert math.isclose(price.dollars(1_000_000, 400_000, 10_000), 0.6 * 3.0 + 0.4 * 0.3 + 0.01 * 15.0)
    assert math.isclose(Price(2.0, 8.0).dollars(500_000, 500_000, 0), 1.0)  # no cached price: the input price


@pytest.mark.parametrize("price, named", [
    ({"input": 3.0}, "missing: output"),
    ({"input": 3.0, "output": 15.0, "batch": 1.0}, "unknown: batch"),
    ({"input": -1.0, "output": 15.0}, "price.input must be a number"),
    ({"input": float("nan"), "output": 15.0}, "price.input must be a number"),
    ({"input": 3.0, "output": True}, "price.output must be a number"),
    ("3 dollars", "price is a table"),
])
def test_a_bad_price_is_refused_by_name(tmp_path, price, named):
    with pytest.raises(ModelEntryError, match=named):
        plan_from_mapping({"models": [{"spec": "scripted:x.jsonl", "price": price}], "runs": 1,
                           "corpus": str(tmp_path)}, tmp_path)


def test_a_price_is_kept_in_batch_json_and_read_back(tmp_path):
    plan = plan_from_mapping({"models": [{"spec": "scripted:x.jsonl", "label": "m", "price": PRICE}], "runs": 1,
                              "corpus": str(tmp_path)}, tmp_path)
    again = Plan.from_json(json.loads(json.dumps(plan.to_dict())))
    assert again.model("m").price == Price(3.0, 15.0, 0.3)
    unpriced = plan_from_mapping({"models": ["scripted:x.jsonl"], "runs": 1, "corpus": str(tmp_path)}, tmp_path)
    (entry,) = unpriced.to_dict()["models"]
    assert "price" not in entry  # an unpriced plan keeps the hash it always had


class OpenAIReplay(JsonServer):
    """Answers chat completions with a take-home's stage answers in order, each with OpenAI's usage fields: the
    prompt counted as a token per two characters, half of it cached, 40 reasoning tokens in the output."""

    def __init__(self, texts: list[str]) -> None:
        self.billed: list[tuple[int, int, int]] = []  # (prompt, cached, completion) of every answer
        listed = {"object": "list", "data": [{"id": "control", "object": "model", "owned_by": "x"}]}

        def route(request: Request) -> Reply:
            if request.method == "GET":
                return Reply(listed) if request.path == "/v1/models" else not_found(request)
            if not request.path.endswith("/chat/completions"):
                return not_found(request)
            return Reply(self._completion(texts[min(len(self.billed), len(texts) - 1)], request.body))

        super().__init__(route)
        self.url = f"{self.origin}/v1"

    def _completion(self, text: str, request: dict) -> dict:
        prompt = sum(len(str(m.get("content") or "")) for m in request["messages"]) // 2
        usage = (prompt, prompt // 2, len(text) // 4 + 40)
        self.billed.append(usage)
        return {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1733000000, "model": "control-2026",
            "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[2], "total_tokens": usage[0] + usage[2],
                      "prompt_tokens_details": {"cached_tokens": usage[1], "audio_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 40, "audio_tokens": 0,
                                                    "accepted_prediction_tokens": 0,
                                                    "rejected_prediction_tokens": 0}},
        }

    def dollars(self) -> float:
        return sum((p - c) * 3.0 + c * 0.3 + out * 15.0 for p, c, out in self.billed) / 1e6


@pytest.mark.docker
def test_a_priced_control_shows_money_in_the_cost_tables_and_its_own_pareto_plot(tmp_path, monkeypatch):
    from bakeoff.report.build import write_report
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.tasks import run_plan, task_plugin
    from sandbox.wheelhouse import default_wheelhouse

    monkeypatch.setenv("BAKEOFF_SKIP_CONTEXT_CHECK", "1")  # the replay does not count a long probe's tokens
    stage_answers = answers(implementation())
    replay = OpenAIReplay([line["text"] for line in stage_answers])
    local = write_script(tmp_path / "local.jsonl", stage_answers)
    mapping = {
        "models": [{"spec": f"openai:{replay.url}#control", "label": "control", "price": PRICE, "api_key_env": ""},
                   {"spec": f"scripted:{local}", "label": "local"}],
        "runs": 1, "sandbox": "docker", "limits": SANDBOX_LIMITS, "seed": 5,
        "corpus": str(make_tiny_corpus(tmp_path / "corpus")), "task_settings": {"smoke_rows": 50},
    }
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    try:
        run_plan(plan_from_mapping(mapping, tmp_path), BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse))
    finally:
        replay.close()
    files = write_report(tmp_path / "batch", task_plugin("spam_classifier"))
    with open(Path(files.folder) / "tables" / "cost_models.csv", newline="") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert replay.billed and math.isclose(float(rows["control"]["usd_per_run"]), replay.dollars(), rel_tol=1e-9)
    assert rows["local"]["usd_per_run"] == ""  # not priced: no dollars, never a zero
    with open(Path(files.folder) / "tables" / "cost_runs.csv", newline="") as handle:
        (control_run,) = [row for row in csv.DictReader(handle) if row["model"] == "control"]
    assert math.isclose(float(control_run["usd"]), replay.dollars(), rel_tol=1e-9)
    money = (Path(files.folder) / "plots" / "pareto_money.svg").read_text()
    assert "control" in money and "local" not in money  # only priced models are placed on the money axis
    assert "dollars per run" in money
