"""`bakeoff score REPO --task simulation`: grade a simulation folder alone on the hidden configurations.

The folder is copied (trusting nothing in it) into a scratch workspace; a sandbox is opened over it with the
examples at data/examples/ and the hidden configurations at /holdout (read-only, their truth never), and
bakeoff.tasks.simulation.analysis runs and grades it (taskapi.score.score_folder does the scaffold).
"""

from __future__ import annotations

from typing import Any

from bakeoff.records import Claim
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.simulation.analysis import SimOutcome
from sandbox.kinds import UNSAFE

__all__ = ["SimScoreReport", "claim_record"]


def claim_record(claim: Claim) -> dict[str, Any]:
    """The claim as `bakeoff score --task simulation` writes it: the ESTIMATE's wait and interval, and where."""
    if claim.claimed is None:
        return {"claimed_wait": None, "claimed_ci": None, "source": None}
    return {"claimed_wait": claim.claimed, "claimed_ci": list(claim.extra.get("claimed_ci") or ()),
            "source": claim.source.value if claim.source is not None else None}


class SimScoreReport(ScoreReport):
    """What grading one simulation submission found."""

    def __init__(self, outcome: SimOutcome, isolation: str, notes: tuple[str, ...], claim: dict[str, Any]) -> None:
        self.outcome, self.isolation, self.notes, self.claim = outcome, isolation, notes, claim

    @classmethod
    def of(cls, folder: ScoredFolder) -> SimScoreReport:
        from bakeoff.tasks.simulation.check import SimGraded

        graded = folder.graded
        assert isinstance(graded, SimGraded)  # this task's own grade() made it
        return cls(graded.outcome, folder.isolation, folder.notes, claim_record(folder.claim))

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "task": "simulation", "status": o.status, "stage": o.stage, "rung": o.rung, "isolation": self.isolation,
            "crash_class": o.crash_class, "detail": o.detail, "traceback_tail": o.traceback_tail,
            "visible_result": dict(o.visible_result) if o.visible_result else None, "visible_error": o.visible_error,
            "metrics": o.score.to_dict() if o.score is not None else None,
            "bands": {band: {k: v for k, v in s.to_dict().items() if k != "experiments"} for band, s in o.bands.items()},
            "requirements": o.requirements.to_dict() if o.requirements else None,
            "claim": self.claim, "workspace_notes": list(self.notes),
            "steps": [{"purpose": s.purpose, "argv": list(s.result.argv), "exit_code": s.result.exit_code,
                       "timed_out": s.result.timed_out, "oom_killed": s.result.oom_killed,
                       "duration_s": s.result.duration_s} for s in o.steps],
            "timings": dict(o.seconds),
        }

    def format_text(self) -> str:
        o = self.outcome
        lines = [f"status: {o.status}  (stage {o.stage}, ladder rung {o.rung}/5)"]
        if o.crash_class:
            lines.append(f"crash: {o.crash_class}")
        if o.detail:
            lines.append(f"detail: {o.detail}")
        if o.visible_result:
            v = o.visible_result
            lines.append(f"visible example: mean wait {v['estimate']:.4f} [{v['ci_low']:.4f}, {v['ci_high']:.4f}]")
        elif o.visible_error:
            lines.append(f"visible result unusable: {o.visible_error}")
        if o.score is not None:
            from scorer.intervals import format_text

            lines.append(format_text(o.score))
        for band, score in o.bands.items():
            if score.relative_winkler is not None and score.coverage is not None:
                lines.append(f"  {band}: coverage {score.coverage:.3f}  relative winkler {score.relative_winkler:.4f}  "
                             f"({len(score.experiments)} configurations)")
        if self.claim.get("claimed_wait") is not None:
            low, high = self.claim["claimed_ci"]
            lines.append(f"claimed (ESTIMATE in its {self.claim['source']}): {self.claim['claimed_wait']:.4f} "
                         f"[{low:.4f}, {high:.4f}]")
        for line in (o.requirements.lines if o.requirements else ()):
            lines.append(f"requirement {line.text!r}: {line.fate}" + (f" ({line.reason})" if line.reason else ""))
        lines.extend(f"workspace copy: {note}" for note in self.notes)
        if o.traceback_tail:
            lines.append("traceback (end):")
            lines.extend("  " + text for text in o.traceback_tail.splitlines()[-8:])
        lines.append(f"time: sandbox {o.seconds.get('sandbox', 0.0):.1f}s  score {o.seconds.get('score', 0.0):.2f}s")
        lines.append(f"isolation: {self.isolation if self.isolation != UNSAFE else f'{UNSAFE} (UNSAFE: no isolation)'}")
        return "\n".join(lines)
