"""One run, resumable: a fresh repo, its scaffold's stages in order, a record per stage, a run record at the end.

Resume rule: a stage whose record exists is never executed again; an unfinished
stage restarts from its beginning after the repo is reset to the last finished
stage's commit (a loop's, from the commit of its last recorded step: Scaffold.step_reader).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bakeoff.batchfolder.files import WriteCounter, is_disk_full, no_room_left, out_of_disk, utc_now
from bakeoff.batchfolder.layout import BatchLayout, RunLayout
from bakeoff.batchfolder.records import (  # the runner reads and writes its records through the batch folder's door
    finished_stages,
    finished_steps,
    is_finished,
    read_run_record,
    read_stage_record,
    stages_with_failure,
    write_run_record,
    write_stage_record,
)
from bakeoff.models.base import ModelBackend
from bakeoff.models.memory import GpuMemoryProbe
from bakeoff.records import (
    Attribution,
    CodeVersion,
    Commit,
    CrashClass,
    LadderCheck,
    LadderStatus,
    LoopStep,
    Resources,
    Rung,
    RunRecord,
    StageRecord,
    Timings,
)
from bakeoff.runner.conversation import shared_system_message
from bakeoff.runner.plan import Plan, RunLimits, RunSlot
from bakeoff.runner.resources import PeakSampler
from bakeoff.runner.scaffold import Scaffold, StageServices
from bakeoff.runner.scaffold_kit import DISK_FULL, StageOutcome
from bakeoff.runner.seeding import install_seed_hook, seeded_env
from bakeoff.runner.summary import run_summary, stage_done_fields
from bakeoff.runner.transcript import write_transcript
from bakeoff.runner.workspace import RunRepo
from bakeoff.taskapi.context import CorpusFiles, RunContext, StageClock
from bakeoff.taskapi.hidden_inputs import GatedFolder
from bakeoff.taskapi.parts import EvaluateHook
from bakeoff.taskapi.spec import TaskSpec
from bakeoff.taskapi.task import Task
from sandbox.submission import SubmissionSandbox, open_submission_sandbox, seen_inside

__all__ = ["BatchEnv", "execute_run", "finished_stages", "is_finished", "read_run_record", "read_stage_record",
           "run_sandbox"]


class EventLog(Protocol):
    """Where a run's events go: the batch's Journal, or a Ray worker's stand-in that forwards them."""

    def append(self, event: str, **fields: Any) -> None: ...


@dataclass(frozen=True)
class BatchEnv:
    """What every run of a batch shares; the task's plug-in is the one the command line resolved."""

    plan: Plan
    plugin: Task
    task: TaskSpec
    corpus: CorpusFiles
    batch_dir: Path
    journal: EventLog
    counter: WriteCounter
    code_version: CodeVersion
    corpus_sha256: Mapping[str, str | None] | None = None  # the corpus fingerprint batch.json recorded
    wheelhouse: Path | None = None
    sandbox_options: Mapping[str, Any] = field(default_factory=dict)
    evaluate_hooks: Mapping[str, EvaluateHook] = field(default_factory=dict)
    gpu_probe: GpuMemoryProbe | None = None  # sampled with every stage (peak GPU memory); None: no GPU read
    # The plan's scaffolds by name, resolved by the command line (the runner knows none by name).
    scaffolds: Mapping[str, Scaffold] = field(default_factory=dict)

    @property
    def layout(self) -> BatchLayout:
        return BatchLayout(self.batch_dir)

    def scaffold(self, name: str) -> Scaffold:
        """The plug-in of the scaffold `name` the batch was handed (check_scaffolds refused a plan whose
        scaffolds were not, before the batch started)."""
        return self.scaffolds[name]

    def stage_names(self, slot: RunSlot) -> tuple[str, ...]:
        return tuple(self.scaffold(slot.scaffold).stages)

    def run_dir(self, run_id: str) -> Path:
        return self.layout.run(run_id).folder


