"""Review results as Inspect eval logs: one log per review, one sample per item (sample k is epoch k+1).

Each sample's messages are the prompt (rebuilt from the items file when its sha256 is the
recorded one, with the shipped prompt template; else only the item id) and the answer.
Scores: `correct` (1 or 0; absent for an uncaptured answer, which is never graded) and
`verdict` (as parsed). The blamed line, confidence, reason, localisation and the truth are
in the metadata. The log's results carry accuracy, recall, specificity, pair accuracy, J.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

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

TASK = "claim_review"


def _prompt(item: Any) -> list[tuple[str, str]] | None:
    if item is None:
        return None
    from bakeoff.review.prompt import load_template

    return [(m.role, m.content) for m in load_template().messages(item)]


def _sample(review: ReviewRecords, answer: Mapping[str, Any]):
    log, _, scorer, _ = require_inspect()
    item = review.items.get(answer.get("item_id") or "")
    prompt = _prompt(item)
    meta = {"stage": "review", "key": answer.get("key")}
    inputs = [chat_message(role, content, meta) for role, content in prompt] if prompt else str(answer.get("item_id"))
    reply = chat_message("assistant", answer.get("text") or "", meta, answer.get("reasoning") or None)
    scores = {"verdict": scorer.Score(value=str(answer.get("verdict") or "none"), answer=answer.get("verdict"),
                                      explanation=answer.get("reason") or None)}
    if answer.get("correct") is not None:
        scores["correct"] = scorer.Score(value=1.0 if answer["correct"] else 0.0, answer=answer.get("verdict"))
    keys = ("expected", "family", "pair_id", "flaw_lines", "blamed_line", "confidence", "localized", "capture",
            "capture_reason", "finish_reason", "error")
    metadata = {k: answer.get(k) for k in keys}
    metadata["input_rebuilt"] = bool(prompt)
    completion = {"text": answer.get("text"), "finish_reason": answer.get("finish_reason"),
                  "prompt_tokens": answer.get("prompt_tokens"), "completion_tokens": answer.get("completion_tokens"),
                  "error": answer.get("error"), "reasoning": answer.get("reasoning")}
    return log.EvalSample(id=str(answer.get("item_id")), epoch=int(answer.get("sample") or 0) + 1, input=inputs,
                          target=str(answer.get("expected") or ""), messages=[*(inputs if isinstance(inputs, list) else []), reply],
                          output=model_output(review.model, completion), scores=scores, metadata=metadata)


def review_log(review: ReviewRecords, partial: bool):
    log, _, _, _ = require_inspect()
    samples = [_sample(review, answer) for answer in review.answers]
    metrics = review.summary.get("metrics") or {}
    graded = sum(a.get("correct") is not None for a in review.answers)
    results = log.EvalResults(total_samples=len(samples), completed_samples=len(samples), scores=[
        eval_score(log, "correct", headline(metrics), graded, len(samples) - graded,
                   {"uncaptured": metrics.get("uncaptured"), "unusable": metrics.get("unusable")})])
    settings = review.summary.get("settings") or {}
    items = sorted({str(a.get("item_id")) for a in review.answers})
    spec = log.EvalSpec(
        tags=["partial"] if partial else None,
        created=iso(review.summary.get("started_at")) or iso(review.summary.get("finished_at")) or "1970-01-01T00:00:00+00:00",
        task=f"bakeoff/{TASK}", task_id=safe_name(review.source), run_id=safe_name(review.source),
        eval_id=safe_name(f"{review.source}-{TASK}"), dataset=log.EvalDataset(name=TASK, samples=len(items), sample_ids=items),
        model=model_name(review.model), model_args={"model_info": review.summary.get("model_info")},
        config=log.EvalConfig(epochs=int(settings.get("samples") or 1)),
        packages={"bakeoff": str(review.summary.get("bakeoff_version") or __version__)},
        metadata={"source": review.source, "items_file": review.summary.get("items_file"),
                  "items_sha256": review.summary.get("items_sha256"), "settings": settings, "partial": partial,
                  "not_read": list(review.unreadable)})
    return log.EvalLog(eval=spec, status="success", samples=samples, results=results,
                       stats=log.EvalStats(started_at=iso(review.summary.get("started_at")) or "",
                                           completed_at=iso(review.summary.get("finished_at")) or ""),
                       tags=["partial"] if partial else [])


def export_reviews(source: ExportSource, out: Path) -> list[Path]:
    written = []
    for review in source.reviews:
        eval_log = review_log(review, source.partial or bool(review.unreadable))
        path = out / f"{safe_name(review.source)}_{safe_name(review.model)}_{TASK}.eval"
        written.append(write_and_check(eval_log, path, eval_log.samples))
    return written
