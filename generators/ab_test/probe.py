"""The unit-of-analysis probe of the A/B-test take-home: is the interval computed by user or by visit,
and is it computed from the data at all?

Run the submission's analyze.py on an experiment, on the same experiment with every user's visits
duplicated (each visit logged a second time, an hour or so later and with another amount when it was a
purchase, so the copies are neither exact repeats nor re-fired purchases that a de-duplicating analysis
would drop), and on half of its users. A user-level analysis sees the same users with the same conversion
rates in the duplicated log and barely changes its interval; a visit-level one believes it has twice the
data and narrows it by about 1/sqrt(2). On half the users any analysis that reads the data widens by about
sqrt(2): an interval that stays exactly where it was is data-free (a constant, a hard-coded answer), and
one that moves but keeps its width has a fixed width (a band around an estimate, no variance).

`unit_verdict` is a pure function of the intervals; `run_unit_probe` takes the way to run analyze.py as a
callable, so that the sandbox can supply it (here: `host_runner`; in a batch: bakeoff.analysis.unit_probe).
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
# On half the users a width estimated from the data grows by about sqrt(2), but on a small experiment with few
# conversions its own noise can bring it within 2% of 1 (ab_test 3.0's lighter experiments: a per-user analysis
# measured 0.990 on the tiny corpus's first experiment). A band that estimates nothing keeps its width exactly.
FIXED_WIDTH_TOLERANCE = 1e-6
SAME_INTERVAL = 1e-12  # ends this close are the same interval (a data-free answer writes the same numbers)
COPY_DELAY_S = 3600  # a duplicated visit lands about an hour after its original

Runner = Callable[[Path, Path], None]  # (sessions CSV, result JSON) -> None; raises on failure


class Unit(StrEnum):
    USER = "user"
    VISIT = "visit"
    UNCLEAR = "unclear"  # the width moved, but neither like a user- nor like a visit-level analysis
    FAILED = "failed"  # a run failed or its result could not be read
    DATA_FREE = "data_free"  # the same interval on half the users: the log is not read (a constant, a hard-coded answer)
    FIXED_WIDTH = "fixed_width"  # the same width on half the users: no variance is estimated (a band around an estimate)


@dataclass(frozen=True)
class UnitProbe:
    unit: Unit
    original: IntervalResult | None
    duplicated: IntervalResult | None
    width_ratio: float | None  # duplicated width / original width
    message: str = ""
    halved: IntervalResult | None = None  # the interval on half of the users
    halved_width_ratio: float | None = None  # halved width / original width: about sqrt(2) for a real analysis

    def to_dict(self) -> dict[str, object]:
        interval = lambda r: None if r is None else [r.ci_low, r.ci_high]  # noqa: E731
        return {"unit": self.unit.value, "original": interval(self.original),
                "duplicated": interval(self.duplicated), "width_ratio": self.width_ratio, "message": self.message,
                "halved": interval(self.halved), "halved_width_ratio": self.halved_width_ratio}


def _same(a: IntervalResult, b: IntervalResult) -> bool:
    return abs(a.ci_low - b.ci_low) <= SAME_INTERVAL and abs(a.ci_high - b.ci_high) <= SAME_INTERVAL


def unit_verdict(original: IntervalResult, duplicated: IntervalResult, halved: IntervalResult | None = None) -> UnitProbe:
    """The verdict from the interval on the experiment, on its duplicated copy and (when run) on half its users."""
    width = original.ci_high - original.ci_low
    halved_ratio = None if halved is None or width <= 0 else (halved.ci_high - halved.ci_low) / width

    def probe(unit: Unit, ratio: float | None, message: str = "") -> UnitProbe:
        return UnitProbe(unit, original, duplicated, ratio, message, halved, halved_ratio)

    if halved is not None and _same(original, halved):
        return probe(Unit.DATA_FREE, None, "the same interval on half of the users")
    if width <= 0:
        return probe(Unit.UNCLEAR, None, "the original interval has no width")
    ratio = (duplicated.ci_high - duplicated.ci_low) / width
    if halved_ratio is not None and abs(halved_ratio - 1) <= FIXED_WIDTH_TOLERANCE:
        return probe(Unit.FIXED_WIDTH, ratio, "the same width on half of the users")
    if ratio >= USER_MIN_RATIO:
        return probe(Unit.USER, ratio)
    if ratio <= VISIT_MAX_RATIO:
        return probe(Unit.VISIT, ratio)
    return probe(Unit.UNCLEAR, ratio)


def _copy_times(users: pd.Series, seconds: pd.Series) -> dict[tuple[str, int], int]:
    """For each distinct (user, time), a second about COPY_DELAY_S later that is neither a visit of that user
    nor another copy."""
    taken: dict[str, set[int]] = {}
    for user, second in zip(users, seconds, strict=True):
        taken.setdefault(user, set()).add(second)
    copies = {}
    for user, times in taken.items():
        for second in sorted(times):
            later = second + COPY_DELAY_S
            while later in times:
                later += 1
            times.add(later)
            copies[(user, second)] = later
    return copies


def duplicate_visits(sessions: Path, out: Path) -> None:
    """Write `sessions` with every visit logged twice, the copy about an hour after the original, never on a
    (user, time) already in the log, and a copied purchase with another amount: only the log's own exact
    repeats stay exact repeats, and no copy looks like a purchase event fired again."""
    frame = pd.read_csv(sessions, dtype={"visit_time": str})
    stamps = pd.to_datetime(frame["visit_time"])
    seconds = (stamps - stamps.min()).dt.total_seconds().astype("int64")
    later = _copy_times(frame["user_id"], seconds)
    shift = [later[key] - key[1] for key in zip(frame["user_id"], seconds, strict=True)]
    copy = frame.assign(visit_time=(stamps + pd.to_timedelta(shift, unit="s")).dt.strftime("%Y-%m-%dT%H:%M:%S"))
    if "revenue" in copy.columns:
        revenue = pd.to_numeric(copy["revenue"], errors="coerce")
        copy["revenue"] = revenue.where(revenue <= 0, (revenue * 1.07 + 0.5).round(2))
    both = pd.concat([frame, copy], ignore_index=True).sort_values(["visit_time", "user_id"], kind="stable")
    both.to_csv(out, index=False, lineterminator="\n")


def halve_users(sessions: Path, out: Path) -> None:
    """Write `sessions` with every second user (in order of first appearance) and all of their visits."""
    frame = pd.read_csv(sessions, dtype={"visit_time": str})
    users = frame["user_id"].drop_duplicates()
    kept = set(users.iloc[::2])
    frame[frame["user_id"].isin(kept)].to_csv(out, index=False, lineterminator="\n")


def run_unit_probe(run: Runner, sessions: Path) -> UnitProbe:
    """Run analyze.py (through `run`) on `sessions`, its duplicated copy and half its users; return the verdict."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-unit-probe-") as scratch:
        folder = Path(scratch)
        doubled, halved = folder / "sessions_doubled.csv", folder / "sessions_halved.csv"
        duplicate_visits(Path(sessions), doubled)
        halve_users(Path(sessions), halved)
        try:
            for name, path in (("original", Path(sessions)), ("duplicated", doubled), ("halved", halved)):
                run(path, folder / f"{name}.json")
            results = [read_result(folder / f"{name}.json") for name in ("original", "duplicated", "halved")]
        except ResultFileError as exc:
            return UnitProbe(Unit.FAILED, None, None, None, f"{exc.name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - whatever the runner raised, the verdict is "failed"
            return UnitProbe(Unit.FAILED, None, None, None, f"{type(exc).__name__}: {exc}"[:2000])
    return unit_verdict(*results)


def host_runner(submission: Path, python: str = sys.executable) -> Runner:
    """Run `submission`/analyze.py as a plain subprocess on this machine (trusted code only)."""
    from generators.ab_test.calibration import run_analyze

    return lambda sessions, output: run_analyze(Path(submission), sessions, output, python)
