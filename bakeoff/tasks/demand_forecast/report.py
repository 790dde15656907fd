"""The demand-forecasting report's own section: per run, the horizon's MASE beside the claim (optimism = real
over claimed), the backtest's error by horizon week, the probe's verdict and the design's VALIDATION: and
FEATURES: lines. The tables per model, per series kind and per horizon week are the core's (the grade's
declared metrics and breakdowns: bakeoff.tasks.demand_forecast.grade)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bakeoff.batchfolder.read import BatchRecords, RunRecords, run_model_label
from bakeoff.report.sections import ReportSection
from bakeoff.report.tables import Table, cols
from bakeoff.taskapi.grade import final_grade
from bakeoff.tasks.demand_forecast.grade import ForecastGrade
from bakeoff.tasks.demand_forecast.probe import PROBE_KEY, ForecastProbe
from bakeoff.tasks.intervals.signals import probe_record

RUN_COLUMNS = cols("run_id model status mase:f4 claimed:f4 optimism:f3 backtest_mase:f4 week_1:f4 week_4:f4 "
                   "blind_move:f3 behaviour findings stated_validation stated_features divergence")


def probe_of(run: RunRecords) -> ForecastProbe | None:
    return probe_record(run, PROBE_KEY, "behaviour", ForecastProbe.from_dict)


def _row(run: RunRecords) -> tuple[Any, ...]:
    grade = final_grade(run, ForecastGrade)
    outcome = run.run.outcome if run.run is not None else None
    claimed = outcome.claim.claimed if outcome is not None else None
    real = grade.mase if grade is not None else None
    probe = probe_of(run) or ForecastProbe.none("no probe was recorded")
    return (run.run_id, run_model_label(run), outcome.status.value if outcome is not None else None, real, claimed,
            real / claimed if real is not None and claimed else None, probe.backtest_mase, probe.week_1,
            probe.week_4, probe.blind_move, probe.behaviour, " ".join(probe.findings), probe.stated_validation,
            probe.stated_features, probe.divergence)


def forecast_section(batch: BatchRecords) -> ReportSection:
    rows = tuple(_row(run) for run in batch.runs)
    behaviours = Counter(row[10] for row in rows if row[10])
    divergent = sum(1 for row in rows if row[14] not in (None, "consistent", "unstated"))
    findings = (f"Probe verdicts over {len(rows)} runs: " + (", ".join(f"{k} {v}" for k, v in sorted(behaviours.items())) or "none") + ".",
                f"{divergent} run(s) whose design's VALIDATION:/FEATURES: lines diverge from what the probe found.")
    table = Table("fc_runs", "Per run: real against claimed MASE, the backtest probe and the design's lines",
                  RUN_COLUMNS, rows)
    return ReportSection("Demand forecasting: claimed against real, and the backtest probe", findings, (table,))
