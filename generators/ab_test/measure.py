"""Rates measured on a written sessions file: what the manifest reports, read back from the CSV."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REFIRE_WINDOW_S = 600  # a repeated purchase this soon after the first is the logger's, not the person's
HEAVY_VISITS = 40


@dataclass(frozen=True)
class MeasuredSessions:
    """The planted properties as they came out of one written sessions file."""

    rows: int
    users: int
    users_b_share: float  # users are randomized: near 0.5
    duplicate_rows: int  # rows repeating an earlier row exactly: one face of the logging fault
    refired_rows: int  # purchases repeated by the same user with the same amount seconds later: the other face
    fault_arm: str | None  # the arm/day holding most of the fault's rows (None when there are none)
    fault_days: tuple[str, ...]
    visits_mean: float  # per user, the fault's rows removed
    visits_median: float
    visits_p99: float
    visits_max: int
    single_visit_share: float
    top_1pct_visit_share: float  # share of all visits made by the 1% most active users: the heavy tail
    heavy_users_without_purchase: int  # users with at least HEAVY_VISITS visits and no purchase: the bots
    daily_visits_max_over_min: float  # flat traffic: near 1
    visits_conversion_correlation: float  # Spearman, per user: visits against their own conversion rate
    within_user_correlation: float  # one-way ANOVA intraclass correlation of `converted` within users
    rate_a: float  # converted visits over visits, the fault's rows removed
    rate_b: float
    effect: float  # rate_b - rate_a, the fault's rows removed
    effect_exact_repeats_dropped: float  # the same after drop_duplicates() alone: re-fired purchases still in
    effect_with_duplicates: float  # the same on the log as written: what a careless analysis reports

    def to_dict(self) -> dict[str, object]:
        found = asdict(self)
        found["fault_days"] = list(self.fault_days)
        return found


def _intraclass(converted: pd.Series, user: pd.Series) -> float:
    """ANOVA estimator of the intraclass correlation, for unequal group sizes."""
    groups = converted.groupby(user)
    sizes, means = groups.size().to_numpy(float), groups.mean().to_numpy(float)
    n, k, grand = sizes.sum(), len(sizes), converted.mean()
    between = (sizes * (means - grand) ** 2).sum() / (k - 1)
    within = ((converted - groups.transform("mean")) ** 2).sum() / (n - k)
    n0 = (n - (sizes ** 2).sum() / n) / (k - 1)
    return float((between - within) / (between + (n0 - 1) * within))


def _rates(frame: pd.DataFrame) -> tuple[float, float]:
    rates = frame.groupby("arm")["converted"].mean()
    return float(rates.get("A", np.nan)), float(rates.get("B", np.nan))


def refired_purchases(sessions: pd.DataFrame, window_s: int = REFIRE_WINDOW_S) -> pd.Series:
    """Purchases repeating the same user's previous purchase (same amount) within `window_s` seconds: one
    person does not buy the same amount twice in a minute; a logger that re-fires the event does."""
    bought = sessions[sessions["converted"] == 1]
    bought = bought.assign(_t=pd.to_datetime(bought["visit_time"])).sort_values(["user_id", "_t"], kind="stable")
    previous = bought.groupby("user_id")[["_t", "revenue"]].shift()
    again = (bought["revenue"] == previous["revenue"]) & ((bought["_t"] - previous["_t"]).dt.total_seconds() <= window_s)
    return again.reindex(sessions.index, fill_value=False)


def measure_frame(sessions: pd.DataFrame) -> MeasuredSessions:
    repeated = sessions.duplicated()
    refired = refired_purchases(sessions[~repeated]).reindex(sessions.index, fill_value=False)
    faulty_rows = repeated | refired
    clean = sessions[~faulty_rows]
    visits = clean.groupby("user_id").size().sort_values(ascending=False)
    top = max(1, len(visits) // 100)
    arms = clean.groupby("user_id")["arm"].first()
    fault_arm, fault_days = None, ()
    if faulty_rows.any():
        faulty = sessions[faulty_rows]
        fault_arm = str(faulty["arm"].mode().iloc[0])
        fault_days = tuple(sorted(faulty["visit_time"].str[:10].unique()))
    per_user = clean.groupby("user_id")["converted"].agg(["size", "sum"])
    daily = clean.groupby(clean["visit_time"].str[:10]).size()
    rate_a, rate_b = _rates(clean)
    raw_a, raw_b = _rates(sessions)
    exact_a, exact_b = _rates(sessions[~repeated])
    return MeasuredSessions(
        rows=len(sessions), users=len(visits), users_b_share=float((arms == "B").mean()),
        duplicate_rows=int(repeated.sum()), refired_rows=int(refired.sum()), fault_arm=fault_arm,
        fault_days=fault_days, visits_mean=float(visits.mean()), visits_median=float(visits.median()),
        visits_p99=float(visits.quantile(0.99)), visits_max=int(visits.max()),
        single_visit_share=float((visits == 1).mean()),
        top_1pct_visit_share=float(visits.iloc[:top].sum() / visits.sum()),
        heavy_users_without_purchase=int(((per_user["size"] >= HEAVY_VISITS) & (per_user["sum"] == 0)).sum()),
        daily_visits_max_over_min=float(daily.max() / daily.min()),
        visits_conversion_correlation=float(
            per_user["size"].rank().corr((per_user["sum"] / per_user["size"]).rank())),
        within_user_correlation=_intraclass(clean["converted"].astype(float), clean["user_id"]),
        rate_a=rate_a, rate_b=rate_b, effect=rate_b - rate_a, effect_exact_repeats_dropped=exact_b - exact_a,
        effect_with_duplicates=raw_b - raw_a,
    )


def measure_file(path: Path) -> MeasuredSessions:
    return measure_frame(pd.read_csv(path))
