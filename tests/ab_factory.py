"""ab_test batch folders with known answers, built through the record classes of bakeoff.records (test helper).

Each fake run's intervals are graded by the real interval grader (scorer.intervals), so the recorded
metrics are what a real run of that analysis would record; the probe record is the real one's shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis_factory import NO_TIME, answer, batch_record, explore_command, fake_stage, stage_path, write_json

from bakeoff.records import (
    Attribution,
    Capture,
    CaptureCounts,
    CaptureReason,
    CaptureStatus,
    CorpusRef,
    CrashClass,
    LadderCheck,
    LadderStatus,
    ModelRef,
    Outcome,
    Rung,
    RunRecord,
    RunStatus,
    StageRecord,
    TokenCounts,
)
from bakeoff.tasks.ab_test.unit_probe import UnitProbeRecord
from bakeoff.tasks.ab_test.words import HEADLINE
from generators.ab_test.probe import unit_verdict
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
    mute: bool = False  # the code answer was uncaptured (the run is not graded)

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
        from bakeoff.tasks.ab_test.unit_probe import skipped

        return skipped("analyze.py on the original experiment: module_not_found: No module named 'x'", "exp_000").to_dict()
    original = IntervalResult(0.01, 0.006, 0.014)
    half = 0.004 * run.ratio
    return UnitProbeRecord(unit_verdict(original, IntervalResult(0.01, 0.01 - half, 0.01 + half)), "exp_000").to_dict()


def _check(run: AbFakeRun) -> LadderCheck:
    scored = run.status == "scored"
    metrics = interval_score(run) if scored else None
    headline = HEADLINE.of(metrics["winkler"]) if metrics is not None and metrics.get("winkler") is not None else None
    return LadderCheck(rung=Rung(5 if scored else 1), status=LadderStatus(run.status), failed_step=None,
                       headline=headline, metrics=metrics)


def stage_records(run: AbFakeRun) -> list[StageRecord]:
    check = _check(run)
    return [
        fake_stage(run.run_id, "explore", capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK),
                   commands=(explore_command(0),)),
        fake_stage(run.run_id, "decide", completion=answer(design(run.stated))),
        fake_stage(run.run_id, "implement", attribution=Attribution.UNCAPTURED if run.mute
                   else Attribution.OK if run.status == "scored" else Attribution.MODEL_ERROR, check=check),
        fake_stage(run.run_id, "repair", check=check),
        fake_stage(run.run_id, "evaluate", check=check, extras={"unit_probe": probe_record(run)}),
    ]


def run_record(run: AbFakeRun) -> RunRecord:
    check = _check(run)
    crashed = run.status != "scored"
    outcome = Outcome(status=check.status, rung=check.rung, crash_class=CrashClass.OTHER if crashed else None,
                      metrics=check.metrics, headline=check.headline)
    return RunRecord(
        run_id=run.run_id, run_index=run.index, seed=100 + run.index, task="ab_test",
        model=ModelRef(label=run.model, spec=f"scripted:{run.model}"), corpus=CorpusRef(path="", manifest_sha256=None),
        isolation="docker", status=RunStatus.FINISHED, error=None, outcome=outcome, stages=(), repair_effects=(),
        capture=CaptureCounts(calls=4, uncaptured=4) if run.mute else CaptureCounts(calls=5, captured=5),
        tokens=TokenCounts(), timings=NO_TIME,
    )


def write_ab_run(folder: Path, run: AbFakeRun) -> None:
    run_dir = folder / "runs" / run.run_id
    for record in stage_records(run):
        write_json(stage_path(folder, run.run_id, record.stage), record.to_json())
    (run_dir / "repo").mkdir(parents=True, exist_ok=True)
    (run_dir / "repo" / "DESIGN.md").write_text(design(run.stated), encoding="utf-8")
    write_json(run_dir / "run.json", run_record(run).to_json())


def write_ab_batch(folder: Path, runs: list[AbFakeRun]) -> Path:
    write_json(folder / "batch.json", batch_record(runs, task="ab_test").to_json())
    for run in runs:
        write_ab_run(folder, run)
    return folder
