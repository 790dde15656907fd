"""The agent's loop: one model turn a step, its calls run, a commit and a durable record per step, until the agent
submits or a budget ends it; then the task's check grades the workspace as it is.

A step whose record exists is never run again: the runner resets the workspace to the last recorded step's
commit, and the conversation is rebuilt from the records (bakeoff.scaffolds.agent.conversation). The events
`step_started` and `step_done` go to the batch's journal as the stages' do.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import durable
from bakeoff.answers import audit_tool_calls
from bakeoff.batchfolder.files import utc_now
from bakeoff.batchfolder.layout import RunLayout
from bakeoff.batchfolder.records import finished_steps, write_step_record
from bakeoff.models.base import Completion, GenerationSettings, Message, turn_key
from bakeoff.models.tools import ToolSyntax
from bakeoff.records import (
    Attribution,
    CaptureStatus,
    Commit,
    CompletionRecord,
    LoopEnd,
    LoopSummary,
    LoopUsage,
    Prompt,
    PromptMessage,
    StageRecord,
)
from bakeoff.runner.scaffold import StageServices
from bakeoff.runner.scaffold_kit import StageOutcome, check_attribution, find_claim, ladder_check
from bakeoff.runner.transcript import write_transcript
from bakeoff.runner.workspace import RunRepo
from bakeoff.scaffolds.agent.conversation import conversation, native, opening, result_messages
from bakeoff.scaffolds.agent.own_code import runs_own_code
from bakeoff.scaffolds.agent.records import StepRecord, ToolResult
from bakeoff.scaffolds.agent.settings import AgentSettings
from bakeoff.scaffolds.agent.tools import RUN, SUBMIT, TOOLS, WRITE, Workplace, call_tool, refused
from bakeoff.taskapi.context import RunContext, StageClock

STAGE = "agent"
CHECK_LABEL = "agent"  # what the final check keeps of the hidden step: predictions/agent...


class _HarnessFailed(Exception):
    """The backend raised: the stage is the harness's failure, retried from this step on the next start."""


def tool_syntax_of(backend: object) -> str:
    """How the backend's model writes calls; a backend that does not say gets the text protocol."""
    syntax = getattr(backend, "tool_syntax", ToolSyntax.TEXT.value)
    return str(syntax) if syntax in ToolSyntax._value2member_map_ else ToolSyntax.TEXT.value


def budget_spent(usage: LoopUsage, settings: AgentSettings) -> LoopEnd | None:
    """The budget that is used up, in the order they are checked (steps, tokens, wall, CPU), or None."""
    if usage.steps >= settings.max_steps:
        return LoopEnd.STEPS
    if usage.tokens >= settings.max_tokens:
        return LoopEnd.TOKENS
    if usage.wall_s >= settings.wall_s:
        return LoopEnd.WALL
    if usage.cpu_s >= settings.cpu_s:
        return LoopEnd.CPU
    return None


def own_code_runs(steps: Sequence[StepRecord]) -> tuple[int, int | None]:
    """`run` calls that executed a file the agent had written by then (its own code: bakeoff.scaffolds.agent.
    own_code), before the loop ended; and the step of the first."""
    written: set[str] = set()
    count, first = 0, None
    for step in steps:
        for result in step.results:
            if result.tool == WRITE and result.ok:
                written.update(f.path for f in result.files_written if f.sha256)
            elif result.tool == RUN and result.command is not None:
                command = " ".join(result.command.argv[2:])  # the shell text of ["sh", "-c", text]
                if runs_own_code(command, written):
                    count += 1
                    first = first or step.step
    return count, first


