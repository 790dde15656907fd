"""What the interval take-homes' batch tests share (ab_test, simulation): a reference's script as the scripted
code, the implement answer around it, the five stages' answers, a scripted batch run and reported with the
task's probes, and a stage record read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner_support import fenced, run_scripted_batch

GENERATORS = Path(__file__).resolve().parents[1] / "generators"
TASK_OF_PREFIX = {"ab_": "ab_test", "sim_": "simulation"}  # each task's references live in generators/<task>/references


def reference_script(reference: str, script: str) -> str:
    """The calibration reference's own script (what it does, and so what its probe finds, is known)."""
    task = next(task for prefix, task in TASK_OF_PREFIX.items() if reference.startswith(prefix))
    return (GENERATORS / task / "references" / reference / script).read_text(encoding="utf-8")


def implementation_answer(what: str, script: str, code: str, requirements: str) -> str:
    return (f"Here is the {what}.\n\n" + fenced(script, code) + "\n"
            + fenced("requirements.txt", requirements, language="text"))


def stage_answers(explore: str, design: str, implement: str, repair: str | None, docs: str) -> list[dict]:
    """The scripted answers of explore, decide, implement (and its repair turn, when given) and docs."""
    lines = [
        {"key": "explore#1", "text": explore},
        {"key": "decide#1", "text": design},
        {"key": "implement#1", "text": implement},
    ]
    if repair is not None:
        lines.append({"key": "implement#2", "text": repair})
    lines.append({"key": "docs#1", "text": docs})
    return lines


def probed_batch(root: Path, task: str, data: Path, scripts: dict[str, list[dict]]) -> tuple[Path, dict[str, Any], Any]:
    """A scripted batch of `task` on `data` with the task's probes on (what `bakeoff run` hands it without
    --no-probes), reported: (its folder, each model's run record, the report's files)."""
    from bakeoff.tasks import report_batch, task_plugin

    hooks = task_plugin(task).evaluate_hooks()
    result = run_scripted_batch(root, scripts, {"task": task, "corpus": str(data), "seed": 5}, evaluate_hooks=hooks)
    report = report_batch(root / "batch")
    return root / "batch", {r["model"]["label"]: r for r in [r.to_json() for r in result.records]}, report


def stage_record(folder: Path, run_id: str, index: int, name: str) -> dict:
    return json.loads((folder / "runs" / run_id / "stages" / f"{index}-{name}.json").read_text())
