"""What the design document says the simulation does about the empty start and the interval, and whether
the behavioural probe agrees.

The decide prompt asks for two lines: `WARMUP: ...` (what is deleted from the start of a run, or `none`) and
`INTERVAL: ...` (how the interval is computed: batch means, independent replications, or independent
waits). Markdown emphasis and quoting are read; a document whose lines of one kind disagree states nothing of
that kind.
"""

from __future__ import annotations

import re
from enum import StrEnum

from generators.simulation.probe import Behaviour

_LINE = r"^[\s>*_`#-]*{word}[\s*_`]*[:=][\s*_`]*(?P<value>[^\n]*)$"
_WARMUP_LINE = re.compile(_LINE.format(word=r"warm[\s-]?up"), re.IGNORECASE | re.MULTILINE)
_INTERVAL_LINE = re.compile(_LINE.format(word="interval"), re.IGNORECASE | re.MULTILINE)
_NONE = re.compile(r"^(none|no|nothing|0|zero|not deleted|no warm[\s-]?up)\b", re.IGNORECASE)


class StatedWarmup(StrEnum):
    DELETED = "deleted"  # some start of the run is dropped (how much is the design's business)
    NONE = "none"
    UNSTATED = "unstated"  # no line, or lines that disagree


class StatedInterval(StrEnum):
    BATCH_MEANS = "batch_means"
    REPLICATIONS = "replications"
    INDEPENDENT = "independent"  # every wait treated as an independent draw
    OTHER = "other"  # named, but none of those (spectral, regenerative...): taken to allow for correlation
    UNSTATED = "unstated"


class Divergence(StrEnum):
    """What the design states against what the probe measured."""

    CONSISTENT = "consistent"
    CLAIMS_CORRELATION_ACTS_INDEPENDENT = "claims_correlation_acts_independent"  # the silent failure in the interval
    CLAIMS_WARMUP_ACTS_BIASED = "claims_warmup_acts_biased"  # ... in the estimate
    STATES_INDEPENDENT_ACTS_SOUND = "states_independent_acts_sound"
    UNSTATED = "unstated"  # the probe measured something the design does not say


def _values(pattern: re.Pattern[str], design: str | None) -> list[str]:
    return [m.group("value").strip().strip("*_` ").strip() for m in pattern.finditer(design or "")]


def stated_warmup(design: str | None) -> StatedWarmup:
    found = {StatedWarmup.NONE if _NONE.match(value) else StatedWarmup.DELETED for value in _values(_WARMUP_LINE, design)
             if value}
    return found.pop() if len(found) == 1 else StatedWarmup.UNSTATED


def _interval_kind(value: str) -> StatedInterval:
    text = value.lower()
    if "batch" in text:
        return StatedInterval.BATCH_MEANS
    if "replication" in text:
        return StatedInterval.REPLICATIONS
    if re.search(r"independen|\biid\b|i\.i\.d|naive|raw|every wait|each wait|standard error of the (mean|waits)", text):
        return StatedInterval.INDEPENDENT
    return StatedInterval.OTHER


def stated_interval(design: str | None) -> StatedInterval:
    found = {_interval_kind(value) for value in _values(_INTERVAL_LINE, design) if value}
    return found.pop() if len(found) == 1 else StatedInterval.UNSTATED


def divergence_of(warmup: StatedWarmup, interval: StatedInterval, measured: Behaviour | None) -> Divergence | None:
    """None when the probe measured no behaviour (failed, unclear, not run): nothing to compare."""
    if measured is Behaviour.INDEPENDENT:
        if interval is StatedInterval.UNSTATED:
            return Divergence.UNSTATED
        return (Divergence.CONSISTENT if interval is StatedInterval.INDEPENDENT
                else Divergence.CLAIMS_CORRELATION_ACTS_INDEPENDENT)
    if measured is Behaviour.BIASED:
        if warmup is StatedWarmup.UNSTATED:
            return Divergence.UNSTATED
        return Divergence.CONSISTENT if warmup is StatedWarmup.NONE else Divergence.CLAIMS_WARMUP_ACTS_BIASED
    if measured is Behaviour.SOUND:
        if interval is StatedInterval.UNSTATED:
            return Divergence.UNSTATED
        return (Divergence.STATES_INDEPENDENT_ACTS_SOUND if interval is StatedInterval.INDEPENDENT
                else Divergence.CONSISTENT)
    return None


DIVERGENT = (Divergence.CLAIMS_CORRELATION_ACTS_INDEPENDENT, Divergence.CLAIMS_WARMUP_ACTS_BIASED,
             Divergence.STATES_INDEPENDENT_ACTS_SOUND)
