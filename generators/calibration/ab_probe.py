"""The unit-of-analysis probe of the A/B-test take-home: is the interval computed by user or by visit?

Run the submission's analyze.py on an experiment and on the same experiment with every user's visits
duplicated (each visit logged a second time, a second or so later, so the copies are not repeats
that a de-duplicating analysis would drop). A user-level analysis sees the same users with the same
conversion rates and barely changes its interval; a visit-level one believes it has twice the data and
narrows it by about 1/sqrt(2). The verdict compares the width ratio with those two.

`unit_verdict` is a pure function of the two intervals; `run_unit_probe` takes the way to run
analyze.py as a callable, so that the sandbox can supply it later (here: `host_runner`).
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import pandas as pd

from scorer.interval_reading import IntervalResult, ResultFileError, read_result

VISIT_RATIO = 1 / math.sqrt(2)
# Halfway (geometrically) between 1 and 1/sqrt(2) is 2^-0.25 = 0.84; the bands leave room on both sides.
USER_MIN_RATIO = 0.92
VISIT_MAX_RATIO = 0.78

Runner = Callable[[Path, Path], None]  # (sessions CSV, result JSON) -> None; raises on failure


class Unit(StrEnum):
    USER = "user"
    VISIT = "visit"
    UNCLEAR = "unclear"  # the width moved, but neither like a user- nor like a visit-level analysis
    FAILED = "failed"  # a run failed or its result could not be read


@dataclass(frozen=True)
class UnitProbe:
    unit: Unit
    original: IntervalResult | None
    duplicated: IntervalResult | None
    width_ratio: float | None  # duplicated width / original width
    message: str = ""

    def to_dict(self) -> dict[str, object]:
        interval = lambda r: None if r is None else [r.ci_low, r.ci_high]  # noqa: E731
        return {"unit": self.unit.value, "original": interval(self.original),
                "duplicated": interval(self.duplicated), "width_ratio": self.width_ratio, "message": self.message}


def unit_verdict(original: IntervalResult, duplicated: IntervalResult) -> UnitProbe:
    """The verdict from the interval on the experiment and on its duplicated copy."""
    width = original.ci_high - original.ci_low
    if width <= 0:
        return UnitProbe(Unit.UNCLEAR, original, duplicated, None, "the original interval has no width")
    ratio = (duplicated.ci_high - duplicated.ci_low) / width
    if ratio >= USER_MIN_RATIO:
        unit = Unit.USER
    elif ratio <= VISIT_MAX_RATIO:
        unit = Unit.VISIT
    else:
        unit = Unit.UNCLEAR
    return UnitProbe(unit, original, duplicated, ratio)


def _copy_times(users: pd.Series, seconds: pd.Series) -> dict[tuple[str, int], int]:
    """For each distinct (user, time), a later second that is neither a visit of that user nor another copy."""
    taken: dict[str, set[int]] = {}
    for user, second in zip(users, seconds, strict=True):
        taken.setdefault(user, set()).add(second)
    copies = {}
    for user, times in taken.items():
        for second in sorted(times):
            later = second + 1
            while later in times:
                later += 1
            times.add(later)
            copies[(user, second)] = later
    return copies


def duplicate_visits(sessions: Path, out: Path) -> None:
    """Write `sessions` with every visit logged twice, the copy a second or so after the original and
    never on a (user, time) already in the log, so only the log's own exact repeats stay exact repeats."""
    frame = pd.read_csv(sessions, dtype={"visit_time": str})
    stamps = pd.to_datetime(frame["visit_time"])
    seconds = (stamps - stamps.min()).dt.total_seconds().astype("int64")
    later = _copy_times(frame["user_id"], seconds)
    shift = [later[key] - key[1] for key in zip(frame["user_id"], seconds, strict=True)]
    copy = frame.assign(visit_time=(stamps + pd.to_timedelta(shift, unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S"))
    both = pd.concat([frame, copy], ignore_index=True).sort_values(["visit_time", "user_id"], kind="stable")
    both.to_csv(out, index=False, lineterminator="\n")


def run_unit_probe(run: Runner, sessions: Path) -> UnitProbe:
    """Run analyze.py (through `run`) on `sessions` and on its duplicated copy; return the verdict."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-unit-probe-") as scratch:
        folder = Path(scratch)
        doubled = folder / "sessions_doubled.csv"
        duplicate_visits(Path(sessions), doubled)
        try:
            run(Path(sessions), folder / "original.json")
            run(doubled, folder / "duplicated.json")
            original, duplicated = read_result(folder / "original.json"), read_result(folder / "duplicated.json")
        except ResultFileError as exc:
            return UnitProbe(Unit.FAILED, None, None, None, f"{exc.name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - whatever the runner raised, the verdict is "failed"
            return UnitProbe(Unit.FAILED, None, None, None, f"{type(exc).__name__}: {exc}"[:2000])
    return unit_verdict(original, duplicated)


def host_runner(submission: Path, python: str = sys.executable) -> Runner:
    """Run `submission`/analyze.py as a plain subprocess on this machine (trusted code only)."""
    from generators.calibration.ab_test import run_analyze

    return lambda sessions, output: run_analyze(Path(submission), sessions, output, python)
