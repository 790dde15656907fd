"""Full-size calibration of the simulation take-home, printed as the Markdown table docs/calibration.md carries.

Generates the default data (4 visible examples, 48 hidden configurations of 5 CPU seconds each) with the
public calibration secret (so anyone can reproduce the figures; a real bake-off draws its own), runs the
careless, half and careful references and the three degenerate baselines on every hidden configuration
exactly as `bakeoff calibrate --task simulation` does, and the behavioural probe on the references.

    .venv/bin/python bench/calibrate.py simulation [--out DIR] [--seed N] [--configurations N] [--jobs N] [--no-probe]

With `--out DIR` a stopped run resumes: run the same command again. Each line's reference truth and each
(submission, configuration) result is kept in DIR as it is done (generators.simulation.checkpoint), a fresh
secret is made once, kept in DIR and reused (printed), and a complete corpus in DIR with the same parameters and
secret is not generated again.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import durable
from generators.common.calibration_file import CALIBRATION_FILE
from generators.common.verdict import not_beaten, report, unmet
from generators.secret import SECRET_FILE
from generators.secret import Secret as AnySecret
from generators.simulation import Secret, SimParams, generate_sim_data
from generators.simulation import calibration as cal
from generators.simulation.cheaters import APPROXIMATIONS, CHEATERS
from generators.simulation.checkpoint import RESULTS_DIR, is_partial
from generators.simulation.params import GENERATOR_VERSION
from generators.simulation.probe import host_runner, probe_choice, run_behaviour_probe
from generators.simulation.writer import HOLDOUT_DIR, MANIFEST_FILE, read_truth_rows

TARGETS = {
    "sim_careless": "worst reference",
    "sim_half": "between careless and careful",
    "sim_careful": f"best; coverage in [{cal.CAREFUL_BAND_COVERAGE[0]}, 1] in every band",
    "sim_mm1": "careful better, interval > 0",
    "sim_erlang_c": "careful better, interval > 0",
    "sim_constant": "careful better, interval > 0",
    **{name: "careful better, interval > 0" + ("; half better" if name in APPROXIMATIONS else "")
       for name in CHEATERS},
}


def cell(value: float | None, fmt: str = "{:.3f}") -> str:
    return "-" if value is None else fmt.format(value)


def markdown_table(calibration: cal.SimCalibration, seconds: dict[str, float], probes: dict[str, str],
                   secret_words: str = "the public calibration secret", resumed: bool = False) -> str:
    """The calibration table; `resumed`: the run took up work kept by earlier tries, whose time its figures leave
    out."""
    p = calibration.params
    careful = calibration.references[-1]
    bands = [b.band for b in careful.bands]
    counts = ", ".join(f"{b.configurations} {b.band}" for b in careful.bands)
    lines = [
        f"Data: seed {p.seed}, {secret_words}, {p.configurations} hidden configurations ({counts}), "
        f"{p.cpu_seconds} CPU seconds each, reference simulation {p.reference_millions} million orders a line "
        "before its share by stations, with control variates "
        + (f"in each of {p.reference_batches} pooled batches " if p.reference_batches > 1 else "") +
        f"(its 95% half-width over careful's: largest {calibration.truth_error.get('max', 0):.3f}, median "
        f"{calibration.truth_error.get('median', 0):.3f}). Generation {seconds['generate']:.0f} s, calibration "
        f"{seconds['calibrate']:.0f} s" + (f", probe {seconds['probe']:.0f} s" if "probe" in seconds else "")
        + (" (this try's only: it resumed work kept by earlier ones)." if resumed else "."),
        "",
        "| submission | coverage | " + " | ".join(f"coverage {b}" for b in bands)
        + " | mean rel. error | relative Winkler (headline) | careful better by [95%] | probe | target |",
        "| --- | ---: | " + " | ".join("---:" for _ in bands) + " | ---: | ---: | ---: | --- | --- |",
    ]
    margins = {m.variant: m for m in calibration.margins}
    for r in (*calibration.references, *calibration.baselines, *calibration.cheaters):
        m = margins.get(r.variant)
        band_cells = " | ".join(cell(score.coverage if (score := r.band(b)) else None) for b in bands)
        lines.append(f"| {r.variant} | {r.coverage:.3f} | {band_cells} | {r.mean_rel_error:.4f} | "
                     f"{r.relative_winkler:.4f} | {f'{m.mean:.3f} [{m.low:.3f}, {m.high:.3f}]' if m else '-'} | "
                     f"{probes.get(r.variant, '-')} | {TARGETS[r.variant]} |")
    checks = calibration.checks.to_dict()
    lines += ["", "Checks: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in checks.items())]
    return "\n".join(lines)


def probe_references(folder: Path, scratch: Path) -> dict[str, str]:
    """The behavioural probe's verdict of each reference on the heaviest hidden configuration."""
    (row,) = probe_choice(read_truth_rows(folder), 1)
    config = json.loads((folder / HOLDOUT_DIR / f"{row['configuration']}.json").read_text(encoding="utf-8"))
    found = {}
    for variant in cal.SIM_REFERENCES:
        probe = run_behaviour_probe(host_runner(cal.materialize_sim(variant, scratch / variant)), config)
        found[variant] = f"{probe.behaviour.value} ({probe.spread_ratio:.2f})" if probe.spread_ratio else probe.behaviour.value
    return found


