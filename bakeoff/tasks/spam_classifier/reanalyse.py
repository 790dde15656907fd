"""`bakeoff analyze DIR`: (re)compute the probes and retrains of an existing batch, one record per run.

For each finished run it opens a sandbox on the run's repository (the same mounts
a run has), installs the declared requirements offline, runs the leak probe and
the seed retrains, and writes `runs/<run_id>/analysis.json` atomically. A run that
already has one is skipped unless `force`, so an interrupted analysis resumes.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.batchfolder.files import write_json
from bakeoff.batchfolder.layout import RunLayout
from bakeoff.batchfolder.read import RunRecords, read_batch
from bakeoff.errors import BakeoffError
from bakeoff.records import AnalysisRecord, Plan, RunRecord, RunStatus
from bakeoff.scaffolds.registry import step_readers
from bakeoff.taskapi.plugin import AnalyzeSettings, RunAnalysis
from bakeoff.tasks.spam_classifier.design import analyse_design
from bakeoff.tasks.spam_classifier.hooks import AnalysisOptions, run_probe, run_retrain
from bakeoff.tasks.spam_classifier.probes import BASELINE, ProbeResult
from bakeoff.tasks.spam_classifier.retrain import read_retrain

__all__ = ["AnalysisCorpusMissing", "AnalyzeSettings", "RunAnalysis", "analysis_options", "analyze_batch", "analyze_run"]


class AnalysisCorpusMissing(BakeoffError):
    """The corpus a run was made on is no longer where its record says."""


def analysis_options(settings: AnalyzeSettings) -> AnalysisOptions:
    """The leak probe's and the retrains' options among the settings' task options (the defaults for the rest)."""
    known = {f.name for f in dataclasses.fields(AnalysisOptions)}
    given = {key: value for key, value in settings.options.items() if key in known}
    return AnalysisOptions(**given)  # type: ignore[arg-type]  # each typed by its declared option (bakeoff.tasks.spam_classifier.plugin)


def analyze_batch(
    batch_dir: Path, settings: AnalyzeSettings, progress: Callable[[str], None] = lambda _: None
) -> list[RunAnalysis]:
    records = read_batch(batch_dir, step_readers=step_readers)
    plan = records.plan
    kind = settings.sandbox or plan.sandbox or "docker"
    judge = _open_judge(analysis_options(settings).judge)
    try:
        return [_analyze_one(run, plan, kind, settings, judge, progress) for run in records.runs]
    finally:
        if judge is not None:
            judge.close()


def _open_judge(spec: Any) -> Any:
    if spec is None:
        return None
    from bakeoff.models.registry import open_backend

    return open_backend(spec)


def _analyze_one(run: RunRecords, plan, kind: str, settings: AnalyzeSettings, judge, progress) -> RunAnalysis:
    if run.run is None or run.run.status != RunStatus.FINISHED:
        return RunAnalysis(run.run_id, "skipped_unfinished")
    if run.analysis is not None and not settings.force:
        return RunAnalysis(run.run_id, "skipped_existing")
    progress(run.run_id)
    return analyze_run(run, plan, kind, settings, judge)


def analyze_run(run: RunRecords, plan: Plan, kind: str, settings: AnalyzeSettings, judge: Any = None) -> RunAnalysis:
    from bakeoff.batchfolder.files import utc_now
    from bakeoff.tasks.spam_classifier.judge import judge_stance

    options = analysis_options(settings)
    measured = Measurements()
    if options.probe or options.retrain_seeds > 0:
        if run.run is None:  # analyze_batch hands over finished runs only; a caller with another is told so
            raise AnalysisCorpusMissing(f"run {run.run_id} has not ended: no run.json to take its corpus and seed from")
        measured = _sandbox_measurements(run, run.run, plan, kind, settings)
    record = AnalysisRecord(
        run_id=run.run_id,
        computed_at=utc_now(),
        design=analyse_design(run.design_text).to_dict(),
        isolation=measured.isolation,
        requirements=measured.requirements,
        probe=measured.probe.to_dict() if measured.probe is not None else None,
        retrain=measured.retrain,
        design_judge=judge_stance(judge, run.design_text).to_dict() if judge is not None else None,
    )
    write_json(RunLayout(run.folder).analysis, record.to_json())
    retrain = read_retrain(measured.retrain)
    return RunAnalysis(run.run_id, "analysed", measured.probe.verdict if measured.probe is not None else None,
                       retrain.spread if retrain is not None else None)


