"""The backend kinds, registered once: every caller reaches a kind's grammar, options, checks and factory
through `KINDS` (bakeoff.models.spec parses with it, kind_of finds a parsed spec's kind).

Each kind's module loads no backend library until its `build` (or a check) is called.
"""

from __future__ import annotations

from bakeoff.models.errors import ModelSpecError
from bakeoff.models.kind import BackendKind, ModelSpec
from bakeoff.models.kinds.gguf import GGUF
from bakeoff.models.kinds.ollama import OLLAMA
from bakeoff.models.kinds.openai import OPENAI
from bakeoff.models.kinds.scripted import SCRIPTED

KINDS: tuple[BackendKind, ...] = (GGUF, OPENAI, OLLAMA, SCRIPTED)


class UnknownModelKind(ModelSpecError):
    """A parsed spec (or a kind's name) that no registered kind owns."""


def kind_named(name: str) -> BackendKind:
    found = next((kind for kind in KINDS if kind.name == name), None)
    if found is None:
        raise UnknownModelKind(f"no backend kind {name!r}; known: {', '.join(kind.name for kind in KINDS)}")
    return found


def kind_of(spec: ModelSpec) -> BackendKind:
    """The kind that parsed `spec`."""
    return kind_named(spec.kind)


def kind_claiming(text: str) -> BackendKind | None:
    """The kind whose form `text` is, reading no file: one whose prefix it starts with (or whose word it is),
    else one that takes it bare (a path ending .gguf); None for none."""
    for kind in KINDS:
        if any(text == head or (head.endswith(":") and text.startswith(head)) for head in kind.prefixes):
            return kind
    return next((kind for kind in KINDS if kind.bare(text)), None)