def run_sandbox(workspace: Path, corpus: CorpusFiles, seed: int, kind: str, wheelhouse: Path | None,
                limits: RunLimits, settings: Mapping[str, Any] | None = None,
                gate: GatedFolder | None = None, visible_only: bool = False) -> SubmissionSandbox:
    """A run's sandbox on `corpus`: its mounts, caps and seeding (`bakeoff analyze` opens the same one again).

    The corpus's mounts are its task's (bakeoff.tasks: the visible data and the hidden inputs); the truth
    (the answer key) is never among them. With a `gate`, the hidden inputs are its folder, filled only while
    the harness grades (bakeoff.taskapi.hidden_inputs). `visible_only`: the visible data alone, no hidden
    input ever (where a scaffold's own tool commands run). `settings` are the driver's own (an image; the unsafe
    consent).
    """
    from sandbox.base import MIB, Limits

    hook = install_seed_hook(workspace)
    if visible_only:
        inputs = tuple(corpus.visible_mounts())
    else:
        inputs = tuple(corpus.mounts()) if gate is None else (*corpus.visible_mounts(), gate.mount())
    return SubmissionSandbox(
        kind=kind,
        workspace=workspace,
        inputs=inputs,
        wheelhouse=wheelhouse,
        limits=Limits(memory_bytes=limits.memory_mb * MIB, pids=limits.pids, cpus=limits.cpus,
                      output_bytes=limits.output_kb * 1024),
        env=seeded_env(seed, seen_inside(kind, workspace, hook)),
        settings=dict(settings or {}),
    )


def _prepare_repo(env: BatchEnv, run_dir: Path, done: Mapping[str, StageRecord],
                  steps: Sequence[LoopStep] = ()) -> RunRepo:
    """The run's repository at its last finished stage (or a loop's last recorded step), or a new one."""
    repo_dir = RunLayout(run_dir).repo
    if not done and not steps:
        return RunRepo.create(repo_dir, env.task.template_dir, env.corpus.excerpt)
    repo = RunRepo(repo_dir)
    # A loop cut short (no stage finished yet) continues from its last recorded step.
    last = list(done.values())[-1].commit if done else steps[-1].commit
    repo.reset_to(last.sha)
    repo.restore_data(env.corpus.excerpt)
    return repo


def _stage_record(slot: RunSlot, index: int, stage: str, outcome: StageOutcome, commit, timings: Timings,
                  peaks, sandbox_cpu_s: float | None = None) -> StageRecord:
    """The stage's outcome with what the runner adds: the commit, timings, resource peaks (None: not sampled)
    and the sandbox's CPU seconds in the stage."""
    skipped = commit.skipped or {}
    return StageRecord(
        run_id=slot.run_id, stage=stage, index=index, attribution=outcome.attribution,
        attribution_reason=outcome.attribution_reason, prompt=outcome.prompt, completion=outcome.completion,
        capture=outcome.capture, files_written=outcome.files_written, commands=outcome.commands,
        shown_to_model=outcome.shown_to_model, check=outcome.check, turns=outcome.turns, claim=outcome.claim,
        extras=dict(outcome.extras), loop=outcome.loop,
        commit=Commit.from_json({"sha": commit.sha, "message": commit.message, "date": commit.date, "skipped": skipped}),
        timings=timings,
        resources=None if peaks is None else Resources(peaks.harness_peak_rss_bytes, peaks.system_peak_used_bytes,
                                                       peaks.sandbox_peak_memory_bytes, peaks.engine_peak_rss_bytes,
                                                       peaks.gpu_peak_used_bytes, sandbox_cpu_s),
    )


