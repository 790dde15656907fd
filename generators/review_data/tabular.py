"""Tabular fixtures: customers, houses, patients, merchants, leads, sensors, loans.

Each is small (hundreds of rows) and carries the structure its items need
to show a mechanism: a column written after the outcome, repeat entities,
a weak signal that tuning on the test rows can flatter.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def campaign(seed: int) -> dict[str, object]:
    """Customers contacted by a marketing campaign; a few features say something about who responds."""
    return {"df": _campaign(np.random.default_rng(seed), 500)}


def campaign_waves(seed: int) -> dict[str, object]:
    """Last autumn's campaign (`df`) and this spring's (`later`), the same kind of customers: a holdout of its own."""
    rng = np.random.default_rng(seed)
    return {"df": _campaign(rng, 500), "later": _campaign(rng, 300).set_index(pd.RangeIndex(500, 800))}


def _campaign(rng: np.random.Generator, n: int) -> pd.DataFrame:
    cols = ("age", "income_k", "tenure_years", "emails_opened", "site_visits", "days_since_purchase",
            "basket_avg", "discounts_used", "app_sessions", "support_tickets")
    f = rng.normal(size=(n, len(cols)))
    logit = 1.1 * f[:, 3] - 0.8 * f[:, 5] + 0.5 * f[:, 8] - 0.9
    df = pd.DataFrame(f.round(3), columns=list(cols))
    df["responded"] = (rng.random(n) < _sigmoid(logit)).astype(int)
    df["coupon_redeemed"] = np.where(df["responded"] == 1, rng.random(n) < 0.3, rng.random(n) < 0.03).astype(int)
    df["newsletter"] = (rng.random(n) < 0.4).astype(int)
    return df


def churn(seed: int) -> dict[str, object]:
    """Telecom customers. `retention_call` is logged when a customer phones to cancel (after deciding to leave)."""
    rng = np.random.default_rng(seed)
    n = 600
    tenure = rng.integers(1, 72, n)
    monthly = rng.normal(70, 20, n).clip(15, 130).round(2)
    calls = rng.poisson(1.5, n)
    contract = rng.choice(["month-to-month", "one-year", "two-year"], n, p=[0.55, 0.25, 0.2])
    logit = -0.9 - 0.03 * tenure + 0.015 * (monthly - 70) + 0.3 * calls
    logit = logit + np.where(contract == "month-to-month", 0.8, -0.5)
    churned = (rng.random(n) < _sigmoid(logit)).astype(int)
    total = (tenure * monthly * rng.normal(1.0, 0.05, n)).round(2)
    total[rng.random(n) < 0.12] = np.nan
    retention = np.where(churned == 1, rng.random(n) < 0.3, rng.random(n) < 0.04).astype(int)
    df = pd.DataFrame({
        "customer_id": np.arange(10_000, 10_000 + n), "tenure_months": tenure, "monthly_charges": monthly,
        "total_charges": total, "support_calls": calls, "contract": contract,
        "paperless_billing": (rng.random(n) < 0.6).astype(int), "retention_call": retention, "churned": churned,
    })
    return {"df": df}


def houses(seed: int) -> dict[str, object]:
    """House sales: areas, age, rooms and a log price; part of the price is what the listing does not show."""
    rng = np.random.default_rng(seed)
    n = 420
    living = rng.lognormal(7.3, 0.35, n).round()
    lot = rng.lognormal(8.8, 0.6, n).round()
    year = rng.integers(1920, 2022, n)
    rooms = np.clip((living / 300 + rng.normal(0, 1, n)).round(), 1, 12)
    quality = rng.normal(0, 0.12, n)  # what the listing does not show
    log_price = 4.0 + 0.8 * np.log(living) + 0.15 * np.log(lot) + 0.004 * (year - 1970) + quality
    df = pd.DataFrame({
        "house_id": [f"H{seed:02d}{i:04d}" for i in range(n)], "living_area": living, "lot_area": lot,
        "year_built": year, "rooms": rooms, "garage_spaces": rng.integers(0, 4, n),
        "log_price": log_price + rng.normal(0, 0.05, n),
    })
    df["log_price"] = df["log_price"].round(4)
    return {"df": df}


def listings(seed: int) -> dict[str, object]:
    """House sales where about a third of the houses were sold again a year or two later."""
    df: pd.DataFrame = houses(seed)["df"]
    rng = np.random.default_rng(seed + 100)
    resold = df.sample(frac=0.35, random_state=seed).copy()
    resold["log_price"] = (resold["log_price"] + rng.normal(0.04, 0.02, len(resold))).round(4)
    df, resold = df.assign(sale_number=1), resold.assign(sale_number=2)
    return {"df": pd.concat([df, resold]).sample(frac=1.0, random_state=seed).reset_index(drop=True)}


def visits(seed: int) -> dict[str, object]:
    """Clinic visits: 100 patients seen four times each; readmission is partly a trait of the patient."""
    rng = np.random.default_rng(seed)
    n_patients, per = 100, 4
    age = rng.integers(25, 90, n_patients)
    bmi = rng.normal(27, 5, n_patients)
    bp = rng.normal(130, 15, n_patients)
    trait = rng.normal(0, 1.2, n_patients)
    rows = []
    for p in range(n_patients):
        for v in range(per):
            hr = rng.normal(75, 10)
            logit = -0.6 + 0.03 * (age[p] - 57) + 0.04 * (hr - 75) + trait[p]
            rows.append({
                "patient_id": f"P{seed:02d}{p:03d}", "visit": v + 1, "age": int(age[p]),
                "bmi": round(bmi[p] + rng.normal(0, 0.3), 1), "systolic_bp": round(bp[p] + rng.normal(0, 3)),
                "heart_rate": int(hr), "readmitted": int(rng.random() < _sigmoid(logit)),
            })
    return {"df": pd.DataFrame(rows)}


def merchants(seed: int) -> dict[str, object]:
    """Orders from 40 merchants, about 60 each; some merchants see more chargebacks."""
    return {"df": _orders(np.random.default_rng(seed), 2400, 40)}


def marketplace(seed: int) -> dict[str, object]:
    """Orders from 20 long-standing merchants, about 300 each: enough that a merchant's rate is well measured."""
    return {"df": _orders(np.random.default_rng(seed), 6000, 20)}


