"""A batch's runs as Inspect eval logs: one log per model and task, one sample per run.

The take-home is one sample (its id is the task's name); run rNN of a model is epoch NN.
Each stage's conversation becomes messages (tagged with the stage in their metadata) and a
model event; each sandbox command a sandbox `exec` event, inside a span per stage; ladder
checks and repair turns are info events. Scores: `f1` (the holdout F1, a crash counted as
zero; absent when the run was not graded) and `outcome` (the final ladder status).
Capture, crash class, leak stance, probe and divergence are in the sample's metadata.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bakeoff import __version__
from bakeoff.analysis.batch_records import RunRecords, run_model_label
from bakeoff.analysis.signals import RunSignals
from bakeoff.export.inspect_common import (
    chat_message,
    eval_score,
    iso,
    model_name,
    model_output,
    prompt_messages,
    require_inspect,
    safe_name,
    when,
    write_and_check,
)
from bakeoff.export.source import ExportSource
from bakeoff.runner.stages import STAGE_NAMES


def _run_metadata(run: RunRecords, signals: RunSignals | None, unfinished: bool) -> dict[str, Any]:
    record = run.run.to_json() if run.run is not None else {}
    meta: dict[str, Any] = {"run_id": run.run_id, "seed": record.get("seed"), "status": record.get("status"),
                            "capture": record.get("capture"), "unfinished": unfinished}
    if signals is not None:
        meta.update({
            "grading": signals.grading, "crash_class": signals.crash_class, "crash_detail": signals.crash_detail,
            "leak_stance": signals.design.stance, "metric": signals.design.metric,
            "probe": signals.probe.verdict if signals.probe else None, "divergence": signals.divergence,
            "rung": signals.rung, "claimed_f1": signals.claimed_f1, "claim_source": signals.claim_source,
            "repair_effects": [t.effect for t in signals.repair_turns],
            "predicted_rate": signals.predicted_rate,
        })
    return meta


class _Stream:
    """Messages and events of one run, built stage by stage."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.messages: list = []
        self.events: list = []
        self.log, self.model, self.scorer, self.ev = require_inspect()

    def model_call(self, stage: str, prompt, completion, span: str, at, new_from: int = 0) -> int:
        meta = {"stage": stage, "key": (prompt or {}).get("key")}
        messages = prompt_messages(prompt, meta)
        self.messages += messages[new_from:] if new_from <= len(messages) else messages
        if completion is not None:
            self.messages.append(chat_message("assistant", completion.get("text") or "", meta,
                                              completion.get("reasoning") or None))
        if prompt:
            self.events.append(self.ev.ModelEvent(
                model=model_name(self.label), input=messages, tools=[], tool_choice="none",
                config=self.model.GenerateConfig(), output=model_output(self.label, completion),
                error=(completion or {}).get("error"), span_id=span, working_start=0.0, **_at(at)))
        return len(messages) + (1 if completion is not None else 0)

    def command(self, c: Mapping[str, Any], span: str, at) -> None:
        crash = c.get("crash") or {}
        output = "\n".join(part for part in (c.get("stdout"), c.get("stderr")) if part)
        self.events.append(self.ev.SandboxEvent(
            action="exec", cmd=shlex.join(str(a) for a in c.get("argv") or []), result=c.get("exit_code"),
            output=output, span_id=span, working_start=0.0, **_at(at),
            options={"purpose": c.get("purpose"), "duration_s": c.get("duration_s"), "timed_out": c.get("timed_out"),
                     "oom_killed": c.get("oom_killed"), "isolation": c.get("isolation"),
                     "crash_class": crash.get("crash_class"), "crash_detail": crash.get("detail"),
                     "stdout_dropped_bytes": c.get("stdout_dropped_bytes"),
                     "stderr_dropped_bytes": c.get("stderr_dropped_bytes")}))

    def info(self, source: str, data: Any, span: str, at) -> None:
        self.events.append(self.ev.InfoEvent(source=source, data=data, span_id=span, working_start=0.0, **_at(at)))

    def span(self, name: str, at, end: bool = False) -> str:
        ident = f"stage-{name}"
        kind = self.ev.SpanEndEvent(id=ident) if end else self.ev.SpanBeginEvent(id=ident, name=name, type="stage")
        kind.working_start, stamp = 0.0, _at(at).get("timestamp")
        if stamp is not None:
            kind.timestamp = stamp
        self.events.append(kind)
        return ident


