"""Review results as Inspect eval logs: one log per review, one sample per item (sample k is epoch k+1).

Each sample's messages are the prompt (rebuilt from the items file when its sha256 is the
recorded one, with the shipped prompt template; else only the item id) and the answer.
Scores: `correct` (1 or 0; absent for an uncaptured answer, which is never graded) and
`verdict` (as parsed). The blamed line, confidence, reason, localisation and the truth are
in the metadata. The log's results carry accuracy, recall, specificity, pair accuracy, J.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from bakeoff import __version__
from bakeoff.export.inspect_common import (
    chat_message,
    eval_score,
    iso,
    model_name,
    model_output,
    require_inspect,
    safe_name,
    write_and_check,
)
from bakeoff.export.review_numbers import headline
from bakeoff.export.source import ExportSource
from bakeoff.report.transcript_review import ReviewRecords
from bakeoff.review.items import ReviewItem
from bakeoff.review.records import AnswerRecord

TASK = "claim_review"


def _prompt(item: ReviewItem | None) -> list[tuple[str, str]] | None:
    if item is None:
        return None
    from bakeoff.review.prompt import load_template

    return [(m.role, m.content) for m in load_template().messages(item)]


METADATA_FIELDS = ("expected", "family", "pair_id", "flaw_lines", "blamed_line", "confidence", "localized", "capture",
                   "capture_reason", "finish_reason", "error")


def _sample(review: ReviewRecords, answer: AnswerRecord):
    log, _, scorer, _ = require_inspect()
    prompt = _prompt(review.items.get(answer.item_id))
    meta = {"stage": "review", "key": answer.key}
    inputs = [chat_message(role, content, meta) for role, content in prompt] if prompt else answer.item_id
    reply = chat_message("assistant", answer.text, meta, answer.reasoning or None)
    scores = {"verdict": scorer.Score(value=answer.verdict or "none", answer=answer.verdict,
                                      explanation=answer.reason or None)}
    if answer.correct is not None:
        scores["correct"] = scorer.Score(value=1.0 if answer.correct else 0.0, answer=answer.verdict)
    metadata = {name: _plain(getattr(answer, name)) for name in METADATA_FIELDS}
    metadata["input_rebuilt"] = bool(prompt)
    output = model_output(review.model, answer.text, str(answer.finish_reason), int(answer.prompt_tokens or 0),
                          int(answer.completion_tokens or 0), answer.error, answer.reasoning)
    return log.EvalSample(id=answer.item_id, epoch=answer.sample + 1, input=inputs, target=answer.expected,
                          messages=[*(inputs if isinstance(inputs, list) else []), reply],
                          output=output, scores=scores, metadata=metadata)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def review_log(review: ReviewRecords, partial: bool):
    log, _, _, _ = require_inspect()
    samples = [_sample(review, answer) for answer in review.answers]
    summary = review.summary
    metrics = summary.metrics
    graded = sum(a.correct is not None for a in review.answers)
    results = log.EvalResults(total_samples=len(samples), completed_samples=len(samples), scores=[
        eval_score(log, "correct", headline(metrics), graded, len(samples) - graded,
                   {"uncaptured": metrics.uncaptured, "unusable": metrics.unusable})])
    items = sorted({a.item_id for a in review.answers})
    spec = log.EvalSpec(
        tags=["partial"] if partial else None,
        created=iso(summary.started_at) or iso(summary.finished_at) or "1970-01-01T00:00:00+00:00",
        task=f"bakeoff/{TASK}", task_id=safe_name(review.source), run_id=safe_name(review.source),
        eval_id=safe_name(f"{review.source}-{TASK}"), dataset=log.EvalDataset(name=TASK, samples=len(items), sample_ids=items),
        model=model_name(review.model), model_args={"model_info": summary.model_info},
        config=log.EvalConfig(epochs=summary.settings.samples),
        packages={"bakeoff": summary.bakeoff_version or __version__},
        metadata={"source": review.source, "items_file": summary.items_file, "items_sha256": summary.items_sha256,
                  "settings": msgspec.to_builtins(summary.settings), "partial": partial,
                  "not_read": list(review.unreadable)})
    return log.EvalLog(eval=spec, status="success", samples=samples, results=results,
                       stats=log.EvalStats(started_at=iso(summary.started_at) or "",
                                           completed_at=iso(summary.finished_at) or ""),
                       tags=["partial"] if partial else [])


def export_reviews(source: ExportSource, out: Path) -> list[Path]:
    written = []
    for review in source.reviews:
        eval_log = review_log(review, source.partial or bool(review.unreadable))
        path = out / f"{safe_name(review.source)}_{safe_name(review.model)}_{TASK}.eval"
        written.append(write_and_check(eval_log, path, eval_log.samples))
    return written
