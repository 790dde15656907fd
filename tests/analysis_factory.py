"""Batch folders with known answers, written in the record format of docs/records.md (test helper)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bakeoff.analysis.probes import DOES_NOT_USE, INCONCLUSIVE, USES_LEAK

GOOD_DESIGN = """# Design
Spam is the minority class (18%), so accuracy is misleading: we optimise F1 of the spam class.
## Dropped columns
- moderator_flagged: set by moderators after the message arrives, so it leaks the label.
"""
KEEPS_DESIGN = "# Design\nMetric: accuracy.\nWe use every column, moderator_flagged included, as features.\n"
ASSERTS_DESIGN = "# Design\nMetric: F1.\nmoderator_flagged is available at prediction time, so we keep it.\n"


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

    @property
    def run_id(self) -> str:
        return f"{self.model}-r{self.index:02d}"


def _metrics(run: FakeRun) -> dict[str, Any] | None:
    if run.rung != 5:
        return None
    n = 1000
    return {"f1": run.f1, "predicted_positive_rate": run.predicted_rate, "actual_positive_rate": 0.18,
            "n": n, "tp": 150, "fp": 20, "fn": 30, "tn": 800, "error": None}


def _check(rung: int, f1: float | None) -> dict[str, Any]:
    return {"rung": rung, "f1": f1, "status": "scored" if rung == 5 else "crashed"}


def _probe(verdict: str | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    moved = {USES_LEAK: 0.8, DOES_NOT_USE: 0.0, INCONCLUSIVE: 0.0}[verdict]
    return {"verdict": verdict, "reason": "fixture", "column": "moderator_flagged", "rows": 1000,
            "threshold": 0.01, "control_moved_fraction": 0.0,
            "variants": [{"name": "set_to_1", "ok": True, "moved": int(moved * 1000), "moved_fraction": moved,
                          "positive_rate": 0.2, "crash_class": None, "detail": None}]}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def write_run(folder: Path, run: FakeRun) -> None:
    run_dir = folder / "runs" / run.run_id
    seed = 1000 + run.index
    stages = {
        "explore": {"attribution": "ok" if run.explore_exit is not None else "uncaptured",
                    "capture": {"status": "captured"},
                    "commands": [] if run.explore_exit is None else
                    [{"purpose": "explore", "exit_code": run.explore_exit, "timed_out": False, "oom_killed": False}]},
        "decide": {"attribution": "ok", "completion": {"text": run.design or ""}},
        "implement": {"attribution": run.implement_attribution, "attribution_reason": None},
        "repair": {"attribution": "ok", "turns": [
            {"turn": i + 1, "before": _check(b, bf), "after": _check(a, af), "effect": effect}
            for i, (b, bf, a, af, effect) in enumerate(run.turns)]},
        "evaluate": {"attribution": "ok", "extras": {"probe": _probe(run.probe)} if run.probe else {},
                     "claim": {"claimed_f1": run.claimed_f1, "source": "train_output", "real_f1": run.f1}},
    }
    for index, (stage, record) in enumerate(stages.items(), start=1):
        _write(run_dir / "stages" / f"{index}-{stage}.json", {"schema": "bakeoff.stage/1", "stage": stage, **record})
    if run.design is not None:
        (run_dir / "repo").mkdir(parents=True, exist_ok=True)
        (run_dir / "repo" / "DESIGN.md").write_text(run.design, encoding="utf-8")
    if run.retrain_f1s:
        retrains = [{"seed": seed + k, "f1": f, "status": "scored", "detail": None} for k, f in enumerate(run.retrain_f1s, 1)]
        _write(run_dir / "analysis.json", {"schema": "bakeoff.analysis/1",
                                           "retrain": {"original_seed": seed, "original_f1": run.f1, "retrains": retrains}})
    _write(run_dir / "run.json", {
        "schema": "bakeoff.run/1", "run_id": run.run_id, "run_index": run.index, "seed": seed,
        "model": {"label": run.model, "spec": f"scripted:{run.model}"},
        "corpus": {"path": run.corpus, "manifest_sha256": None},
        "status": run.run_status, "error": "engine died" if run.run_status == "harness_failed" else None,
        "outcome": {"status": run.status, "rung": run.rung, "f1": run.f1 if run.rung == 5 else None,
                    "crash_class": run.crash_class, "detail": run.detail, "metrics": _metrics(run),
                    "claimed_f1": run.claimed_f1, "claim_source": "train_output"},
        "capture": run.capture,
        "repair_effects": [t[4] for t in run.turns],
    })


def write_batch(folder: Path, runs: list[FakeRun]) -> Path:
    models = list(dict.fromkeys(r.model for r in runs))
    order = [r.run_id for r in sorted(runs, key=lambda r: (r.index, models.index(r.model)))]
    _write(folder / "batch.json", {"schema": "bakeoff.batch/1", "order": order,
                                   "plan": {"models": [{"label": m, "spec": f"scripted:{m}"} for m in models],
                                            "runs": max(r.index for r in runs)}})
    for run in runs:
        write_run(folder, run)
    return folder
