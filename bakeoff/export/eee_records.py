"""Every Eval Ever records of a batch: one aggregate per model (and per review) with its instances.

Take-home aggregates: the task's headline (by its name) over graded runs where the task counts an unscored
one (as its failed value), and over scored runs only, each with its 95% percentile bootstrap
interval in `uncertainty.confidence_interval`; crash rate and capture rate. One instance per counted run
(`sample_id` TASK/rNN): score = the headline as counted, is_correct = the run was scored. Review aggregates: accuracy, PROBLEM recall, OK specificity,
pair accuracy, Youden's J; one instance per graded answer, is_correct = the verdict is right.
Uncaptured answers and runs that were not graded get no instance (they are never graded) and
are counted in the aggregate's details. Pure data: writing and validation are in eee.py.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import durable
from bakeoff import __version__
from bakeoff.analysis.core import ModelCore
from bakeoff.batchfolder.read import RunRecords, run_model_label, stage_calls
from bakeoff.export.inspect_common import safe_name, when
from bakeoff.export.review_numbers import headline
from bakeoff.export.source import ExportSource
from bakeoff.models.kinds import kind_claiming
from bakeoff.records import STAGE_NAMES, CodeVersion, Stage, TokenCounts
from bakeoff.report.transcript_review import ReviewRecords
from bakeoff.review.records import AnswerRecord
from bakeoff.scaffolds.registry import scaffold_plugin
from bakeoff.taskapi.headline import HeadlineSpec

SCHEMA_VERSION = "0.3.0"
BOOTSTRAP_RESAMPLES = 10_000  # bakeoff.analysis.stats' resample count (docs/reports.md)
DEVELOPER = "local"  # bakeoff's models are files or endpoints the user names, not a hub's ids


@dataclass(frozen=True)
class EeeRecord:
    path: str  # data/<benchmark>/<developer>/<model>/<uuid>.json
    aggregate: dict
    instances: tuple[dict, ...]

    @property
    def instances_path(self) -> str:
        return self.path[: -len(".json")] + "_samples.jsonl"


def stable_uuid(*parts: str) -> str:
    """A version-4-shaped id made from the parts (the schema asks for v4), the same on every export."""
    return str(uuid.UUID(bytes=hashlib.sha256("\0".join(parts).encode()).digest()[:16], version=4))


def strings(mapping: Mapping[str, Any]) -> dict[str, str]:
    """The schema's additional_details hold strings only."""
    return {k: v if isinstance(v, str) else durable.dumps(v) for k, v in mapping.items() if v is not None}


def _model_info(label: str, spec: str | None, info: Mapping[str, Any] | None) -> dict:
    spec = spec or ""
    kind = kind_claiming(spec)  # None for a reader that is no model (the review's baseline:cues)
    remote = kind is not None and kind.is_endpoint
    engine = kind.engine_name if kind is not None else spec.split(":")[0] or "unknown"
    open_weights = kind is None or kind.open_weights
    return {"name": label, "id": f"{DEVELOPER}/{safe_name(label)}", "developer": DEVELOPER,
            "inference_engine": {"name": engine},
            "additional_details": strings({"deployment_type": "externally_managed" if remote else "self_deployed",
                                           "model_availability": "open_weights" if open_weights else "unknown",
                                           "spec": spec, "model_info": dict(info) if info else None})}


def _metric(metric_id: str, name: str, description: str, low: float = 0.0, high: float | None = 1.0,
            kind: str | None = None, lower_is_better: bool = False, unit: str = "proportion") -> dict:
    metric = {"evaluation_description": description, "metric_id": metric_id, "metric_name": name,
              "metric_kind": kind or metric_id, "metric_unit": unit, "lower_is_better": lower_is_better,
              "score_type": "continuous", "min_score": low}
    if high is not None:
        metric["max_score"] = high
    return metric


