"""The list of command modules. Each module exposes `COMMANDS`, a list of click commands."""

from __future__ import annotations

import importlib

import click

# One module per command group; each is owned by the component it fronts.
COMMAND_MODULES = (
    "bakeoff.cli.corpus",  # generate, calibrate
    "bakeoff.cli.sandbox",  # sandbox build
    "bakeoff.cli.check",  # check (engine, GPU, sandbox, disk)
    "bakeoff.cli.score",  # score
    "bakeoff.cli.models",  # models, ask
    "bakeoff.cli.batch",  # run, status, demo
    "bakeoff.cli.report",  # analyze, report
    "bakeoff.cli.leaderboard",  # leaderboard (batches pooled)
    "bakeoff.cli.review",  # review
    "bakeoff.cli.export",  # export (Inspect logs, Every Eval Ever records)
)


def all_commands() -> list[click.Command]:
    commands: list[click.Command] = []
    for name in COMMAND_MODULES:
        commands.extend(importlib.import_module(name).COMMANDS)
    return commands
