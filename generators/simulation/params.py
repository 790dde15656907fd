"""The knobs of the simulation take-home's data, validated once, passed down explicitly."""

from __future__ import annotations

from dataclasses import dataclass, fields

from generators.errors import InvalidParameter

GENERATOR_VERSION = "simulation-1.0"
MAX_CONFIGURATIONS = 1000
MAX_CPU_SECONDS = 600


@dataclass(frozen=True)
class SimParams:
    """Everything that determines the visible examples and the hidden configurations (with the secret)."""

    seed: int = 0
    configurations: int = 48  # hidden configurations
    cpu_seconds: int = 5  # the CPU-time budget of one simulate.py run, written into every configuration

    def __post_init__(self) -> None:
        _whole("seed", self.seed, 0, 2**63 - 1)
        _whole("configurations", self.configurations, 1, MAX_CONFIGURATIONS)
        _whole("cpu_seconds", self.cpu_seconds, 1, MAX_CPU_SECONDS)

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _whole(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be in [{low}, {high}], got {value}")