def execute_run(env: BatchEnv, slot: RunSlot, backend: ModelBackend,
                on_stage: Callable[[str, str], None] | None = None) -> RunRecord:
    """Run (or finish) one run and return its run record. Harness failures end the run, never the batch."""
    run_dir = env.run_dir(slot.run_id)
    if is_finished(run_dir):
        return read_run_record(RunLayout(run_dir).record)
    scaffold = env.scaffold(slot.scaffold)
    names = env.stage_names(slot)
    done = finished_stages(run_dir, names)
    env.journal.append("run_started", run_id=slot.run_id, resumed_after=list(done))
    started_at = utc_now()
    error: str | None = None
    isolation = env.plan.sandbox
    try:
        repo = _prepare_repo(env, run_dir, done, finished_steps(run_dir, scaffold.step_reader()))
        gate = env.corpus.hidden_gate(RunLayout(run_dir).hidden_inputs)
        gate.prepare()
        box = run_sandbox(repo.path, env.corpus, slot.seed, env.plan.sandbox, env.wheelhouse, env.plan.limits,
                          env.sandbox_options, gate)
        with ExitStack() as opened:
            sandbox = opened.enter_context(open_submission_sandbox(box))
            tools = None
            if scaffold.tool_sandbox:  # the model's own commands never share a sandbox with the hidden inputs
                tools = opened.enter_context(open_submission_sandbox(run_sandbox(
                    repo.path, env.corpus, slot.seed, env.plan.sandbox, env.wheelhouse, env.plan.limits,
                    env.sandbox_options, visible_only=True)))
            isolation = getattr(sandbox, "kind", "") or isolation
            ctx = RunContext(
                run_id=slot.run_id, seed=slot.seed, task=env.task, plugin=env.plugin, repo=repo, run_dir=run_dir,
                sandbox=sandbox,
                backend=backend, corpus=env.corpus,
                shared=shared_system_message(env.task.system, env.task.statement, env.corpus.excerpt.read_text(encoding="utf-8"),
                                            env.corpus.layout.excerpt_of),
                env=box.env, wheelhouse=env.wheelhouse, temperature=float(env.task.settings.temperature),
                tool_sandbox=tools, hidden=gate,
            )
            error = _run_stages(env, slot, ctx, repo, done, on_stage)
    except Exception as exc:  # noqa: BLE001 - one broken run (sandbox, disk, anything) must not stop the batch
        if is_disk_full(exc) or no_room_left(run_dir):  # outside a stage: the batch folder's disk is full
            raise out_of_disk(run_dir, exc) from exc
        error = f"{type(exc).__name__}: {exc}"
    stages = finished_stages(run_dir, names) if error is None else stages_with_failure(run_dir, names)
    steps = finished_steps(run_dir, scaffold.step_reader())
    if stages or steps:  # a kill between a stage record and its transcript write left the transcript behind
        write_transcript(RunLayout(run_dir).transcript, stages.values(), env.counter, steps)
    record = run_summary(env, slot, stages, started_at, error, isolation, backend.identity, steps)
    write_run_record(run_dir, record, env.counter)
    env.journal.append("run_failed" if error else "run_done", run_id=slot.run_id)
    return record


def _record_disk_full(env: BatchEnv, slot: RunSlot, ctx: RunContext, repo: RunRepo, index: int, stage: str,
                      last_sha: str, exc: BaseException, clock: StageClock, started_at: str) -> StageRecord:
    """The stage filled the disk: drop what it wrote (the workspace back at the last finished stage) and record
    that as the model's failure, ending the run. Still no room afterwards: the disk is full anyway (OutOfDisk)."""
    repo.drop_untracked()  # first: resetting writes the index, which needs the room this frees
    repo.reset_to(last_sha)
    detail = f"{type(exc).__name__}: {exc}"[-2000:]
    check = LadderCheck(Rung.NOTHING, LadderStatus.CRASHED, stage, None, crash_class=CrashClass.DISK_FULL, detail=detail)
    outcome = StageOutcome(Attribution.MODEL_ERROR, DISK_FULL, check=check, extras={"disk_full": detail})
    commit = repo.commit(stage)
    record = _stage_record(slot, index, stage, outcome, commit, clock.timings(started_at, utc_now()), None)
    write_stage_record(ctx.run_dir, record, env.counter)
    env.journal.append("stage_disk_full", run_id=slot.run_id, stage=stage)
    return record


