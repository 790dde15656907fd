"""The ab_test take-home's behavioural probe, run in the run's own sandbox, and the design's stated unit.

The probe asks the code what the design document only claims: it runs the submission's `analyze.py` on
one experiment, on the same experiment with every user's visits logged twice (the copies about an hour
later, so a de-duplicating analysis keeps them; `generators.ab_test.probe.duplicate_visits`) and on
half of its users. An analysis by user sees the same users with the same rates and keeps its interval; an
analysis by visit believes it has twice the data and narrows it by about 1/sqrt(2); an answer that does
not move on half the users is data-free, one whose width does not move has a fixed width. The verdict rule
is the calibration probe's own (`unit_verdict`), so the references' verdicts and a model's mean the same thing.

The design document states its unit on a line `UNIT: user` or `UNIT: visit` (the decide prompt asks for
it); `divergence_of` compares that with the measured unit.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from bakeoff.records.codec import decode
from bakeoff.taskapi.hidden_inputs import HiddenInputs
from generators.ab_test.probe import Unit, UnitProbe, duplicate_visits, halve_users, unit_verdict
from scorer.interval_reading import IntervalResult, ResultFileError, read_result

UNIT_PROBE_KEY = "unit_probe"  # the evaluate record's extras (and analysis.json): the probe's record
Command = Callable[[str, str], tuple[list[str], float]]  # grading's command for (experiment, output): argv, limit

ORIGINAL, DUPLICATED, HALVED = "original", "duplicated", "halved"
_UNIT_LINE = re.compile(r"^[\s>*_`#-]*unit(?: of analysis)?[\s*_`]*[:=][\s*_`]*(users?|visits?)\b", re.IGNORECASE | re.MULTILINE)


class StatedUnit(StrEnum):
    """What the design document says its unit of analysis is."""

    USER = "user"
    VISIT = "visit"
    BOTH = "both"  # UNIT lines naming both: no single claim to hold the code to
    UNSTATED = "unstated"


class UnitDivergence(StrEnum):
    """The stated unit against the measured one."""

    CONSISTENT = "consistent"
    STATES_USER_ANALYSES_VISITS = "states_user_analyses_visits"  # the silent failure the take-home is about
    STATES_VISIT_ANALYSES_USERS = "states_visit_analyses_users"
    UNSTATED = "unstated"  # the code has a unit, the design names none (or both)


def stated_unit(design: str | None) -> StatedUnit:
    """The unit named by the design's `UNIT:` lines (Markdown emphasis, quoting and plurals allowed)."""
    found = {match.group(1).lower().rstrip("s") for match in _UNIT_LINE.finditer(design or "")}
    if not found:
        return StatedUnit.UNSTATED
    return StatedUnit(found.pop()) if len(found) == 1 else StatedUnit.BOTH


def divergence_of(stated: StatedUnit, measured: Unit | None) -> UnitDivergence | None:
    """None when the probe did not measure a unit (failed, unclear, not run): nothing to compare."""
    if measured not in (Unit.USER, Unit.VISIT):
        return None
    if stated in (StatedUnit.UNSTATED, StatedUnit.BOTH):
        return UnitDivergence.UNSTATED
    if stated.value == measured.value:
        return UnitDivergence.CONSISTENT
    if stated is StatedUnit.USER:
        return UnitDivergence.STATES_USER_ANALYSES_VISITS
    return UnitDivergence.STATES_VISIT_ANALYSES_USERS


@dataclass(frozen=True)
class AnalyzeAttempt:
    """One execution of analyze.py during the probe."""

    name: str  # original, duplicated or halved
    ok: bool
    crash_class: str | None = None
    detail: str | None = None
    duration_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "crash_class": self.crash_class, "detail": self.detail,
                "duration_s": self.duration_s}


