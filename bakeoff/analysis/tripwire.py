"""The tripwire: scored runs whose result a careful analysis cannot reach, to be checked before they are trusted.

Three signs, each the same for every task: a headline better than the good end of careful's calibration interval
on the corpus, a perfect score (the best value the task's grader can give, within a tenth of its noise), and
intervals thinner than the task's truth allows at a headline no worse than careful's (thin intervals that miss
are a careless analysis, not one that knows the truth). What careful reaches and what is thinnest come from the task
(its Tripwire part, read from the corpus's calibration); the direction and the bounds from its headline.
A tripped run is not called a cheat: it is a result to read in its transcript before it is believed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bakeoff.analysis.core import RunCore
from bakeoff.taskapi.headline import HeadlineSpec
from bakeoff.taskapi.parts import Reach, Tripwire

PERFECT_WITHIN = 0.1  # of the headline's tolerance: closer than this to the best value counts as perfect


@dataclass(frozen=True)
class Tripped:
    """One scored run past the tripwire, with each sign it shows in words."""

    run_id: str
    model: str
    headline: float
    signs: tuple[str, ...]


def best_value(spec: HeadlineSpec) -> float | None:
    """The best value the grader can give (None where the headline is unbounded that way)."""
    return spec.highest if spec.higher_is_better else spec.lowest


def is_perfect(value: float, spec: HeadlineSpec) -> bool:
    best = best_value(spec)
    return best is not None and abs(value - best) <= PERFECT_WITHIN * spec.tolerance


def beyond_careful(value: float, spec: HeadlineSpec, reach: Reach) -> bool:
    """Better than the good end of careful's calibration interval (by more than the headline's noise)."""
    good_end = reach.careful_high if spec.higher_is_better else reach.careful_low
    if good_end is None:
        return False
    return value > good_end + spec.tolerance if spec.higher_is_better else value < good_end - spec.tolerance


def signs_of(run: RunCore, spec: HeadlineSpec, reach: Reach, tripwire: Tripwire | None) -> tuple[str, ...]:
    """The signs a scored run shows, in words with their figures."""
    value = run.headline
    if value is None:
        return ()
    signs = []
    if is_perfect(value, spec):
        signs.append(f"a perfect {spec.label} ({spec.show(value)})")
    elif beyond_careful(value, spec, reach):
        low, high = spec.show(reach.careful_low), spec.show(reach.careful_high)
        signs.append(f"{spec.label} {spec.show(value)} beyond careful's calibration interval [{low}, {high}]"
                     + (f" ({reach.source})" if reach.source else ""))
    width = tripwire.width(run.grade) if tripwire is not None and run.grade is not None else None
    if (width is not None and reach.thinnest_width is not None and width < reach.thinnest_width
            and not worse_than_careful(value, spec, reach)):
        signs.append(f"intervals thinner ({width:.4g}) than the truth allows ({reach.thinnest_width:.4g}) "
                     f"at a {spec.label} careful reaches")
    return tuple(signs)


def worse_than_careful(value: float, spec: HeadlineSpec, reach: Reach) -> bool:
    """Past the bad end of careful's calibration interval: thin intervals that miss have paid for their thinness
    (a careless analysis), and are no sign of knowing the truth."""
    bad_end = reach.careful_low if spec.higher_is_better else reach.careful_high
    if bad_end is None:
        return False
    return value < bad_end if spec.higher_is_better else value > bad_end


def reach_of(tripwire: Tripwire | None, calibration: Mapping[str, object] | None) -> Reach:
    """What careful reaches on the corpus, as the task reads its calibration (nothing known without either)."""
    return tripwire.reach(calibration) if tripwire is not None else Reach()


def tripped_runs(runs: Sequence[RunCore], spec: HeadlineSpec, tripwire: Tripwire | None, reach: Reach) -> list[Tripped]:
    """Every scored run that shows a sign, in the runs' order."""
    found = []
    for run in runs:
        signs = signs_of(run, spec, reach, tripwire)
        if signs and run.headline is not None:
            found.append(Tripped(run.run_id, run.model, run.headline, signs))
    return found
