"""Writing a review's results: a folder with review.json and answers.jsonl (docs/review.md).

The folder is assembled in a staging folder beside its destination and
published whole at the end (durable), so a folder at the destination is always
complete. An existing non-empty destination is never overwritten.
"""

from __future__ import annotations

from pathlib import Path

import durable
from bakeoff import __version__
from bakeoff.review.errors import ReviewError, ReviewOutputExists
from bakeoff.review.runner import ReviewResult

RESULT_KIND = "claim_review"
SCHEMA_VERSION = 1
SUMMARY_FILE = "review.json"
ANSWERS_FILE = "answers.jsonl"


def summary_record(result: ReviewResult, items_file: str, items_sha256: str, baseline: dict | None = None) -> dict:
    """review.json; `baseline` is the cues reader's summary on the same items (bakeoff.review.cues)."""
    return {
        "kind": RESULT_KIND,
        "schema": SCHEMA_VERSION,
        "bakeoff_version": __version__,
        "model": result.backend,
        "model_info": result.model_info,
        "items_file": items_file,
        "items_sha256": items_sha256,
        "settings": result.settings.to_dict(),
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "metrics": result.metrics.to_dict(),
        "baseline_cues": baseline,
    }


def answer_records(result: ReviewResult) -> list[dict]:
    """One record per answer, with the item fields a reader needs to interpret it."""
    items = {item.id: item for item in result.items}
    records = []
    for answer in result.answers:
        item = items[answer.item_id]
        record = {
            "expected": item.verdict,
            "family": item.family,
            "pair_id": item.pair_id,
            "flaw_lines": list(item.flaw_lines),
        }
        record.update(answer.to_dict())
        records.append(record)
    return records


def check_output_free(out_dir: Path) -> None:
    """Refuse a destination that exists and is not an empty folder (results are never overwritten)."""
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise ReviewOutputExists(f"{out_dir} already exists and is not an empty folder; choose another --out")


def write_results(
    out_dir: Path, result: ReviewResult, items_file: str, items_sha256: str, baseline: dict | None = None
) -> Path:
    """Write the results folder atomically; returns its path."""
    out_dir = Path(out_dir)
    check_output_free(out_dir)
    parent = out_dir.parent
    try:
        staging = durable.new_staging(out_dir)
    except OSError as exc:
        raise ReviewError(f"cannot create the output folder under {parent}: {exc}") from None
    try:
        with durable.publishing(staging, out_dir, durable.IfExists.REFUSE):  # an empty folder there is taken over
            with open(staging / ANSWERS_FILE, "w", encoding="utf-8") as handle:
                for record in answer_records(result):
                    handle.write(durable.dumps(record, ensure_ascii=False) + "\n")
            summary = summary_record(result, items_file, items_sha256, baseline)
            (staging / SUMMARY_FILE).write_text(durable.dumps(summary, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReviewError(f"cannot write review results to {out_dir}: {exc}") from None
    return out_dir


def read_summary(out_dir: Path) -> dict:
    """The review.json of a results folder (what `bakeoff report` reads)."""
    path = Path(out_dir) / SUMMARY_FILE
    try:
        data = durable.read_json(path)
    except (OSError, durable.UntrustedJSON) as exc:
        raise ReviewError(f"cannot read review results {path}: {exc}") from None
    if data.get("kind") != RESULT_KIND:
        raise ReviewError(f"{path} is not a claim-review result")
    return data
