"""scripted:FILE: answers replayed from a JSONL file (bakeoff.models.scripted). It stands in for every kind in
tests and demos, so it takes any plan option and any reasoning mode (it replays the same)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bakeoff.models.kind import FileKind, ModelSpec, file_spec

if TYPE_CHECKING:
    from bakeoff.models.base import ModelBackend
    from bakeoff.models.options import BackendOptions


class ScriptedKind(FileKind):
    name = "scripted"
    form = "scripted:FILE"
    prefix = "scripted:"
    prefixes: tuple[str, ...] = ("scripted:",)
    what = "scripted answers file"
    engine_name = "scripted"
    open_weights = False  # no weights: recorded answers

    def parse(self, text: str) -> ModelSpec:
        return file_spec(text, self.name, text.removeprefix(self.prefix))

    def build(self, spec: ModelSpec, options: BackendOptions) -> ModelBackend:
        from pathlib import Path

        from bakeoff.models.scripted import ScriptedBackend

        return ScriptedBackend(Path(spec.target))


SCRIPTED = ScriptedKind()
