"""An agent is untrusted: its tools never read or write outside the workspace on the host (a link its commands
planted, a path that climbs out, the harness's folders), and an argument no command can hold is refused, never a
harness failure. In the real Docker sandbox."""

from __future__ import annotations

import json

import agent_support as agent
import pytest
from runner_support import SANDBOX_LIMITS, make_tiny_corpus, write_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]

STEPS = [
    agent.call("run", command="ln -s /etc/passwd leak.txt && ln -s /etc secrets && echo planted"),
    agent.call("read_file", path="leak.txt"),
    agent.call("read_file", path="secrets/passwd"),
    agent.call("read_file", path="../../../../etc/passwd"),
    agent.call("read_file", path="/etc/passwd"),
    agent.call("write_file", path="data/train.csv", content="id,label\n"),
    agent.call("write_file", path=".git/hooks/post-commit", content="#!/bin/sh\ntouch /tmp/owned\n"),
    agent.call("write_file", path="secrets/evil.txt", content="x"),
    agent.call("run", command="echo a\x00b"),
    agent.call("read_file", path="data/train.csv"),
    agent.call("submit"),
]


def test_the_agent_s_tools_stay_in_the_workspace(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(tmp_path / "corpus")
    script = write_script(tmp_path / "answers.jsonl", agent.keyed(STEPS))
    plan = plan_from_mapping({"models": [{"label": "evil", "spec": f"scripted:{script}"}], "corpus": str(corpus),
                              "runs": 1, "sandbox": "docker", "limits": SANDBOX_LIMITS, "scaffolds": ["agent"],
                              "task_settings": {"smoke_rows": 50}}, tmp_path)
    result = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=default_wheelhouse()))
    assert result.failed == 0  # nothing the agent did is a harness failure
    steps = [json.loads(p.read_text()) for p in sorted((tmp_path / "batch/runs/evil-agent-r01/steps").glob("*.json"))]
    results = [s["results"][0] for s in steps]
    assert "planted" in results[0]["shown"]
    for read in results[1:5]:
        assert not read["ok"] and "root:" not in read["shown"]
    for write in results[5:8]:
        assert not write["ok"]
    assert results[8]["problem"] == "bad_arguments" and "NUL" in results[8]["shown"]
    assert results[9]["ok"] and results[9]["shown"].startswith("id,")  # the visible data is readable, read-only
    repo = tmp_path / "batch/runs/evil-agent-r01/repo"
    assert not (repo / ".git/hooks/post-commit").exists()
    assert (corpus / "train.csv").read_text().count("\n") > 100  # the corpus is untouched
    assert steps[-1]["ended_by"] == "submit"
