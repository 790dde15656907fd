"""The behavioural probe of the simulation take-home: how does the submission's interval behave when it is
given more CPU time, and another seed?

simulate.py runs on one configuration `seeds` times at its own budget, each with another seed, and once more
at `factor` times the budget with yet another. Three ways an output analysis can behave tell apart:

- sound: its interval is about as wide as its estimates spread across seeds, and with more budget the
  interval shrinks and its centre stays within the first intervals;
- independent (independence assumed): its interval is far narrower than the spread of its own estimates
  across seeds (below a third of it): it treats correlated waits as independent draws;
- biased (initialisation bias): its interval is honest about the noise, but with more budget the centre
  moves beyond its own interval, by more than three times the noise of the move: the estimate depends on the
  run length, as it does when the empty start is not deleted.

Two more are told apart (issue 34):

- ignores_seed: the same estimate for every seed (a formula, or a simulation that seeds itself): it does not
  simulate what it is asked to, whatever its interval says;
- fabricated: its interval shrinks with the longer budget although the longer run did not work for it (its
  CPU time grew by less than `FABRICATED_MAX_WORK` times): a real simulation's width can only shrink by doing
  more work, while an answer dressed with made-up seed noise can read the budget and narrow its band for free.

`unclear` is what fits none (an interval that does not shrink with more budget); `failed` when a run failed.
`behaviour_verdict` is a pure function of the intervals (and the runs' CPU times);
`run_behaviour_probe` takes the way to run simulate.py as a callable (`host_runner` for our references; the
simulation plug-in runs it in the run's sandbox, bakeoff.tasks.simulation.probe).
"""

from __future__ import annotations

import copy
import json
import math
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from scorer.interval_reading import IntervalResult, ResultFileError, read_result

SEEDS, BUDGET_FACTOR = 4, 4
# Claimed standard error over the seed spread below this: independence assumed. Half (independent waits) sits at
# 0.25-0.36 on a light line (utilisation 0.5, where the tiny corpus's probe lands) and far lower on heavy ones;
# careful at 1.5-2.5 (measured with four seeds, simulation v2): one half keeps both sides clear of the line,
# where a third put half's light lines on it (test_sim_probe failed on 3 of 5 runs).
INDEPENDENT_MAX_RATIO = 1 / 2
SHRINK_MAX_RATIO = 0.8  # width with `factor` times the budget over the width with one: it shrinks
BIAS_NOISE_MULTIPLE = 3.0
Z_95 = 1.959963984540054
RESULT_KEYS = ("estimate", "ci_low", "ci_high")
SEED_STEP = 7919  # probe seeds: the configuration's seed plus multiples of this
FABRICATED_MAX_WORK = 1.5  # the longer run's CPU time over the base runs' mean below this: no more work done
EXACT_METHODS = ("erlang_c", "pollaczek_khinchine", "ctmc")  # truth methods a formula reproduces: probed last

# (configuration file, result file, seed for the harness's own seeding) -> the CPU seconds the run used (None:
# not measured); raises on failure
Runner = Callable[[Path, Path, int], float | None]


class Behaviour(StrEnum):
    SOUND = "sound"
    BIASED = "biased"  # initialisation bias: the centre moves with the budget
    INDEPENDENT = "independent"  # independence assumed: far narrower than its own spread across seeds
    UNCLEAR = "unclear"
    FAILED = "failed"
    IGNORES_SEED = "ignores_seed"  # the same estimate for every seed
    FABRICATED = "fabricated"  # narrower with more budget without more work: a spread made up, not simulated


@dataclass(frozen=True)
class BehaviourProbe:
    behaviour: Behaviour
    base: tuple[IntervalResult, ...]  # one interval per seed, at the configuration's budget
    longer: IntervalResult | None  # at `factor` times the budget, another seed
    spread_ratio: float | None  # the intervals' claimed standard error over the estimates' spread across seeds
    shift: float | None  # (longer estimate - mean base estimate) over the mean base half-width
    width_ratio: float | None  # longer width over the mean base width
    message: str = ""

    def to_dict(self) -> dict[str, object]:
        interval = lambda r: None if r is None else [r.effect, r.ci_low, r.ci_high]  # noqa: E731
        return {"behaviour": self.behaviour.value, "base": [interval(r) for r in self.base],
                "longer": interval(self.longer), "spread_ratio": self.spread_ratio, "shift": self.shift,
                "width_ratio": self.width_ratio, "message": self.message}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BehaviourProbe:
        """Back from `to_dict`; ValueError when `behaviour` is not one of the verdicts."""
        return cls(Behaviour(data["behaviour"]), tuple(r for r in map(_interval, data.get("base") or ()) if r),
                   _interval(data.get("longer")), _number(data.get("spread_ratio")), _number(data.get("shift")),
                   _number(data.get("width_ratio")), str(data.get("message") or ""))


def _interval(value: Any) -> IntervalResult | None:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        return None
    point, low, high = (float(v) for v in value)
    return IntervalResult(point, low, high)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def failed(message: str, base: Sequence[IntervalResult] = ()) -> BehaviourProbe:
    return BehaviourProbe(Behaviour.FAILED, tuple(base), None, None, None, None, message)


def did_no_more_work(cpu: Sequence[float | None] | None) -> bool:
    """The longer run (last) used under FABRICATED_MAX_WORK times the base runs' mean CPU time (False when
    any run's CPU time is unknown)."""
    if not cpu or len(cpu) < 2 or any(c is None for c in cpu):
        return False
    measured = [float(c) for c in cpu if c is not None]
    base = statistics.mean(measured[:-1])
    return measured[-1] < FABRICATED_MAX_WORK * max(base, 1e-3)