def _orders(rng: np.random.Generator, n: int, n_m: int) -> pd.DataFrame:
    m = rng.integers(0, n_m, n)
    merchant_risk = rng.normal(0, 0.7, n_m)
    basket = rng.lognormal(4, 0.7, n)
    logit = -1.3 + merchant_risk[m] + 0.5 * (np.log(basket) - 4) + rng.normal(0, 0.5, n)
    return pd.DataFrame({
        "merchant_id": [f"M{k:04d}" for k in m], "basket_value": basket.round(2),
        "items": rng.integers(1, 8, n), "hour": rng.integers(0, 24, n),
        "chargeback": (rng.random(n) < _sigmoid(logit)).astype(int),
    })


def leads(seed: int) -> dict[str, object]:
    """Sales leads: about 15% convert; visits and minutes on site carry most of the signal."""
    rng = np.random.default_rng(seed)
    n = 600
    visits_ = rng.poisson(3, n)
    minutes = rng.gamma(2, 3, n).round(1)
    logit = -2.6 + 0.35 * visits_ + 0.08 * minutes
    df = pd.DataFrame({
        "site_visits": visits_, "pages_viewed": rng.poisson(6, n), "minutes_on_site": minutes,
        "emails_opened": rng.poisson(2, n), "company_size": rng.choice([5, 20, 100, 500, 2000], n),
        "converted": (rng.random(n) < _sigmoid(logit)).astype(int),
    })
    df["contract_sent"] = np.where(df["converted"] == 1, rng.random(n) < 0.12, rng.random(n) < 0.03).astype(int)
    df["webinar"] = (rng.random(n) < 0.3).astype(int)
    return {"df": df}


