"""`bakeoff run`, `bakeoff status`, `bakeoff demo`: unattended batches of runs, and the first-run demo."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from bakeoff.cli.folders import usable_wheelhouse
from bakeoff.errors import BakeoffError
from bakeoff.scaffolds.registry import DEFAULT_SCAFFOLD, scaffold_names, scaffold_plugin, scaffolds_for
from bakeoff.tasks.registry import DEFAULT_TASK, task_names, task_plugin
from bakeoff.textsafe import printable
from sandbox.kinds import DOCKER, ISOLATING_KINDS, KINDS, consent_settings

MAX_RUNS = 1000  # bakeoff.runner.plan.MAX_RUNS (not imported: --help stays instant)


class UnsafeNotAcknowledged(BakeoffError):
    """The plan asks for no isolation without the explicit unsafe flag."""


def _check_models(plan, plugin, out: Path, engine_here: bool = True) -> None:
    """The plan's specs were parsed when it was read; what refuses it in a moment is said first (the context and
    budgets, the corpus, a model file that is not there or not a GGUF), before the engine test that takes seconds;
    an endpoint's key may go where its URL says (which variable goes to which host is said); a gguf model also
    needs an engine that generates here."""
    from bakeoff.models.local_names import resolution_line
    from bakeoff.runner.batch import check_plan, models_with_runs_left
    from bakeoff.runner.model_entries import spec_of
    from bakeoff.runner.preflight import check_model_file, key_routes

    for line in key_routes(plan.models):  # said whatever refuses the plan next
        click.echo(printable(line), err=True)
    for model in plan.models:  # which file each hf: or ollama-file: name was resolved to
        spec = spec_of(model)
        if spec.named:
            click.echo(printable(resolution_line(model.label, spec.named, spec.path)), err=True)
    check_plan(plan, plugin, scaffolds_for(plan.scaffolds))
    for model in models_with_runs_left(plan, out.resolve()):
        check_model_file(model)
    if engine_here:
        check_engine([spec_of(model) for model in plan.models])


def _interval_note(plan) -> None:
    """A plan whose runs per model are too few for an interval is told so now, not in the morning's report."""
    from bakeoff.analysis.stats import too_few_runs_note

    note = too_few_runs_note(plan.runs)
    if note:
        click.echo(f"note: {note}")  # standard output: standard error opens with the error, when there is one


def check_engine(specs, entry=None) -> None:
    """A plan with a model that needs the engine (its parsed specs' kinds say which) needs one that generates:
    tried in its own process before the first run.

    `entry` is the engine child's entry point (tests pass one that crashes).
    """
    from bakeoff.models.engine_check import preflight_model, probe_engine, require_engine

    model = preflight_model(specs)
    if model is not None:
        probe = require_engine(probe_engine(model, entry=entry))  # EngineUnusable names the rebuild command
        click.echo(f"engine: {probe.detail}", err=True)


def _batch_options(out: Path, plan, plugin, plan_text, wheelhouse: Path | None, unsafe: bool, probes: bool = True):
    from bakeoff.runner.batch import BatchOptions
    from sandbox.wheelhouse import default_wheelhouse

    options = consent_settings(plan.sandbox, unsafe, UnsafeNotAcknowledged)
    wheelhouse = usable_wheelhouse(wheelhouse or default_wheelhouse())
    # The task's probes (a leak probe, seed retrains: its evaluate hooks) run inside evaluate unless turned off.
    return BatchOptions(out_dir=out.resolve(), plan_text=plan_text, wheelhouse=wheelhouse, sandbox_options=options,
                        evaluate_hooks=plugin.evaluate_hooks(probes), scaffolds=scaffolds_for(plan.scaffolds))


