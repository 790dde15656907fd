"""An agent's loop survives SIGKILL at many points: started again, it resumes at the next step, the steps it had
recorded untouched (byte for byte), no recorded step run again, and it ends with the records of a batch that
was never killed.

The batch kills itself (BAKEOFF_KILL_AFTER_WRITES=N: SIGKILL right after its Nth durable write), at a different
count on each start, so kills land after a step's start, after its record, after the transcript, after its
journal line, in the final check and in evaluate.
"""

from __future__ import annotations

import datetime as dt
import json
import signal
from pathlib import Path

import agent_support as agent
import pytest
from runner_support import bakeoff_cli, make_tiny_corpus, write_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]

RUN = "scripted-agent-r01"
KILL_POINTS = (3, 5, 4, 7, 6, 2, 9)
# Differ between two identical batches by when they ran and what the machine measured.
VOLATILE_KEYS = {"timings", "resources", "started_at", "finished_at", "duration_s", "prompt_seconds",
                 "generation_seconds", "code_version", "model_info", "info", "sha", "date", "pid", "created_at",
                 "wall_s", "cpu_s"}


def normalized(value):
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def write_plan(path: Path, corpus: Path, script: Path) -> Path:
    path.write_text(
        f'runs = 1\ncorpus = "{corpus}"\nsandbox = "docker"\nseed = 3\nscaffolds = ["agent"]\n'
        f'models = [{{ spec = "scripted:{script}", label = "scripted" }}]\n'
        "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n"
        "[task_settings]\nsmoke_rows = 50\n[scaffold_settings.agent]\nmax_steps = 12\n", encoding="utf-8")
    return path


def records(batch: Path) -> dict[str, object]:
    run_dir = batch / "runs" / RUN
    paths = [*sorted((run_dir / "steps").glob("*.json")), *sorted((run_dir / "stages").glob("*.json")),
             run_dir / "run.json"]
    found: dict[str, object] = {str(p.relative_to(batch)): normalized(json.loads(p.read_text())) for p in paths}
    lines = (run_dir / "transcript.jsonl").read_text().splitlines()
    found["transcript"] = normalized([json.loads(line) for line in lines])
    return found


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent-resume")
    corpus = make_tiny_corpus(root / "corpus")
    plan = write_plan(root / "plan.toml", corpus, write_script(root / "answers.jsonl", agent.fixing("spam_classifier")))
    reference = root / "reference"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(reference))
    assert done.returncode == 0, done.stderr
    return root, plan, reference


def test_a_killed_agent_loop_resumes_at_the_next_step_with_its_earlier_steps_untouched(setup):
    root, plan, reference = setup
    killed = root / "killed"
    seen: dict[Path, bytes] = {}  # every step record as it was when a kill stopped the batch
    kills, points = 0, set()
    for attempt in range(80):
        started = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(killed),
                              env_extra={"BAKEOFF_KILL_AFTER_WRITES": str(KILL_POINTS[attempt % len(KILL_POINTS)])})
        for path in sorted((killed / "runs" / RUN / "steps").glob("*.json")):
            seen.setdefault(path, path.read_bytes())
        if started.returncode == 0:
            break
        assert started.returncode == -signal.SIGKILL, started.stderr
        kills += 1
        last = [json.loads(line) for line in (killed / "events.jsonl").read_text().splitlines() if line.strip()][-1]
        points.add((len(seen), last["event"]))
    else:
        pytest.fail("the batch never finished")
    assert kills >= 10 and len(points) >= 8, points
    # A step recorded before a kill was never written again: the loop went on from the next one.
    assert all(path.read_bytes() == data for path, data in seen.items())
    assert records(killed) == records(reference)

    events = [json.loads(line) for line in (killed / "events.jsonl").read_text().splitlines() if line.strip()]
    for path in sorted((killed / "runs" / RUN / "steps").glob("*.json")):
        step = json.loads(path.read_text())
        recorded = dt.datetime.fromisoformat(step["timings"]["finished_at"])
        starts = [e for e in events if e["event"] == "step_started" and e["step"] == step["step"]]
        assert starts and all(dt.datetime.fromisoformat(e["at"]) <= recorded for e in starts), step["step"]
        assert sum(e["event"] == "step_done" and e["step"] == step["step"] for e in events) <= 1

    import git

    messages = [c.message.strip() for c in reversed(list(git.Repo(killed / "runs" / RUN / "repo").iter_commits()))]
    steps = len(list((killed / "runs" / RUN / "steps").glob("*.json")))
    assert messages == ["template", *(f"agent step {n}" for n in range(1, steps + 1)), "agent", "evaluate"]