def _at(moment) -> dict:
    return {"timestamp": moment} if moment is not None else {}


def _ladder(check: Mapping[str, Any] | None) -> dict | None:
    if not check:
        return None
    keys = ("rung", "rung_name", "status", "f1", "failed_step", "crash_class", "detail", "visible_ok")
    return {k: check.get(k) for k in keys}


def _stages(stream: _Stream, run: RunRecords) -> None:
    implement_seen = 0
    for name in STAGE_NAMES:
        stage = run.stages.get(name)
        if stage is None:
            continue
        record = stage.to_json()  # the helpers below read the on-disk form (docs/records.md)
        at = when((record.get("timings") or {}).get("started_at"))
        span = stream.span(name, at)
        if record.get("prompt") or record.get("completion"):
            seen = stream.model_call(name, record.get("prompt"), record.get("completion"), span, at)
            implement_seen = seen if name == "implement" else implement_seen
        for turn in record.get("turns") or []:  # a turn's answer comes before the check its commands belong to
            implement_seen = stream.model_call("repair", turn.get("prompt"), turn.get("completion"), span, at,
                                               new_from=implement_seen)
            stream.info("repair_turn", {"turn": turn.get("turn"), "granted_because": turn.get("granted_because"),
                                        "before": _ladder(turn.get("before")), "after": _ladder(turn.get("after")),
                                        "effect": turn.get("effect")}, span, at)
        for command in record.get("commands") or []:
            stream.command(command, span, at)
        if record.get("check"):
            stream.info("ladder_check", _ladder(record["check"]), span, at)
        stream.span(name, when((record.get("timings") or {}).get("finished_at")), end=True)


def run_sample(task: str, run: RunRecords, signals: RunSignals | None, unfinished: bool):
    label = run_model_label(run)
    stream = _Stream(label)
    _stages(stream, run)
    prompts = [stage.prompt for s in STAGE_NAMES if (stage := run.stages.get(s)) is not None and stage.prompt is not None]
    inputs = prompt_messages(prompts[0].to_json() if prompts else None, {"stage": "explore"}) or task
    record = run.run.to_json() if run.run is not None else {}
    scores = {}
    if signals is not None and signals.graded:
        outcome = signals.outcome_status or "?"
        scores["f1"] = stream.scorer.Score(value=float(signals.f1_or_zero), answer=outcome,
                                           explanation="holdout F1" if signals.scored else f"{outcome}: counted as 0",
                                           metadata={"scored": signals.scored})
    if record.get("outcome"):
        scores["outcome"] = stream.scorer.Score(value=str(record["outcome"].get("status")),
                                                metadata={"rung": record["outcome"].get("rung")})
    tokens = record.get("tokens") or {}
    usage = stream.model.ModelUsage(input_tokens=int(tokens.get("prompt") or 0), output_tokens=int(tokens.get("completion") or 0),
                                    total_tokens=int(tokens.get("prompt") or 0) + int(tokens.get("completion") or 0),
                                    input_tokens_cache_read=tokens.get("cached_prompt"))
    timings = record.get("timings") or {}
    answers = [stage.completion for s in reversed(STAGE_NAMES)
               if (stage := run.stages.get(s)) is not None and stage.completion is not None]
    last = answers[0].to_json() if answers else None
    return stream.log.EvalSample(
        id=task, epoch=int(record.get("run_index") or _index(run.run_id)), input=inputs, target="",
        messages=stream.messages, output=model_output(label, last), scores=scores or None,
        metadata=_run_metadata(run, signals, unfinished), events=stream.events,
        model_usage={model_name(label): usage}, started_at=iso(timings.get("started_at")),
        completed_at=iso(timings.get("finished_at")), total_time=timings.get("wall_s"),
        working_time=(timings.get("model_s") or 0) + (timings.get("sandbox_s") or 0) if timings else None)


