"""The command line: a thin edge that parses, builds a config, calls the library.

Each command group lives in its own module; heavy libraries are imported
inside the command bodies so that `--help` stays instant.
"""

from __future__ import annotations

import sys

import click

from bakeoff import __version__
from bakeoff.errors import user_facing_errors


class BakeoffGroup(click.Group):
    """Turns bakeoff's own errors into a one-line message and a non-zero exit."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except user_facing_errors() as exc:  # noqa: B030 - the tuple is built lazily
            from bakeoff.textsafe import printable

            click.echo(f"error: {type(exc).__name__}: {printable(exc)}", err=True)  # messages quote untrusted text
            sys.exit(getattr(exc, "exit_code", 2))
        except KeyboardInterrupt:
            # Ctrl-C is 130 in every command (the shell's 128 + SIGINT), as `run` and `score` say it; click alone
            # would print "Aborted!" and exit 1. What a command was writing is staged, so nothing half-made is left.
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=BakeoffGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bakeoff")
def main() -> None:
    """Measure how well language models do unattended data-science work."""


def _register_commands() -> None:
    from bakeoff.cli import commands

    for command in commands.all_commands():
        main.add_command(command)


_register_commands()
