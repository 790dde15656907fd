"""The ab_test take-home as a task value: an experiment analysis that runs and is silently wrong.

The model writes analyze.py; grading installs its requirements, runs it on the visible sessions (the smoke
test the model may see) and on every hidden experiment in the sandbox, and grades the intervals on the host
with scorer.intervals (bakeoff.tasks.ab_test.check). The headline is the mean Winkler score (lower is better).
The hidden experiments are mounted read-only at /holdout; their truth (holdout_truth.csv, truth.json) never is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from bakeoff.batchfolder.read import BatchRecords
from bakeoff.taskapi.control import ControlTruth
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.options import OptionValues, TaskOption, TaskOptions
from bakeoff.taskapi.parts import Calibrated, CoreFigures, EvaluateHook, ProbeRecord, Progress, ReportPart
from bakeoff.taskapi.plugin import CoreSection, GenerateRequest
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.taskapi.task import Task
from bakeoff.tasks.ab_test.analysis import ANALYZE_SCRIPT
from bakeoff.tasks.ab_test.check import AbGraded, grade
from bakeoff.tasks.ab_test.grade import AbGrade
from bakeoff.tasks.ab_test.layout import LAYOUT
from bakeoff.tasks.ab_test.tripwire import TRIPWIRE
from bakeoff.tasks.ab_test.words import HEADLINE, WORDS
from bakeoff.tasks.intervals.plugin import IntervalGrader

DEMO_SIZES = {"users": 2000, "experiments": 8, "holdout_users": 2000}
DEMO_SIZE_SPREAD = 4.0  # the demo's hidden experiments: 2,000 to 8,000 users
_ESTIMATE = re.compile(r"ESTIMATE:\s*([-+0-9.eE]+)\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]")


def parse_estimate(text: str) -> tuple[float, float, float] | None:
    """The last `ESTIMATE: EFFECT [CI_LOW, CI_HIGH]` line's three numbers, or None."""
    found = None
    for line in text.splitlines():
        if "ESTIMATE" not in line:
            continue
        match = _ESTIMATE.search(line)
        if match:
            try:
                low_high = tuple(float(group) for group in match.groups())
            except ValueError:
                continue
            found = (low_high[0], low_high[1], low_high[2])
    return found


class AbCorpus:
    """generators.ab_test: a visible experiment's sessions and the hidden experiments."""

    layout = LAYOUT

    def generate(self, request: GenerateRequest, progress: Progress) -> str:
        from generators.ab_test import AbParams, generate_ab_data
        from generators.secret import Secret

        params = AbParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})  # type: ignore[arg-type]
        secret = Secret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_ab_data(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured
        return (f"wrote {request.out_dir}: {m.rows} sessions of {m.users} users, {params.experiments} hidden "
                f"experiments, {m.duplicate_rows} repeated rows and {m.refired_rows} re-fired purchases, within-user "
                f"correlation {m.within_user_correlation:.3f}, hidden part keyed by secret {manifest.secret_id[:19]}")


def demo_description() -> str:
    largest = round(DEMO_SIZES["holdout_users"] * DEMO_SIZE_SPREAD)
    return "{users} users, {experiments} hidden experiments of {holdout_users} to ".format(**DEMO_SIZES) + str(largest)


def probe_scored(job: GradeJob, graded: Graded) -> ProbeRecord:
    """The unit probe of a folder graded alone, as a batch's evaluate stage runs it (bakeoff.tasks.ab_test.probe_hook)."""
    from bakeoff.tasks.ab_test.probe_hook import probe_submission

    assert isinstance(graded, AbGraded)  # this task's own grade() made it
    job.on_step("unit probe")
    return probe_submission(job, graded.outcome.rung)


def score_report(folder: ScoredFolder) -> ScoreReport:
    from bakeoff.tasks.ab_test.score import AbScoreReport

    return AbScoreReport.of(folder)


class AbReferences:
    """The references and the cheaters on the hidden experiments (generators.ab_test.calibration)."""

    @property
    def cheaters(self) -> tuple[str, ...]:
        from generators.ab_test.calibration import AB_CHEATERS

        return tuple(AB_CHEATERS)

    def calibrate(self, corpus: Path, progress: Progress, options: OptionValues) -> Calibrated:
        from bakeoff.tasks.ab_test.calibration_tables import calibration_tables
        from generators.ab_test.calibration import calibrate_ab

        calibration = calibrate_ab(corpus, progress=progress)
        return Calibrated(calibration, tuple(calibration_tables(calibration)))


class AbProbes:
    """The unit-of-analysis probe (bakeoff.tasks.ab_test.probe_hook): by user or by visit."""

    def hooks(self) -> Mapping[str, EvaluateHook]:
        from bakeoff.tasks.ab_test.probe_hook import unit_probe_hooks

        return unit_probe_hooks()


def report_sections(batch: BatchRecords, core: CoreFigures, bootstrap_seed: int) -> Sequence[ReportPart | CoreSection]:
    """Unit of analysis (probe, design, divergence), interval metrics and plots, then every task's part."""
    from bakeoff.tasks.ab_test.report import ab_test_section

    return [ab_test_section(batch, bootstrap_seed), CoreSection()]


OPTIONS = TaskOptions(
    generate=(
        TaskOption("users", int, "ab_test: users in the visible experiment (default: 20,000)."),
        TaskOption("experiments", int, "ab_test: hidden experiments (default: 144)."),
        TaskOption("holdout_users", int, "ab_test: users in the smallest hidden experiment (default: 4,000)."),
    ),
    demo={**DEMO_SIZES, "holdout_size_spread": DEMO_SIZE_SPREAD},
    demo_words=demo_description(),
)

TASK = Task(
    name="ab_test",
    headline=HEADLINE,
    grade_type=AbGrade,
    words=WORDS,
    corpus=AbCorpus(),
    grader=IntervalGrader(grade, parse_estimate),
    score_report=score_report,
    script=ANALYZE_SCRIPT,
    generator="ab_test",  # generators.ab_test: its manifests say "ab_test-<version>"
    grader_modules=("bakeoff.tasks.ab_test.check", "bakeoff.tasks.ab_test.analysis", "bakeoff.tasks.intervals.running",
                    "bakeoff.tasks.intervals.grading", "scorer"),
    options=OPTIONS,
    claim_has_real=False,  # the claim is about the visible experiment, whose truth is never read
    calibration=AbReferences(),
    probes=AbProbes(),
    folder_probe=probe_scored,
    tripwire=TRIPWIRE,
    control=ControlTruth("holdout_truth.csv", "effect"),  # a negative control: effects permuted across experiments
    report=report_sections,
)