@dataclass
class Measurements:
    """What `bakeoff analyze` measured of a run in a sandbox (nothing when its probe and retrains are off)."""

    isolation: str | None = None  # the sandbox's kind
    requirements: dict[str, Any] | None = None  # the offline install's record
    probe: ProbeResult | None = None
    retrain: dict[str, Any] | None = None  # the retrains' record, or why there were none ({"skipped": ...})


def _sandbox_measurements(run: RunRecords, record: RunRecord, plan: Plan, kind: str,
                          settings: AnalyzeSettings) -> Measurements:
    """The probe and the retrains, in a sandbox opened on the run's repository."""
    from bakeoff.runner.run import run_sandbox
    from bakeoff.taskapi.corpus import CorpusFiles
    from bakeoff.tasks.spam_classifier.layout import LAYOUT
    from sandbox.submission import open_submission_sandbox

    corpus = _corpus_of(run.run_id, record, plan)
    rung, f1, seed = record.outcome.rung, record.outcome.headline_value, record.seed
    options = analysis_options(settings)
    files = CorpusFiles.from_folder(corpus, LAYOUT)
    measured = Measurements(isolation=kind)
    with tempfile.TemporaryDirectory(prefix="bakeoff-analyze-gate-") as private:
        # the probe shows its inputs where grading shows the holdout: through a gate of this sandbox's own
        gate = files.hidden_gate(Path(private) / "hidden_inputs")
        gate.prepare()
        os.chmod(private, 0o755)  # the sandbox's user reaches the gate's folder through it
        box = run_sandbox(RunLayout(run.folder).repo, files, seed, kind, settings.wheelhouse, plan.limits,
                          settings.sandbox_options, gate)
        with open_submission_sandbox(box) as sandbox:
            measured.requirements = _install(sandbox, box.workspace, settings.wheelhouse)
            if options.probe:
                probe = run_probe(sandbox, corpus, gate, box.env, seed, rung, options)
                if _model_files_missing(probe):
                    # the repository lost its trained model (e.g. a clean checkout): train once with the run's seed
                    sandbox.exec(["python", "train.py"], timeout_s=options.train_timeout_s, env=dict(box.env))
                    probe = run_probe(sandbox, corpus, gate, box.env, seed, rung, options)
                measured.probe = probe
            if options.retrain_seeds > 0:
                with gate.opened(sandbox):
                    measured.retrain = run_retrain(sandbox, corpus, box.env, seed, rung, f1, options)
    return measured


def _model_files_missing(probe) -> bool:
    baseline = next((v for v in probe.variants if v.name == BASELINE), None)
    return baseline is not None and not baseline.ok and baseline.crash_class == "file_not_found"


def _corpus_of(run_id: str, record: RunRecord, plan: Plan) -> Path:
    recorded = record.corpus.path or plan.corpus
    corpus = Path(recorded) if recorded else None
    if corpus is None or not (corpus / "holdout.csv").is_file() or not (corpus / "train.csv").is_file():
        raise AnalysisCorpusMissing(f"run {run_id}: its corpus {recorded} is missing train.csv or holdout.csv")
    if not (corpus / "holdout_answers.csv").is_file():
        raise AnalysisCorpusMissing(f"run {run_id}: its corpus {corpus} has no holdout_answers.csv to score retrains")
    return corpus


def _install(sandbox, workspace: Path, wheelhouse: Path | None) -> dict[str, Any] | None:
    """Install the submission's declared requirements, as its run did, before anything executes."""
    from sandbox.requirements import install_requirements

    requirements = workspace / "requirements.txt"
    if not requirements.is_file() or wheelhouse is None:
        return None
    return install_requirements(sandbox, requirements, wheelhouse).to_dict()