def sensor_readings(seed: int) -> dict[str, object]:
    """Machine readings where a logging fault wrote about a third of the rows more than once."""
    rng = np.random.default_rng(seed)
    n = 400
    vib = rng.normal(0.5, 0.15, n).round(3)
    df = pd.DataFrame({
        "machine": rng.integers(1, 40, n), "vibration": vib, "temperature": rng.normal(60, 8, n).round(1),
        "pressure": rng.normal(101, 4, n).round(1),
    })
    logit = -1.0 + 6 * (vib - 0.5) + 0.05 * (df["temperature"] - 60)
    df["failure"] = (rng.random(n) < _sigmoid(logit)).astype(int)
    doubled = df.sample(frac=0.35, random_state=seed)
    df = pd.concat([df, doubled, doubled.sample(frac=0.5, random_state=seed + 1)])
    return {"df": df.sample(frac=1.0, random_state=seed).reset_index(drop=True)}


def loans(seed: int) -> dict[str, object]:
    """Personal loans. `collection_letters` counts letters sent once payments are missed."""
    rng = np.random.default_rng(seed)
    n = 600
    income = rng.lognormal(10.6, 0.4, n).round(-2)
    amount = rng.lognormal(9.2, 0.5, n).round(-2)
    score = rng.normal(680, 50, n).round()
    years = rng.integers(0, 30, n)
    logit = -1.6 + 1.2 * (amount / income - 0.25) * 4 - 0.02 * (score - 680) - 0.02 * years
    default = (rng.random(n) < _sigmoid(logit)).astype(int)
    letters = np.where(default == 1, rng.poisson(0.6, n), rng.poisson(0.05, n))
    df = pd.DataFrame({
        "income": income, "loan_amount": amount, "credit_score": score, "years_employed": years,
        "term_months": rng.choice([12, 24, 36, 60], n), "collection_letters": letters, "defaulted": default,
    })
    return {"df": df}


def subscribers(seed: int) -> dict[str, object]:
    """Subscribers as they stood on 2023-03-31, whether they left by 2023-06-30, and every support contact.

    Contacts before the snapshot follow each subscriber's habits (a weak, usable signal); after it, people
    who are leaving call about four times as often as those who stay.
    """
    rng = np.random.default_rng(seed)
    n = 600
    tenure = rng.integers(1, 72, n)
    monthly = rng.normal(70, 20, n).clip(15, 130).round(2)
    habit = rng.gamma(1.5, 1.0, n)
    logit = -1.0 - 0.03 * tenure + 0.015 * (monthly - 70) + 0.25 * habit
    churned = (rng.random(n) < _sigmoid(logit)).astype(int)
    ids = np.arange(20_000, 20_000 + n)
    snapshot = pd.Timestamp("2023-03-31")  # the quarter being predicted ends on 2023-06-30
    rows = []
    for k in range(n):
        for _ in range(rng.poisson(habit[k])):
            rows.append((ids[k], snapshot - pd.Timedelta(days=int(rng.integers(1, 180)))))
        for _ in range(rng.poisson(0.45 if churned[k] else 0.12)):
            rows.append((ids[k], snapshot + pd.Timedelta(days=int(rng.integers(1, 91)))))
    contacts = pd.DataFrame(rows, columns=["customer_id", "date"]).sort_values("date").reset_index(drop=True)
    df = pd.DataFrame({"customer_id": ids, "tenure_months": tenure, "monthly_charges": monthly,
                       "paperless_billing": (rng.random(n) < 0.6).astype(int), "churned": churned})
    return {"df": df, "contacts": contacts}


FIXTURES = {
    "campaign": campaign, "campaign_waves": campaign_waves, "subscribers": subscribers, "churn": churn,
    "houses": houses, "listings": listings, "visits": visits, "merchants": merchants, "marketplace": marketplace,
    "leads": leads,
    "sensor_readings": sensor_readings, "loans": loans,
}
