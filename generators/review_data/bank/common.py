"""Helpers the pair templates share: exact edits that turn a sound twin into its flawed one.

`swap` replaces one exact text; `trade` exchanges two blocks of lines, so the flawed
twin holds exactly the sound twin's lines in another order: no line of its own
tells it apart, only where each line stands (what it can see at that point).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def swap(code: str, old: str, new: str) -> str:
    """`code` with the single occurrence of `old` replaced by `new`."""
    if code.count(old) != 1:
        raise ValueError(f"{old!r} occurs {code.count(old)} times")
    return code.replace(old, new)


def trade(code: str, first: str, second: str) -> str:
    """`code` with the blocks `first` and `second` (whole lines, each occurring once) in each other's place."""
    for block in (first, second):
        if code.count(block) != 1:
            raise ValueError(f"{block!r} occurs {code.count(block)} times")
    marker = "\0"
    return code.replace(first, marker).replace(second, first).replace(marker, second)


def exchange(code: str, first: str, second: str) -> str:
    """`code` with the texts `first` and `second` (each occurring once, anywhere in a line) in each other's place."""
    for text in (first, second):
        if code.count(text) != 1:
            raise ValueError(f"{text!r} occurs {code.count(text)} times")
    marker = "\0"
    return code.replace(first, marker).replace(second, first).replace(marker, second)


def test_score_first(code: str, validation: str, test: str) -> str:
    """The same code with each candidate's scores kept as (test, validation) instead of (validation, test).

    The tuning templates store both scores per candidate and read one by its index; with the order fixed, every
    flawed twin read the index its reported line reads (`[1]` twice), a text that repeats across a template.
    Exchanging the two score expressions and every `[...][0]` / `[...][1]` read keeps what the code computes."""
    return flip_reads(exchange(code, validation, test))


def flip_reads(code: str) -> str:
    """Every `[...][0]` read made `[...][1]` and the reverse (the two scores of a candidate stored the other way)."""
    return re.sub(r"\]\[([01])\]", lambda m: f"][{1 - int(m.group(1))}]", code)


@dataclass(frozen=True)
class Table:
    """A tabular fixture as the templates describe it."""

    fixture: str
    doc: str  # the comment an earlier cell would have left about df
    features: tuple[str, ...]
    target: str
    subject: str  # what is predicted, as the claim says it

    def feature_list(self, extra: tuple[str, ...] = ()) -> str:
        names = ", ".join(f'"{name}"' for name in (*self.features, *extra))
        return f"features = [{names}]"


CAMPAIGN = Table("campaign", "# df: one row per customer contacted in the spring campaign",
                 ("emails_opened", "days_since_purchase", "app_sessions", "site_visits", "age", "income_k"),
                 "responded", "which contacted customers respond")
LOANS = Table("loans", "# df: one row per personal loan issued last year",
              ("income", "loan_amount", "credit_score", "years_employed"), "defaulted", "which loans default")
LEADS = Table("leads", "# df: one row per inbound sales lead",
              ("site_visits", "pages_viewed", "minutes_on_site", "emails_opened"), "converted",
              "which sales leads convert")
CHURN = Table("churn", "# df: one row per subscriber at the end of the quarter",
              ("tenure_months", "monthly_charges", "support_calls"), "churned", "which subscribers cancel")


@dataclass(frozen=True)
class Series:
    """A daily series fixture as the templates describe it."""

    fixture: str
    target: str
    inputs: tuple[str, ...]
    what: str
    tolerance: str  # the code's tolerance expression on `actual`
    within_text: str  # the same, as the claim says it

    def within(self) -> str:
        return f"""def within(actual, forecast):
    actual, forecast = np.asarray(actual), np.asarray(forecast)
    return float(np.mean(np.abs(forecast - actual) <= {self.tolerance}))
"""

    def frame(self, extra: str = "") -> str:
        cols = ", ".join(f'"{c}"' for c in (*self.inputs, "lag_1", "lag_7", "dow"))
        return f"""# df: one row per day, oldest first
df = df.assign(dow=df["date"].dt.dayofweek, lag_1=df["{self.target}"].shift(1), lag_7=df["{self.target}"].shift(7){extra})
df = df.dropna()
X = pd.get_dummies(df[[{cols}]], columns=["dow"], dtype=float)
y = df["{self.target}"]
"""


SALES = Series("daily_sales", "sales", ("promo", "temperature"), "daily sales", "0.05 * actual", "within 5%")
# Load's tolerance is absolute: summer days are lighter, and a relative band would be narrower then.
LOAD = Series("energy", "load_mwh", ("degree_days", "workday"), "daily energy load", "20.0", "within 20 MWh")
