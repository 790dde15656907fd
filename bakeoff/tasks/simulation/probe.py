"""The simulation take-home's behavioural probe, run in the run's own sandbox on the final submission.

The probe asks the code what the design document only claims (generators.simulation.probe: the runs,
the verdict rule, the same as for our references): on the chosen hidden configurations (the heaviest load
first: there the empty start and the correlation of waits matter most) simulate.py runs with other seeds at
the configuration's budget and once with `factor` times the budget, each under its CPU cap. The
configurations are written into the workspace's git-ignored scratch folder (never the repository) and
removed afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import durable
from bakeoff.tasks.simulation.analysis import RESULT_KEYS
from bakeoff.tasks.simulation.cpu_cap import capped_argv, cpu_used, outer_timeout, over_budget, wall_timeout
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
PROBE_FOLDER = "behaviour_probe"  # inside the workspace's scratch folder


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
        utilisation = data.get("utilisation")
        return cls(str(data.get("configuration") or ""),
                   float(utilisation) if isinstance(utilisation, (int, float)) else None,
                   data.get("band") if isinstance(data.get("band"), str) else None, BehaviourProbe.from_dict(data))


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
        """Back from `to_dict`; ValueError when a behaviour is not one of the verdicts."""
        found = tuple(ConfigurationProbe.from_dict(c) for c in data.get("configurations") or () if isinstance(c, Mapping))
        return cls(Behaviour(data["behaviour"]), found, str(data.get("message") or ""))

    @property
    def spread_ratio(self) -> float | None:
        """The first configuration's (the heaviest load's): what the probe plot shows."""
        return self.configurations[0].probe.spread_ratio if self.configurations else None


def skipped(reason: str) -> SimProbeRecord:
    return SimProbeRecord(Behaviour.FAILED, (), reason)


def probe_in_sandbox(sandbox: Any, holdout: Path, rows: Sequence[Mapping[str, str]], *, env: Mapping[str, str],
                     floor_s: float, count: int = 1, seeds: int = SEEDS, factor: int = BUDGET_FACTOR) -> SimProbeRecord:
    """Probe the submission in `sandbox` (any sandbox.base.Sandbox) on the chosen configurations of `holdout`."""
    found = []
    for row in probe_choice(rows, count):
        name = row["configuration"]
        source = Path(holdout) / f"{name}.json"
        if source.is_symlink() or not source.is_file():
            continue
        config = durable.read_json(source)
        probe, attempts = _probe_one(sandbox, config, env, floor_s, seeds, factor)
        utilisation = row.get("utilisation")
        found.append(ConfigurationProbe(name, float(utilisation) if utilisation else None, row.get("band"), probe,
                                        tuple(attempts)))
    if not found:
        return skipped("the data folder has no hidden configuration to probe on")
    return SimProbeRecord(overall(found), tuple(found))


def _probe_one(sandbox: Any, config: Mapping[str, Any], env: Mapping[str, str], floor_s: float, seeds: int,
               factor: int) -> tuple[BehaviourProbe, list[Attempt]]:
    from bakeoff.taskapi.workspace import SCRATCH_DIR, real_folder, remove_folder

    workspace = Path(sandbox.spec.workspace)
    relative = f"{SCRATCH_DIR}/{PROBE_FOLDER}"
    remove_folder(workspace, relative)  # whatever sandboxed code left there is not ours to read
    folder = real_folder(workspace, relative)
    os.chmod(folder, 0o777)  # the sandbox may run as another uid: it writes its results here
    os.chmod(folder.parent, folder.parent.stat().st_mode | 0o755)
    attempts: list[Attempt] = []
    results: list[IntervalResult] = []
    try:
        for name, variant in probe_configs(config, seeds, factor):
            _write_new(folder / f"{name}.json", durable.dumps(variant))
            attempt, result = _simulate(sandbox, workspace, relative, name, variant, env, floor_s)
            attempts.append(attempt)
            if result is None:
                return failed(f"simulate.py on the {name} run: {attempt.crash_class}: {attempt.detail}"[:2000], results), attempts
            results.append(result)
    finally:
        remove_folder(workspace, relative)
    return behaviour_verdict(results[:-1], results[-1], [a.cpu_s for a in attempts]), attempts


def _write_new(path: Path, text: str) -> None:
    """O_EXCL|O_NOFOLLOW: a process the submission left running that plants a link makes the probe fail,
    never write through it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as handle:
        handle.write(text)


def _simulate(sandbox: Any, workspace: Path, relative: str, name: str, config: Mapping[str, Any],
              env: Mapping[str, str], floor_s: float) -> tuple[Attempt, IntervalResult | None]:
    from bakeoff.submission.crashes import classify
    from bakeoff.taskapi.workspace import regular_file_inside

    output = f"{relative}/{name}_result.json"
    budget = int(config["cpu_seconds"])
    seeded = {**env, "BAKEOFF_SEED": str(config["seed"])}  # the harness's own seeding moves with the seed too
    wall = wall_timeout(budget, floor_s)
    done = sandbox.exec(capped_argv(f"{relative}/{name}.json", output, budget, wall), timeout_s=outer_timeout(wall),
                        env=seeded)
    if not done.ok:
        crash = "cpu_budget" if over_budget(done) else classify(done).crash_class
        return Attempt(name, False, str(crash), classify(done).detail, done.duration_s), None
    path = workspace / output
    if (path.exists() or path.is_symlink()) and not regular_file_inside(workspace, path):
        return Attempt(name, False, "bad_output", "the result is not a regular file in the workspace", done.duration_s), None
    try:
        result = read_result(path, RESULT_KEYS)
    except ResultFileError as exc:
        return Attempt(name, False, exc.name, str(exc)[:500], done.duration_s), None
    return Attempt(name, True, duration_s=done.duration_s, cpu_s=cpu_used(done.stderr)), result
