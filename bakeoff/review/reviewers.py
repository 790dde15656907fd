"""Who answers a review: a model backend, or the review's own surface reader `baseline:cues`.

`baseline:cues` is no model: it lives on the review side (bakeoff.review.cues) and only the
review opens it, so the model registry knows nothing of the review benchmark. Every other
spec goes to the model registry.
"""

from __future__ import annotations

from pathlib import Path

from bakeoff.models.base import ModelBackend
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.review.cues import SPEC as CUES_SPEC


def is_cues_spec(spec: str) -> bool:
    """`baseline:cues` (trained on the shipped bank) or `baseline:cues:FILE` (on the items in FILE)."""
    spec = spec.strip()
    return spec == CUES_SPEC or spec.startswith(CUES_SPEC + ":")


def open_reviewer(spec: str, options: BackendOptions | None = None) -> ModelBackend:
    """The backend that answers a review for `spec`: the cue reader, or the model the registry opens."""
    if is_cues_spec(spec):
        from bakeoff.review.cues import open_cues

        target = spec.strip()[len(CUES_SPEC) + 1:]
        return open_cues(Path(target) if target else None)
    return open_backend(spec, options)