def _result(result_id: str, evaluation: str, source_data: dict, when_: str | None, metric: dict, score: float,
            uncertainty: dict | None = None, details: Mapping[str, Any] | None = None) -> dict:
    score_details: dict[str, Any] = {"score": float(score)}
    entry = {"evaluation_result_id": result_id, "evaluation_name": evaluation, "source_data": source_data,
             "metric_config": metric, "score_details": score_details}
    if when_:
        entry["evaluation_timestamp"] = when_
    if uncertainty:
        score_details["uncertainty"] = uncertainty
    if details:
        score_details["details"] = strings(details)
    return entry


def _interval(estimate) -> dict:
    if not estimate.has_interval:  # from too few runs (MIN_INTERVAL_N) no interval is given, as in the report
        return {"num_samples": estimate.n}
    return {"confidence_interval": {"lower": estimate.low, "upper": estimate.high, "confidence_level": 0.95,
                                    "method": "percentile bootstrap"},
            "num_samples": estimate.n, "num_bootstrap_samples": BOOTSTRAP_RESAMPLES}


def _aggregate(evaluation_id: str, source: ExportSource, name: str, model_info: dict, results: list, when_: str | None,
               details: Mapping[str, Any], retrieved: str) -> dict:
    version = source.records.batch.code_version if source.records else CodeVersion()
    record = {"schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "retrieved_timestamp": retrieved,
              "source_metadata": {"source_name": name, "source_type": "evaluation_run",
                                  "source_organization_name": "bakeoff (local run)", "evaluator_relationship": "third_party",
                                  "additional_details": strings(details)},
              "eval_library": {"name": "bakeoff", "version": version.version or __version__,
                               "additional_details": strings({"git_commit": version.git_commit})},
              "model_info": model_info, "evaluation_results": results}
    if when_:
        record["evaluation_timestamp"] = when_
    return record


def _epoch(text: Any) -> str | None:
    moment = when(text)
    return str(int(moment.timestamp())) if moment else None


def run_records(source: ExportSource, retrieved: str) -> list[EeeRecord]:
    records, core, plugin = source.records, source.core, source.plugin
    if records is None or core is None or plugin is None:
        return []
    plan, task = records.plan, plugin.name
    benchmark = f"bakeoff_{safe_name(task)}"
    specs = {m.label: m.spec for m in plan.models}
    data = {"dataset_name": f"bakeoff {task} hidden holdout", "source_type": "other",
            "additional_details": strings({"corpus": plan.corpus})}
    started = _epoch(records.batch.created_at)
    out = []
    for model in core.models:
        runs = [r for r in records.runs if run_model_label(r) == model.model]
        if not runs:
            continue  # a model of the plan with no run folder yet has no results
        info = next((dict(r.run.model.info) for r in runs if r.run is not None), None)
        ident = stable_uuid(records.folder.name, model.model, task)
        evaluation_id = f"{benchmark}/{DEVELOPER}/{safe_name(model.model)}/{ident}"
        results = _model_results(model, plugin.headline, task, data, started)
        unfinished = [r.run_id for r in runs if r.run_id in source.unfinished]
        details = {"batch": records.folder.name, "runs": str(len(runs)), "graded_runs": str(model.graded),
                   "uncaptured_runs": str(model.uncaptured_runs), "harness_failed_runs": str(model.harness_failed_runs),
                   "partial": "true" if source.partial else "false", "unfinished_runs": ",".join(unfinished) or None}
        aggregate = _aggregate(evaluation_id, source, f"bakeoff batch {records.folder.name}",
                               _model_info(model.model, specs.get(model.model), info), results, started, details, retrieved)
        instances = tuple(_run_instance(evaluation_id, model.model, task, r, source) for r in runs
                          if (c := source.runs.get(r.run_id)) is not None and c.graded
                          and c.counted(plugin.headline) is not None and r.run_id not in source.unfinished)
        out.append(EeeRecord(f"data/{benchmark}/{DEVELOPER}/{safe_name(model.model)}/{ident}.json", aggregate, instances))
    return out


