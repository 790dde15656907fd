"""Full-size calibration of the A/B-test take-home, printed as the Markdown table docs/calibration.md carries.

Generates the default data (a visible experiment of 20,000 users and 144 hidden experiments of 4,000 to
80,000 users) with the public secret (generators.secret.PUBLIC_SECRET_HEX, so anyone can reproduce the
figures) and the same data with several fresh secrets, runs the references and the cheaters on every
hidden experiment exactly as `bakeoff calibrate --task ab_test` does, and prints each row's coverage (with
its binomial interval), error, width, Winkler score, careful's paired margin over it, and the spread of
its Winkler score over the fresh secrets. The rows' own analyze.py scripts run in this process, one experiment's
log parsed once for all of them (generators.ab_test.in_process: minutes, where a subprocess per row and
experiment took an hour); `--subprocess` runs them as `bakeoff calibrate` does, `--jobs` at a time.

    .venv/bin/python bench/calibrate.py ab_test [--out DIR] [--seed N] [--experiments N] [--fresh K]
                                                [--subprocess [--jobs N]] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from generators.ab_test import AbParams, generate_ab_data
from generators.ab_test import calibration as cal
from generators.common.calibration_file import write_calibration
from generators.common.paired import PairedInterval
from generators.common.verdict import failures, report
from generators.secret import PUBLIC_SECRET_HEX, Secret

TARGETS = {
    "ab_careless": f"narrowest reference; coverage <= {cal.CARELESS_MAX_COVERAGE}",
    "ab_half": "by user, fault missed: biased",
    "ab_careful": f"coverage in [{cal.CAREFUL_COVERAGE_BAND[0]}, {cal.CAREFUL_COVERAGE_BAND[1]}]; best Winkler",
    "ab_constant": "data-free constant interval",
    "ab_hardcoded": "the visible experiment's careful answer, hard-coded",
    "ab_band": "careful estimate +-0.01, no variance",
    "ab_per_user": "mean of per-user rates + Welch: right unit, wrong estimand",
    "ab_size_width": "careful estimate, half-width K / sqrt(users) fitted on the visible experiment",
    "ab_fixed_inflation": "visit-level interval times the visible experiment's design effect",
    "ab_size_width_shrunk": "ab_size_width's interval shrunk toward zero under the public distribution of effects",
    "ab_fixed_inflation_shrunk": "ab_fixed_inflation's interval shrunk under the public distribution of effects",
    "ab_shrink": "careful shrunk toward zero under the public distribution of effects: with a prior, reported",
}


def _margin(row: cal.AbReferenceResult) -> str:
    return "" if row.margin is None else _interval(row.margin)


def _spread(row: cal.AbReferenceResult) -> str:
    if not row.spread:
        return ""
    return f"{min(row.spread):.4f} - {max(row.spread):.4f}"


def _spread_margin(row: cal.AbReferenceResult) -> str:
    if not row.spread_margins:
        return ""
    return f"{min(m.low for m in row.spread_margins):+.4f}"


def markdown_table(calibration: cal.AbCalibration, seconds: dict[str, float], in_process: bool = True) -> str:
    p = calibration.params
    zero = round(p.zero_effect_share * p.experiments)
    largest = round(p.holdout_users * p.holdout_size_spread)
    effects = (f"{zero} with no effect, the others uniform in [-{p.max_effect}, {p.max_effect}]" if p.condition_spread == 0
               else f"conditions and effect distribution drawn per corpus, condition_spread {p.condition_spread}")
    lines = [
        f"Data: seed {p.seed}, public secret (id {calibration.secret_id}), {p.experiments} hidden experiments of "
        f"{p.holdout_users:,} to {largest:,} users (log-uniform; {effects}), visible experiment: base rate "
        f"{p.base_rate}, engagement {p.engagement}, bots "
        f"{p.bot_share:.1%} of visitors, visits tail {p.visits_tail}, a {p.fault_days}-day fault per experiment "
        f"({p.refire_share:.0%} of its doubled purchases re-fired with a new timestamp). "
        f"Generation {seconds['generate']:.0f} s, calibration {seconds['calibrate']:.0f} s "
        + ("(the rows' analyze.py run in one process, each log parsed once)." if in_process
           else "(a subprocess per row and experiment)."),
        "",
        "| row | kind | coverage [95%] | mean abs error | mean width | Winkler (headline) | careful's margin [95%] "
        f"| Winkler over {len(calibration.spread_secret_ids)} fresh secrets | lowest lower end of careful's margin on them "
        "| what it is |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in calibration.rows:
        lines.append(f"| {r.variant} | {r.kind} | {r.coverage:.3f} [{r.coverage_low:.2f}, {r.coverage_high:.2f}] | "
                     f"{r.mean_abs_error:.4f} | {r.mean_width:.4f} | {r.winkler:.4f} | {_margin(r)} | {_spread(r)} | "
                     f"{_spread_margin(r)} | "
                     f"{TARGETS[r.variant]} |")
    lines += ["", *per_secret_table(calibration)]
    checks = calibration.checks.to_dict()
    lines += ["", "Checks: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in checks.items())]
    return "\n".join(lines)


def per_secret_table(calibration: cal.AbCalibration) -> list[str]:
    """Each row's Winkler score and careful's margin over it on the public secret and on each fresh one."""
    ids = [str(calibration.secret_id), *calibration.spread_secret_ids]
    lines = ["| row | " + " | ".join(f"secret {i.removeprefix('sha256:')[:12]}" for i in ids) + " |", "| --- |" + " ---: |" * len(ids)]
    for r in calibration.rows:
        cells = [f"{r.winkler:.4f}" + (f", {_interval(r.margin)}" if r.margin else "")]
        margins = r.spread_margins or (None,) * len(r.spread)
        cells += [f"{w:.4f}" + (f", {_interval(m)}" if m else "") for w, m in zip(r.spread, margins, strict=True)]
        lines.append(f"| {r.variant} | " + " | ".join(cells) + " |")
    return lines


def _interval(m: PairedInterval) -> str:
    return f"{m.estimate:+.4f} [{m.low:+.4f}, {m.high:+.4f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the data folder here (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--experiments", type=int, default=AbParams().experiments)
    parser.add_argument("--jobs", type=int, default=2, help="with --subprocess: experiments at a time")
    parser.add_argument("--subprocess", action="store_true",
                        help="run each row's analyze.py as a subprocess per experiment (bakeoff calibrate's way)")
    parser.add_argument("--fresh", type=int, default=3, help="fresh secrets for the spread (default 3)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    params = AbParams(seed=args.seed, experiments=args.experiments)
    progress = lambda step: print(f"[{time.strftime('%H:%M:%S')}] {step}", file=sys.stderr, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-bench-") as scratch:
        out = args.out or Path(scratch) / "data"
        seconds = {}
        started = time.perf_counter()
        generate_ab_data(params, out, force=True, secret=Secret.from_hex(PUBLIC_SECRET_HEX))
        seconds["generate"] = time.perf_counter() - started
        spread = []
        for index in range(args.fresh):
            progress(f"generating with fresh secret {index + 1} of {args.fresh}")
            spread.append(Path(scratch) / f"fresh-{index}")
            generate_ab_data(params, spread[-1], secret=Secret.fresh())
        started = time.perf_counter()
        calibration = cal.calibrate_ab(out, jobs=args.jobs, progress=progress, spread=spread,
                                       in_process=not args.subprocess)
        seconds["calibrate"] = time.perf_counter() - started
        write_calibration(calibration, out)
        text = markdown_table(calibration, seconds, in_process=not args.subprocess)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    return report(failures(calibration.checks.to_dict(), calibration.cheaters, str(calibration.secret_id),
                           calibration.spread_secret_ids))
