"""The simulation take-home's behavioural probe, run in the run's own sandbox on the final submission.

The probe asks the code what the design document only claims (generators.simulation.probe: the runs,
the verdict rule, the same as for our references): on the chosen hidden configurations (the heaviest load
first: there the empty start and the correlation of waits matter most) simulate.py runs with other seeds at
the configuration's budget and once with `factor` times the budget, each under its CPU cap. Each run is
staged as grading stages the configuration (bakeoff.tasks.intervals.probing): in its place at the hidden
folder, under its name, with grading's command and environment, so simulate.py cannot tell the two apart.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import durable
from bakeoff.records.codec import decode
from bakeoff.taskapi.hidden_inputs import HiddenInputs
from bakeoff.tasks.simulation.analysis import RESULT_KEYS, SimRequest
from bakeoff.tasks.simulation.cpu_cap import cpu_used, over_budget
from bakeoff.tasks.simulation.truth import TruthRow
from generators.simulation.probe import (
    BUDGET_FACTOR,
    SEEDS,
    Behaviour,
    BehaviourProbe,
    behaviour_verdict,
    failed,
    probe_choice,  # the probe rule (which configurations), re-exported where the probe runs
    probe_configs,
)
from scorer.interval_reading import IntervalResult, ResultFileError, read_result

PROBE_KEY = "behaviour_probe"  # the evaluate record's extras: the probe's record


@dataclass(frozen=True)
class Attempt:
    """One execution of simulate.py during the probe."""

    name: str  # seed_1.. or longer
    ok: bool
    crash_class: str | None = None
    detail: str | None = None
    duration_s: float | None = None
    cpu_s: float | None = None  # the CPU time of every process of the run, as the cap counted it

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "crash_class": self.crash_class, "detail": self.detail,
                "duration_s": self.duration_s, "cpu_s": self.cpu_s}


@dataclass(frozen=True)
class ConfigurationProbe:
    configuration: str
    utilisation: float | None
    band: str | None
    probe: BehaviourProbe
    attempts: tuple[Attempt, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"configuration": self.configuration, "utilisation": self.utilisation, "band": self.band,
                **self.probe.to_dict(), "attempts": [a.to_dict() for a in self.attempts]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigurationProbe:
        """Back from `to_dict`: its own fields through the records' library, the verdict's by BehaviourProbe's reader."""
        own = decode(ConfigurationJson, data)
        return cls(own.configuration or "", own.utilisation, own.band, BehaviourProbe.from_dict(data), own.attempts)


@dataclass(frozen=True)
class ConfigurationJson:
    """A configuration's part of the probe's record as `ConfigurationProbe.to_dict` writes it, beside the verdict's
    fields (BehaviourProbe.to_dict)."""

    configuration: str | None = None
    utilisation: float | None = None
    band: str | None = None
    attempts: tuple[Attempt, ...] = ()


def overall(found: Sequence[ConfigurationProbe]) -> Behaviour:
    """Independence or bias anywhere is what the code does; sound only when every configuration is."""
    behaviours = [p.probe.behaviour for p in found]
    for worst in (Behaviour.INDEPENDENT, Behaviour.BIASED, Behaviour.FABRICATED, Behaviour.IGNORES_SEED):
        if worst in behaviours:
            return worst
    if behaviours and all(b is Behaviour.SOUND for b in behaviours):
        return Behaviour.SOUND
    if behaviours and all(b is Behaviour.FAILED for b in behaviours):
        return Behaviour.FAILED
    return Behaviour.UNCLEAR if behaviours else Behaviour.FAILED


@dataclass(frozen=True)
class SimProbeRecord:
    behaviour: Behaviour
    configurations: tuple[ConfigurationProbe, ...]
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"behaviour": self.behaviour.value, "message": self.message,
                "configurations": [c.to_dict() for c in self.configurations]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimProbeRecord:
        """Back from `to_dict`; DamagedRecord (or BehaviourProbe's ValueError) when a behaviour is not a verdict."""
        found = decode(SimProbeJson, data)
        return cls(found.behaviour, tuple(ConfigurationProbe.from_dict(c) for c in found.configurations),
                   found.message or "")

    @property
    def spread_ratio(self) -> float | None:
        """The first configuration's (the heaviest load's): what the probe plot shows."""
        return self.configurations[0].probe.spread_ratio if self.configurations else None


