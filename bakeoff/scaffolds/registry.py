"""Scaffolds by name: the registry of plug-ins. Lookups import the plug-in's module only when it is asked for."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

from bakeoff.errors import BakeoffError
from bakeoff.records import DEFAULT_SCAFFOLD, StepReader
from bakeoff.runner.scaffold import Scaffold

__all__ = ["DEFAULT_SCAFFOLD", "UnknownScaffold", "scaffold_names", "scaffold_plugin", "scaffolds_for", "step_readers"]

# name -> "module:Class". A third scaffold adds one line here (docs/tasks.md, "Adding a scaffold").
_PLUGINS: dict[str, str] = {
    "staged": "bakeoff.scaffolds.staged.plugin:Staged",
    "agent": "bakeoff.scaffolds.agent.plugin:Agent",
}


class UnknownScaffold(BakeoffError):
    """A scaffold name that no plug-in answers to."""


def scaffold_names() -> tuple[str, ...]:
    return tuple(_PLUGINS)


def scaffold_plugin(name: str) -> Scaffold:
    """The plug-in of the scaffold `name`; UnknownScaffold naming the known ones otherwise."""
    target = _PLUGINS.get(name)
    if target is None:
        raise UnknownScaffold(f"no scaffold named {name!r}; known scaffolds: {', '.join(scaffold_names())}")
    module, cls = target.split(":")
    plugin = getattr(import_module(module), cls)()
    if not isinstance(plugin, Scaffold) or plugin.name != name:
        raise UnknownScaffold(f"{target} is not the plug-in of scaffold {name!r}")
    return plugin


def step_readers(name: str) -> StepReader | None:
    """The decoder of scaffold `name`'s step records, for the readers of a batch (bakeoff.batchfolder.read); None
    for a scaffold that writes none, or one this bakeoff does not know (its steps then refuse the run, by name)."""
    return scaffold_plugin(name).step_reader() if name in _PLUGINS else None


def scaffolds_for(names: Iterable[str]) -> dict[str, Scaffold]:
    """The plug-ins of a plan's scaffolds, by name."""
    return {name: scaffold_plugin(name) for name in names}
