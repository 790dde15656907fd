"""The simulation take-home as a plug-in: a queueing simulation whose code runs and is silently wrong.

The model writes simulate.py; grading installs its requirements, runs it on the visible example (the smoke
test the model may see) and on every hidden configuration in the sandbox, each under its CPU-time budget,
and grades the intervals on the host with scorer.intervals against the exact long-run mean waits
(bakeoff.tasks.simulation.check). The headline is the mean relative Winkler score (lower is better). The hidden
configurations are mounted read-only at /holdout; their truth (holdout_truth.csv, truth.json, secret.hex)
never is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.grading import GradeJob
from bakeoff.taskapi.plugin import (
    CoreSection,
    EvaluateHook,
    GenerateOption,
    GenerateRequest,
)
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.intervals.plugin import IntervalTask
from bakeoff.tasks.simulation.check import SimGraded, grade
from bakeoff.tasks.simulation.cpu_cap import SIMULATE_SCRIPT
from bakeoff.tasks.simulation.grade import SimGrade
from bakeoff.tasks.simulation.layout import LAYOUT
from bakeoff.tasks.simulation.words import HEADLINE, WORDS

DEMO_SIZES = {"configurations": 6, "cpu_seconds": 2}
_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_ESTIMATE = re.compile(rf"ESTIMATE:\s*{_NUMBER}\s*\[\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\]")


def parse_estimate(text: str) -> tuple[float, float, float] | None:
    """The last `ESTIMATE: WAIT [CI_LOW, CI_HIGH]` line's three numbers, or None."""
    found = None
    for match in _ESTIMATE.finditer(text):
        found = (float(match.group(1)), float(match.group(2)), float(match.group(3)))
    return found


class Simulation(IntervalTask):
    name = "simulation"
    script = SIMULATE_SCRIPT
    generator = "simulation"  # generators.simulation: its manifests say "simulation-<version>"
    grader_modules = ("bakeoff.tasks.simulation.check", "bakeoff.tasks.simulation.analysis",
                      "bakeoff.tasks.intervals.running", "bakeoff.tasks.intervals.grading", "scorer")
    headline = HEADLINE
    grade_type = SimGrade
    words = WORDS
    generate_options = (
        GenerateOption("configurations", int, "simulation: hidden line configurations (default: 48)."),
        GenerateOption("cpu_seconds", int, "simulation: CPU-time budget of one simulate.py run, seconds (default: 5)."),
    )
    demo_options: ClassVar[dict[str, Any]] = DEMO_SIZES

    # -- corpus ------------------------------------------------------------------------------------
    def corpus_layout(self) -> CorpusLayout:
        return LAYOUT

    def generate(self, request: GenerateRequest, progress: Callable[[str], None] = lambda _: None) -> str:
        from generators.simulation import SimParams, SimSecret, generate_sim_data

        params = SimParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})
        secret = SimSecret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_sim_data(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured()
        low, high = m["utilisation"]
        return (f"wrote {request.out_dir}: 4 example lines, {m['configurations']} hidden configurations "
                f"(utilisation {low:.2f}-{high:.2f}; {', '.join(f'{k} {v}' for k, v in m['methods'].items())}), "
                f"{params.cpu_seconds} CPU seconds each; secret {manifest.secret_id[:19]}...")

    def demo_description(self) -> str:
        return "4 example lines, {configurations} hidden configurations of {cpu_seconds} CPU seconds".format(**DEMO_SIZES)

    # -- grader ------------------------------------------------------------------------------------
    def grade(self, job: GradeJob) -> SimGraded:
        return grade(job)

    def estimate_in(self, text: str) -> tuple[float, float, float] | None:
        return parse_estimate(text)

    def score_report(self, folder: ScoredFolder) -> ScoreReport:
        from bakeoff.tasks.simulation.score import SimScoreReport

        return SimScoreReport.of(folder)

    # -- calibration -------------------------------------------------------------------------------
    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        from generators.calibration.simulation import calibrate_sim

        self.refuse_sweep(options)
        return calibrate_sim(corpus, progress=progress)

    def calibration_tables(self, calibration: Any) -> list[Any]:
        from bakeoff.tasks.simulation.calibration_tables import calibration_tables

        return calibration_tables(calibration)

    # -- extras ------------------------------------------------------------------------------------
    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """The behavioural probe (bakeoff.tasks.simulation.probe_hook): sound, biased or independence-assuming."""
        from bakeoff.tasks.simulation.probe_hook import probe_hooks

        return probe_hooks(enabled)

    def export_metadata(self, run: Any) -> dict[str, Any]:
        from bakeoff.tasks.simulation.signals import sim_run_signals

        signals = sim_run_signals(run)
        return {"behaviour": signals.behaviour.value if signals.behaviour else None,
                "stated_warmup": signals.warmup.value, "stated_interval": signals.interval.value,
                "divergence": signals.divergence.value if signals.divergence else None}

    def report_sections(self, batch: Any, core: Any, bootstrap_seed: int = 0) -> list[Any]:
        """Behaviour (probe, design, divergence), intervals by load band and plots, then every task's part."""
        from bakeoff.tasks.simulation.report import simulation_section

        return [simulation_section(batch, bootstrap_seed), CoreSection()]
