"""What bakeoff itself reads of a corpus's manifest.json: the task it is for, its generator's version and the id of
the secret its hidden part was drawn with. The rest of a manifest is its task's (each task reads its own part).

A manifest comes with a corpus, made by a generator of any age, so this read is lenient: a field that is absent
or not text reads as absent, and the reader that needs it says what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ManifestHead:
    task: str | None = None  # the task's name (manifests of old name only their generator)
    generator_version: str | None = None  # "<generator>-<version>"
    secret_id: str | None = None  # the id of the secret the hidden part was drawn with

    @classmethod
    def of(cls, manifest: Any) -> ManifestHead:
        if not isinstance(manifest, Mapping):
            return cls()
        return cls(*(_text(manifest, key) for key in ("task", "generator_version", "secret_id")))


def _text(manifest: Mapping[str, Any], key: str) -> str | None:
    value = manifest.get(key)
    return value if isinstance(value, str) else None
