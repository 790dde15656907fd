"""ab_test batch folders with known answers, in the record format of docs/records.md (test helper).

Each fake run's intervals are graded by the real interval grader (scorer.intervals), so the recorded
metrics are what a real run of that analysis would record; the probe record is the real one's shape.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.analysis.unit_probe import UnitProbeRecord
from generators.calibration.ab_probe import unit_verdict
from scorer.interval_reading import IntervalResult
from scorer.intervals import ExperimentScore, score_experiments

TRUTHS = {f"exp_{i:03d}": (0.0 if i % 4 == 0 else 0.002 + 0.0015 * i) for i in range(12)}


def design(unit: str | None) -> str:
    line = f"UNIT: {unit}\n" if unit else ""
    return f"# Design\n{line}Users were randomized once, so the interval is computed over users.\n"


@dataclass
class AbFakeRun:
    model: str
    index: int
    half_width: float = 0.004  # of every interval
    bias: float = 0.0  # added to every estimate
    stated: str | None = "user"  # the design's UNIT line (None: no line)
    ratio: float | None = 1.0  # the probe's width ratio (None: the probe failed)
    status: str = "scored"

    @property
    def run_id(self) -> str:
        return f"{self.model}-r{self.index:02d}"


def interval_score(run: AbFakeRun) -> dict[str, Any]:
    scores = []
    for k, (name, truth) in enumerate(TRUTHS.items()):
        wobble = 0.002 * math.sin(7 * k + run.index)  # deterministic noise: some intervals miss
        effect = truth + run.bias + wobble
        scores.append(ExperimentScore(name, truth, IntervalResult(effect, effect - run.half_width, effect + run.half_width)))
    return score_experiments(scores).to_dict()


def probe_record(run: AbFakeRun) -> dict[str, Any]:
    if run.ratio is None:
        from bakeoff.analysis.unit_probe import skipped

        return skipped("analyze.py on the original experiment: module_not_found: No module named 'x'", "exp_000").to_dict()
    original = IntervalResult(0.01, 0.006, 0.014)
    half = 0.004 * run.ratio
    return UnitProbeRecord(unit_verdict(original, IntervalResult(0.01, 0.01 - half, 0.01 + half)), "exp_000").to_dict()


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def write_ab_run(folder: Path, run: AbFakeRun) -> None:
    run_dir = folder / "runs" / run.run_id
    scored = run.status == "scored"
    metrics = interval_score(run) if scored else None
    check = {"rung": 5 if scored else 1, "status": run.status, "metrics": metrics}
    stages = {
        "explore": {"attribution": "ok", "capture": {"status": "captured"},
                    "commands": [{"purpose": "explore", "exit_code": 0, "timed_out": False, "oom_killed": False}]},
        "decide": {"attribution": "ok", "completion": {"text": design(run.stated)}},
        "implement": {"attribution": "ok" if scored else "model_error", "check": check},
        "repair": {"attribution": "ok", "turns": [], "check": check},
        "evaluate": {"attribution": "ok", "check": check, "extras": {"unit_probe": probe_record(run)}},
    }
    for index, (stage, record) in enumerate(stages.items(), start=1):
        _write(run_dir / "stages" / f"{index}-{stage}.json", {"schema": "bakeoff.stage/1", "stage": stage, **record})
    (run_dir / "repo").mkdir(parents=True, exist_ok=True)
    (run_dir / "repo" / "DESIGN.md").write_text(design(run.stated), encoding="utf-8")
    _write(run_dir / "run.json", {
        "schema": "bakeoff.run/1", "run_id": run.run_id, "run_index": run.index, "seed": 100 + run.index,
        "model": {"label": run.model, "spec": f"scripted:{run.model}"}, "status": "finished", "error": None,
        "outcome": {"status": run.status, "rung": check["rung"], "crash_class": None if scored else "crashed",
                    "metrics": metrics},
        "capture": {"calls": 5, "captured": 5, "uncaptured": 0, "unusable": 0},
    })


def write_ab_batch(folder: Path, runs: list[AbFakeRun]) -> Path:
    models = list(dict.fromkeys(r.model for r in runs))
    order = [r.run_id for r in sorted(runs, key=lambda r: (r.index, models.index(r.model)))]
    _write(folder / "batch.json", {"schema": "bakeoff.batch/1", "order": order,
                                   "plan": {"task": "ab_test", "models": [{"label": m, "spec": f"scripted:{m}"} for m in models],
                                            "runs": max(r.index for r in runs)}})
    for run in runs:
        write_ab_run(folder, run)
    return folder
