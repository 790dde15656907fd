"""The demand-forecasting take-home as a task value: a forecast that validates well and is silently wrong.

The model writes forecast.py; grading installs its requirements and runs it on the backtest cut (the visible
step), on the same cut without the after-close columns (the probe's run) and on the real history with the
horizon calendar (the hidden step), all in the sandbox, and grades every forecast on the host by MASE against
the in-sample weekly seasonal naive error (generators.demand_forecast.mase). The horizon's truth
(future_truth.csv) and the secret that keyed it are never mounted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.batchfolder.read import BatchRecords, RunRecords
from bakeoff.records import Claim
from bakeoff.taskapi.control import ControlTruth
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.options import OptionValues, TaskOption, TaskOptions
from bakeoff.taskapi.parts import Calibrated, CoreFigures, EvaluateHook, JsonMapping, Progress, ReportPart
from bakeoff.taskapi.plugin import CoreSection, GenerateRequest
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.taskapi.task import Task
from bakeoff.tasks.demand_forecast.check import grade
from bakeoff.tasks.demand_forecast.grade import ForecastGrade
from bakeoff.tasks.demand_forecast.layout import LAYOUT
from bakeoff.tasks.demand_forecast.tripwire import TRIPWIRE
from bakeoff.tasks.demand_forecast.words import HEADLINE, WORDS
from generators.demand_forecast.params import SMALL
from generators.demand_forecast.running import SCRIPT, parse_claim

DEMO_SIZES = dict(SMALL)


class ForecastCorpus:
    layout = LAYOUT

    def generate(self, request: GenerateRequest, progress: Progress) -> str:
        from generators.demand_forecast import ForecastParams, generate_forecast_data
        from generators.secret import Secret

        params = ForecastParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})  # type: ignore[arg-type]
        secret = Secret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_forecast_data(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured
        return (f"wrote {request.out_dir}: {m['series']} series ({m['intermittent_series']} intermittent) x "
                f"{params.days} days of history, a 28-day hidden horizon; secret {manifest.secret_id[:19]}...")


@dataclass(frozen=True)
class ForecastGrader:
    def grade(self, job: GradeJob) -> Graded:
        return grade(job)

    def parse_claim(self, text: str) -> Claim | None:
        found = parse_claim(text)
        return None if found is None else Claim(None, found)


def score_report(folder: ScoredFolder) -> ScoreReport:
    from bakeoff.tasks.demand_forecast.score import score_report as report

    return report(folder)


class ForecastReferences:
    """The references and cheaters on the hidden horizon (generators.demand_forecast.calibration)."""

    cheaters: tuple[str, ...] = ("fc_seasonal_naive", "fc_last_value", "fc_series_mean", "fc_last28_mean", "fc_weekday_level",
                                 "fc_hardcoded")

    def calibrate(self, corpus: Path, progress: Progress, options: OptionValues) -> Calibrated:
        from bakeoff.tasks.demand_forecast.calibration_tables import calibration_tables
        from generators.demand_forecast.calibration import calibrate_forecast

        calibration = calibrate_forecast(corpus, progress=progress)
        return Calibrated(calibration, tuple(calibration_tables(calibration)))


class ForecastProbes:
    def hooks(self) -> Mapping[str, EvaluateHook]:
        from bakeoff.tasks.demand_forecast.probe import probe_hooks

        return probe_hooks()


def report_sections(batch: BatchRecords, core: CoreFigures, bootstrap_seed: int) -> Sequence[ReportPart | CoreSection]:
    from bakeoff.tasks.demand_forecast.report import forecast_section

    return [forecast_section(batch), CoreSection()]


def run_metadata(run: RunRecords) -> JsonMapping:
    from bakeoff.tasks.demand_forecast.report import probe_of

    probe = probe_of(run)
    return {"behaviour": probe.behaviour, "divergence": probe.divergence} if probe else {}


OPTIONS = TaskOptions(
    generate=(
        TaskOption("series", int, "demand_forecast: store-item series (default: 500)."),
        TaskOption("days", int, "demand_forecast: days of history (default: 1100)."),
        TaskOption("noise", float, "demand_forecast: demand's extra-Poisson spread (default: 0.25)."),
        TaskOption("intermittency", float, "demand_forecast: share of intermittent series (default: 0.3)."),
        TaskOption("promotion_effect", float, "demand_forecast: mean extra demand on a promotion day (default: 0.6)."),
    ),
    demo=DEMO_SIZES,
    demo_words="{series} series x {days} days of history".format(**DEMO_SIZES),
)

TASK = Task(
    name="demand_forecast",
    headline=HEADLINE,
    grade_type=ForecastGrade,
    words=WORDS,
    corpus=ForecastCorpus(),
    grader=ForecastGrader(),
    score_report=score_report,
    script=SCRIPT,
    generator="demand_forecast",  # generators.demand_forecast: its manifests say "demand_forecast-<version>"
    grader_modules=("bakeoff.tasks.demand_forecast.check", "bakeoff.tasks.demand_forecast.running",
                    "generators.demand_forecast.mase", "generators.demand_forecast.running"),
    options=OPTIONS,
    claim_has_real=True,  # the claim is about the horizon: the real MASE is put beside it
    calibration=ForecastReferences(),
    probes=ForecastProbes(),
    report=report_sections,
    export=run_metadata,
    tripwire=TRIPWIRE,
    control=ControlTruth("future_truth.csv", "units"),  # a negative control: the horizon's units permuted across rows
)
