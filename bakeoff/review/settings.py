"""Review run settings: defaults from task_specs/claim_review/settings.toml, overridden explicitly."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.models.base import GenerationSettings
from bakeoff.review.errors import ReviewSettingsInvalid


@dataclass(frozen=True)
class ReviewSettings:
    samples: int = 1
    max_tokens: int = 200
    temperature: float = 0.0
    seed: int = 0
    timeout_s: float = 300.0

    def generation(self, sample: int) -> GenerationSettings:
        """Settings for sample `sample` (0-based): each sample has its own seed."""
        return GenerationSettings(
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.seed + sample,
            timeout_s=self.timeout_s,
        )

    def with_overrides(self, **overrides: Any) -> ReviewSettings:
        """A copy with every override that is not None applied, then checked."""
        changed = dataclasses.replace(self, **{k: v for k, v in overrides.items() if v is not None})
        changed.check()
        return changed

    def check(self) -> None:
        if self.samples < 1:
            raise ReviewSettingsInvalid(f"samples must be at least 1, got {self.samples}")
        if self.max_tokens < 1:
            raise ReviewSettingsInvalid(f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ReviewSettingsInvalid(f"temperature must be >= 0, got {self.temperature}")
        if self.timeout_s <= 0:
            raise ReviewSettingsInvalid(f"timeout_s must be positive, got {self.timeout_s}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def default_settings_path() -> Path:
    import task_specs

    return Path(task_specs.__file__).parent / "claim_review" / "settings.toml"


def load_settings(path: Path | None = None) -> ReviewSettings:
    path = Path(path) if path is not None else default_settings_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ReviewSettingsInvalid(f"cannot read review settings {path}: {exc}") from None
    generation = data.get("generation", {})
    run = data.get("run", {})
    try:
        settings = ReviewSettings(
            samples=int(run.get("samples", 1)),
            max_tokens=int(generation.get("max_tokens", 200)),
            temperature=float(generation.get("temperature", 0.0)),
            seed=int(generation.get("seed", 0)),
            timeout_s=float(generation.get("timeout_s", 300.0)),
        )
    except (TypeError, ValueError) as exc:
        raise ReviewSettingsInvalid(f"{path}: {exc}") from None
    settings.check()
    return settings
