"""`bakeoff score REPO --task demand_forecast`: what grading one forecasting folder alone found, printed and as
JSON: the ladder, the horizon's MASE (by kind and week), the claim beside it (optimism = real over claimed), the
probe's verdict from the backtest runs, the requirements and the time."""

from __future__ import annotations

from typing import Any

from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.demand_forecast.check import ForecastGraded, metrics_of
from bakeoff.tasks.demand_forecast.probe import figures_of, verdict
from generators.demand_forecast.probe import Thresholds
from sandbox.kinds import UNSAFE


class ForecastScoreReport(ScoreReport):
    def __init__(self, folder: ScoredFolder) -> None:
        graded = folder.graded
        assert isinstance(graded, ForecastGraded)  # this task's own grade() made it
        self.outcome, self.isolation, self.notes = graded.outcome, folder.isolation, folder.notes
        self.claimed, self.source = folder.claim.claimed, folder.claim.source
        self.metrics = metrics_of(self.outcome)
        self.probe = verdict(figures_of(self.metrics), self.claimed, None, Thresholds()) if self.metrics else None

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        real = self.metrics["mase"] if self.metrics else None
        return {"task": "demand_forecast", "status": o.status.value, "stage": o.stage, "rung": int(o.rung),
                "crash_class": o.crash_class.value if o.crash_class else None, "detail": o.detail or None,
                "metrics": self.metrics, "claimed_mase": self.claimed,
                "claim_source": self.source.value if self.source else None,
                "optimism": real / self.claimed if real is not None and self.claimed else None,
                "probe": self.probe.to_dict() if self.probe else None, "errors": dict(o.errors),
                "isolation": self.isolation, "workspace_notes": list(self.notes),
                "seconds": {"sandbox": o.sandbox_s, "score": o.score_s}}

    def format_text(self) -> str:
        o, data = self.outcome, self.to_dict()
        lines = [f"status: {o.status.value}  (stage {o.stage}, ladder rung {int(o.rung)}/5)"]
        lines += [f"detail: {o.detail}"] if o.detail else []
        if self.metrics:
            m = self.metrics
            lines.append(f"mean MASE {m['mase']:.4f} over {m['graded']} series  (backtest {_f(m['backtest_mase'])})")
            lines.append("  " + "  ".join(f"{k} {_f(v['mase'])}" for k, v in {**m['kinds'], **m['weeks']}.items()))
        if self.claimed is not None:
            lines.append(f"claimed MASE (EXPECTED_MASE in its {data['claim_source']}): {self.claimed:.4f}  "
                         f"optimism {_f(data['optimism'])}")
        if self.probe:
            lines.append(f"probe: {self.probe.behaviour}  ({', '.join(self.probe.findings)})")
        lines += [f"unusable forecast ({k}): {v}" for k, v in o.errors.items()]
        lines += [f"workspace copy: {note}" for note in self.notes]
        isolation = self.isolation if self.isolation != UNSAFE else f"{UNSAFE} (UNSAFE: no isolation)"
        lines.append(f"time: sandbox {o.sandbox_s:.1f}s  score {o.score_s:.2f}s")
        lines.append(f"isolation: {isolation}")
        return "\n".join(lines)


def _f(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, int | float) else "-"


def score_report(folder: ScoredFolder) -> ForecastScoreReport:
    return ForecastScoreReport(folder)
