"""`bakeoff score REPO --task ab_test`: grade an analysis folder alone on the hidden experiments.

The generic scaffold (bakeoff.taskapi.score) copies the folder and grades it in a sandbox through the plug-in;
the unit probe then runs in the same sandbox (AbTest.probe_scored). This module is what is printed of it.
"""

from __future__ import annotations

from typing import Any

from bakeoff.records import Claim
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.ab_test.analysis import AbOutcome
from bakeoff.tasks.ab_test.unit_probe import UnitProbeRecord
from sandbox.kinds import UNSAFE

__all__ = ["AbScoreReport", "claim_record"]


def claim_record(claim: Claim) -> dict[str, Any]:
    """The claim as `bakeoff score --task ab_test` writes it: the ESTIMATE's effect and interval, and where it was."""
    if claim.claimed is None:
        return {"claimed_effect": None, "claimed_ci": None, "source": None}
    return {"claimed_effect": claim.claimed, "claimed_ci": list(claim.extra.get("claimed_ci") or ()),
            "source": claim.source.value if claim.source is not None else None}


class AbScoreReport(ScoreReport):
    """What grading one ab_test submission found."""

    def __init__(self, outcome: AbOutcome, isolation: str, notes: tuple[str, ...], claim: dict[str, Any],
                 unit_probe: UnitProbeRecord | None = None) -> None:
        self.outcome, self.isolation, self.notes, self.claim = outcome, isolation, notes, claim
        self.unit_probe = unit_probe

    @classmethod
    def of(cls, folder: ScoredFolder) -> AbScoreReport:
        from bakeoff.tasks.ab_test.check import AbGraded

        graded = folder.graded
        assert isinstance(graded, AbGraded)  # this task's own grade() made it
        probe = folder.probe if isinstance(folder.probe, UnitProbeRecord) else None
        return cls(graded.outcome, folder.isolation, folder.notes, claim_record(folder.claim), probe)

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "task": "ab_test", "status": o.status, "stage": o.stage, "rung": o.rung, "isolation": self.isolation,
            "crash_class": o.crash_class, "detail": o.detail, "traceback_tail": o.traceback_tail,
            "visible_result": dict(o.visible_result) if o.visible_result else None, "visible_error": o.visible_error,
            "metrics": o.score.to_dict() if o.score is not None else None,
            "requirements": o.requirements.to_dict() if o.requirements else None,
            "claim": self.claim, "workspace_notes": list(self.notes),
            "unit_probe": self.unit_probe.to_dict() if self.unit_probe is not None else None,
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
            lines.append(f"visible experiment: effect {v['effect']:.5f} [{v['ci_low']:.5f}, {v['ci_high']:.5f}]")
        elif o.visible_error:
            lines.append(f"visible result unusable: {o.visible_error}")
        if o.score is not None:
            from scorer.intervals import format_text

            lines.append(format_text(o.score))
        if self.claim.get("claimed_effect") is not None:
            low, high = self.claim["claimed_ci"]
            lines.append(f"claimed (ESTIMATE in its {self.claim['source']}): {self.claim['claimed_effect']:.5f} "
                         f"[{low:.5f}, {high:.5f}]")
        if self.unit_probe is not None:
            lines.append(_probe_line(self.unit_probe))
        for line in (o.requirements.lines if o.requirements else ()):
            lines.append(f"requirement {line.text!r}: {line.fate}" + (f" ({line.reason})" if line.reason else ""))
        lines.extend(f"workspace copy: {note}" for note in self.notes)
        if o.traceback_tail:
            lines.append("traceback (end):")
            lines.extend("  " + text for text in o.traceback_tail.splitlines()[-8:])
        lines.append(f"time: sandbox {o.seconds.get('sandbox', 0.0):.1f}s  score {o.seconds.get('score', 0.0):.2f}s")
        lines.append(f"isolation: {self.isolation if self.isolation != UNSAFE else f'{UNSAFE} (UNSAFE: no isolation)'}")
        return "\n".join(lines)


def _probe_line(record: UnitProbeRecord) -> str:
    probe = record.probe
    ratios = []
    if probe.width_ratio is not None:
        ratios.append(f"width x{probe.width_ratio:.2f} with every visit logged twice")
    if probe.halved_width_ratio is not None:
        ratios.append(f"x{probe.halved_width_ratio:.2f} on half the users")
    detail = "; ".join(ratios) or probe.message
    return f"unit probe ({record.experiment or 'not run'}): {probe.unit.value}" + (f" ({detail})" if detail else "")
