"""The knobs of the simulation take-home's data, validated once, passed down explicitly."""

from __future__ import annotations

from dataclasses import dataclass, fields

from generators.errors import InvalidParameter

# 2.0 (issue 34): families mostly without an exact method, their truth a secret-seeded reference simulation.
# A 1.0 folder still reads: its configurations and truth file have the same fields (truth_se is new, optional).
# 2.1: the reference's replication means combined with two control variates, and its orders sized by the line's
# stations (generators/simulation/reference.py): the same CPU gives a truth with about half the variance, spent
# where careful is narrowest; every simulated truth is computed anew.
GENERATOR_VERSION = "simulation-2.1"
MAX_CONFIGURATIONS = 1000
MAX_CPU_SECONDS = 600
MAX_REFERENCE_MILLIONS = 100_000
MAX_REFERENCE_BATCHES = 20


@dataclass(frozen=True)
class SimParams:
    """Everything that determines the visible examples and the hidden configurations (with the secret)."""

    seed: int = 0
    configurations: int = 48  # hidden configurations
    cpu_seconds: int = 5  # the CPU-time budget of one simulate.py run, written into every configuration
    # Orders (millions) of the reference simulation that gives the truth of a line with no exact method, before
    # its share by stations (reference.ORDERS_BY_STATIONS: x1.5 at one station, x1.15 at two, x0.85 above):
    # about 35 ns an order, so about 175 CPU seconds a line; with the control variates its 95% half-width is at
    # most about 0.09 of careful's at a 5-second budget (docs/tasks.md); its standard error is written beside the
    # truth. Small test corpora pass a few millions (all their tests need).
    reference_millions: int = 5000
    # Independent batches of `reference_millions` each, pooled (their mean): more orders for a line's truth without
    # throwing away the batch a corpus already has (batch 0 is a one-batch corpus's, seeded as before).
    reference_batches: int = 1

    def __post_init__(self) -> None:
        _whole("seed", self.seed, 0, 2**63 - 1)
        _whole("configurations", self.configurations, 1, MAX_CONFIGURATIONS)
        _whole("cpu_seconds", self.cpu_seconds, 1, MAX_CPU_SECONDS)
        _whole("reference_millions", self.reference_millions, 1, MAX_REFERENCE_MILLIONS)
        _whole("reference_batches", self.reference_batches, 1, MAX_REFERENCE_BATCHES)

    def to_dict(self) -> dict[str, object]:
        """Every parameter, but one reference batch (the default) left unsaid: a one-batch corpus's manifest stays
        byte for byte what it was before batches existed."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if not (f.name == "reference_batches" and self.reference_batches == 1)}


def _whole(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be in [{low}, {high}], got {value}")
