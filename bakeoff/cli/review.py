"""`bakeoff review`: the claim-versus-code review benchmark over one model."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

import click

import durable
from bakeoff.cli.review_audit import audit

SPEC_HELP = "Model spec: default, gguf:PATH (or PATH.gguf), openai:BASE_URL#MODEL, ollama:NAME[:TAG], scripted:FILE, baseline:cues."
METRIC_ROWS = (
    ("accuracy", "accuracy"),
    ("problem_recall", "PROBLEM recall"),
    ("ok_specificity", "OK specificity"),
    ("youden_j", "Youden's J (recall + specificity - 1)"),
    ("pair_accuracy", "matched-pair accuracy"),
    ("localization", "localization (blamed line within 1)"),
    ("brier", "Brier score (lower is better)"),
    ("agreement", "agreement across samples"),
)


def _default_out(model_spec: str) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", Path(model_spec.split("#")[-1]).name).strip("-")[:40] or "model"
    return Path("runs") / f"review-{stamp}-{slug}"


def _print_table(metrics, out_dir: Path, baseline: dict | None) -> None:
    from rich.console import Console
    from rich.table import Table

    from bakeoff.review.records import BaselineSummary, ReviewNumbers, convert

    def show(value):
        return "n/a" if value is None else f"{value:.3f}"

    console = Console()
    cues = convert(baseline, BaselineSummary, "the cues baseline").metrics if baseline else ReviewNumbers()
    table = Table("metric", "value", "baseline:cues (reading without understanding)", title="claim-versus-code review")
    for name, label in METRIC_ROWS:
        table.add_row(label, show(getattr(metrics, name)), show(getattr(cues, name)))
    table.add_row("answers: captured / unusable / uncaptured",
                  f"{metrics.captured} / {metrics.unusable} / {metrics.uncaptured}")
    console.print(table)
    families = Table("family", "graded answers", "recall", "specificity", "Youden's J", "localization",
                     title="PROBLEM items by family (specificity on the OK twins of the family's pairs)")
    for row in metrics.per_family:
        families.add_row(row.family, str(row.answers), show(row.recall), show(row.specificity), show(row.youden_j),
                         show(row.localization))
    console.print(families)
    click.echo(f"answers and metrics written to {out_dir}")


@click.group("review", invoke_without_command=True)
@click.option("--model", "model_spec", default=None, help=SPEC_HELP + " Required unless a subcommand is given.")
@click.option("--samples", type=int, default=None, help="Answers asked per item (K). Default from settings.toml: 1.")
@click.option("--temperature", type=float, default=None, help="Sampling temperature. Default from settings.toml: 0.")
@click.option("--max-tokens", type=int, default=None, help="Token limit per answer. Default from settings.toml: 200.")
@click.option("--seed", type=int, default=None, help="Seed of sample 1; sample k uses seed + k - 1. Default 0.")
@click.option(
    "--items", "items_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="An items JSONL file (the shipped benchmark by default; any subset in the same format works).",
)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Folder for review.json and answers.jsonl; must not exist or be empty. Default: runs/review-<time>-<model>.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object on stdout.")
@click.option("--reasoning", type=click.Choice(("default", "off", "low", "medium", "high")), default="default",
              show_default=True, help="Reasoning mode, through the model's own switch (refused where it has none).")
@click.option("--server", default="", help="openai specs with --reasoning: llama.cpp, vllm or ollama (which field carries it).")
@click.option("--family", "families", multiple=True, default=(),
              help="Only the pairs whose PROBLEM item is of this flaw family (repeatable); their OK twins come along.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N items (after --family), a pair never split: a quick look before the whole bank.")
@click.pass_context
def review(ctx, model_spec, samples, temperature, max_tokens, seed, items_file, out_dir, as_json, reasoning, server,
           families, limit) -> None:
    """Ask a model to review every claim-versus-code item: OK or PROBLEM, the line, a confidence.

    Uncaptured answers (nothing came back) are counted and left out of the
    metrics; unusable ones (cut off, no verdict) count as wrong.
    `bakeoff review import` turns cells of a notebook into an item instead.
    """
    if ctx.invoked_subcommand is not None:
        return
    if model_spec is None:
        raise click.UsageError("Missing option '--model'.")
    from bakeoff.batchfolder.files import utc_now
    from bakeoff.models.registry import BackendOptions
    from bakeoff.review.folder import open_review, resume_header
    from bakeoff.review.items import bank_digest, default_items_path, load_items
    from bakeoff.review.prompt import load_template
    from bakeoff.review.runner import REVIEW_TIMESPEC
    from bakeoff.review.settings import load_settings

    settings = load_settings().with_overrides(
        samples=samples, temperature=temperature, max_tokens=max_tokens, seed=seed
    )
    items_path = items_file or default_items_path()
    items = select_items(load_items(items_path), families, limit)
    template = load_template()
    # The same model with reasoning on and off is two reviewers: their folders and resume headers differ.
    reviewer = model_spec if reasoning == "default" else f"{model_spec} reasoning={reasoning}"
    out_dir = out_dir or _default_out(model_spec if reasoning == "default" else f"{model_spec}-reasoning-{reasoning}")
    items_sha256 = bank_digest(items_path)  # the key file's too: a changed label is another review
    if families or limit:  # a subset resumes only itself
        items_sha256 = hashlib.sha256(f"{items_sha256}\nfamilies={sorted(families)} limit={limit}".encode()).hexdigest()
    # Before the model loads: an occupied folder, or a restart with other settings, is refused at once.
    folder = open_review(out_dir, resume_header(reviewer, items_sha256, settings, utc_now(REVIEW_TIMESPEC)), items)
    with folder.writing():
        prior = folder.prior()
        result = _answer_all(model_spec, BackendOptions(reasoning=reasoning, server=server), items, settings, template,
                             prior, folder)
        from bakeoff.review.cues import baseline_summary

        baseline = baseline_summary(items)  # the floor beside every model's figures: surface features only
        written = folder.finish(result, str(items_path), items_sha256, baseline)
    if as_json:
        click.echo(durable.dumps(result.metrics.to_dict()))  # null where there was nothing to compute
    else:
        _print_table(result.metrics, written, baseline)


def _answer_all(model_spec, options, items, settings, template, prior, folder):
    """Every answer still missing asked (each recorded as it comes), with a progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from bakeoff.review.reviewers import open_reviewer
    from bakeoff.review.runner import run_review

    console = Console(stderr=True)
    with console.status(f"loading {model_spec} ..."):
        backend = open_reviewer(model_spec, options)
    try:
        columns = (TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"))
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("", total=len(items) * settings.samples)

            def advance(answer) -> None:
                progress.update(task, advance=1, description=f"{answer.item_id}: {answer.verdict or answer.capture}")

            return run_review(backend, items, settings, template, on_answer=advance, prior=prior,
                              on_asked=folder.record)
    except KeyboardInterrupt:
        console.print(f"interrupted; the answers so far are kept in {folder.folder}: "
                      "run the same command again to continue")
        raise
    finally:
        backend.close()


class UnknownFamily(click.BadParameter):
    """--family names no flaw family of the items."""


def select_items(items, families: tuple[str, ...], limit: int | None) -> tuple:
    """The items of the pairs whose PROBLEM item is of one of `families` (all when none), then the first
    `limit` of them, cut only between pairs (an item without a pair is its own)."""
    from bakeoff.errors import did_you_mean

    known = sorted({item.family for item in items if item.family})
    for family in families:
        if family not in known:
            raise UnknownFamily(f"no family {family!r} among the items; known: {', '.join(known)}"
                                + did_you_mean(family, known), param_hint="--family")
    if families:
        pairs = {item.pair_id or item.id for item in items if item.family in families}
        items = tuple(item for item in items if (item.pair_id or item.id) in pairs)
    if limit is None:
        return tuple(items)
    sizes: dict[str, int] = {}
    for item in items:
        sizes[item.pair_id or item.id] = sizes.get(item.pair_id or item.id, 0) + 1
    taken: set[str] = set()
    count = 0
    for group, size in sizes.items():  # groups in order of their first item
        if count >= limit:
            break
        taken.add(group)
        count += size
    return tuple(item for item in items if (item.pair_id or item.id) in taken)


def _flaw_lines(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise click.BadParameter(f"give line numbers separated by commas, not {text!r}", param_hint="--flaw-lines") from None


@review.command("import")
@click.argument("notebook", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--cells", required=True,
              help="Cells A-B, or several ranges A-B,C,D-E (numbered from 1, markdown cells included); code cells only are taken.")
@click.option("--claim", required=True, help="What the notebook's author claims the code shows.")
@click.option("--verdict", required=True, type=click.Choice(["OK", "PROBLEM"]), help="The label, from the source.")
@click.option("--family", default=None, help="The flaw's family (PROBLEM items).")
@click.option("--flaw-lines", default=None, help="N,M: lines counted within the chosen cells taken together.")
@click.option("--licence", "--license", "licence", required=True,
              help="The notebook's licence (an SPDX name such as MIT); either spelling.")
@click.option("--repository", default=None, help="Where it came from: owner/name, or a git URL.")
@click.option("--url", default=None, help="Where it came from, when it is not a repository.")
@click.option("--path", "source_path", default=None, help="The notebook's path in its repository (default: its file name).")
@click.option("--id", "item_id", default=None, help="The item's id (default: <notebook>.cells-A-B).")
@click.option("--explanation", default=None, help="Why the label is right.")
@click.option("--pair", "pair_id", default=None,
              help="A pair id shared with the item's twin (the same idea done the other way, one OK and one PROBLEM).")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The items JSONL file to add to (created with its key file ITEMS.key.jsonl when absent).")
def import_notebook(notebook, cells, claim, verdict, family, flaw_lines, licence, repository, url, source_path,
                    item_id, explanation, pair_id, out_file) -> None:
    """Turn cells of a real notebook into a review item (outputs stripped) and append it to --out."""
    from bakeoff.review.importer import ImportRequest, append_item, build_record

    request = ImportRequest(notebook=notebook, cells=cells, claim=claim, verdict=verdict, licence=licence,
                            family=family, flaw_lines=_flaw_lines(flaw_lines), repository=repository, url=url,
                            path=source_path, item_id=item_id, explanation=explanation, pair_id=pair_id)
    record = build_record(request)
    append_item(out_file, record)
    click.echo(f"item {record['id']} ({len(record['code'].splitlines())} lines) appended to {out_file}")


review.add_command(audit)
COMMANDS = [review]