@dataclass(frozen=True)
class UnitProbeRecord:
    """The probe's record: the verdict, the experiment it ran on, and each execution of analyze.py."""

    probe: UnitProbe
    experiment: str
    attempts: tuple[AnalyzeAttempt, ...] = ()

    @property
    def unit(self) -> Unit:
        return self.probe.unit

    def to_dict(self) -> dict[str, Any]:
        return {**self.probe.to_dict(), "experiment": self.experiment,
                "attempts": [attempt.to_dict() for attempt in self.attempts]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UnitProbeRecord:
        """Back from `to_dict`; DamagedRecord when it is not one (a `unit` that is not one of the verdicts)."""
        found = decode(UnitProbeJson, data)
        probe = UnitProbe(found.unit, _interval(found.original), _interval(found.duplicated), found.width_ratio,
                          found.message or "", _interval(found.halved), found.halved_width_ratio)
        return cls(probe, found.experiment or "", found.attempts)


Pair = tuple[float, float]  # an interval as the record keeps it: [low, high]


@dataclass(frozen=True)
class UnitProbeJson:
    """The probe's record as `UnitProbeRecord.to_dict` writes it: the verdict's fields (UnitProbe.to_dict) beside
    the experiment and the attempts; read through the records' library (its types checked, a missing one named)."""

    unit: Unit
    original: Pair | None = None
    duplicated: Pair | None = None
    width_ratio: float | None = None
    message: str | None = None
    halved: Pair | None = None
    halved_width_ratio: float | None = None
    experiment: str | None = None
    attempts: tuple[AnalyzeAttempt, ...] = ()


def _interval(pair: Pair | None) -> IntervalResult | None:
    """A recorded [low, high] pair; the effect is not recorded, only the width matters to the verdict."""
    if pair is None:
        return None
    low, high = pair
    return IntervalResult((low + high) / 2, low, high)


def skipped(reason: str, experiment: str = "") -> UnitProbeRecord:
    """The record of a probe that was not run (the submission never wrote a valid result, say)."""
    return UnitProbeRecord(UnitProbe(Unit.FAILED, None, None, None, reason), experiment)


def probe_unit_in_sandbox(sandbox, sessions: Path, *, gate: HiddenInputs, command: Command,
                          env: Mapping[str, str] | None = None, experiment: str | None = None) -> UnitProbeRecord:
    """Run the probe on the hidden experiment `sessions` (a host file) with the submission in `sandbox`.

    Each input is staged as grading stages that experiment (bakeoff.tasks.intervals.probing): through `gate`,
    under the experiment's own file name, run by grading's `command` for it: analyze.py cannot tell a probe's
    run from a graded one by its path, its name, the folder's listing or its command line.
    """
    from bakeoff.tasks.intervals.probing import HIDDEN_OUTPUT, run_as_graded

    name = experiment or Path(sessions).stem
    with tempfile.TemporaryDirectory(prefix="bakeoff-unit-probe-") as scratch:
        folder = Path(scratch)
        _write_inputs(Path(sessions), folder)
        attempts, results = [], {}
        for variant in (ORIGINAL, DUPLICATED, HALVED):
            kept = folder / f"{variant}.json"
            done = run_as_graded(sandbox, gate, {f"{name}.csv": folder / f"{variant}.csv"},
                                 command(name, HIDDEN_OUTPUT), env or {}, kept)
            attempt, result = _attempt(variant, done, kept)
            attempts.append(attempt)
            if result is None:
                why = f"analyze.py on the {variant} experiment: {attempt.crash_class}: {attempt.detail}"
                return UnitProbeRecord(UnitProbe(Unit.FAILED, None, None, None, why[:2000]), name, tuple(attempts))
            results[variant] = result
    return UnitProbeRecord(unit_verdict(results[ORIGINAL], results[DUPLICATED], results[HALVED]), name, tuple(attempts))


def _write_inputs(sessions: Path, folder: Path) -> None:
    """The experiment, its duplicated copy and its half, made in a private host folder."""
    duplicate_visits(sessions, folder / f"{DUPLICATED}.csv")
    halve_users(sessions, folder / f"{HALVED}.csv")
    shutil.copyfile(sessions, folder / f"{ORIGINAL}.csv")


def _attempt(variant: str, done, kept: Path) -> tuple[AnalyzeAttempt, IntervalResult | None]:
    from bakeoff.submission.crashes import classify

    if not done.ok:
        crash = classify(done)
        return AnalyzeAttempt(variant, False, crash.crash_class, crash.detail, done.duration_s), None
    try:
        result = read_result(kept)
    except ResultFileError as exc:
        return AnalyzeAttempt(variant, False, exc.name, str(exc)[:500], done.duration_s), None
    return AnalyzeAttempt(variant, True, duration_s=done.duration_s), result