def _sandbox_cpu(ctx: RunContext) -> float | None:
    """CPU seconds of the run's sandboxes so far, the scaffold's tool sandbox with the run's (sandbox.base.Sandbox.
    cpu_seconds; None: neither reported them)."""
    # A stand-in sandbox of a test may not count them.
    counted = [getattr(box, "cpu_seconds", None) for box in (ctx.sandbox, ctx.tool_sandbox) if box is not None]
    seconds = [value for value in counted if value is not None]
    return sum(seconds) if seconds else None


def _engine_pid(ctx: RunContext) -> int | None:
    """The model's engine process, for its memory peak: a llama.cpp backend has one; an endpoint has none."""
    return getattr(ctx.backend, "engine_pid", None)  # not part of ModelBackend: most backends have no process


def _run_stages(env: BatchEnv, slot: RunSlot, ctx: RunContext, repo: RunRepo, done: dict[str, StageRecord],
                on_stage: Callable[[str, str], None] | None) -> str | None:
    """The stages not yet done, in order; returns a harness error that ended the run, or None."""
    from sandbox.errors import SandboxError

    scaffold = env.scaffold(slot.scaffold)
    services = StageServices(env.journal, env.counter, dict(env.plan.scaffold_settings.get(scaffold.name, {})),
                             env.evaluate_hooks,
                             (lambda activity: on_stage(slot.run_id, activity)) if on_stage else (lambda _: None))
    functions = scaffold.stage_functions(services)
    for index, stage in enumerate(scaffold.stages, start=1):
        if any(r.attribution_reason == DISK_FULL for r in done.values()):
            return None  # the workspace filled the disk: the run ended there, as the model's failure
        if stage in done:
            continue
        if on_stage:
            on_stage(slot.run_id, stage)
        env.journal.append("stage_started", run_id=slot.run_id, stage=stage)
        clock = StageClock()
        started_at = utc_now()
        last_sha = list(done.values())[-1].commit.sha if done else repo.root_sha()
        try:
            cpu_before = _sandbox_cpu(ctx)
            with PeakSampler(engine_pid=lambda: _engine_pid(ctx), gpu=env.gpu_probe) as sampler:
                repo.restore_data(env.corpus.excerpt)  # what the last execution left there is the model's doing
                repo.scratch()
                try:
                    outcome = functions[stage](ctx, clock, done)
                except SandboxError as exc:
                    outcome = StageOutcome(Attribution.HARNESS_ERROR, f"{type(exc).__name__}: {exc}")
            cpu_after = _sandbox_cpu(ctx)
            cpu = None if cpu_after is None else cpu_after - (cpu_before or 0.0)
            commit = repo.commit(stage)
            record = _stage_record(slot, index, stage, outcome, commit, clock.timings(started_at, utc_now()),
                                   sampler.peaks(), cpu)
            write_stage_record(ctx.run_dir, record, env.counter)
        except Exception as exc:  # noqa: BLE001 - only a full disk is handled here
            if not (is_disk_full(exc) or no_room_left(ctx.run_dir)):
                raise
            record = _record_disk_full(env, slot, ctx, repo, index, stage, last_sha, exc, clock, started_at)
        done[stage] = record
        write_transcript(RunLayout(ctx.run_dir).transcript, done.values(), env.counter,
                         finished_steps(ctx.run_dir, scaffold.step_reader()))
        env.journal.append("stage_done", run_id=slot.run_id, stage=stage, **stage_done_fields(record))
        if record.attribution == Attribution.HARNESS_ERROR:
            return f"stage {stage}: {record.attribution_reason}"
    return None