def _index(run_id: str) -> int:
    tail = run_id.rsplit("-r", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def export_runs(source: ExportSource, out: Path) -> list[Path]:
    """Write one .eval log per model (the task is the batch's); returns their paths."""
    log, _, _, _ = require_inspect()
    records, summary = source.records, source.summary
    if records is None or summary is None or not records.runs:
        return []
    plan = records.plan
    task = str(plan.get("task") or "spam_classifier")
    specs = {m.get("label"): m.get("spec") for m in plan.get("models") or []}
    written = []
    for model in summary.models:
        runs = [r for r in records.runs if run_model_label(r) == model.model]
        if not runs:
            continue  # a model of the plan with no run folder yet has nothing to log
        samples = [run_sample(task, r, source.signals.get(r.run_id), r.run_id in source.unfinished) for r in runs]
        f1, scored = model.f1_with_crashes, model.f1_scored
        results = log.EvalResults(total_samples=len(samples), completed_samples=len(samples) - sum(
            r.run_id in source.unfinished for r in runs), scores=[
            eval_score(log, "f1", {"mean": f1.mean if f1 else None, "ci_low": f1.low if f1 else None,
                                   "ci_high": f1.high if f1 else None}, model.graded, len(samples) - model.graded,
                       {"crashes": "counted as 0", "interval": "95% percentile bootstrap",
                        "bootstrap_seed": summary.bootstrap_seed}),
            eval_score(log, "f1_scored", {"mean": scored.mean if scored else None, "ci_low": scored.low if scored else None,
                                          "ci_high": scored.high if scored else None}, model.scored, len(samples) - model.scored),
            eval_score(log, "rates", {"crash_rate": model.crash_rate, "capture_rate": model.capture_rate,
                                      "unusable_rate": model.unusable_rate}, model.graded, 0),
        ])
        version = records.batch.code_version
        spec = log.EvalSpec(
            tags=["partial"] if source.partial else None,
            created=iso(records.batch.created_at or None) or _now(), task=f"bakeoff/{task}", task_id=safe_name(f"{records.folder.name}-{task}"),
            run_id=safe_name(records.folder.name), eval_id=safe_name(f"{records.folder.name}-{model.model}-{task}"),
            dataset=log.EvalDataset(name=task, samples=1, sample_ids=[task]), model=model_name(model.model),
            model_args={"spec": specs.get(model.model)}, config=log.EvalConfig(epochs=int(plan.get("runs") or len(runs))),
            packages={"bakeoff": str(version.get("version") or __version__)},
            revision=log.EvalRevision(type="git", origin="bakeoff", commit=str(version["git_commit"]), dirty=version.get("dirty"))
            if version.get("git_commit") else None,
            metadata={"batch": records.folder.name, "plan": plan, "partial": source.partial,
                      "unfinished_runs": [r.run_id for r in runs if r.run_id in source.unfinished]})
        eval_log = log.EvalLog(eval=spec, status="started" if source.running else "success", samples=samples,
                               results=results, stats=log.EvalStats(started_at=samples[0].started_at or "",
                                                                    completed_at=samples[-1].completed_at or ""),
                               tags=["partial"] if source.partial else [])
        path = out / f"{safe_name(records.folder.name)}_{safe_name(model.model)}_{safe_name(task)}.eval"
        written.append(write_and_check(eval_log, path, samples))
    return written


def _now() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.UTC).isoformat()
