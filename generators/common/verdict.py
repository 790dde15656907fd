"""The verdict a full-size calibration bench prints last, and its exit status.

The full-size calibrations live in bench/ (minutes each on two cores), not in the suite; what the suite asserted at
full size is asserted here instead: the targets hold, and careful beats every cheater by a paired interval above zero
on the public secret and on each fresh one. A failure names the row, the secret it lost on (replayable with
`bakeoff generate --secret-file`), and the margin, and the bench exits 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def failures(targets: Mapping[str, bool], cheaters: Sequence[Any], secret_id: str,
             spread_secret_ids: Sequence[str]) -> list[str]:
    """Every target that did not hold and every (cheater, secret) careful did not beat, one line each."""
    lines = unmet(targets)
    for row in cheaters:
        pairs = [(secret_id, row.margin), *zip(spread_secret_ids, row.spread_margins, strict=True)]
        for secret, margin in pairs:
            if margin is None or not margin.careful_better:
                lines.append(not_beaten(row.variant, secret, margin))
    return lines


def unmet(targets: Mapping[str, bool]) -> list[str]:
    """A line for each target that did not hold."""
    return [f"target not met: {name}" for name, held in targets.items() if not held]


def not_beaten(variant: str, secret_id: str, margin: object) -> str:
    """The line for a row careful did not beat on a secret."""
    return f"careful does not beat {variant} on secret {secret_id}: {margin}"


def report(lines: Sequence[str]) -> int:
    """Print the verdict; the exit status a bench returns."""
    if not lines:
        print("verdict: every target held; careful beat every cheater on every secret")
        return 0
    print("verdict: FAILED")
    for line in lines:
        print(f"  {line}")
    return 1