def _model_results(model: ModelCore, spec: HeadlineSpec, task: str, data: dict, when_: str | None) -> list:
    results = []
    bounded = spec.higher_is_better  # a higher-is-better headline is a share; a score of errors has no upper bound
    high, unit = (1.0, "proportion") if bounded else (None, "points")
    if spec.counts_failures and model.with_failures is not None:
        metric = _metric(spec.name, f"{spec.label} (a crash counts as {spec.failed_value:g})",
                         f"the task's {spec.label} over graded runs", high=high, lower_is_better=not bounded, unit=unit)
        results.append(_result(spec.name, task, data, when_, metric, model.with_failures.mean, _interval(model.with_failures)))
    if model.over_scored is not None:
        metric = _metric(f"{spec.name}_scored", f"{spec.label} (scored runs only)",
                         f"the task's {spec.label} over runs that were scored", high=high, kind=spec.name,
                         lower_is_better=not bounded, unit=unit)
        results.append(_result(f"{spec.name}_scored", task, data, when_, metric, model.over_scored.mean,
                               _interval(model.over_scored)))
    for result_id, value, what in (("crash_rate", model.crash_rate, "share of graded runs not scored"),
                                   ("capture_rate", model.capture_rate, "share of model calls whose answer arrived")):
        if value is not None:
            metric = _metric(result_id, result_id.replace("_", " "), what, kind="rate")
            metric["lower_is_better"] = result_id == "crash_rate"
            results.append(_result(result_id, task, data, when_, metric, value))
    return results


def _messages(run: RunRecords) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for name in STAGE_NAMES:
        record = run.stages.get(name)
        if record is None:
            continue
        for entry in stage_calls(record):
            prompt, completion = entry.prompt, entry.completion
            if prompt is not None and prompt.messages:
                # a repair turn continues the implement conversation: only its new message is listed
                sent = prompt.messages if name != Stage.REPAIR else prompt.messages[-1:]
                for m in sent:
                    messages.append({"turn_idx": len(messages), "role": str(m.role), "content": m.content})
            if completion is not None:
                messages.append({"turn_idx": len(messages), "role": "assistant", "content": completion.text,
                                 "reasoning_trace": completion.reasoning or None})
    return messages


def _run_instance(evaluation_id: str, label: str, task: str, run: RunRecords, source: ExportSource) -> dict:
    assert source.plugin is not None
    spec, core = source.plugin.headline, source.runs[run.run_id]
    messages = _messages(run)
    raw = next((m["content"] for m in messages if m["role"] == "user"), task) or task
    tokens = run.run.tokens if run.run is not None else TokenCounts()
    score = core.counted(spec) or 0.0
    assistant_turns = [m["turn_idx"] for m in messages if m["role"] == "assistant"]
    return {
        "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": f"{DEVELOPER}/{safe_name(label)}",
        "evaluation_name": task, "evaluation_result_id": spec.name if spec.counts_failures else f"{spec.name}_scored",
        "sample_id": f"{task}/{run.run_id.rsplit('-', 1)[-1]}",
        "sample_hash": hashlib.sha256(raw.encode()).hexdigest(), "interaction_type": scaffold_plugin(run.scaffold).interaction,
        "input": {"raw": raw, "reference": []}, "output": None, "messages": messages,
        "answer_attribution": [{"turn_idx": assistant_turns[-1] if assistant_turns else 0,
                                "source": "the submission on the hidden data", "extracted_value": f"{score:.6f}",
                                "extraction_method": "custom", "is_terminal": True}],
        "evaluation": {"score": float(score), "is_correct": bool(core.scored), "num_turns": max(1, len(assistant_turns))},
        "token_usage": {"input_tokens": tokens.prompt, "output_tokens": tokens.completion,
                        "total_tokens": tokens.prompt + tokens.completion,
                        "input_tokens_cache_read": tokens.cached_prompt if run.run is not None else None},
        "metadata": strings({"run_id": run.run_id, "seed": core.seed, "outcome": core.outcome_status,
                             "crash_class": core.crash_class, **source.extras.get(run.run_id, {}),
                             "capture": run.run.capture.to_json() if run.run is not None else None,
                             "repair_effects": [t.effect for t in core.repair_turns]}),
    }


