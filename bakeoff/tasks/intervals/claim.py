"""An interval task's part of a claim: the interval of the ESTIMATE line, kept in the claim record's `extra`
beside the claimed point (bakeoff.records.Claim), written (`to_json`) and read (`from_json`) by the records'
library: a claimed_ci that is not a pair of numbers is a DamagedRecord."""

from __future__ import annotations

from dataclasses import dataclass

from bakeoff.records.codec import JsonRecord


@dataclass(frozen=True)
class ClaimedInterval(JsonRecord):
    claimed_ci: tuple[float, float] | None = None  # [low, high] as the ESTIMATE line gave them
