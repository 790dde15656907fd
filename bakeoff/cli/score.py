"""`bakeoff score REPO --corpus DIR`: grade one submission on the hidden holdout."""

from __future__ import annotations

import contextlib
import signal
import sys
from pathlib import Path

import click

import durable
from bakeoff.cli.task_options import TaskChoice, TaskCommand, by_corpus, task_option_values
from sandbox.kinds import DOCKER, ISOLATING_KINDS

STAGE_WORDS = {
    "install": "installing requirements",
    "train": "training (the task's first script)",
    "predict": "predicting on the hidden data (the task's second script)",
    "score": "scoring on the host",
}


@click.command("score", cls=TaskCommand, command="score", task_of=by_corpus("corpus"))
@click.argument("repo", type=click.Path(file_okay=False, path_type=Path))
@click.option("--corpus", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Corpus folder made by `bakeoff generate` (its manifest names the task).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Wall-clock limit in seconds for each command grading runs (install, the task's script).")
@click.option("--sandbox", "sandbox_kind", type=click.Choice(ISOLATING_KINDS), default=DOCKER, show_default=True,
              help="Isolation for the submission's code.")
@click.option("--unsafe-no-isolation", is_flag=True,
              help="Run the submission directly on this machine, with no isolation at all (it can read the answer key). Recorded in the outcome.")
@click.option("--wheelhouse", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of cached wheels for declared requirements (default: the bakeoff cache).")
@click.option("--disk-mb", "disk_mb", type=click.IntRange(min=16, max=1024**2), default=4096, show_default=True,
              help="Cap in MiB on what the submission's files and commands may occupy in the workspace "
                   "(a size-limited scratch filesystem when bakeoff runs as root).")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object.")
@click.option("--task", type=TaskChoice(), default=None,
              help="Which take-home the submission is for, checked against the corpus's manifest (which decides it).")
def score(
    repo: Path,
    corpus: Path,
    timeout_s: float,
    sandbox_kind: str,
    unsafe_no_isolation: bool,
    wheelhouse: Path | None,
    disk_mb: int,
    as_json: bool,
    task: str | None,
    **given: object,
) -> None:
    """Grade the submission in REPO: install its requirements, run its script on the hidden data, score.

    REPO's working tree (untracked files included, .git left out) is copied to
    a scratch folder; REPO itself is never changed. The exit status is 0
    whenever the submission was graded, whatever the outcome; it is non-zero
    only when bakeoff could not grade (no engine, no image, bad corpus path),
    and 4 when the environment failed the submission (a system library the
    sandbox image lacks: the outcome is printed, marked as the environment's).
    """
    from bakeoff.tasks import ScoreRequest, task_plugin
    from bakeoff.tasks import score as grade_and_report
    from bakeoff.tasks.registry import check_submission_task, corpus_task

    plugin = task_plugin(corpus_task(corpus, task))  # the manifest decides; --task only checks it
    check_submission_task(repo, plugin.name)  # another task's pipeline is named, not graded as "script missing"
    own = task_option_values("score", plugin.name, given)
    request = ScoreRequest(
        repo=repo,
        corpus=corpus,
        sandbox_kind=sandbox_kind,
        unsafe_no_isolation=unsafe_no_isolation,
        train=bool(own.get("train")),  # the task's training step, where it declares one
        timeout_s=timeout_s,
        wheelhouse=wheelhouse.resolve() if wheelhouse else None,
        disk_bytes=disk_mb * 1024**2,
    )
    try:
        with _signals_unwind():
            report = _run_with_progress(lambda on_stage: grade_and_report(plugin, request, on_stage))
    except Interrupted as exc:
        click.echo(f"interrupted by {signal.Signals(exc.signum).name}: the sandbox and the scratch copy were removed", err=True)
        sys.exit(128 + exc.signum)
    from bakeoff.textsafe import printable

    if as_json:
        click.echo(durable.dumps(report.to_dict()))
    else:
        click.echo(printable(report.format_text()))  # a crash message can hold terminal escape sequences
    if report.environment_failure is not None:  # not the submission's outcome: said, and the exit is not 0
        from bakeoff.runner.batch import HARNESS_FAILED_EXIT

        click.echo(f"not graded fairly: the environment failed the submission, {printable(report.environment_failure)}",
                   err=True)
        sys.exit(HARNESS_FAILED_EXIT)


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGINT arrived: unwinding (every `finally` on the way) removes the sandbox and the scratch copy."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_unwind():
    """Turn SIGTERM and SIGINT into Interrupted while scoring; a second signal does not cut the cleanup short."""
    def unwind(signum, frame):
        for each in (signal.SIGTERM, signal.SIGINT):
            signal.signal(each, signal.SIG_IGN)
        raise Interrupted(signum)

    previous = {each: signal.signal(each, unwind) for each in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


def _run_with_progress(work):
    from rich.console import Console

    console = Console(stderr=True)
    with console.status("preparing the sandbox") as status:
        return work(lambda stage: status.update(STAGE_WORDS.get(stage, stage)))


COMMANDS = [score]