def review_records(source: ExportSource, retrieved: str) -> list[EeeRecord]:
    return [_review_record(source, review, retrieved) for review in source.reviews]


_REVIEW_METRICS = {"accuracy": "share of graded answers whose verdict is right",
                   "problem_recall": "share of graded answers to PROBLEM items that say PROBLEM",
                   "ok_specificity": "share of graded answers to OK items that say OK",
                   "pair_accuracy": "share of matched pairs (per sample) with both twins right",
                   "youden_j": "PROBLEM recall + OK specificity - 1"}


def _review_record(source: ExportSource, review: ReviewRecords, retrieved: str) -> EeeRecord:
    benchmark = "bakeoff_claim_review"
    base = source.folder.name if source.records else ""
    ident = stable_uuid(base, review.source, review.model)
    label = safe_name(review.source.rstrip("/").split("/")[-1])  # the folder the user named the review by
    evaluation_id = f"{benchmark}/{DEVELOPER}/{label}/{ident}"
    summary = review.summary
    data = {"dataset_name": "bakeoff claim-versus-code review items", "source_type": "other",
            "additional_details": strings({"items_file": summary.items_file, "items_sha256": summary.items_sha256})}
    started = _epoch(summary.started_at)
    metrics = summary.metrics
    results = []
    for name, value in headline(metrics).items():
        if value is not None:
            low = -1.0 if name == "youden_j" else 0.0
            kind = REVIEW_METRIC_KINDS.get(name, name)
            results.append(_result(name, "claim_review", data, started, _metric(name, name.replace("_", " "),
                                                                                  _REVIEW_METRICS[name], low, kind=kind), value))
    details = {"source": review.source, "answers": str(len(review.answers)), "uncaptured": metrics.uncaptured,
               "unusable": metrics.unusable, "partial": "true" if source.partial or review.unreadable else "false",
               "not_read": "; ".join(review.unreadable) or None}
    aggregate = _aggregate(evaluation_id, source, f"bakeoff review {review.source}",
                           _model_info(label, review.model, summary.model_info), results, started, details, retrieved)
    instances = tuple(_review_instance(evaluation_id, label, review, a) for a in review.answers if a.correct is not None)
    return EeeRecord(f"data/{benchmark}/{DEVELOPER}/{label}/{ident}.json", aggregate, instances)


REVIEW_METRIC_KINDS = {"problem_recall": "recall", "ok_specificity": "specificity", "pair_accuracy": "accuracy"}
INSTANCE_METADATA = ("family", "pair_id", "flaw_lines", "blamed_line", "confidence", "localized", "capture",
                     "capture_reason", "reason")


def _review_instance(evaluation_id: str, label: str, review: ReviewRecords, answer: AnswerRecord) -> dict:
    item = review.items.get(answer.item_id)
    raw = f"{item.claim}\n\n{item.code}" if item is not None else answer.item_id
    expected = answer.expected
    tokens = answer.prompt_tokens + answer.completion_tokens
    return {
        "schema_version": SCHEMA_VERSION, "evaluation_id": evaluation_id, "model_id": f"{DEVELOPER}/{label}",
        "evaluation_name": "claim_review", "evaluation_result_id": "accuracy",
        "sample_id": f"{answer.item_id}#{answer.sample + 1}",
        "sample_hash": hashlib.sha256((raw + expected).encode()).hexdigest(), "interaction_type": "single_turn",
        "input": {"raw": raw, "reference": [expected]},
        "output": {"raw": [answer.text], "reasoning_trace": [answer.reasoning] if answer.reasoning else None},
        "messages": None,
        "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": answer.verdict or "none",
                                "extraction_method": "regex", "is_terminal": True}],
        "evaluation": {"score": 1.0 if answer.correct else 0.0, "is_correct": bool(answer.correct), "num_turns": 1},
        "token_usage": {"input_tokens": answer.prompt_tokens, "output_tokens": answer.completion_tokens,
                        "total_tokens": tokens},
        "metadata": strings({name: _listed(getattr(answer, name)) for name in INSTANCE_METADATA}),
    }


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
