"""The spam_classifier take-home as a plug-in: a spam filter scored on arrival, graded by F1 on a holdout.

The trap is a leaking column (`moderator_flagged`); grading installs, trains, predicts on a smoke slice of
train and on the hidden holdout (bakeoff.tasks.spam.check); the probes are the leak probe and the seed
retrains (bakeoff.tasks.spam.hooks), which `bakeoff analyze` can recompute (bakeoff.tasks.spam.reanalyse).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from bakeoff.records import Claim
from bakeoff.taskapi.corpus import CorpusLayout
from bakeoff.taskapi.grading import GradeJob
from bakeoff.taskapi.plugin import (
    AnalyzeSettings,
    EvaluateHook,
    GenerateOption,
    GenerateRequest,
    RunAnalysis,
    TaskPlugin,
)
from bakeoff.taskapi.score import ScoredFolder, ScoreReport
from bakeoff.tasks.spam.check import SpamGraded, grade
from bakeoff.tasks.spam.grade import PREDICT_SCRIPT
from bakeoff.tasks.spam.layout import LAYOUT
from bakeoff.tasks.spam.outcome import SpamGrade
from bakeoff.tasks.spam.words import HEADLINE, WORDS

# The demo's corpus: small enough for a 2-core machine, with every trap of the full one.
DEMO_ROWS = 4000
DEMO_HOLDOUT_ROWS = 1000


class SpamClassifier(TaskPlugin):
    name = "spam_classifier"
    script = PREDICT_SCRIPT
    generator = "spam"  # generators.spam: its manifests say "spam-<version>"
    grader_modules = ("bakeoff.tasks.spam.check", "bakeoff.tasks.spam.grade", "scorer")
    headline = HEADLINE
    grade_type = SpamGrade
    words = WORDS
    generate_options = (
        GenerateOption("rows", int, "Training rows (default: 208,000)."),
        GenerateOption("holdout_rows", int, "Holdout rows (default: 50,000)."),
        GenerateOption("contamination", float, "How often a piece of a message is written in the other class's voice "
                                               "[0, 0.5] (default: the calibrated value)."),
        GenerateOption("spam_rate", float, "Share of spam (default: 0.18)."),
        GenerateOption("flip_rate", float, "Share of training labels flipped, half each way (default: 0.03)."),
        GenerateOption("dup_rate", float, "Share of near-duplicate rows per split (default: 0.04)."),
        GenerateOption("noise_rate", float, "Share of messages with mojibake, and separately with HTML entities "
                                            "(default: 0.01)."),
    )
    demo_options: ClassVar[dict[str, Any]] = {"rows": DEMO_ROWS, "holdout_rows": DEMO_HOLDOUT_ROWS}
    reanalysable = True  # the leak probe and the seed retrains (bakeoff analyze)

    # -- corpus ------------------------------------------------------------------------------------
    def corpus_layout(self) -> CorpusLayout:
        return LAYOUT

    def generate(self, request: GenerateRequest, progress: Callable[[str], None] = lambda _: None) -> str:
        from generators.secret import Secret
        from generators.spam import CorpusParams, generate_corpus

        params = CorpusParams(seed=request.seed, **{k: v for k, v in request.options.items() if v is not None})
        secret = Secret.read(request.secret_file) if request.secret_file is not None else None
        manifest = generate_corpus(params, request.out_dir, force=request.force, progress=progress, secret=secret)
        m = manifest.measured
        return (f"wrote {request.out_dir}: {m.train_rows} training rows, {m.holdout_rows} holdout rows, "
                f"spam {m.train_spam_rate:.3f}, flips {m.flip_rate:.3f}, "
                f"near-duplicates {m.train_dup_rate:.3f}, flag/label correlation {m.flag_label_correlation:.3f}, "
                f"holdout keyed by secret {manifest.secret_id[:19]}")

    def demo_description(self) -> str:
        return f"{DEMO_ROWS} + {DEMO_HOLDOUT_ROWS} rows"

    # -- grader ------------------------------------------------------------------------------------
    def grade(self, job: GradeJob) -> SpamGraded:
        return grade(job)

    def parse_claim(self, text: str) -> Claim | None:
        """An EXPECTED_F1 line (bakeoff.answers)."""
        from bakeoff.answers import parse_expected_f1

        claimed = parse_expected_f1(text)
        return None if claimed is None else Claim(None, claimed)

    def score_report(self, folder: ScoredFolder) -> ScoreReport:
        from bakeoff.tasks.spam.score_report import SpamScoreReport, outcome_of

        return SpamScoreReport(outcome_of(folder))

    # -- calibration -------------------------------------------------------------------------------
    def cheaters(self) -> tuple[str, ...]:
        from generators.references import CHEATERS

        return tuple(CHEATERS)

    def calibrate(self, corpus: Path, progress: Callable[[str], None], **options: Any) -> Any:
        """The three references on the holdout; with sweep=True also holdout F1 over contamination settings."""
        from generators.calibration import calibrate as run_calibration
        from generators.calibration.sweep import DEFAULT_POINTS, DEFAULT_SWEEP_VARIANTS

        return run_calibration(corpus, sweep=bool(options.get("sweep")),
                               sweep_points=options.get("sweep_points") or DEFAULT_POINTS,
                               sweep_variants=options.get("sweep_variants") or DEFAULT_SWEEP_VARIANTS,
                               progress=progress)

    def calibration_tables(self, calibration: Any) -> list[Any]:
        from bakeoff.tasks.spam.calibration_tables import calibration_tables

        return calibration_tables(calibration)

    # -- extras ------------------------------------------------------------------------------------
    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """The leak probe and the seed retrains, unless turned off."""
        if not enabled:
            return {}
        from bakeoff.tasks.spam.hooks import evaluate_hooks

        return evaluate_hooks()

    def reanalyse(self, batch_dir: Path, settings: AnalyzeSettings,
                  progress: Callable[[str], None] = lambda _: None) -> list[RunAnalysis]:
        from bakeoff.tasks.spam.reanalyse import analyze_batch

        return analyze_batch(batch_dir, settings, progress)

    def export_metadata(self, run: Any) -> dict[str, Any]:
        """The design's stance on the leaking column and metric, the leak probe, their divergence, the spam rate."""
        from bakeoff.tasks.spam.signals import run_signals

        signals = run_signals(run)
        return {"leak_stance": signals.design.stance, "metric": signals.design.metric,
                "probe": signals.probe.verdict if signals.probe else None, "divergence": signals.divergence,
                "predicted_rate": signals.predicted_rate}

    def report_sections(self, batch: Any, core: Any, bootstrap_seed: int = 0) -> list[Any]:
        """F1 per model, the leak probe against the design, calibration; every task's part between."""
        from bakeoff.tasks.spam.report import spam_sections

        return list(spam_sections(batch, core))
