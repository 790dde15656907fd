"""Calibration of the demand-forecasting take-home: the references and the cheaters forecast the hidden
horizon, graded by MASE; the references also forecast the backtest cut (their claim against what it got).

Targets: careless worse than half, half worse than careful (mean MASE); careless claims the best validation
error and delivers the worst real one; careful beats every cheater by a paired interval over series (seeded
bootstrap) above zero: seasonal naive, and the strongest cheap row found (fc_weekday_level: a weekday profile
times a recent level, the median for slow sellers), included.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from generators.common.intervals import PassFail, check_data_folder
from generators.common.paired import PairedInterval, paired_mean_margin
from generators.demand_forecast.probe import ProbeFigures, Thresholds, findings, forecast_move
from generators.demand_forecast.running import BACKTEST_CUT, BLIND_CUT, REAL, REFERENCES, Forecasted, run_forecast
from generators.demand_forecast.writer import BACKTEST, CALENDAR, HISTORY, MANIFEST, TRUTH
from generators.errors import ReferenceFailed

FC_REFERENCES = ("fc_careless", "fc_half", "fc_careful")
FC_CHEATERS = ("fc_seasonal_naive", "fc_last_value", "fc_series_mean", "fc_last28_mean", "fc_weekday_level",
               "fc_hardcoded")


@dataclass(frozen=True)
class FcRow:
    variant: str
    kind: str  # reference or cheater
    mase: float
    kinds: dict[str, float | None]
    weeks: dict[str, float]
    claimed: float | None
    backtest_mase: float | None
    per_series: dict[str, float]
    margin: PairedInterval | None  # careful's margin over this row (None for careful)
    probe: tuple[str, ...] = ()  # the probe's findings from the backtest runs (references only)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["margin"] = self.margin.to_dict() if self.margin else None
        return data


@dataclass(frozen=True)
class FcTargets(PassFail):
    careless_worse_than_half: bool
    half_worse_than_careful: bool
    careless_claims_best_delivers_worst: bool
    careful_beats_every_cheater: bool


@dataclass(frozen=True)
class FcCalibration:
    corpus: str
    rows: tuple[FcRow, ...]
    targets: FcTargets

    def row(self, variant: str) -> FcRow:
        return next(r for r in self.rows if r.variant == variant)

    def to_dict(self) -> dict[str, object]:
        return {"task": "demand_forecast", "corpus": self.corpus, "rows": [r.to_dict() for r in self.rows],
                "targets": self.targets.to_dict(), "all_passed": self.targets.all_passed}


def _run(corpus: Path, variant: str, scratch: Path) -> dict[str, Any]:
    real = run_forecast(REFERENCES / variant, corpus, REAL, scratch / f"{variant}.csv")
    backtest, probe = None, tuple[str, ...]()
    if variant in FC_REFERENCES:
        backtest = run_forecast(REFERENCES / variant, corpus, BACKTEST_CUT, scratch / f"{variant}_backtest.csv")
        try:
            blind: Forecasted | None = run_forecast(REFERENCES / variant, corpus, BLIND_CUT, scratch / f"{variant}_blind.csv")
        except ReferenceFailed:  # it needs the after-close columns: the probe's leak
            blind = None
        figures = ProbeFigures(backtest.score.mase, backtest.score.weeks["week_1"], backtest.score.weeks["week_4"],
                               forecast_move(backtest.output, blind.output) if blind else None, blind is None)
        probe = tuple(b.value for b in findings(figures, real.claimed, Thresholds()))
    return {"real": real, "backtest": backtest, "probe": probe}


def calibrate_forecast(corpus: Path, progress=lambda _: None, jobs: int = 2) -> FcCalibration:
    """Every reference and cheater on `corpus`'s hidden horizon (and the references on its backtest cut)."""
    corpus = Path(corpus)
    check_data_folder(corpus, (HISTORY, CALENDAR, TRUTH, BACKTEST, MANIFEST), "a demand_forecast data folder")
    with tempfile.TemporaryDirectory(prefix="fc-calibration-") as scratch:
        def one(variant: str) -> tuple[str, dict[str, Any]]:
            progress(variant)
            return variant, _run(corpus, variant, Path(scratch))

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            done = dict(pool.map(one, (*FC_REFERENCES, *FC_CHEATERS)))
    careful = done["fc_careful"]["real"].score.series
    rows = []
    for variant, runs in done.items():
        real, backtest = runs["real"], runs["backtest"]
        margin = None if variant == "fc_careful" else careful_margin(careful, real.score.series)
        rows.append(FcRow(variant, "reference" if variant in FC_REFERENCES else "cheater", real.score.mase,
                          dict(real.score.kinds), dict(real.score.weeks), real.claimed,
                          backtest.score.mase if backtest else None, dict(real.score.series), margin, runs["probe"]))
    return FcCalibration(str(corpus), tuple(rows), targets_of(rows))


def careful_margin(careful: dict[str, float], row: dict[str, float]) -> PairedInterval:
    """Careful's paired advantage over a row on MASE, series by series (lower is better), with its interval."""
    return paired_mean_margin([careful[s] for s in sorted(careful)], [row[s] for s in sorted(careful)], lower_is_better=True)


def targets_of(rows: list[FcRow]) -> FcTargets:
    by = {r.variant: r for r in rows}
    careless, half, careful = by["fc_careless"], by["fc_half"], by["fc_careful"]
    refs = [careless, half, careful]
    claims = [r.claimed for r in refs]
    return FcTargets(
        careless_worse_than_half=careless.mase > half.mase,
        half_worse_than_careful=half.mase > careful.mase,
        careless_claims_best_delivers_worst=None not in claims and careless.claimed == min(c for c in claims if c is not None)
        and careless.mase == max(r.mase for r in refs),
        careful_beats_every_cheater=all(r.margin is not None and r.margin.careful_better for r in rows if r.kind == "cheater"),
    )
