"""The simulation take-home as a task value: a queueing simulation whose code runs and is silently wrong.

The model writes simulate.py; grading installs its requirements, runs it on the visible example (the smoke
test the model may see) and on every hidden configuration in the sandbox, each under its CPU-time budget,
and grades the intervals on the host with scorer.intervals against the exact long-run mean waits
(bakeoff.tasks.simulation.check). The headline is the mean relative Winkler score (lower is better). The hidden
configurations are mounted read-only at /holdout; their truth (holdout_truth.csv, truth.json, secret.hex)
never is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from bakeoff.batchfolder.read import BatchRecords, RunRecords
from bakeoff.taskapi.control import ControlTruth
from bakeoff.taskapi.options import OptionValues, TaskOption, TaskOptions
from bakeoff.taskapi.parts import Calibrated, CoreFigures, EvaluateHook, JsonMapping, Progress, ReportPart
from bakeoff.taskapi.plugin import CoreSection, GenerateRequest
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.taskapi.task import Task
from bakeoff.tasks.intervals.plugin import IntervalGrader
from bakeoff.tasks.simulation.check import grade
from bakeoff.tasks.simulation.cpu_cap import SIMULATE_SCRIPT
from bakeoff.tasks.simulation.grade import SimGrade
from bakeoff.tasks.simulation.layout import LAYOUT
from bakeoff.tasks.simulation.tripwire import TRIPWIRE
from bakeoff.tasks.simulation.words import HEADLINE, WORDS

DEMO_SIZES = {"configurations": 6, "cpu_seconds": 2, "reference_millions": 20}
_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_ESTIMATE = re.compile(rf"ESTIMATE:\s*{_NUMBER}\s*\[\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\]")


def parse_estimate(text: str) -> tuple[float, float, float] | None:
    """The last `ESTIMATE: WAIT [CI_LOW, CI_HIGH]` line's three numbers, or None."""
    found = None
    for match in _ESTIMATE.finditer(text):
        found = (float(match.group(1)), float(match.group(2)), float(match.group(3)))
    return found


class SimCorpus:
    """generators.simulation: four example lines and the hidden configurations with their exact mean waits."""

    layout = LAYOUT

    def generate(self, request: GenerateRequest, progress: Progress) -> str:
        from generators.simulation import SimParams, SimSecret, generate_sim_data

        params = SimParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})  # type: ignore[arg-type]
        secret = SimSecret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_sim_data(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured()
        low, high = m["utilisation"]
        return (f"wrote {request.out_dir}: 4 example lines, {m['configurations']} hidden configurations "
                f"(utilisation {low:.2f}-{high:.2f}; {', '.join(f'{k} {v}' for k, v in m['methods'].items())}), "
                f"{params.cpu_seconds} CPU seconds each; secret {manifest.secret_id[:19]}...")


def score_report(folder: ScoredFolder) -> ScoreReport:
    from bakeoff.tasks.simulation.score import SimScoreReport

    return SimScoreReport.of(folder)


class SimReferences:
    """The references and the baselines on the hidden configurations (generators.simulation.calibration); the
    baselines are run among the references, so it names no cheaters apart."""

    cheaters: tuple[str, ...] = ()

    def calibrate(self, corpus: Path, progress: Progress, options: OptionValues) -> Calibrated:
        from bakeoff.tasks.simulation.calibration_tables import calibration_tables
        from generators.simulation.calibration import calibrate_sim

        calibration = calibrate_sim(corpus, progress=progress)
        return Calibrated(calibration, tuple(calibration_tables(calibration)))


class SimProbes:
    """The behavioural probe (bakeoff.tasks.simulation.probe_hook): sound, biased or independence-assuming."""

    def hooks(self) -> Mapping[str, EvaluateHook]:
        from bakeoff.tasks.simulation.probe_hook import probe_hooks

        return probe_hooks()


def report_sections(batch: BatchRecords, core: CoreFigures, bootstrap_seed: int) -> Sequence[ReportPart | CoreSection]:
    """Behaviour (probe, design, divergence), intervals by load band and plots, then every task's part."""
    from bakeoff.tasks.simulation.report import simulation_section

    return [simulation_section(batch, bootstrap_seed), CoreSection()]


def run_metadata(run: RunRecords) -> JsonMapping:
    from bakeoff.tasks.simulation.signals import sim_run_signals

    signals = sim_run_signals(run)
    return {"behaviour": signals.behaviour.value if signals.behaviour else None,
            "stated_warmup": signals.warmup.value, "stated_interval": signals.interval.value,
            "divergence": signals.divergence.value if signals.divergence else None}


OPTIONS = TaskOptions(
    generate=(
        TaskOption("configurations", int, "simulation: hidden line configurations (default: 48)."),
        TaskOption("cpu_seconds", int, "simulation: CPU-time budget of one simulate.py run, seconds (default: 5)."),
        TaskOption("reference_millions", int, "simulation: orders (millions) of the reference simulation giving the "
                   "truth of a line with no exact method (default: 5000, about 200 CPU seconds a line)."),
        TaskOption("reference_batches", int, "simulation: independent reference batches of that size pooled for "
                   "such a line (default: 1; more keep the batches a stopped corpus already has)."),
    ),
    demo=DEMO_SIZES,
    demo_words="4 example lines, {configurations} hidden configurations of {cpu_seconds} CPU seconds".format(**DEMO_SIZES),
)

TASK = Task(
    name="simulation",
    headline=HEADLINE,
    grade_type=SimGrade,
    words=WORDS,
    corpus=SimCorpus(),
    grader=IntervalGrader(grade, parse_estimate),
    score_report=score_report,
    script=SIMULATE_SCRIPT,
    generator="simulation",  # generators.simulation: its manifests say "simulation-<version>"
    grader_modules=("bakeoff.tasks.simulation.check", "bakeoff.tasks.simulation.analysis",
                    "bakeoff.tasks.intervals.running", "bakeoff.tasks.intervals.grading", "scorer"),
    options=OPTIONS,
    claim_has_real=False,  # the claim is about the visible example, whose truth is never read
    calibration=SimReferences(),
    probes=SimProbes(),
    tripwire=TRIPWIRE,
    control=ControlTruth("holdout_truth.csv", "wait"),  # a negative control: waits permuted across configurations
    report=report_sections,
    export=run_metadata,
)
