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

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from generators.ab_test.probe import Unit, UnitProbe, duplicate_visits, halve_users, unit_verdict
from scorer.interval_reading import IntervalResult, ResultFileError, read_result

UNIT_PROBE_KEY = "unit_probe"  # the evaluate record's extras (and analysis.json): the probe's record

PROBE_FOLDER = "unit_probe"  # inside the workspace's git-ignored scratch folder
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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnalyzeAttempt:
        return cls(str(data.get("name", "")), bool(data.get("ok")), data.get("crash_class"), data.get("detail"),
                   data.get("duration_s"))


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
        """Back from `to_dict`; ValueError when `unit` is not one of the verdicts."""
        probe = UnitProbe(Unit(data["unit"]), _interval(data.get("original")), _interval(data.get("duplicated")),
                          _ratio(data.get("width_ratio")), str(data.get("message") or ""),
                          _interval(data.get("halved")), _ratio(data.get("halved_width_ratio")))
        attempts = tuple(AnalyzeAttempt.from_dict(a) for a in data.get("attempts") or () if isinstance(a, Mapping))
        return cls(probe, str(data.get("experiment") or ""), attempts)


def _interval(value: Any) -> IntervalResult | None:
    """A recorded [low, high] pair; the effect is not recorded, only the width matters to the verdict."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    low, high = (float(v) for v in value)
    return IntervalResult((low + high) / 2, low, high)


def _ratio(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def skipped(reason: str, experiment: str = "") -> UnitProbeRecord:
    """The record of a probe that was not run (the submission never wrote a valid result, say)."""
    return UnitProbeRecord(UnitProbe(Unit.FAILED, None, None, None, reason), experiment)


def probe_unit_in_sandbox(sandbox, sessions: Path, *, env: Mapping[str, str] | None = None, timeout_s: float = 120.0,
                          experiment: str | None = None) -> UnitProbeRecord:
    """Run the probe on the host file `sessions` with the submission in `sandbox` (any `sandbox.base.Sandbox`).

    Both inputs are written into the workspace's git-ignored scratch folder (never the repository) and
    removed afterwards.
    """
    from bakeoff.taskapi.workspace import SCRATCH_DIR, real_folder, remove_folder

    workspace = Path(sandbox.spec.workspace)
    relative = f"{SCRATCH_DIR}/{PROBE_FOLDER}"
    name = experiment or Path(sessions).stem
    remove_folder(workspace, relative)  # whatever sandboxed code left there is not ours to read
    folder = real_folder(workspace, relative)
    os.chmod(folder, 0o777)  # the sandbox may run as another uid: it writes its results here
    os.chmod(folder.parent, folder.parent.stat().st_mode | 0o755)
    try:
        _write_inputs(Path(sessions), folder)
        attempts, results = [], {}
        for variant in (ORIGINAL, DUPLICATED, HALVED):
            attempt, result = _analyze(sandbox, workspace, relative, variant, env, timeout_s)
            attempts.append(attempt)
            if result is None:
                why = f"analyze.py on the {variant} experiment: {attempt.crash_class}: {attempt.detail}"
                return UnitProbeRecord(UnitProbe(Unit.FAILED, None, None, None, why[:2000]), name, tuple(attempts))
            results[variant] = result
    finally:
        remove_folder(workspace, relative)
    return UnitProbeRecord(unit_verdict(results[ORIGINAL], results[DUPLICATED], results[HALVED]), name, tuple(attempts))


def _write_inputs(sessions: Path, folder: Path) -> None:
    """The experiment, its duplicated copy and its half, made on the host and placed into `folder` with O_EXCL|O_NOFOLLOW:
    a process the submission left running that plants a link there makes the probe fail, never write through it."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-unit-probe-") as scratch:
        doubled, halved = Path(scratch) / f"{DUPLICATED}.csv", Path(scratch) / f"{HALVED}.csv"
        duplicate_visits(sessions, doubled)
        halve_users(sessions, halved)
        for source, name in ((sessions, ORIGINAL), (doubled, DUPLICATED), (halved, HALVED)):
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            with open(source, "rb") as reader, os.fdopen(os.open(folder / f"{name}.csv", flags, 0o644), "wb") as out:
                shutil.copyfileobj(reader, out)


def _analyze(sandbox, workspace: Path, relative: str, variant: str, env: Mapping[str, str] | None,
             timeout_s: float) -> tuple[AnalyzeAttempt, IntervalResult | None]:
    from bakeoff.submission.crashes import classify
    from bakeoff.taskapi.workspace import regular_file_inside

    output = f"{relative}/{variant}.json"
    argv = ["python", "analyze.py", "--input", f"{relative}/{variant}.csv", "--output", output]
    done = sandbox.exec(argv, timeout_s=timeout_s, env=dict(env or {}))
    if not done.ok:
        crash = classify(done)
        return AnalyzeAttempt(variant, False, crash.crash_class, crash.detail, done.duration_s), None
    path = workspace / output
    if (path.exists() or path.is_symlink()) and not regular_file_inside(workspace, path):
        detail = "the result is not a regular file in the workspace"
        return AnalyzeAttempt(variant, False, "bad_output", detail, done.duration_s), None
    try:
        result = read_result(path)
    except ResultFileError as exc:
        return AnalyzeAttempt(variant, False, exc.name, str(exc)[:500], done.duration_s), None
    return AnalyzeAttempt(variant, True, duration_s=done.duration_s), result
