"""The ab_test take-home as a plug-in: an experiment analysis that runs and is silently wrong.

The model writes analyze.py; grading installs its requirements, runs it on the visible sessions (the smoke
test the model may see) and on every hidden experiment in the sandbox, and grades the intervals on the host
with scorer.intervals (bakeoff.tasks.ab_test.check). The headline is the mean Winkler score (lower is better).
The hidden experiments are mounted read-only at /holdout; their truth (holdout_truth.csv, truth.json) never is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.grading import Graded, GradeJob
from bakeoff.taskapi.plugin import (
    CoreSection,
    EvaluateHook,
    GenerateOption,
    GenerateRequest,
)
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.ab_test.analysis import ANALYZE_SCRIPT
from bakeoff.tasks.ab_test.check import AbGraded, grade
from bakeoff.tasks.ab_test.grade import AbGrade
from bakeoff.tasks.ab_test.layout import LAYOUT
from bakeoff.tasks.ab_test.words import HEADLINE, WORDS
from bakeoff.tasks.intervals.plugin import IntervalTask

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


class AbTest(IntervalTask):
    name = "ab_test"
    script = ANALYZE_SCRIPT
    generator = "ab_test"  # generators.ab_test: its manifests say "ab_test-<version>"
    grader_modules = ("bakeoff.tasks.ab_test.check", "bakeoff.tasks.ab_test.analysis", "bakeoff.tasks.intervals.running",
                      "bakeoff.tasks.intervals.grading", "scorer")
    headline = HEADLINE
    grade_type = AbGrade
    words = WORDS
    generate_options = (
        GenerateOption("users", int, "ab_test: users in the visible experiment (default: 20,000)."),
        GenerateOption("experiments", int, "ab_test: hidden experiments (default: 96)."),
        GenerateOption("holdout_users", int, "ab_test: users in the smallest hidden experiment (default: 4,000)."),
    )
    demo_options: ClassVar[dict[str, Any]] = {**DEMO_SIZES, "holdout_size_spread": DEMO_SIZE_SPREAD}

    # -- corpus ------------------------------------------------------------------------------------
    def corpus_layout(self) -> CorpusLayout:
        return LAYOUT

    def generate(self, request: GenerateRequest, progress: Callable[[str], None] = lambda _: None) -> str:
        from generators.ab_test import AbParams, generate_ab_data
        from generators.secret import Secret

        params = AbParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})
        secret = Secret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_ab_data(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured
        return (f"wrote {request.out_dir}: {m.rows} sessions of {m.users} users, {params.experiments} hidden "
                f"experiments, {m.duplicate_rows} repeated rows and {m.refired_rows} re-fired purchases, within-user "
                f"correlation {m.within_user_correlation:.3f}, hidden part keyed by secret {manifest.secret_id[:19]}")

    def demo_description(self) -> str:
        largest = round(DEMO_SIZES["holdout_users"] * DEMO_SIZE_SPREAD)
        return "{users} users, {experiments} hidden experiments of {holdout_users} to ".format(**DEMO_SIZES) + str(largest)

    # -- grader ------------------------------------------------------------------------------------
    def grade(self, job: GradeJob) -> AbGraded:
        return grade(job)

    def estimate_in(self, text: str) -> tuple[float, float, float] | None:
        return parse_estimate(text)

    def probe_scored(self, job: GradeJob, graded: Graded) -> Any:
        """The unit probe, as a batch's evaluate stage runs it (bakeoff.tasks.ab_test.probe_hook)."""
        from bakeoff.tasks.ab_test.probe_hook import probe_submission

        assert isinstance(graded, AbGraded)  # this task's own grade() made it
        job.on_step("unit probe")
        return probe_submission(job.sandbox, job.corpus.folder, graded.outcome.rung, job.timeout_for("analyze"),
                                job.env)

    def score_report(self, folder: ScoredFolder) -> ScoreReport:
        from bakeoff.tasks.ab_test.score import AbScoreReport

        return AbScoreReport.of(folder)

    # -- calibration -------------------------------------------------------------------------------
    def cheaters(self) -> tuple[str, ...]:
        from generators.calibration.ab_test import AB_CHEATERS

        return tuple(AB_CHEATERS)

    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        from generators.calibration.ab_test import calibrate_ab

        self.refuse_sweep(options)
        return calibrate_ab(corpus, progress=progress)

    def calibration_tables(self, calibration: Any) -> list[Any]:
        from rich.table import Table

        tables = []
        for kind, rows in (("references", calibration.references), ("cheaters", calibration.cheaters)):
            table = Table(title=f"{kind} on {calibration.references[0].experiments} hidden experiments of {calibration.corpus}")
            table.add_column(kind[:-1], no_wrap=True)
            for column in ("coverage [95%]", "Winkler", "careful's margin [95%]"):
                table.add_column(column, justify="right")
            for r in rows:  # error and width are in calibration.json
                margin = f"{r.margin.estimate:+.4f} [{r.margin.low:+.4f}, {r.margin.high:+.4f}]" if r.margin else ""
                table.add_row(r.variant, f"{r.coverage:.3f} [{r.coverage_low:.2f}, {r.coverage_high:.2f}]",
                              f"{r.winkler:.4f}", margin)
            tables.append(table)
        return [*tables, *(f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in calibration.checks.to_dict().items())]

    # -- extras ------------------------------------------------------------------------------------
    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """The unit-of-analysis probe (bakeoff.tasks.ab_test.probe_hook): by user or by visit."""
        from bakeoff.tasks.ab_test.probe_hook import unit_probe_hooks

        return unit_probe_hooks(enabled)

    def report_sections(self, batch: Any, core: Any, bootstrap_seed: int = 0) -> list[Any]:
        """Unit of analysis (probe, design, divergence), interval metrics and plots, then every task's part."""
        from bakeoff.tasks.ab_test.report import ab_test_section

        return [ab_test_section(batch, bootstrap_seed), CoreSection()]
