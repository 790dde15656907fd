"""The spam_classifier take-home as a plug-in: a spam filter scored on arrival, graded by F1 on a holdout.

The trap is a leaking column (`moderator_flagged`); the check installs, trains, predicts on a smoke slice
of train and on the hidden holdout (bakeoff.tasks.spam_check); the probes are the leak probe and the
seed retrains (bakeoff.analysis.hooks). Its records are those of docs/records.md (f1, claimed_f1...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bakeoff.records import Command
from bakeoff.runner.context import CorpusLayout, RunContext, StageClock
from bakeoff.runner.ladder import Headline, LadderCheck
from bakeoff.runner.workspace import DATA_DIR
from bakeoff.tasks.base import EvaluateHook, GenerateRequest, OnStage, ScoreReport, ScoreRequest, TaskPlugin
from bakeoff.tasks.spam_check import ANSWERS_PART, HOLDOUT_IN_SANDBOX, HOLDOUT_PART, TRAIN_PART, run_check

# The demo's corpus: small enough for a 2-core machine, with every trap of the full one.
DEMO_ROWS = 4000
DEMO_HOLDOUT_ROWS = 1000
F1_TOLERANCE = 0.01  # an F1 change within this is noise, not an effect


class SpamClassifier(TaskPlugin):
    name = "spam_classifier"
    generate_options = ("rows", "holdout_rows", "contamination", "spam_rate", "flip_rate", "dup_rate", "noise_rate")
    reanalysable = True  # the leak probe and the seed retrains (bakeoff analyze)

    def corpus_layout(self) -> CorpusLayout:
        return CorpusLayout(
            required=(TRAIN_PART, HOLDOUT_PART, ANSWERS_PART),
            mounts=((TRAIN_PART, f"{DATA_DIR}/train.csv"), (HOLDOUT_PART, HOLDOUT_IN_SANDBOX)),
            excerpt_of=f"{DATA_DIR}/train.csv",
        )

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

    def ensure_corpus(self, folder: Path, *, demo: bool = False) -> Path:
        if (folder / "manifest.json").is_file():
            return folder
        from generators.spam import CorpusParams, generate_corpus

        sizes = {"rows": DEMO_ROWS, "holdout_rows": DEMO_HOLDOUT_ROWS} if demo else {}
        folder.parent.mkdir(parents=True, exist_ok=True)
        generate_corpus(CorpusParams(seed=0, **sizes), folder, force=folder.exists())
        return folder

    def demo_description(self) -> str:
        return f"{DEMO_ROWS} + {DEMO_HOLDOUT_ROWS} rows"

    @property
    def headline(self) -> Headline:
        return Headline("f1", higher_is_better=True, tolerance=F1_TOLERANCE)

    def check(self, ctx: RunContext, clock: StageClock, label: str) -> tuple[LadderCheck, list[Command]]:
        return run_check(ctx, clock, label)

    def claim(self, ctx: RunContext, check: LadderCheck, include_readme: bool) -> dict[str, Any]:
        """EXPECTED_F1 from the training output, else the design, else (after docs) the README."""
        from bakeoff.answers import parse_expected_f1

        found = self.find_claim(ctx, check, include_readme, parse_expected_f1)
        claimed, found_in = found if found is not None else (None, None)
        return {"claimed_f1": claimed, "source": found_in, "real_f1": check.f1}

    def outcome_fields(self, check: LadderCheck, claim: Mapping[str, Any]) -> dict[str, Any]:
        return {"f1": check.f1, "claimed_f1": claim.get("claimed_f1"), "claim_source": claim.get("source")}

    def score(self, request: ScoreRequest, on_stage: OnStage | None = None) -> ScoreReport:
        from bakeoff.grading.score import ScoreOptions, score_submission

        options = ScoreOptions(
            sandbox_kind=request.sandbox_kind, unsafe_no_isolation=request.unsafe_no_isolation, train=request.train,
            timeout_s=request.timeout_s, wheelhouse=request.wheelhouse, disk_bytes=request.disk_bytes,
            sandbox_options=request.sandbox_options,
        )
        from bakeoff.tasks.spam_score import SpamScoreReport

        return SpamScoreReport(score_submission(request.repo, request.corpus, options, on_stage))

    def references(self) -> tuple[str, ...]:
        from generators.references import VARIANTS

        return tuple(VARIANTS)

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
        from bakeoff.tasks.spam_tables import calibration_tables

        return calibration_tables(calibration)

    def evaluate_hooks(self, enabled: bool = True) -> dict[str, EvaluateHook]:
        """The leak probe and the seed retrains, unless turned off."""
        if not enabled:
            return {}
        from bakeoff.analysis.hooks import evaluate_hooks

        return evaluate_hooks()

    def report_sections(self, batch: Any, bootstrap_seed: int = 0) -> list[Any]:
        """F1 per model, the leak probe against the design, calibration, crashes, repair turns, pairs."""
        from bakeoff.report.spam_sections import spam_section

        return [spam_section(batch, bootstrap_seed)]
