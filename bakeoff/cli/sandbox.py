"""`bakeoff sandbox build`: make the sandbox image (`bakeoff check` says which isolation works here)."""

from __future__ import annotations

from pathlib import Path

import click

from sandbox.image import DEFAULT_BASE_IMAGE as DEFAULT_BASE
from sandbox.image import IMAGE_TAG as DEFAULT_IMAGE


class RichBuildProgress:
    """Shows each build step as a line, and the latest detail line beside a spinner."""

    def __init__(self, console, status) -> None:
        self.console = console
        self.status = status

    def step(self, message: str) -> None:
        self.console.print(f"[bold]•[/bold] {message}")
        self.status.update(message)

    def detail(self, line: str) -> None:
        self.status.update(line.strip()[:120] or "working")


@click.group("sandbox")
def sandbox_group() -> None:
    """Build the sandbox image (`bakeoff check` says which isolation is usable here)."""


@sandbox_group.command("build")
@click.option("--bootstrap", is_flag=True,
              help="When the base image is not here and cannot be pulled, make one offline with debootstrap (needs root).")
@click.option("--base-image", default=DEFAULT_BASE, show_default=True, help="Base image (FROM) for the sandbox image.")
@click.option("--mirror", default=None, help="Debian mirror for --bootstrap (default: the one this machine's apt sources use).")
@click.option("--wheelhouse", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Wheel cache for the image's Python stack (default: the bakeoff cache).")
@click.option("--tag", "image_tag", default=DEFAULT_IMAGE, show_default=True, help="Name of the image to build.")
@click.option("--force", is_flag=True, help="Rebuild even when the image is up to date.")
def build(bootstrap: bool, base_image: str, mirror: str | None, wheelhouse: Path | None, image_tag: str, force: bool) -> None:
    """Build the sandbox image (skipped, in well under a second, when it is up to date).

    The image holds a Python 3.11 virtual environment at /opt/venv with numpy,
    pandas, scikit-learn, scipy and joblib, installed offline from a wheelhouse
    this machine fills with `pip download`. It is labelled with a hash of its
    recipe; a build with the same recipe does nothing.
    """
    from rich.console import Console

    from sandbox.image import BuildOptions, build_image
    from sandbox.wheelhouse import default_wheelhouse

    options = BuildOptions(
        image_tag=image_tag, base_image=base_image, bootstrap=bootstrap, mirror=mirror,
        wheelhouse=(wheelhouse or default_wheelhouse()).resolve(), force=force,
    )
    console = Console(stderr=True)
    with console.status("building the sandbox image") as status:
        report = build_image(options, RichBuildProgress(console, status))
    verb = "built" if report.built else "up to date:"
    click.echo(f"{verb} {report.image_tag} ({report.image_id[7:19]}) from {report.base_image} in {report.duration_s:.1f}s")


COMMANDS = [sandbox_group]
