"""Batch folders with known answers, built through the record classes of bakeoff.records (test helper).

Every record is made by the classes the runner writes with and saved with their to_json, so a
fixture can only hold what a real record can (the scorer's metrics nest tp/fp/fn/tn under `confusion`).
Stages and fields a fake run does not need are left at their empty values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bakeoff.records import (
    STAGE_NAMES,
    AnalysisRecord,
    Attribution,
    BatchRecord,
    Capture,
    CaptureCounts,
    CaptureReason,
    CaptureStatus,
    Claim,
    ClaimSource,
    Command,
    Commit,
    CompletionRecord,
    CorpusRef,
    CrashClass,
    LadderCheck,
    LadderStatus,
    ModelEntry,
    ModelRef,
    Outcome,
    Plan,
    RepairEffect,
    RepairGrant,
    RepairTurn,
    Rung,
    RunRecord,
    RunStatus,
    StageRecord,
    Timings,
    TokenCounts,
)
from bakeoff.tasks.spam_classifier.probes import DOES_NOT_USE, INCONCLUSIVE, USES_LEAK
from bakeoff.tasks.spam_classifier.words import HEADLINE
from scorer import score_from_confusion

if TYPE_CHECKING:
    from ab_factory import AbFakeRun

GOOD_DESIGN = """# Design
Spam is the minority class (18%), so accuracy is misleading: we optimise F1 of the spam class.
## Dropped columns
- moderator_flagged: set by moderators after the message arrives, so it leaks the label.
"""
KEEPS_DESIGN = "# Design\nMetric: accuracy.\nWe use every column, moderator_flagged included, as features.\n"
ASSERTS_DESIGN = "# Design\nMetric: F1.\nmoderator_flagged is available at prediction time, so we keep it.\n"
NO_TIME = Timings(started_at="", finished_at="")


@dataclass
class FakeRun:
    """One run's recorded facts; the defaults describe a clean, scored, leak-free run."""

    model: str
    index: int
    f1: float | None = 0.78
    rung: int = 5
    status: str = "scored"
    crash_class: str | None = None
    detail: str | None = None
    design: str | None = GOOD_DESIGN
    probe: str | None = DOES_NOT_USE
    explore_exit: int | None = 0
    implement_attribution: str = "ok"
    capture: dict[str, int] = field(default_factory=lambda: {"calls": 5, "captured": 5, "uncaptured": 0, "unusable": 0})
    turns: list[tuple[int, float | None, int, float | None, str]] = field(default_factory=list)  # before/after rung+f1, effect
    claimed_f1: float | None = 0.8
    predicted_rate: float = 0.17
    run_status: str = "finished"
    retrain_f1s: tuple[float, ...] = ()
    corpus: str | None = None  # the corpus folder the run was made on
    # The implement answer's capture audit and its completion (a timeout, a cut answer...); None: not recorded.
    implement_capture: Capture | None = None
    implement_completion: CompletionRecord | None = None
    model_info: dict[str, object] = field(default_factory=dict)  # the backend's, as the run record keeps it

    @property
    def run_id(self) -> str:
        return f"{self.model}-r{self.index:02d}"

    @property
    def seed(self) -> int:
        return 1000 + self.index


def metrics(run: FakeRun) -> dict[str, Any] | None:
    """The scorer's own figures (scorer.Score.to_dict) for a 1000-message holdout with 18% spam."""
    if run.rung != 5:
        return None
    figures = score_from_confusion(tp=150, fp=20, fn=30, tn=800).to_dict()
    return {**figures, "f1": run.f1, "predicted_positive_rate": run.predicted_rate}


def _check(rung: int, f1: float | None) -> LadderCheck:
    return LadderCheck(rung=Rung(rung), status=LadderStatus.SCORED if rung == 5 else LadderStatus.CRASHED,
                       failed_step=None, headline=HEADLINE.of(f1) if f1 is not None else None)


def _probe(verdict: str | None) -> dict[str, Any] | None:
    """A probe result in the shape bakeoff.tasks.spam_classifier.probes.ProbeResult.to_dict writes."""
    if verdict is None:
        return None
    moved = {USES_LEAK: 0.8, DOES_NOT_USE: 0.0, INCONCLUSIVE: 0.0}[verdict]
    return {"verdict": verdict, "reason": "fixture", "column": "moderator_flagged", "rows": 1000,
            "threshold": 0.01, "control_moved_fraction": 0.0,
            "variants": [{"name": "set_to_1", "ok": True, "moved": int(moved * 1000), "moved_fraction": moved,
                          "positive_rate": 0.2, "crash_class": None, "detail": None}]}


def fake_stage(run_id: str, stage: str, **fields: Any) -> StageRecord:
    """A stage record of a fake run (attribution ok unless `fields` say otherwise), the rest at its empty values."""
    index = STAGE_NAMES.index(stage) + 1
    return StageRecord(run_id=run_id, stage=stage, index=index, commit=Commit(sha="", message=stage, date=""),
                       timings=NO_TIME, **{"attribution": Attribution.OK, **fields})


def answer(text: str) -> CompletionRecord:
    """A scripted model's answer as a stage record keeps it."""
    return CompletionRecord(text=text, finish_reason="stop", prompt_tokens=0, completion_tokens=0,
                            prompt_seconds=0.0, generation_seconds=0.0, backend="scripted:fixture")


