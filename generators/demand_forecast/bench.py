"""Full-size calibration of the demand-forecasting take-home, printed as a Markdown table for docs/calibration.md.

Generates the default data (500 series x 1,100 days) with the public calibration secret, runs the references and
the cheaters exactly as `bakeoff calibrate --task demand_forecast` does, then again on `--spread` corpora of the
same seed with fresh secrets (careful's margin over each cheater on each), and prints the verdict last (exit 1
when a target or a margin fails, naming the secret).

    .venv/bin/python bench/calibrate.py demand_forecast [--out DIR] [--seed N] [--series N] [--days N] [--spread N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generators.common.calibration_file import write_calibration
from generators.common.paired import PairedInterval
from generators.common.verdict import failures
from generators.demand_forecast import ForecastParams, generate_forecast_data
from generators.demand_forecast.calibration import FcCalibration, calibrate_forecast
from generators.secret import Secret


@dataclass(frozen=True)
class CheaterSpread:
    variant: str
    margin: PairedInterval | None
    spread_margins: tuple[PairedInterval | None, ...]


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _margin(m: PairedInterval | None) -> str:
    """Careful's margin over a row with its interval, or '-' for careful itself."""
    return "-" if m is None else f"{m.estimate:.3f} [{m.low:.3f}, {m.high:.3f}]"


def markdown(calibration: FcCalibration, spreads: list[FcCalibration], seconds: float, ids: list[str]) -> str:
    lines = [f"Seconds: {seconds:.0f}. Public secret, then {len(spreads)} fresh secret(s) for careful's margins.", "",
             "| submission | MASE | smooth | intermittent | week 1 | week 4 | claimed | backtest | probe "
             "| careful better by [95%] | fresh secrets: margin low |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
    for r in calibration.rows:
        m = r.margin
        fresh = ", ".join(_f(s.row(r.variant).margin.low) if s.row(r.variant).margin else "-" for s in spreads)  # type: ignore[union-attr]
        lines.append(f"| {r.variant} | {r.mase:.4f} | {_f(r.kinds.get('smooth'))} | {_f(r.kinds.get('intermittent'))} | "
                     f"{_f(r.weeks.get('week_1'))} | {_f(r.weeks.get('week_4'))} | {_f(r.claimed)} | {_f(r.backtest_mase)} | "
                     f"{' '.join(r.probe) or '-'} | {_margin(m)} | {fresh or '-'} |")
    lines += ["", "Targets: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in calibration.targets.to_dict().items())]
    return "\n".join(lines + [fresh_table(spreads, ids)] if spreads else lines)


def fresh_table(spreads: list[FcCalibration], ids: list[str]) -> str:
    """Each fresh secret's MASE and careful's margin with its interval, row by row (the spread in full)."""
    lines = ["", "| submission | " + " | ".join(f"fresh {i[7:15]}: MASE, careful better by [95%]" for i in ids) + " |",
             "| --- |" + " ---: |" * len(ids)]
    for variant in (r.variant for r in spreads[0].rows):
        cells = []
        for s in spreads:
            r, m = s.row(variant), s.row(variant).margin
            cells.append(f"{r.mase:.4f}, " + _margin(m))
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--series", type=int, default=ForecastParams().series)
    parser.add_argument("--days", type=int, default=ForecastParams().days)
    parser.add_argument("--spread", type=int, default=2, help="fresh secrets to check careful's margins on")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    params = ForecastParams(seed=args.seed, series=args.series, days=args.days)
    say = lambda step: print(step, file=sys.stderr)  # noqa: E731
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bakeoff-fc-bench-") as scratch:
        out = args.out or Path(scratch) / "data"
        manifest = generate_forecast_data(params, out, force=True, secret=Secret.public())
        calibration = calibrate_forecast(out, progress=say, jobs=args.jobs)
        write_calibration(calibration, out)
        spreads, ids = [], []
        for k in range(args.spread):
            folder = Path(scratch) / f"fresh_{k}"
            ids.append(generate_forecast_data(params, folder, force=True).secret_id)
            spreads.append(calibrate_forecast(folder, progress=say, jobs=args.jobs))
    print(markdown(calibration, spreads, time.perf_counter() - started, ids))
    cheaters = [CheaterSpread(r.variant, r.margin, tuple(s.row(r.variant).margin for s in spreads))
                for r in calibration.rows if r.kind == "cheater"]
    lines = failures(calibration.targets.to_dict(), cheaters, manifest.secret_id, ids)
    lines += [f"target not met on fresh secret {i}: {name}" for s, i in zip(spreads, ids, strict=True)
              for name, held in s.targets.to_dict().items() if not held]
    print("\n".join(lines) if lines else "verdict: every target met, careful beats every cheater on every secret")
    return 1 if lines else 0