class Loop:
    def __init__(self, ctx: RunContext, clock: StageClock, settings: AgentSettings, services: StageServices,
                 done: Mapping[str, StageRecord]) -> None:
        if not isinstance(ctx.repo, RunRepo):
            raise TypeError("the agent works in a run's repository")
        self.ctx, self.clock, self.settings, self.services, self.done = ctx, clock, settings, services, done
        self.repo: RunRepo = ctx.repo
        self.syntax = tool_syntax_of(ctx.backend)
        self.place = Workplace.of(ctx, clock, settings)
        excerpt = ctx.corpus.excerpt.read_text(encoding="utf-8") if ctx.corpus.excerpt.is_file() else ""
        self.first = opening(ctx.task, excerpt, ctx.corpus.layout.excerpt_of, settings, self.syntax, TOOLS)
        self.budget_chars = settings.prompt_budget_chars(ctx.task.settings) - self._tools_chars()

    def _tools_chars(self) -> int:
        """What the template adds for the tools (a native syntax renders them: a conservative guess, their JSON)."""
        return len(durable.dumps([t.to_openai() for t in TOOLS])) if native(self.syntax) else 0

    def run(self) -> StageOutcome:
        steps = finished_steps(self.ctx.run_dir, StepRecord.from_json)
        try:
            while True:
                usage = steps[-1].usage if steps else LoopUsage()
                ended = (steps[-1].ended_by if steps else None) or budget_spent(usage, self.settings)
                if ended is not None:
                    break
                steps.append(self._step(len(steps) + 1, steps))
        except _HarnessFailed as exc:
            return StageOutcome(Attribution.HARNESS_ERROR, str(exc))
        check, commands = ladder_check(self.ctx, self.clock, CHECK_LABEL)
        own, first = own_code_runs(steps)
        loop = LoopSummary(ended, usage, self.settings.budgets(), own, first, self.syntax)
        claim = find_claim(self.ctx, check, include_readme=True)
        attribution, reason = self._attribution(steps, check, ended)
        return StageOutcome(attribution, reason, commands=tuple(commands), check=check, claim=claim, loop=loop)

    @staticmethod
    def _attribution(steps: Sequence[StepRecord], check, ended: LoopEnd) -> tuple[Attribution, str | None]:
        """Uncaptured when no answer ever came back (the run says nothing of the model), else the check's."""
        captured = [s for s in steps if s.capture is not None and s.capture.status != CaptureStatus.UNCAPTURED]
        if ended == LoopEnd.UNCAPTURED and not captured:
            last = steps[-1].capture if steps else None
            return Attribution.UNCAPTURED, last.reason.value if last is not None else "no answer came back"
        return check_attribution(check)

    def _generation(self, usage: LoopUsage) -> GenerationSettings:
        task = self.ctx.task.settings
        left = max(1, self.settings.max_tokens - usage.tokens)
        answer = min(self.settings.step_tokens, left)
        wall_left = max(1.0, self.settings.wall_s - usage.wall_s)
        return GenerationSettings(max_tokens=answer, reasoning_tokens=min(self.settings.step_reasoning_tokens, left - answer),
                                  temperature=self.ctx.temperature, seed=self.ctx.seed,
                                  timeout_s=min(float(task.model_timeout_s), wall_left), tools=TOOLS)

    def _ask(self, messages, key: str, settings: GenerationSettings, clock: StageClock) -> Completion:
        started = time.monotonic()
        try:
            return self.ctx.backend.chat(messages, key=key, settings=settings)
        except Exception as exc:  # noqa: BLE001 - any backend fault is the harness's, never the model's
            raise _HarnessFailed(f"step {key}: {type(exc).__name__}: {exc}") from exc
        finally:
            clock.model_s += time.monotonic() - started

    def _step(self, number: int, steps: Sequence[StepRecord]) -> StepRecord:
        ctx, services = self.ctx, self.services
        services.journal.append("step_started", run_id=ctx.run_id, stage=STAGE, step=number)
        services.on_activity(f"{STAGE} step {number}")
        clock, started_at = StageClock(), utc_now()
        self.repo.restore_data(ctx.corpus.excerpt)  # what the last command left there is the model's doing
        self.repo.scratch()
        previous = steps[-1].usage if steps else LoopUsage()
        messages, cuts = conversation(self.first, steps, self.syntax, self.budget_chars)
        added = result_messages(steps[-1], self.syntax) if steps else self.first
        key = turn_key(STAGE, number)
        settings = self._generation(previous)
        completion = self._ask(messages, key, settings, clock)
        capture, problems = audit_tool_calls(completion, TOOLS, settings.total_tokens)
        wall_left = self.settings.wall_s - previous.wall_s - (time.monotonic() - clock.started)
        results, ended = self._calls(completion, problems, wall_left, clock, capture.status)
        commit = self.repo.commit(f"{STAGE} step {number}")
        timings = clock.timings(started_at, utc_now())
        record = StepRecord(
            run_id=ctx.run_id, step=number,
            prompt=Prompt(key, tuple(_prompt_message(m) for m in added), sum(len(m.content) for m in messages),
                          len(self.first[0].content), cuts),
            completion=CompletionRecord.from_json(completion.to_dict()), capture=capture, results=results,
            files_changed=tuple(self.repo.changed_in_last_commit()),
            commit=Commit.from_json({"sha": commit.sha, "message": commit.message, "date": commit.date,
                                     "skipped": commit.skipped}),
            timings=timings,
            usage=LoopUsage(number, previous.tokens + int(completion.completion_tokens or 0),
                            previous.wall_s + timings.wall_s, previous.cpu_s + sum(r.cpu_s for r in results)),
            ended_by=ended,
        )
        for name in ("model_s", "sandbox_s", "scoring_s"):
            setattr(self.clock, name, getattr(self.clock, name) + getattr(clock, name))
        write_step_record(ctx.run_dir, number, record, services.counter)
        write_transcript(RunLayout(ctx.run_dir).transcript, self.done.values(), services.counter, [*steps, record])
        services.journal.append("step_done", run_id=ctx.run_id, stage=STAGE, step=number,
                                capture=capture.status.value, completion_tokens=int(completion.completion_tokens or 0),
                                generation_s=round(float(completion.generation_seconds or 0.0), 3))
        return record

    def _calls(self, completion: Completion, problems, wall_left: float, clock: StageClock,
               status: CaptureStatus) -> tuple[tuple[ToolResult, ...], LoopEnd | None]:
        """Each call's result, in order (a call after submit is not run); and whether the step ended the loop."""
        if status == CaptureStatus.UNCAPTURED:
            return (), LoopEnd.UNCAPTURED
        place = replace(self.place, clock=clock)
        results: list[ToolResult] = []
        ended: LoopEnd | None = None
        for call, problem in zip(completion.tool_calls, problems, strict=True):
            if ended is not None:
                results.append(ToolResult(call.name, False, "Not run: the workspace was already submitted."))
            elif problem is not None:
                results.append(refused(call.name, *problem))
            else:
                results.append(call_tool(place, call.name, call.parsed_arguments(), wall_left))
                ended = LoopEnd.SUBMIT if call.name == SUBMIT else None
        return tuple(results), ended


def _prompt_message(message: Message) -> PromptMessage:
    return PromptMessage(message.role, message.content, message.tool_calls, message.tool_call_id, message.name)


def make_agent_stage(settings: AgentSettings, services: StageServices):
    def agent(ctx: RunContext, clock: StageClock, done: Mapping[str, StageRecord]) -> StageOutcome:
        return Loop(ctx, clock, settings, services, done).run()

    return agent