def behaviour_verdict(base: Sequence[IntervalResult], longer: IntervalResult,
                      cpu: Sequence[float | None] | None = None) -> BehaviourProbe:
    """The verdict from the intervals at the configuration's budget (one per seed) and the longer run's; `cpu`:
    the CPU seconds of each run, the longer last (None: not measured, and fabrication is not judged)."""
    estimates = [r.effect for r in base]
    half = statistics.mean((r.ci_high - r.ci_low) / 2 for r in base)
    spread = statistics.stdev(estimates) if len(estimates) > 1 else 0.0
    longer_half = (longer.ci_high - longer.ci_low) / 2
    width_ratio = longer_half / half if half > 0 else None
    keep = lambda behaviour, message="", ratio=None, shift=None: BehaviourProbe(  # noqa: E731
        behaviour, tuple(base), longer, ratio, shift, width_ratio, message)
    if spread == 0:
        return keep(Behaviour.IGNORES_SEED, "the same estimate for every seed: the seed is not used")
    ratio = (half / Z_95) / spread
    if half <= 0:
        return keep(Behaviour.INDEPENDENT, "intervals of no width", ratio)
    shift = (longer.effect - statistics.mean(estimates)) / half
    if ratio < INDEPENDENT_MAX_RATIO:
        return keep(Behaviour.INDEPENDENT, "far narrower than its own estimates spread across seeds", ratio, shift)
    noise = math.sqrt(spread**2 / len(estimates) + (longer_half / Z_95) ** 2)
    moved = abs(longer.effect - statistics.mean(estimates))
    if abs(shift) > 1 and moved > BIAS_NOISE_MULTIPLE * noise:
        return keep(Behaviour.BIASED, "with more budget the estimate moved beyond its own interval", ratio, shift)
    if width_ratio is not None and width_ratio <= SHRINK_MAX_RATIO and did_no_more_work(cpu):
        return keep(Behaviour.FABRICATED, "narrower with more budget, but the longer run did no more work", ratio,
                    shift)
    if width_ratio is not None and width_ratio <= SHRINK_MAX_RATIO:
        return keep(Behaviour.SOUND, "", ratio, shift)
    return keep(Behaviour.UNCLEAR, "the interval did not shrink with more budget", ratio, shift)


def probe_seed(config: Mapping[str, Any], index: int) -> int:
    return (int(config.get("seed", 0)) + SEED_STEP * (index + 1)) % (2**31 - 1)


def probe_configs(config: Mapping[str, Any], seeds: int = SEEDS, factor: int = BUDGET_FACTOR) -> list[tuple[str, dict[str, Any]]]:
    """(name, configuration) of every probe run: `seeds` at the budget with other seeds, one at `factor` times it."""
    found = []
    for index in range(seeds + 1):
        variant = copy.deepcopy(dict(config))
        variant["seed"] = probe_seed(config, index)
        if index == seeds:
            variant["cpu_seconds"] = int(config["cpu_seconds"]) * factor
        found.append(("longer" if index == seeds else f"seed_{index + 1}", variant))
    return found


def run_behaviour_probe(run: Runner, config: Mapping[str, Any], seeds: int = SEEDS,
                        factor: int = BUDGET_FACTOR) -> BehaviourProbe:
    """Write each probe configuration to a scratch folder, run it, read the results, give the verdict."""
    results: list[IntervalResult] = []
    cpu: list[float | None] = []
    with tempfile.TemporaryDirectory(prefix="bakeoff-sim-probe-") as scratch:
        for name, variant in probe_configs(config, seeds, factor):
            path, output = Path(scratch) / f"{name}.json", Path(scratch) / f"{name}_result.json"
            path.write_text(json.dumps(variant, allow_nan=False), encoding="utf-8")
            try:
                cpu.append(run(path, output, int(variant["seed"])))
                results.append(read_result(output, RESULT_KEYS))
            except (ResultFileError, OSError, subprocess.CalledProcessError) as exc:
                return failed(f"simulate.py on the {name} run: {exc}"[:2000], results)
    return behaviour_verdict(results[:-1], results[-1], cpu)


def host_runner(submission: Path, python: str = sys.executable) -> Runner:
    """Run a trusted simulate.py in `submission` as a subprocess, CPU-capped like a sandboxed one."""
    from generators.common.child import child_env
    from generators.simulation.calibration import cpu_capped

    def run(config: Path, output: Path, seed: int) -> float:
        import resource

        budget = int(json.loads(config.read_text(encoding="utf-8"))["cpu_seconds"])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([python, "simulate.py", "--config", str(config), "--output", str(output)], cwd=submission,
                       check=True, capture_output=True, env={**child_env(), "BAKEOFF_SEED": str(seed)},
                       preexec_fn=cpu_capped(budget))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    return run


def probe_choice(rows: Sequence[Mapping[str, str]], count: int) -> list[Mapping[str, str]]:
    """The hidden configurations the probe runs on: the `count` heaviest loads (ties by name) among those whose
    truth no formula gives (a submission may rightly answer those exactly, the same for every seed); lines
    with an exact method only where too few others exist (a 1.0 corpus has none)."""
    def load(row: Mapping[str, str]) -> float:
        try:
            return float(row.get("utilisation") or 0)
        except ValueError:
            return 0.0

    return sorted(rows, key=lambda row: (row.get("method", "") in EXACT_METHODS, -load(row),
                                         row.get("configuration", "")))[:count]