@contextmanager
def _terminate_as_interrupt():
    """SIGTERM ends the batch as Ctrl-C does (KeyboardInterrupt): the runs in flight unwind, their sandboxes and
    engines close, the journal says where it stopped. A second signal while that happens is ignored."""
    def interrupt(signum, frame) -> None:
        for each in (signal.SIGTERM, signal.SIGINT):
            signal.signal(each, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = {each: signal.signal(each, interrupt) for each in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


def _gpu_probe():
    """NVML's reading of GPU 0, sampled with every stage; None on a machine NVML finds no GPU on."""
    from bakeoff.models.memory import NvmlProbe

    probe = NvmlProbe()
    return probe if probe.read() is not None else None


def _execute(plan, plugin, options):
    """Run the batch with the live display; print where it is and its scores. BatchInterrupted (SIGINT,
    SIGTERM) is said and exits 130; the result says whether a run harness-failed (its exit_code)."""
    from bakeoff.batchfolder.layout import BatchLayout
    from bakeoff.runner.batch import BatchInterrupted, run_batch
    from bakeoff.runner.progress import LiveProgress

    options = dataclasses.replace(options, gpu_probe=options.gpu_probe or _gpu_probe())
    try:
        with _terminate_as_interrupt():
            with LiveProgress(headline=plugin.headline, journal=BatchLayout(options.out_dir).events,
                              closing=lambda: closing_lines(options.out_dir, plugin)) as progress:
                result = run_batch(plan, plugin, options, progress)
    except BatchInterrupted as exc:
        click.echo(printable(str(exc)), err=True)
        sys.exit(exc.exit_code)
    # Plain echo: a path must never be wrapped across lines (scripts and users copy it).
    click.echo(printable(f"batch folder: {result.batch_dir}"))
    click.echo(f"runs: {len(result.records)}, harness failures: {result.failed}")
    _print_scores(result.batch_dir, plugin)
    if result.failed:
        click.echo(f"{result.failed} runs ended harness_failed (bakeoff could not measure them): exit status "
                   f"{result.exit_code}; `bakeoff status {result.batch_dir}` shows why", err=True)
    return result


def closing_lines(batch_dir: Path, plugin) -> list[str]:
    """The live display's and `bakeoff status`'s last lines: why a model scored nothing or little."""
    from bakeoff.analysis.why import WHY_HEADING, folder_why_lines

    lines = folder_why_lines(batch_dir, plugin)
    return [WHY_HEADING, *lines] if lines else []


def _print_scores(batch_dir: Path, plugin) -> None:
    from rich.console import Console

    from bakeoff.report.build import batch_board
    from bakeoff.report.terminal import scores_renderable

    console = Console()
    console.print(scores_renderable(batch_board(batch_dir, plugin), plugin.headline, "scores", console.width))


@click.command("run")
@click.option("--plan", "plan_file", type=click.Path(dir_okay=False, path_type=Path), help="TOML plan file (see docs/running.md).")
@click.option("--model", "models", multiple=True,
              help="Model spec (repeatable) instead of a plan: default, gguf:PATH, openai:URL#MODEL, ollama:NAME[:TAG], scripted:FILE.")
@click.option("--runs", type=click.IntRange(min=1, max=MAX_RUNS), default=None, help="Runs per model (with --model; default 5).")
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path),
              help="Corpus folder (with --model; default: runs/corpus-default, generated once).")
@click.option("--sandbox", type=click.Choice(KINDS), default=None, help="Isolation (with --model; default docker).")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Batch seed (with --model; default 0).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Batch folder; start again on it to resume. Default: runs/batch-<plan hash>.")
@click.option("--wheelhouse", type=click.Path(file_okay=False, path_type=Path), help="Host wheelhouse for submissions' requirements.")
@click.option("--unsafe-no-isolation", "unsafe", is_flag=True, help="Allow sandbox 'none' (no isolation at all).")
@click.option("--probes/--no-probes", default=True, show_default=True, help="Run the task's probes in evaluate.")
@click.option("--executor", "executor_kind", type=click.Choice(("local", "ray")), default=None,
              help="Who runs the runs: this process (default) or a Ray cluster (pip install 'bakeoff[ray]'; see docs/scale-out.md).")
@click.option("--address", default=None,
              help="Ray cluster address (auto, HOST:6379, ray://HOST:10001); implies --executor ray. Default: a local Ray cluster.")
@click.option("--parallel", type=click.IntRange(min=1, max=64), default=None,
              help="Local executor: runs in flight at once in this process (default 1).")
@click.option("--scaffold", "scaffolds", multiple=True, type=click.Choice(scaffold_names()),
              help="With --model: how each model is driven, a scaffold (repeatable; default staged, its six fixed stages).")