@dataclass(frozen=True)
class SimProbeJson:
    """The probe's record as `SimProbeRecord.to_dict` writes it (each configuration read by ConfigurationProbe)."""

    behaviour: Behaviour
    message: str | None = None
    configurations: tuple[dict[str, Any], ...] = ()


def skipped(reason: str) -> SimProbeRecord:
    return SimProbeRecord(Behaviour.FAILED, (), reason)


def probe_in_sandbox(sandbox: Any, holdout: Path, rows: Sequence[TruthRow], *, gate: HiddenInputs,
                     request: SimRequest, count: int = 1, seeds: int = SEEDS,
                     factor: int = BUDGET_FACTOR) -> SimProbeRecord:
    """Probe the submission in `sandbox` (any sandbox.base.Sandbox) on the chosen configurations of `holdout`,
    each run staged as grading stages that configuration (`gate`, grading's `request`: its command and env)."""
    found = []
    by_name = {row.configuration: row for row in rows}
    for cells in probe_choice([row.cells for row in rows], count):
        row = by_name[cells["configuration"]]
        name = row.configuration
        source = Path(holdout) / f"{name}.json"
        if source.is_symlink() or not source.is_file():
            continue
        config = durable.read_json(source)
        probe, attempts = _probe_one(sandbox, name, config, gate, request, seeds, factor)
        found.append(ConfigurationProbe(name, row.utilisation, row.band, probe, tuple(attempts)))
    if not found:
        return skipped("the data folder has no hidden configuration to probe on")
    return SimProbeRecord(overall(found), tuple(found))


def _probe_one(sandbox: Any, configuration: str, config: Mapping[str, Any], gate: HiddenInputs, request: SimRequest,
               seeds: int, factor: int) -> tuple[BehaviourProbe, list[Attempt]]:
    """Each probe run's configuration in place of the hidden one of the same name, under grading's command for
    that file (its CPU cap and wall limit from the file's own budget) and grading's environment."""
    from bakeoff.tasks.intervals.probing import HIDDEN_OUTPUT, run_as_graded

    attempts: list[Attempt] = []
    results: list[IntervalResult] = []
    with tempfile.TemporaryDirectory(prefix="bakeoff-sim-probe-") as scratch:
        folder = Path(scratch)
        for name, variant in probe_configs(config, seeds, factor):
            (folder / f"{name}.json").write_text(durable.dumps(variant), encoding="utf-8")
            graded_as = dataclasses.replace(request, hidden_budgets={configuration: int(variant["cpu_seconds"])})
            kept = folder / f"{name}_result.json"
            done = run_as_graded(sandbox, gate, {f"{configuration}.json": folder / f"{name}.json"},
                                 graded_as.command(configuration, HIDDEN_OUTPUT), request.env, kept)
            attempt, result = _attempt(name, done, kept)
            attempts.append(attempt)
            if result is None:
                return failed(f"simulate.py on the {name} run: {attempt.crash_class}: {attempt.detail}"[:2000], results), attempts
            results.append(result)
    return behaviour_verdict(results[:-1], results[-1], [a.cpu_s for a in attempts]), attempts


def _attempt(name: str, done: Any, kept: Path) -> tuple[Attempt, IntervalResult | None]:
    from bakeoff.submission.crashes import classify

    if not done.ok:
        crash = "cpu_budget" if over_budget(done) else classify(done).crash_class
        return Attempt(name, False, str(crash), classify(done).detail, done.duration_s), None
    try:
        result = read_result(kept, RESULT_KEYS)
    except ResultFileError as exc:
        return Attempt(name, False, exc.name, str(exc)[:500], done.duration_s), None
    return Attempt(name, True, duration_s=done.duration_s, cpu_s=cpu_used(done.stderr)), result
