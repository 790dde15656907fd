"""Seeded small data sets the claim-review items run on.

Every item of the claim-versus-code benchmark names a fixture; its code is
executed in a namespace holding the variables that fixture returns (as if
an earlier notebook cell had loaded them). Each fixture is built so that the
flaw its items can hide has a visible effect: pure noise where feature
selection would otherwise look useful, repeat patients where a row split
leaks identity, a random walk where shuffled folds interpolate.

The data are deliberately small (hundreds of rows): the whole item set must
execute in seconds on two shared cores.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pandas as pd

from generators.errors import GeneratorError

Fixture = Callable[[int], dict[str, object]]


class UnknownFixture(GeneratorError):
    """An item names a fixture this module does not provide."""


def noise_panel(seed: int) -> dict[str, object]:
    """Many pure-noise features and a coin-flip label: nothing can be learned.

    Any score above chance on this panel is produced by the evaluation, not
    by the model, which is what selection-before-CV items must expose.
    """
    rng = np.random.default_rng(seed)
    n_rows, n_cols = 120, 300
    X = pd.DataFrame(
        rng.normal(size=(n_rows, n_cols)),
        columns=[f"probe_{i:03d}" for i in range(n_cols)],
    )
    y = pd.Series(rng.permutation(np.repeat([0, 1], n_rows // 2)), name="responder")
    return {"X": X, "y": y}


_CAMPAIGN_COLUMNS = (
    "age", "income_k", "tenure_years", "emails_opened", "site_visits", "days_since_purchase",
    "basket_avg", "discounts_used", "app_sessions", "support_tickets", "referrals", "loyalty_points",
)


def campaign(seed: int) -> dict[str, object]:
    """Customers contacted by a marketing campaign; two features say a little about who responds.

    The signal is weak on purpose: choices tuned on the test rows (a threshold,
    a model) then look better than they are by a margin that can be measured.
    """
    rng = np.random.default_rng(seed)
    n_rows = 400
    features = rng.normal(size=(n_rows, len(_CAMPAIGN_COLUMNS)))
    logit = 0.9 * features[:, 3] - 0.7 * features[:, 5] - 1.0
    responded = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int)
    df = pd.DataFrame(features.round(3), columns=list(_CAMPAIGN_COLUMNS))
    df["responded"] = responded
    return {"df": df}


def churn(seed: int) -> dict[str, object]:
    """Telecom customers: some missing charges, and one column written after the fact.

    `cancellation_fee_paid` is only known once a customer has left, so it
    tracks the label almost perfectly; `total_charges` has gaps to impute.
    """
    rng = np.random.default_rng(seed)
    n_rows = 600
    tenure = rng.integers(1, 72, n_rows)
    monthly = rng.normal(70, 20, n_rows).clip(15, 130).round(2)
    support_calls = rng.poisson(1.5, n_rows)
    contract = rng.choice(["month-to-month", "one-year", "two-year"], n_rows, p=[0.55, 0.25, 0.2])
    logit = -1.2 - 0.04 * tenure + 0.02 * (monthly - 70) + 0.35 * support_calls
    logit += np.where(contract == "month-to-month", 1.0, -0.6)
    churned = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int)
    total = (tenure * monthly * rng.normal(1.0, 0.05, n_rows)).round(2)
    # Gaps that depend on the customer, so a mean from other rows is a real estimate.
    total[rng.random(n_rows) < 0.12] = np.nan
    fee_paid = np.where(churned == 1, rng.random(n_rows) < 0.95, rng.random(n_rows) < 0.02)
    df = pd.DataFrame(
        {
            "customer_id": np.arange(10_000, 10_000 + n_rows),
            "tenure_months": tenure,
            "monthly_charges": monthly,
            "total_charges": total,
            "support_calls": support_calls,
            "contract": contract,
            "cancellation_fee_paid": fee_paid.astype(int),
            "churned": churned,
        }
    )
    return {"df": df}


def houses(seed: int) -> dict[str, object]:
    """House sales with right-skewed areas and a log-normal price."""
    rng = np.random.default_rng(seed)
    n_rows = 500
    living = rng.lognormal(7.3, 0.35, n_rows).round()
    lot = rng.lognormal(8.8, 0.6, n_rows).round()
    year = rng.integers(1920, 2022, n_rows)
    rooms = np.clip((living / 300 + rng.normal(0, 1, n_rows)).round(), 1, 12)
    log_price = 4.0 + 0.8 * np.log(living) + 0.15 * np.log(lot) + 0.004 * (year - 1970)
    price = np.exp(log_price + rng.normal(0, 0.18, n_rows)).round(-2)
    df = pd.DataFrame(
        {
            "living_area": living,
            "lot_area": lot,
            "year_built": year,
            "rooms": rooms,
            "garage_spaces": rng.integers(0, 4, n_rows),
            "price": price,
        }
    )
    return {"df": df}


def daily_sales(seed: int) -> dict[str, object]:
    """Two years of one store's daily sales: a drifting level, weekly rhythm, promotions.

    The drifting level (a random walk) is what makes shuffled folds dishonest:
    a fold can interpolate between yesterday and tomorrow.
    """
    rng = np.random.default_rng(seed)
    n_days = 730
    dates = pd.date_range("2022-01-01", periods=n_days, freq="D")
    level = 200 + np.cumsum(rng.normal(0, 4, n_days))
    weekly = np.array([0, -5, -8, -4, 6, 25, 18])[dates.day_of_week]
    promo = (rng.random(n_days) < 0.15).astype(int)
    sales = level + weekly + 30 * promo + rng.normal(0, 6, n_days)
    df = pd.DataFrame(
        {
            "date": dates,
            "promo": promo,
            "temperature": (12 + 10 * np.sin(np.arange(n_days) * 2 * np.pi / 365) + rng.normal(0, 3, n_days)).round(1),
            "sales": sales.round(1),
        }
    )
    return {"df": df}


def transactions(seed: int) -> dict[str, object]:
    """Card transactions where exactly 0.2% are fraud."""
    rng = np.random.default_rng(seed)
    n_rows, n_fraud = 5000, 10
    fraud = np.zeros(n_rows, dtype=int)
    fraud[rng.choice(n_rows, n_fraud, replace=False)] = 1
    amount = rng.lognormal(3.5, 1.0, n_rows) * np.where(fraud == 1, 2.5, 1.0)
    hour = np.where(fraud == 1, rng.integers(0, 6, n_rows), rng.integers(0, 24, n_rows))
    df = pd.DataFrame(
        {
            "amount": amount.round(2),
            "hour": hour,
            "merchant_risk": (rng.beta(2, 8, n_rows) + 0.15 * fraud).round(3),
            "card_age_days": rng.integers(1, 3000, n_rows),
            "is_fraud": fraud,
        }
    )
    return {"df": df}


_SPAM_WORDS = (
    "prize", "winner", "free", "claim", "offer", "cash", "urgent", "bonus", "deal", "click",
    "exclusive", "guaranteed", "reward", "limited", "voucher", "unlock", "credit", "selected", "gift", "instantly",
)
_HAM_WORDS = (
    "meeting", "lunch", "report", "tomorrow", "project", "thanks", "agenda", "notes", "call", "draft",
    "invoice", "schedule", "review", "minutes", "slides", "budget", "deadline", "attached", "colleague", "friday",
)
_SHARED_WORDS = (
    "the", "your", "today", "please", "account", "update", "team", "now", "new", "week",
    "here", "details", "info", "time", "see", "link", "send", "reply", "message", "soon",
)


def _message_words(rng: np.random.Generator, is_spam: bool) -> list[str]:
    """Draw a message's words: mostly shared words, tilted towards its own class's words."""
    n_words = int(rng.integers(7, 15))
    own_share, other_share = (0.45, 0.08) if is_spam else (0.45, 0.05)
    own, other = (_SPAM_WORDS, _HAM_WORDS) if is_spam else (_HAM_WORDS, _SPAM_WORDS)
    kinds = rng.choice(3, n_words, p=[own_share, other_share, 1 - own_share - other_share])
    pools = (own, other, _SHARED_WORDS)
    return [str(rng.choice(pools[kind])) for kind in kinds]


def messages(seed: int) -> dict[str, object]:
    """Short messages labelled spam or ham, each carrying a unique reference code.

    The reference codes (one per message) mean the held-out rows contain
    tokens no training row has: a vectorizer that learns a vocabulary from
    all rows visibly learns from the held-out ones. About 4% of labels are
    wrong, as in any hand-labelled inbox.
    """
    rng = np.random.default_rng(seed)
    n_rows = 400
    is_spam = rng.random(n_rows) < 0.3
    texts = []
    for i, spam in enumerate(is_spam):
        text = " ".join(_message_words(rng, bool(spam))) + f" ref{seed:02d}x{i:04d}"
        if rng.random() < 0.3:
            text = text.upper() + " http://example.test/" + str(i)
        texts.append(text)
    flipped = rng.random(n_rows) < 0.04
    labels = np.where(is_spam ^ flipped, "spam", "ham")
    return {"df": pd.DataFrame({"text": texts, "label": labels})}


def visits(seed: int) -> dict[str, object]:
    """Clinic visits: 80 patients seen five times each.

    Whether a patient is readmitted is mostly a trait of the patient, and the
    patient's body measurements barely change between visits, so a model can
    recognise a patient it has already seen: row-level splits leak identity.
    """
    rng = np.random.default_rng(seed)
    n_patients, per_patient = 80, 5
    age = rng.integers(25, 90, n_patients)
    bmi = rng.normal(27, 5, n_patients)
    baseline_bp = rng.normal(130, 15, n_patients)
    readmit_trait = (rng.random(n_patients) < 0.4).astype(int)
    rows = []
    for patient in range(n_patients):
        for visit in range(per_patient):
            rows.append(
                {
                    "patient_id": f"P{seed:02d}{patient:03d}",
                    "visit": visit + 1,
                    "age": age[patient],
                    "bmi": round(bmi[patient] + rng.normal(0, 0.3), 1),
                    "systolic_bp": round(baseline_bp[patient] + rng.normal(0, 3)),
                    "heart_rate": int(rng.normal(75, 10)),
                    "readmitted": int(readmit_trait[patient] if rng.random() < 0.9 else 1 - readmit_trait[patient]),
                }
            )
    return {"df": pd.DataFrame(rows)}


def merchants(seed: int) -> dict[str, object]:
    """Orders from 300 merchants, few orders each; chargebacks are nearly random."""
    rng = np.random.default_rng(seed)
    n_rows, n_merchants = 1500, 300
    merchant = rng.integers(0, n_merchants, n_rows)
    basket = rng.lognormal(4, 0.7, n_rows)
    chargeback = (rng.random(n_rows) < 0.25 + 0.02 * (basket > 100)).astype(int)
    df = pd.DataFrame(
        {
            "merchant_id": [f"M{m:04d}" for m in merchant],
            "basket_value": basket.round(2),
            "items": rng.integers(1, 8, n_rows),
            "chargeback": chargeback,
        }
    )
    return {"df": df}


def leads(seed: int) -> dict[str, object]:
    """Sales leads: 12% convert, and the features say little about which."""
    rng = np.random.default_rng(seed)
    n_rows = 400
    visits_ = rng.poisson(3, n_rows)
    pages = rng.poisson(6, n_rows)
    minutes = rng.gamma(2, 3, n_rows).round(1)
    score = 0.15 * visits_ + rng.normal(0, 1, n_rows)
    converted = (score > np.quantile(score, 0.88)).astype(int)
    df = pd.DataFrame(
        {
            "site_visits": visits_,
            "pages_viewed": pages,
            "minutes_on_site": minutes,
            "emails_opened": rng.poisson(2, n_rows),
            "company_size": rng.choice([5, 20, 100, 500, 2000], n_rows),
            "converted": converted,
        }
    )
    return {"df": df}


def sensor_readings(seed: int) -> dict[str, object]:
    """Machine sensor readings where a logging fault wrote a third of the rows twice."""
    rng = np.random.default_rng(seed)
    n_unique = 300
    vibration = rng.normal(0.5, 0.15, n_unique).round(3)
    temperature = rng.normal(60, 8, n_unique).round(1)
    pressure = rng.normal(101, 4, n_unique).round(1)
    # The failure depends on the readings only weakly: memorised duplicates are the easy wins.
    failure = (rng.random(n_unique) < 0.3 + 0.4 * (vibration > 0.7)).astype(int)
    df = pd.DataFrame(
        {
            "machine": rng.integers(1, 40, n_unique),
            "vibration": vibration,
            "temperature": temperature,
            "pressure": pressure,
            "failure": failure,
        }
    )
    doubled = df.sample(frac=0.35, random_state=seed)
    df = pd.concat([df, doubled, doubled.sample(frac=0.5, random_state=seed + 1)])
    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return {"df": df}


FIXTURES: Mapping[str, Fixture] = {
    "noise_panel": noise_panel,
    "campaign": campaign,
    "churn": churn,
    "houses": houses,
    "daily_sales": daily_sales,
    "transactions": transactions,
    "messages": messages,
    "visits": visits,
    "merchants": merchants,
    "leads": leads,
    "sensor_readings": sensor_readings,
}


def fixture_names() -> tuple[str, ...]:
    return tuple(FIXTURES)


def build_fixture(name: str, seed: int) -> dict[str, object]:
    """The variables an item's code expects, freshly generated for `seed`."""
    try:
        make = FIXTURES[name]
    except KeyError:
        raise UnknownFixture(f"no review fixture named {name!r}; known: {', '.join(FIXTURES)}") from None
    return make(seed)
