"""The run record (run.json): the outcome of a run, summed up from its stage records."""

from __future__ import annotations

from typing import Any, Mapping

from bakeoff.runner.records import utc_now
from bakeoff.runner.stages import final_check
from bakeoff.tasks import task_plugin

RUN_SCHEMA = "bakeoff.run/1"
_TIME_KEYS = ("wall_s", "model_s", "sandbox_s", "scoring_s", "harness_s")


def _model_calls(stages: Mapping[str, dict]) -> list[dict]:
    calls = []
    for record in stages.values():
        for entry in [record, *record.get("turns", ())]:
            if entry.get("prompt") is not None and entry.get("capture") is not None:
                calls.append(entry)
    return calls


def _capture_counts(calls: list[dict]) -> dict[str, int]:
    counts = {"calls": len(calls), "captured": 0, "uncaptured": 0, "unusable": 0}
    for call in calls:
        counts[call["capture"]["status"]] += 1
    return counts


def _token_totals(calls: list[dict]) -> dict[str, int]:
    totals = {"prompt": 0, "cached_prompt": 0, "completion": 0}
    for call in calls:
        completion = call.get("completion") or {}
        totals["prompt"] += int(completion.get("prompt_tokens") or 0)
        totals["cached_prompt"] += int(completion.get("cached_prompt_tokens") or 0)
        totals["completion"] += int(completion.get("completion_tokens") or 0)
    return totals


def _claim(stages: Mapping[str, dict]) -> dict[str, Any]:
    for stage in ("docs", "evaluate"):
        claim = (stages.get(stage) or {}).get("claim")
        if claim:
            return claim
    return {"source": None}


def run_summary(env, slot, stages: Mapping[str, dict], started_at: str, error: str | None, isolation: str, backend) -> dict:
    check = final_check(stages)
    claim = _claim(stages)
    calls = _model_calls(stages)
    timings = {key: sum(float(r["timings"].get(key, 0.0)) for r in stages.values()) for key in _TIME_KEYS}
    info = {}
    for call in calls:
        info = (call.get("completion") or {}).get("model_info") or info
    return {
        "schema": RUN_SCHEMA,
        "run_id": slot.run_id,
        "run_index": slot.index,
        "seed": slot.seed,
        "task": env.plan.task,
        "model": {"label": slot.model.label, "spec": slot.model.spec,
                  "identity": getattr(backend, "identity", None) if backend is not None else None, "info": info},
        "corpus": {"path": str(env.corpus.folder), "manifest_sha256": env.corpus.manifest_sha256()},
        "isolation": isolation,
        "status": "harness_failed" if error else "finished",
        "error": error,
        "outcome": {
            "status": check.status,
            "rung": check.rung,
            "rung_name": check.rung_name,
            "failed_step": check.failed_step,
            "crash_class": check.crash_class,
            "detail": check.detail,
            "metrics": dict(check.metrics) if check.metrics is not None else None,
            **task_plugin(env.plan.task).outcome_fields(check, claim),  # the task's own: f1, claimed_f1... for spam
        },
        "stages": [
            {"stage": name, "attribution": r["attribution"], "capture": (r.get("capture") or {}).get("status")}
            for name, r in stages.items()
        ],
        "repair_effects": [t["effect"] for t in (stages.get("repair") or {}).get("turns", ())],
        "capture": _capture_counts(calls),
        "tokens": _token_totals(calls),
        "timings": {"started_at": started_at, "finished_at": utc_now(), **timings},
        "code_version": dict(env.code_version),
    }