def explore_command(exit_code: int | None) -> Command:
    return Command(purpose="explore", argv=(), exit_code=exit_code, timed_out=False, oom_killed=False,
                   duration_s=0.0, stdout="", stderr="")


def stage_records(run: FakeRun) -> list[StageRecord]:
    """The run's stages up to evaluate (a fake run has no docs record)."""
    explored = run.explore_exit is not None
    commands = (explore_command(run.explore_exit),) if explored else ()
    turns = tuple(
        RepairTurn(turn=i + 1, granted_because=RepairGrant.VISIBLE_FAILURE, prompt=None, completion=None, capture=None,
                   files_written=(), before=_check(b, bf), after=_check(a, af), effect=RepairEffect(effect))
        for i, (b, bf, a, af, effect) in enumerate(run.turns)
    )
    probe = _probe(run.probe)
    return [
        fake_stage(run.run_id, "explore", attribution=Attribution.OK if explored else Attribution.UNCAPTURED,
                   capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK), commands=commands),
        fake_stage(run.run_id, "decide", completion=answer(run.design or "")),
        fake_stage(run.run_id, "implement", attribution=Attribution(run.implement_attribution),
                   capture=run.implement_capture, completion=run.implement_completion),
        fake_stage(run.run_id, "repair", turns=turns),
        fake_stage(run.run_id, "evaluate", extras={"probe": probe} if probe else {},
                   claim=Claim(ClaimSource.VISIBLE_OUTPUT, run.claimed_f1, run.f1)),
    ]


def run_record(run: FakeRun) -> RunRecord:
    harness_failed = run.run_status == "harness_failed"
    f1 = run.f1 if run.rung == 5 else None
    outcome = Outcome(
        status=LadderStatus(run.status), rung=Rung(run.rung),
        crash_class=CrashClass(run.crash_class) if run.crash_class else None, detail=run.detail, metrics=metrics(run),
        headline=HEADLINE.of(f1) if f1 is not None else None,
        claim=Claim(ClaimSource.VISIBLE_OUTPUT, run.claimed_f1, f1),
    )
    return RunRecord(
        run_id=run.run_id, run_index=run.index, seed=run.seed, task="spam_classifier",
        model=ModelRef(label=run.model, spec=f"scripted:{run.model}", info=run.model_info),
        corpus=CorpusRef(path=run.corpus or "", manifest_sha256=None), isolation="docker",
        status=RunStatus(run.run_status), error="engine died" if harness_failed else None, outcome=outcome,
        stages=(), repair_effects=tuple(RepairEffect(t[4]) for t in run.turns), capture=CaptureCounts(**run.capture),
        tokens=TokenCounts(), timings=NO_TIME,
    )


def analysis_record(run: FakeRun) -> AnalysisRecord | None:
    if not run.retrain_f1s:
        return None
    retrains = [{"seed": run.seed + k, "f1": f, "status": "scored", "detail": None}
                for k, f in enumerate(run.retrain_f1s, 1)]
    return AnalysisRecord(run_id=run.run_id, computed_at="", design={},
                          retrain={"original_seed": run.seed, "original_f1": run.f1, "retrains": retrains})


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def stage_path(folder: Path, run_id: str, stage: str) -> Path:
    return folder / "runs" / run_id / "stages" / f"{STAGE_NAMES.index(stage) + 1}-{stage}.json"


def write_run(folder: Path, run: FakeRun) -> None:
    run_dir = folder / "runs" / run.run_id
    for record in stage_records(run):
        write_json(stage_path(folder, run.run_id, record.stage), record.to_json())
    if run.design is not None:
        (run_dir / "repo").mkdir(parents=True, exist_ok=True)
        (run_dir / "repo" / "DESIGN.md").write_text(run.design, encoding="utf-8")
    analysis = analysis_record(run)
    if analysis is not None:
        write_json(run_dir / "analysis.json", analysis.to_json())
    write_json(run_dir / "run.json", run_record(run).to_json())


def change_stage(folder: Path, run_id: str, stage: str, change: Callable[[StageRecord], StageRecord]) -> None:
    """Rewrite one stage record of a written batch through its class (`change` returns the new record)."""
    path = stage_path(folder, run_id, stage)
    record = StageRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
    write_json(path, change(record).to_json())


def batch_record(runs: Sequence[FakeRun | AbFakeRun], task: str | None = None) -> BatchRecord:
    """The batch record of these runs' models, each run index once per model; `task` given only when not spam's."""
    models = list(dict.fromkeys(r.model for r in runs))
    order = tuple(r.run_id for r in sorted(runs, key=lambda r: (r.index, models.index(r.model))))
    plan = Plan(models=tuple(ModelEntry(m, f"scripted:{m}") for m in models), corpus="",
                runs=max(r.index for r in runs), task=task or "")
    return BatchRecord(plan=plan, plan_sha256=plan.sha256(), order=order)


def write_batch(folder: Path, runs: list[FakeRun]) -> Path:
    write_json(folder / "batch.json", batch_record(runs).to_json())
    for run in runs:
        write_run(folder, run)
    return folder

