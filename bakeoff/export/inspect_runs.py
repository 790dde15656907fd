"""A batch's runs as Inspect eval logs: one log per model and task, one sample per run.

The take-home is one sample (its id is the task's name); run rNN of a model is epoch NN.
Each stage's conversation becomes messages (tagged with the stage in their metadata) and a
model event; each sandbox command a sandbox `exec` event, inside a span per stage; ladder
checks and repair turns are info events. A loop (the stage a scaffold writes step records for) is its steps in order: what each step sent, its answer
with its tool calls (Inspect's ToolCall) and what each call returned (a tool message), a model event a step and
an exec event a command it ran. Scores: the task's headline (named as the task names it; where
the task counts a graded but unscored run, as that value; absent when the run was not graded) and
`outcome` (the final ladder status). Capture, crash class, claim and the task's own signals
(Task.export_metadata) are in the sample's metadata.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bakeoff import __version__
from bakeoff.analysis.core import ModelCore, RunCore
from bakeoff.analysis.cost import run_cost
from bakeoff.batchfolder.read import RunRecords, run_model_label
from bakeoff.export.inspect_common import (
    chat_message,
    eval_score,
    iso,
    model_name,
    record_messages,
    record_output,
    require_inspect,
    safe_name,
    tool_call,
    tool_message,
    when,
    write_and_check,
)
from bakeoff.export.source import ExportSource
from bakeoff.records import Command, CompletionRecord, LadderCheck, LoopStep, Prompt, Stage
from bakeoff.scaffolds.registry import scaffold_plugin
from bakeoff.scaffolds.steps import call_id
from bakeoff.taskapi.task import Task


def _run_metadata(run: RunRecords, core: RunCore | None, extras: Mapping[str, Any], plugin: Task,
                  unfinished: bool) -> dict[str, Any]:
    record = run.run
    meta: dict[str, Any] = {"run_id": run.run_id, "seed": record.seed if record is not None else None,
                            "status": record.status.value if record is not None else None,
                            "capture": record.capture.to_json() if record is not None else None, "unfinished": unfinished}
    if core is not None:
        meta.update({
            "grading": core.grading, "crash_class": core.crash_class, "crash_detail": core.crash_detail,
            "rung": core.rung, f"claimed_{plugin.headline.name}": core.claim.claimed,
            "claim_source": plugin.words.source(core.claim.source),
            "repair_effects": [t.effect for t in core.repair_turns],
            **extras,
        })
    return meta


class _Stream:
    """Messages and events of one run, built stage by stage."""

    def __init__(self, label: str, plugin: Task) -> None:
        self.label, self.plugin = label, plugin
        self.messages: list = []
        self.events: list = []
        self.log, self.model, self.scorer, self.ev = require_inspect()

    def model_call(self, stage: str, prompt: Prompt | None, completion: CompletionRecord | None, span: str, at,
                   new_from: int = 0) -> int:
        meta = {"stage": stage, "key": prompt.key if prompt is not None else None}
        messages = record_messages(prompt, meta)
        self.messages += messages[new_from:] if new_from <= len(messages) else messages
        if completion is not None:
            self.messages.append(chat_message("assistant", completion.text, meta, completion.reasoning or None))
        if prompt is not None:
            self.events.append(self.ev.ModelEvent(
                model=model_name(self.label), input=messages, tools=[], tool_choice="none",
                config=self.model.GenerateConfig(), output=record_output(self.label, completion),
                error=completion.error if completion is not None else None, span_id=span, working_start=0.0, **_at(at)))
        return len(messages) + (1 if completion is not None else 0)

    def step(self, step: LoopStep, stage: str, span: str, results_sent: bool) -> None:
        """One step of the loop `stage`. `results_sent`: the previous step's results are in the messages already
        (as tool messages), so what this step sent beyond them (those results, as the model was shown them) is not
        repeated."""
        at = when(step.timings.started_at)
        meta = {"stage": stage, "step": step.step, "key": step.prompt.key}
        if not results_sent:
            self.messages += record_messages(step.prompt, meta)
        completion = step.completion
        calls = completion.tool_calls if completion is not None else ()
        if completion is not None:
            self.messages.append(chat_message("assistant", completion.text, meta, completion.reasoning or None,
                                              [tool_call(c, call_id(step.step, i)) for i, c in enumerate(calls)]))
        for index, result in enumerate(step.results):
            self.messages.append(tool_message(result, call_id(step.step, index), meta | {"ok": result.ok}))
            if result.command is not None:
                self.command(result.command, span, at)
        self.events.append(self.ev.ModelEvent(
            model=model_name(self.label), input=record_messages(step.prompt, meta), tools=[], tool_choice="auto",
            config=self.model.GenerateConfig(), output=record_output(self.label, completion),
            error=completion.error if completion is not None else None, span_id=span, working_start=0.0, **_at(at)))

    def command(self, c: Command, span: str, at) -> None:
        output = "\n".join(part for part in (c.stdout, c.stderr) if part)
        self.events.append(self.ev.SandboxEvent(
            action="exec", cmd=shlex.join(str(a) for a in c.argv), result=c.exit_code,
            output=output, span_id=span, working_start=0.0, **_at(at),
            options={"purpose": c.purpose, "duration_s": c.duration_s, "timed_out": c.timed_out,
                     "oom_killed": c.oom_killed, "isolation": c.isolation,
                     "crash_class": c.crash.crash_class if c.crash is not None else None,
                     "crash_detail": c.crash.detail if c.crash is not None else None,
                     "stdout_dropped_bytes": c.stdout_dropped_bytes, "stderr_dropped_bytes": c.stderr_dropped_bytes}))

    def info(self, source: str, data: Any, span: str, at) -> None:
        self.events.append(self.ev.InfoEvent(source=source, data=data, span_id=span, working_start=0.0, **_at(at)))

    def span(self, name: str, at, end: bool = False) -> str:
        ident = f"stage-{name}"
        kind = self.ev.SpanEndEvent(id=ident) if end else self.ev.SpanBeginEvent(id=ident, name=name, type="stage")
        kind.working_start = 0.0
        if at is not None:
            kind.timestamp = at
        self.events.append(kind)
        return ident

    def ladder(self, check: LadderCheck | None) -> dict[str, Any] | None:
        if check is None:
            return None
        return {"rung": int(check.rung), "rung_name": check.rung_name, "status": check.status.value,
                self.plugin.headline.name: check.headline_value, "failed_step": check.failed_step,
                "crash_class": check.crash_class.value if check.crash_class else None, "detail": check.detail,
                "visible_ok": check.visible_ok}


def _at(moment) -> dict:
    return {"timestamp": moment} if moment is not None else {}


def _steps(stream: _Stream, run: RunRecords, stage: str, span: str) -> None:
    for index, step in enumerate(run.steps):
        stream.step(step, stage, span, results_sent=index > 0 and bool(run.steps[index - 1].results))


def _stages(stream: _Stream, run: RunRecords) -> None:
    implement_seen = 0
    scaffold = scaffold_plugin(run.scaffold)
    for name in scaffold.stages:
        stage = run.stages.get(name)
        if name == scaffold.step_stage and run.steps:  # the loop's steps, its record or not (an unfinished loop has none)
            span = stream.span(name, when(run.steps[0].timings.started_at))
            _steps(stream, run, name, span)
            stream.span(name, when(stage.timings.finished_at if stage else run.steps[-1].timings.finished_at), end=True)
            continue
        if stage is None:
            continue
        at = when(stage.timings.started_at)
        span = stream.span(name, at)
        if stage.prompt is not None or stage.completion is not None:
            seen = stream.model_call(name, stage.prompt, stage.completion, span, at)
            implement_seen = seen if name == Stage.IMPLEMENT else implement_seen
        for turn in stage.turns:  # a turn's answer comes before the check its commands belong to
            implement_seen = stream.model_call(Stage.REPAIR, turn.prompt, turn.completion, span, at,
                                               new_from=implement_seen)
            stream.info("repair_turn", {"turn": turn.turn, "granted_because": turn.granted_because.value,
                                        "before": stream.ladder(turn.before), "after": stream.ladder(turn.after),
                                        "effect": turn.effect.value}, span, at)
        for command in stage.commands:
            stream.command(command, span, at)
        if stage.check is not None:
            stream.info("ladder_check", stream.ladder(stage.check), span, at)
        stream.span(name, when(stage.timings.finished_at), end=True)


def _scores(stream: _Stream, core: RunCore | None, record: Any) -> dict:
    spec = stream.plugin.headline
    scores = {}
    value = core.counted(spec) if core is not None and core.graded else None
    if core is not None and value is not None:
        outcome = core.outcome_status or "?"
        failed = f"{outcome}: counted as {spec.failed_value:g}" if spec.failed_value is not None else outcome
        scores[spec.name] = stream.scorer.Score(value=float(value), answer=outcome,
                                                explanation=spec.label if core.scored else failed,
                                                metadata={"scored": core.scored})
    if record is not None:
        scores["outcome"] = stream.scorer.Score(value=record.outcome.status.value, metadata={"rung": int(record.outcome.rung)})
    return scores


def run_sample(source: ExportSource, run: RunRecords, unfinished: bool):
    assert source.plugin is not None  # a batch's export has its task
    task, label, record = source.plugin.name, run_model_label(run), run.run
    core = source.runs.get(run.run_id)
    stream = _Stream(label, source.plugin)
    _stages(stream, run)
    names = scaffold_plugin(run.scaffold).stages
    prompts = [stage.prompt for s in names if (stage := run.stages.get(s)) is not None and stage.prompt is not None]
    prompts += [step.prompt for step in run.steps[:1]]  # a loop's first step: the system prompt and the task
    inputs = record_messages(prompts[0] if prompts else None, {"stage": names[0]}) or task
    usage = run_usage(stream.model, run)
    answers = [stage.completion for s in reversed(names)
               if (stage := run.stages.get(s)) is not None and stage.completion is not None]
    answers += [step.completion for step in reversed(run.steps) if step.completion is not None]
    timings = record.timings if record is not None else None
    return stream.log.EvalSample(
        id=task, epoch=(record.run_index if record is not None else 0) or _index(run.run_id), input=inputs, target="",
        messages=stream.messages, output=record_output(label, answers[0] if answers else None),
        scores=_scores(stream, core, record) or None,
        metadata=_run_metadata(run, core, source.extras.get(run.run_id, {}), source.plugin, unfinished),
        events=stream.events, model_usage={model_name(label): usage},
        started_at=iso(timings.started_at) if timings else None, completed_at=iso(timings.finished_at) if timings else None,
        total_time=timings.wall_s if timings else None,
        working_time=(timings.model_s or 0) + (timings.sandbox_s or 0) if timings else None)


def run_usage(model, run: RunRecords):
    """Inspect's ModelUsage of one run: its tokens in (cached apart) and out, reasoning among them, from its
    stage records (bakeoff.analysis.cost), so an unfinished run's so far count too."""
    cost = run_cost(run)
    return model.ModelUsage(input_tokens=cost.prompt_tokens, output_tokens=cost.output_tokens,
                            total_tokens=cost.prompt_tokens + cost.output_tokens,
                            input_tokens_cache_read=cost.cached_prompt_tokens or None,
                            reasoning_tokens=cost.reasoning_tokens or None)