@click.option("--task", type=click.Choice(task_names()), default=None,
              help="With --model: the take-home, checked against the corpus's manifest (which decides it); without "
                   "--corpus, the default corpus of this task.")
def run_command(plan_file, models, runs, corpus, sandbox, seed, out, wheelhouse, unsafe, probes, executor_kind, address,
                parallel, scaffolds, task) -> None:
    """Run a batch: every model takes the take-home RUNS times, interleaved, resumable.

    Give either --plan FILE or --model SPEC (repeatable). Started again on the same
    --out folder, a batch continues where it stopped; a plan that only adds models or
    runs extends it, any other change is refused. Exit status: 0 all runs measured;
    4 a run ended harness_failed; 130 interrupted (SIGINT or SIGTERM: run the same
    command to resume); 3 the folder is locked by another writer; 2 bad input or a
    failed preflight (nothing started).
    """
    from bakeoff.models.discovery import places_from_env
    from bakeoff.runner.executors.choose import make_executor
    from bakeoff.runner.executors.settings import ExecutorSettings, load_plan_and_executor, with_overrides
    from bakeoff.runner.plan import PlanError, plan_from_mapping, read_plan_text
    from bakeoff.runner.scaffold import refuse_step_writers_on_ray
    from bakeoff.tasks.registry import corpus_task

    executor = ExecutorSettings()
    places = places_from_env(os.environ, Path.home())  # where hf: and ollama-file: names are looked up

    if plan_file and (models or runs or corpus or sandbox or seed is not None or scaffolds or task):
        raise PlanError("give either --plan or --model/--runs/--corpus/--sandbox/--seed/--scaffold/--task, not both")
    if plan_file:
        plan, executor = load_plan_and_executor(plan_file, task_of=corpus_task, places=places)  # the corpus's task
        plan_text = read_plan_text(plan_file)
    elif models:
        corpus = corpus or default_corpus(task or DEFAULT_TASK)
        raw = {"models": list(models), "corpus": str(corpus), "runs": runs or 5, "sandbox": sandbox or DOCKER, "seed": seed or 0,
               "scaffolds": list(scaffolds or [DEFAULT_SCAFFOLD])} | ({"task": task} if task else {})
        plan, plan_text = plan_from_mapping(raw, Path.cwd(), task_of=corpus_task, places=places), None
    else:
        raise PlanError("nothing to run: give --plan FILE or --model SPEC")
    _interval_note(plan)
    executor = with_overrides(executor, executor_kind, address, parallel)
    if executor.kind == "ray":
        refuse_step_writers_on_ray(scaffolds_for(plan.scaffolds))
    if executor.kind == "ray" and executor.address is not None:
        from bakeoff.runner.executors.address import check_address

        check_address(executor.address)  # before the batch folder is touched: a cluster that is not there is said now
    plugin = task_plugin(plan.task or DEFAULT_TASK)  # resolved here, once, and handed down (UnknownTask names the known ones)
    out = out or Path("runs") / f"batch-{plan.sha256()[:10]}"
    options = _batch_options(out, plan, plugin, plan_text, wheelhouse, unsafe, probes)  # consent asked first
    _check_models(plan, plugin, out, engine_here=executor.kind == "local")  # on a cluster the engines are the workers'
    result = _execute(plan, plugin, dataclasses.replace(options, executor=make_executor(executor)))
    if result.exit_code:
        sys.exit(result.exit_code)


def default_corpus(task: str) -> Path:
    """`run --model` without --corpus: the task's default data, generated once (the default task's keeps the name corpus-default)."""
    name = "corpus-default" if task == DEFAULT_TASK else f"corpus-{task}"
    return task_plugin(task).ensure_corpus(Path("runs") / name)


