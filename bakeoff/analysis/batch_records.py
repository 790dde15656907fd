"""Reading a batch folder's records (layout and fields: docs/records.md). Nothing here writes.

The records are JSON written by the runner; they are read as the plain mappings
they are and handed to the signal rules, which pick the fields they need.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from bakeoff.errors import BakeoffError
from bakeoff.runner.records import DamagedRecord, read_record
from bakeoff.runner.run import stage_record_path
from bakeoff.runner.stages import STAGE_NAMES

ANALYSIS_FILE = "analysis.json"  # written by `bakeoff analyze` beside run.json
ANALYSIS_SCHEMA = "bakeoff.analysis/1"
JUDGE_FIELD = "design_judge"  # analysis.json: the optional model judge's opinion of the design


class BatchFolderError(BakeoffError):
    """The folder is not a batch folder, or one of its records cannot be read."""


@dataclass(frozen=True)
class RunRecords:
    """Everything recorded about one run."""

    run_id: str
    folder: Path
    run: Mapping[str, Any] | None  # run.json; None while the run is unfinished
    stages: Mapping[str, Mapping[str, Any]]  # stage name -> its record
    analysis: Mapping[str, Any] | None  # analysis.json, when `bakeoff analyze` has run
    design_text: str | None  # the design document the run ended with (repo/DESIGN.md, else the decide answer)

    @property
    def finished(self) -> bool:
        return self.run is not None


@dataclass(frozen=True)
class BatchRecords:
    folder: Path
    batch: Mapping[str, Any]
    runs: tuple[RunRecords, ...]  # in the batch's execution order
    calibration: Mapping[str, Any] | None  # calibration.json of the batch's corpus, when present
    reviews: tuple[tuple[str, Mapping[str, Any]], ...]  # (folder name, metrics) of claim-review results in the batch
    manifest: Mapping[str, Any] | None = None  # the corpus's manifest.json, when it can be found

    @property
    def holdout_spam_rate(self) -> float | None:
        """The holdout's true spam rate as the generator measured it."""
        value = ((self.manifest or {}).get("measured") or {}).get("holdout_spam_rate")
        return float(value) if isinstance(value, (int, float)) else None

    def model_labels(self) -> list[str]:
        labels = [m.get("label") for m in self.batch.get("plan", {}).get("models", [])]
        seen = [label for label in labels if label]
        for run in self.runs:
            label = run_model_label(run)
            if label not in seen:
                seen.append(label)
        return seen


def run_model_label(run: RunRecords) -> str:
    if run.run and run.run.get("model", {}).get("label"):
        return run.run["model"]["label"]
    return run.run_id.rsplit("-r", 1)[0]


def read_json_file(path: Path, reader: Callable[[Path], Any] = read_record) -> Any:
    """A record through `reader` (a JSON object by default); BatchFolderError naming the file and what is wrong."""
    try:
        return reader(path)
    except DamagedRecord as exc:
        raise BatchFolderError(str(exc)) from None
    except OSError as exc:
        raise BatchFolderError(f"cannot read record {path}: {exc}") from None


def _read_batch_json(path: Path) -> Any:
    """batch.json with what the analysis reads: the run order and the plan."""
    batch = read_record(path, ("order", "plan"))
    if not isinstance(batch["order"], list) or not all(isinstance(r, str) for r in batch["order"]):
        raise DamagedRecord(f"{path} is damaged: 'order' is not a list of run names")
    if not isinstance(batch["plan"], dict):
        raise DamagedRecord(f"{path} is damaged: 'plan' is not an object")
    return batch


def _read_run_json(path: Path) -> Any:
    record = read_record(path, ("status", "outcome"))
    if not isinstance(record["outcome"], dict):
        raise DamagedRecord(f"{path} is damaged: 'outcome' is not an object")
    return record


def read_batch(folder: Path) -> BatchRecords:
    folder = Path(folder)
    batch_file = folder / "batch.json"
    if not batch_file.is_file():
        raise BatchFolderError(f"{folder} is not a batch folder (no batch.json)")
    batch = read_json_file(batch_file, _read_batch_json)
    runs_dir = folder / "runs"
    ordered = list(batch.get("order") or [])
    present = sorted(p.name for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    run_ids = [r for r in ordered if r in present] + [r for r in present if r not in ordered]
    runs = tuple(read_run(runs_dir / run_id) for run_id in run_ids)
    corpus_files = _corpus_file(folder, batch, "manifest.json")
    manifest = read_json_file(corpus_files) if corpus_files else None
    return BatchRecords(folder, batch, runs, _calibration(folder, batch), _reviews(folder), manifest)


def read_run(folder: Path) -> RunRecords:
    stages: dict[str, Mapping[str, Any]] = {}
    for index, stage in enumerate(STAGE_NAMES, start=1):
        path = stage_record_path(folder, index, stage)
        if path.is_file():
            stages[stage] = read_json_file(path, lambda p: read_record(p, ("attribution",)))
    run_file, analysis_file = folder / "run.json", folder / ANALYSIS_FILE
    return RunRecords(
        run_id=folder.name,
        folder=folder,
        run=read_json_file(run_file, _read_run_json) if run_file.is_file() else None,
        stages=stages,
        analysis=read_json_file(analysis_file) if analysis_file.is_file() else None,
        design_text=_design_text(folder, stages),
    )


def _design_text(folder: Path, stages: Mapping[str, Mapping[str, Any]]) -> str | None:
    design = folder / "repo" / "DESIGN.md"
    if design.is_file() and not design.is_symlink():  # a link sandboxed code left could point at any host file
        return design.read_text(encoding="utf-8", errors="replace")
    completion = (stages.get("decide") or {}).get("completion") or {}
    return completion.get("text")


def _corpus_file(folder: Path, batch: Mapping[str, Any], name: str) -> Path | None:
    """`name` beside the batch, in its own corpus/, or in the plan's corpus folder."""
    candidates = [folder / name, folder / "corpus" / name]
    corpus = batch.get("plan", {}).get("corpus")
    if isinstance(corpus, str) and corpus:
        candidates.append(Path(corpus) / name)
    elif isinstance(corpus, Mapping) and corpus.get("path"):
        candidates.append(Path(corpus["path"]) / name)
    return next((path for path in candidates if path.is_file()), None)


def _calibration(folder: Path, batch: Mapping[str, Any]) -> Mapping[str, Any] | None:
    path = _corpus_file(folder, batch, "calibration.json")
    return read_json_file(path) if path else None


REVIEW_FOLDERS = ("review", "reviews")
REVIEW_SUMMARY_FILE = "review.json"  # what `bakeoff review --out DIR` writes (docs/review.md)
REVIEW_KIND = "claim_review"


def _reviews(folder: Path) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """Every `bakeoff review --out` folder kept under BATCH/review/ or BATCH/reviews/ (found by its review.json)."""
    found = []
    for name in REVIEW_FOLDERS:
        base = folder / name
        if base.is_dir():
            for path in sorted(base.rglob(REVIEW_SUMMARY_FILE)):
                summary = read_json_file(path)
                if isinstance(summary, dict) and summary.get("kind") == REVIEW_KIND:
                    found.append((path.parent.relative_to(folder).as_posix(), summary))
    return tuple(found)