def _total_usage(model, usages: list):
    """The usage of a whole log (EvalStats.model_usage, what `inspect view` shows in its token column)."""
    def total(name: str) -> int | None:
        values = [getattr(u, name) for u in usages if getattr(u, name) is not None]
        return sum(values) if values else None

    return model.ModelUsage(input_tokens=total("input_tokens") or 0, output_tokens=total("output_tokens") or 0,
                            total_tokens=total("total_tokens") or 0, input_tokens_cache_read=total("input_tokens_cache_read"),
                            reasoning_tokens=total("reasoning_tokens"))


def _index(run_id: str) -> int:
    tail = run_id.rsplit("-r", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _results(log, source: ExportSource, model: ModelCore, samples: int, runs: list[RunRecords]):
    assert source.plugin is not None and source.core is not None
    spec = source.plugin.headline
    counted, scored = model.with_failures, model.over_scored
    counted_low, counted_high = counted.bounds if counted else (None, None)  # none from too few runs (MIN_INTERVAL_N)
    scored_low, scored_high = scored.bounds if scored else (None, None)
    scores = []
    if spec.counts_failures:
        scores.append(eval_score(log, spec.name, {"mean": counted.mean if counted else None,
                                                  "ci_low": counted_low, "ci_high": counted_high},
                                 model.graded, samples - model.graded,
                                 {"crashes": f"counted as {spec.failed_value:g}", "interval": "95% percentile bootstrap",
                                  "bootstrap_seed": source.core.bootstrap_seed}))
    scores += [
        eval_score(log, f"{spec.name}_scored", {"mean": scored.mean if scored else None,
                                                "ci_low": scored_low, "ci_high": scored_high},
                   model.scored, samples - model.scored),
        eval_score(log, "rates", {"crash_rate": model.crash_rate, "capture_rate": model.capture_rate,
                                  "unusable_rate": model.unusable_rate}, model.graded, 0),
    ]
    done = samples - sum(r.run_id in source.unfinished for r in runs)
    return log.EvalResults(total_samples=samples, completed_samples=done, scores=scores)


def export_runs(source: ExportSource, out: Path) -> list[Path]:
    """Write one .eval log per model (the task is the batch's); returns their paths."""
    log, inspect_model, _, _ = require_inspect()
    records, core, plugin = source.records, source.core, source.plugin
    if records is None or core is None or plugin is None or not records.runs:
        return []
    plan, task = records.plan, plugin.name
    specs = {m.label: m.spec for m in plan.models}
    written = []
    for model in core.models:
        runs = [r for r in records.runs if run_model_label(r) == model.model]
        if not runs:
            continue  # a model of the plan with no run folder yet has nothing to log
        samples = [run_sample(source, r, r.run_id in source.unfinished) for r in runs]
        version = records.batch.code_version
        spec = log.EvalSpec(
            tags=["partial"] if source.partial else None,
            created=iso(records.batch.created_at or None) or _now(), task=f"bakeoff/{task}",
            # One task_id per (batch, model row, task): Inspect's viewer files logs sharing a task_id as retries of
            # one eval and lists only the newest, so a batch-wide id showed one log of a batch's four.
            task_id=safe_name(f"{records.folder.name}-{model.model}-{task}"),
            run_id=safe_name(records.folder.name), eval_id=safe_name(f"{records.folder.name}-{model.model}-{task}"),
            dataset=log.EvalDataset(name=task, samples=1, sample_ids=[task]), model=model_name(model.model),
            model_args={"spec": specs.get(model.model)}, config=log.EvalConfig(epochs=int(plan.runs or len(runs))),
            packages={"bakeoff": version.version or __version__},
            revision=log.EvalRevision(type="git", origin="bakeoff", commit=version.git_commit, dirty=version.dirty)
            if version.git_commit else None,
            metadata={"batch": records.folder.name, "plan": plan.to_dict(), "partial": source.partial,
                      "unfinished_runs": [r.run_id for r in runs if r.run_id in source.unfinished]})
        eval_log = log.EvalLog(eval=spec, status="started" if source.running else "success", samples=samples,
                               results=_results(log, source, model, len(samples), runs),
                               stats=log.EvalStats(started_at=samples[0].started_at or "",
                                                   completed_at=samples[-1].completed_at or "",
                                                   model_usage={model_name(model.model): _total_usage(
                                                       inspect_model, [s.model_usage[model_name(model.model)]
                                                                       for s in samples])}),
                               tags=["partial"] if source.partial else [])
        path = out / f"{safe_name(records.folder.name)}_{safe_name(model.model)}_{safe_name(task)}.eval"
        written.append(write_and_check(eval_log, path, samples))
    return written


def _now() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.UTC).isoformat()
