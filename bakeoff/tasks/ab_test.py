"""The ab_test take-home as a plug-in: an experiment analysis that runs and is silently wrong.

The model writes analyze.py; the check installs its requirements, runs it on the visible sessions (the smoke
test the model may see) and on every hidden experiment in the run's sandbox, and grades the intervals on the
host with scorer.intervals (bakeoff.tasks.ab_check). The headline is the mean Winkler score (lower is better).
The hidden experiments are mounted read-only at /holdout; their truth (holdout_truth.csv, truth.json) never is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bakeoff.records import Command
from bakeoff.records.enums import LadderStatus
from bakeoff.runner.context import CorpusLayout, RunContext, StageClock
from bakeoff.runner.ladder import Headline, LadderCheck
from bakeoff.runner.workspace import DATA_DIR
from bakeoff.tasks.base import GenerateRequest, OnStage, OptionNotForTask, ScoreReport, ScoreRequest, TaskPlugin
from sandbox.paths import HOLDOUT_DIR as HOLDOUT_IN_SANDBOX

SESSIONS_PART, HOLDOUT_PART, TRUTH_PART = "sessions.csv", "holdout", "holdout_truth.csv"
VISIBLE_TRUTH_PART = "truth.json"
SESSIONS_IN_SANDBOX = f"{DATA_DIR}/sessions.csv"
DEMO_SIZES = {"users": 2000, "experiments": 8, "holdout_users": 2000}
DEMO_SIZE_SPREAD = 4.0  # the demo's hidden experiments: 2,000 to 8,000 users
# A change of the mean Winkler score within this is noise (the score is in effect units: 0.001 = 0.1 point).
WINKLER_TOLERANCE = 0.0005
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
                found = tuple(float(group) for group in match.groups())
            except ValueError:
                continue
    return found  # type: ignore[return-value]


def claim_record(found: tuple[tuple[float, float, float], str] | None) -> dict[str, Any]:
    """The claim as run.json and `bakeoff score` keep it: the ESTIMATE's effect and interval, and where it was."""
    if found is None:
        return {"claimed_effect": None, "claimed_ci": None, "source": None}
    (effect, low, high), source = found
    return {"claimed_effect": effect, "claimed_ci": [low, high], "source": source}


class AbTest(TaskPlugin):
    name = "ab_test"
    generate_options = ("users", "experiments", "holdout_users")

    def corpus_layout(self) -> CorpusLayout:
        return CorpusLayout(
            required=(SESSIONS_PART, HOLDOUT_PART, TRUTH_PART),
            mounts=((SESSIONS_PART, SESSIONS_IN_SANDBOX), (HOLDOUT_PART, HOLDOUT_IN_SANDBOX)),
            excerpt_of=SESSIONS_IN_SANDBOX,
            hint="make one with `bakeoff generate --task ab_test`",
        )

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

    def ensure_corpus(self, folder: Path, *, demo: bool = False) -> Path:
        if (folder / "manifest.json").is_file():
            return folder
        from generators.ab_test import AbParams, generate_ab_data

        folder.parent.mkdir(parents=True, exist_ok=True)
        params = AbParams(seed=0, **DEMO_SIZES, holdout_size_spread=DEMO_SIZE_SPREAD) if demo else AbParams(seed=0)
        generate_ab_data(params, folder, force=folder.exists())
        return folder

    def demo_description(self) -> str:
        largest = round(DEMO_SIZES["holdout_users"] * DEMO_SIZE_SPREAD)
        return "{users} users, {experiments} hidden experiments of {holdout_users} to ".format(**DEMO_SIZES) + str(largest)

    @property
    def headline(self) -> Headline:
        return Headline("winkler", higher_is_better=False, tolerance=WINKLER_TOLERANCE)

    def check(self, ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
        from bakeoff.tasks.ab_check import run_check

        return run_check(ctx, clock, label)

    def claim(self, ctx: RunContext, check: LadderCheck, include_readme: bool) -> dict[str, Any]:
        """The ESTIMATE line from the visible run's output, else the design, else (after docs) the README."""
        return claim_record(self.find_claim(ctx, check, include_readme, parse_estimate))

    def outcome_fields(self, check: LadderCheck, claim: Mapping[str, Any]) -> dict[str, Any]:
        metrics = check.metrics or {}
        scored = check.status == LadderStatus.SCORED
        return {
            "f1": None,  # the field every outcome has (docs/records.md); this task has no F1
            "headline": {"name": "winkler", "value": metrics.get("winkler") if scored else None,
                         "higher_is_better": False},
            "claimed_f1": None,
            "claimed_effect": claim.get("claimed_effect"),
            "claimed_ci": claim.get("claimed_ci"),
            "claim_source": claim.get("source"),
        }

    def score(self, request: ScoreRequest, on_stage: OnStage | None = None) -> ScoreReport:
        from bakeoff.tasks.ab_score import score_ab_submission

        return score_ab_submission(request, on_stage)

    def references(self) -> tuple[str, ...]:
        from generators.calibration.ab_test import AB_VARIANTS

        return tuple(AB_VARIANTS)

    def cheaters(self) -> tuple[str, ...]:
        from generators.calibration.ab_test import AB_CHEATERS

        return tuple(AB_CHEATERS)

    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        from generators.calibration.ab_test import calibrate_ab

        if options.get("sweep") or options.get("sweep_points") or options.get("sweep_variants"):
            raise OptionNotForTask("--sweep, --sweep-points and --sweep-variant do not apply to --task ab_test")
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

    def evaluate_hooks(self, enabled: bool = True) -> dict[str, Any]:
        """The unit-of-analysis probe (bakeoff.analysis.unit_probe_hook): by user or by visit."""
        from bakeoff.analysis.unit_probe_hook import unit_probe_hooks

        return unit_probe_hooks(enabled)

    def report_sections(self, batch: Any, bootstrap_seed: int = 0) -> list[Any]:
        """Unit of analysis (probe, design, divergence), interval metrics and plots (bakeoff.report.ab_test)."""
        from bakeoff.report.ab_test import ab_test_section

        return [ab_test_section(batch, bootstrap_seed)]