def chosen_secret(out: Path, fresh: bool) -> tuple[AnySecret, bool]:
    """The public secret, or with `fresh` the one `out` keeps from an earlier try (complete or not), else a new
    one; and whether it was kept."""
    if not fresh:
        return Secret.public(), False
    kept = out / SECRET_FILE
    return (Secret.read(kept), True) if kept.is_file() else (Secret.fresh(), False)


def is_complete(out: Path, params: SimParams, secret: AnySecret) -> bool:
    """`out` holds a published corpus of these parameters, this secret and this generator version."""
    try:
        manifest = durable.read_json(out / MANIFEST_FILE)
    except (OSError, durable.DurableError):
        return False
    return (isinstance(manifest, dict) and manifest.keys() >= {"params", "secret_id", "generator_version"}
            and manifest["params"] == params.to_dict() and manifest["secret_id"] == secret.identity
            and manifest["generator_version"] == GENERATOR_VERSION)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the data folder here (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--configurations", type=int, default=SimParams().configurations)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cpu-seconds", type=int, default=SimParams().cpu_seconds)
    parser.add_argument("--reference-millions", type=int, default=SimParams().reference_millions)
    parser.add_argument("--reference-batches", type=int, default=SimParams().reference_batches,
                        help="independent reference batches pooled a simulated line (kept batches are reused)")
    parser.add_argument("--fresh", action="store_true", help="a fresh secret (printed) instead of the public one")
    parser.add_argument("--no-probe", action="store_true", help="skip the behavioural probe of the references")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bakeoff-sim-bench-") as scratch:
        out = args.out or Path(scratch) / "data"
        seconds = {}
        started = time.perf_counter()
        secret, kept = chosen_secret(out, args.fresh)
        words = f"the fresh secret {secret.hex()}" if args.fresh else "the public calibration secret"
        print(f"data in {out}, {words}" + (" (kept there by an earlier try)" if kept else ""), file=sys.stderr)
        params = SimParams(seed=args.seed, configurations=args.configurations, cpu_seconds=args.cpu_seconds,
                           reference_millions=args.reference_millions, reference_batches=args.reference_batches)
        resumed = is_partial(out) or (out / RESULTS_DIR).is_dir()
        if is_complete(out, params, secret):
            resumed = True
            print("the corpus there is complete: not generated again", file=sys.stderr)
        else:
            generate_sim_data(params, out, force=True, secret=secret, jobs=args.jobs,
                              progress=lambda step: print(step, file=sys.stderr, flush=True))
        seconds["generate"] = time.perf_counter() - started
        started = time.perf_counter()
        calibration = cal.calibrate_sim(out, jobs=args.jobs, progress=lambda step: print(step, file=sys.stderr),
                                        keep_results=args.out is not None)
        seconds["calibrate"] = time.perf_counter() - started
        durable.write_json(out / CALIBRATION_FILE, calibration.to_dict(), mode=durable.PRIVATE)
        probes = {}
        if not args.no_probe:
            started = time.perf_counter()
            probes = probe_references(out, Path(scratch))
            seconds["probe"] = time.perf_counter() - started
        print(markdown_table(calibration, seconds, probes, words, resumed))
    return report(verdict_lines(calibration, secret.identity))


def verdict_lines(calibration: cal.SimCalibration, secret_id: str) -> list[str]:
    """Every check that did not hold and every row careful did not beat by an interval above zero, one line each
    (the sim's margins are over every other row, references included: careful must beat careless and half by an
    interval too, as its table's column says; its spread over secrets is one corpus a run: bench/sim_full_size.sh)."""
    return unmet(calibration.checks.to_dict()) + [not_beaten(m.variant, secret_id, m) for m in calibration.margins
                                                  if m.low <= 0]
