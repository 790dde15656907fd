"""`bakeoff check`: the engine, the GPU, the sandbox and the disk of this machine, in one table."""

from __future__ import annotations

import sys
from pathlib import Path

import click

import durable
from sandbox.image import IMAGE_TAG as DEFAULT_IMAGE
from sandbox.kinds import DOCKER, ISOLATING_KINDS


@click.command("check")
@click.option("--model", default="default", show_default=True, help="GGUF model spec the engine is tried with.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"), show_default=True,
              help="Where the batch will write (its free disk is reported).")
@click.option("--sandbox", type=click.Choice(ISOLATING_KINDS), default=DOCKER, show_default=True,
              help="The isolation the batch will use: only its failure makes the check fail.")
@click.option("--image", default=DEFAULT_IMAGE, show_default=True, help="Sandbox image the Docker isolation would use.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def check_command(model: str, out_dir: Path, sandbox: str, image: str, as_json: bool) -> None:
    """Say what this machine offers a batch: engine build and whether it generates a token (tried in its own
    process), GPU offload and free GPU memory, the Docker engine and the sandbox image, bubblewrap, free disk.

    Exits 0 when nothing the batch needs fails (the engine generates, the chosen isolation works,
    there is disk), 1 otherwise.
    """
    from bakeoff.models.errors import ModelSpecError
    from bakeoff.models.kinds import kind_of
    from bakeoff.models.spec import parse_spec
    from bakeoff.preflight import CheckOptions, machine_report, render

    parsed = parse_spec(model)
    model_path = kind_of(parsed).engine_model(parsed)
    if model_path is None:
        raise ModelSpecError(f"the engine is tried with a GGUF model, not {model!r}")
    options = CheckOptions(image=image, out_dir=out_dir, model_path=model_path, sandbox=sandbox)
    report = machine_report(options)
    if as_json:
        click.echo(durable.dumps({"ready": report.ready, "rows": [row.to_dict() for row in report.rows]}, indent=1))
    else:
        click.echo(render(report))
    sys.exit(0 if report.ready else 1)


COMMANDS = [check_command]