@click.command("status")
@click.argument("batch_dir", type=click.Path(file_okay=False, path_type=Path))
def status_command(batch_dir: Path) -> None:
    """Show a batch's state (works while it runs, from another terminal)."""
    from rich.console import Console
    from rich.text import Text

    from bakeoff.batchfolder.read import BatchFolderError
    from bakeoff.runner.status import format_seconds, read_status, status_headline, status_table
    from bakeoff.tasks.registry import UnknownTask, plugin_for_batch

    try:
        plugin = plugin_for_batch(batch_dir)
        headline = plugin.headline
    except (UnknownTask, BatchFolderError):  # no batch, or one of a task unknown here: read_status says which
        plugin, headline = None, None
    status = read_status(batch_dir, headline, lambda name: scaffold_plugin(name).stages)
    click.echo(printable(status_headline(status)))  # plain: the folder's path must not wrap
    console = Console()
    console.print(status_table(status))
    if status.last_event:
        event = status.last_event
        line = f"last event: {event.at} {event.event} {event.run_id or ''} {event.stage or ''}"
        console.print(Text(printable(line)))
    left = status.seconds_left()  # none before a run has finished: said so, not "unknown"
    console.print(f"estimated time left: {format_seconds(left)}" if left is not None
                  else "estimated time left: estimating (once the first run has finished)")
    for line in closing_lines(batch_dir, plugin):  # plain: a why line is read whole, never cut
        click.echo(printable(line))


# What the embedded default model does on a take-home, said before its hours of running and beside its report, so that
# a headline near zero is read as the demo working (bench/demo.py: most answers cut off at the token limit).
DEFAULT_MODEL_EXPECTATION = (
    "the default model (SmolLM2-135M-Instruct, 135 million parameters) is a plumbing check, not a contender: expect a "
    "headline near 0 and most stages crashed or cut off at the token limit. The demo shows that the pipeline works "
    "on this machine; point a plan at real models to compare them (README: Your first night)")


def demo_expectation(model: str) -> str | None:
    """What to expect from the demo's model, where bakeoff knows it (the default model), else None."""
    from bakeoff.models.spec import DEFAULT_SPEC

    return DEFAULT_MODEL_EXPECTATION if model == DEFAULT_SPEC else None


@click.command("demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/demo"), show_default=True,
              help="Batch folder for the demo.")
@click.option("--sandbox", type=click.Choice(ISOLATING_KINDS), default=DOCKER, show_default=True, help="Isolation.")
@click.option("--model", "model", default="default", show_default=True, help="Model spec.")
@click.option("--probes/--no-probes", default=True, show_default=True, help="Run the task's probes in evaluate.")
@click.option("--task", type=click.Choice(task_names()), default=DEFAULT_TASK, show_default=True,
              help="Which take-home the demo runs (its own small data).")
@click.option("--scaffold", type=click.Choice(scaffold_names()), default=DEFAULT_SCAFFOLD, show_default=True,
              help="How the model is driven: the six fixed stages (staged), or another scaffold, such as a tool loop.")
def demo_command(out: Path, sandbox: str, model: str, probes: bool, task: str, scaffold: str) -> None:
    """The whole pipeline once: a small corpus with the same traps, one run of the default model, scored."""
    from bakeoff.runner.plan import plan_from_mapping

    out = out.resolve()
    plugin = task_plugin(task)
    expectation = demo_expectation(model)
    if expectation:
        click.echo(f"note: {expectation}", err=True)
    click.echo(f"generating a small corpus ({plugin.demo_description()}) in {out / 'corpus'}", err=True)
    corpus = plugin.ensure_corpus(out / "corpus", demo=True)
    from bakeoff.runner.model_entries import DEMO_TASK_SETTINGS

    mapping = {"models": [model], "corpus": str(corpus), "runs": 1, "sandbox": sandbox, "task": task,
               "task_settings": DEMO_TASK_SETTINGS}
    if scaffold != DEFAULT_SCAFFOLD:  # a staged demo keeps the plan (and the folder) it always had
        mapping |= {"scaffolds": [scaffold], "scaffold_settings": {scaffold: dict(scaffold_plugin(scaffold).demo_settings)}}
    from bakeoff.tasks.registry import corpus_task

    plan = plan_from_mapping(mapping, out, task_of=corpus_task)  # a folder left by another task's demo is named
    options = _batch_options(out, plan, plugin, None, None, unsafe=False, probes=probes)
    _check_models(plan, plugin, out)
    result = _execute(plan, plugin, options)
    from bakeoff.cli.report import report

    click.get_current_context().invoke(report, batch_dir=out)
    if expectation:
        click.echo(f"note: {expectation}")
    if result.exit_code:
        sys.exit(result.exit_code)


COMMANDS = [run_command, status_command, demo_command]
