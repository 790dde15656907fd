"""More temporal_leakage pairs (v4): which side of the cut the model is fitted on.

fitted-after: both twins cut the days into two sets of rows, fit a lag model on one and score it on the
other; the claim says the model is scored only on days after the ones it was fitted on. The twins hold the
same tokens: they differ only in which name each set is bound to, so in the flawed twin the model is fitted
on the final stretch and scored on every day before it (what it learned comes from after the days it
forecasts). One pair cuts by position, the other by date.
"""

from __future__ import annotations

from generators.review_data.bank.common import LOAD, SALES, Series, swap
from generators.review_data.bank.spec import PairSpec


def fitted_after(s: Series, pair_id: str, cut: str, knobs: tuple) -> PairSpec:
    """`cut` binds `fit_rows` and `scored_rows` (index labels of df), in that order, on one line."""
    code = f"""import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

{s.frame()}
{s.within()}
n_test = @KNOB@
{cut}
model = Ridge(alpha=1.0).fit(X.loc[fit_rows], y.loc[fit_rows])
reported = within(y.loc[scored_rows], model.predict(X.loc[scored_rows]))
print(f"fitted on {{len(fit_rows)}} days, scored on {{len(scored_rows)}}: {{reported:.3f}}")
"""
    bad = swap(code, "fit_rows, scored_rows = ", "scored_rows, fit_rows = ")
    return PairSpec(
        pair_id, "temporal_leakage", s.fixture,
        f"Scored only on days after every day it was fitted on, the lag model forecasts {s.what} {s.within_text} "
        "on a share of @FIG@ of the scored days.",
        code, bad, ("scored_rows, fit_rows = ",),
        "The model is fitted on the days before the cut and scored on the days after it.",
        "The names are swapped: the model is fitted on the days after the cut and scored on every day before "
        "them, so the days it forecasts come before the days it learned from.",
        {"kind": "future", "date": "date", "train": "df.loc[fit_rows]", "test": "df.loc[scored_rows]"},
        knobs=knobs, template="fitted-after",
    )


def fitted_after_text(pair_id: str, fixture: str, doc: str, date: str, label: str, vectorizer: str, score: str,
                      claim: str) -> PairSpec:
    """The same cut on a text model: fitted on the texts before a date, scored on those from it on."""
    code = f"""from sklearn.feature_extraction.text import {vectorizer.split("(")[0]}
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import {score.split("(")[0]}
from sklearn.pipeline import make_pipeline

{doc}
cut = df["{date}"].iloc[-@KNOB@]
fit_rows, scored_rows = df.index[df["{date}"] < cut], df.index[df["{date}"] >= cut]
model = make_pipeline({vectorizer}, LogisticRegression(max_iter=1000))
model.fit(df.loc[fit_rows, "text"], df.loc[fit_rows, "{label}"])
reported = {score}
print(f"{{len(fit_rows)}} texts before {{cut:%d %b}}, {{len(scored_rows)}} from then on: {{reported:.3f}}")
"""
    bad = swap(code, "fit_rows, scored_rows = ", "scored_rows, fit_rows = ")
    return PairSpec(
        pair_id, "temporal_leakage", fixture, claim, code, bad, ("scored_rows, fit_rows = ",),
        "The model is fitted on the texts written before the cut date and scored on those written from it on.",
        "The names are swapped: the model is fitted on the texts from the cut date on and scored on every earlier "
        "one, so it learned from texts written after the ones it is judged on.",
        {"kind": "future", "date": date, "train": "df.loc[fit_rows]", "test": "df.loc[scored_rows]"},
        knobs=tuple(range(60, 600, 4)), template="fitted-after",
    )


def pairs() -> list[PairSpec]:
    return [
        fitted_after(SALES, "fitted-after.sales", "fit_rows, scored_rows = X.index[:-n_test], X.index[-n_test:]",
                     tuple(range(60, 700, 3))),
        fitted_after(LOAD, "fitted-after.load",
                     'cut = df["date"].iloc[-n_test]\nfit_rows, scored_rows = X.index[df["date"] < cut], '
                     'X.index[df["date"] >= cut]', tuple(range(60, 400, 3))),
        fitted_after_text("fitted-after.tickets", "tickets",
                          "# df: one support ticket per row, oldest first; category is billing, access or shipping",
                          "created", "category", "TfidfVectorizer(min_df=2)",
                          'f1_score(df.loc[scored_rows, "category"], model.predict(df.loc[scored_rows, "text"]), '
                          'average="macro")',
                          "Scored only on tickets created after every ticket it learned from, the router sorts them "
                          "with a macro F1 of @FIG@."),
        fitted_after_text("fitted-after.reviews", "reviews", "# df: one product review per row, oldest first",
                          "date", "positive", "CountVectorizer(min_df=2, binary=True)",
                          'accuracy_score(df.loc[scored_rows, "positive"], model.predict(df.loc[scored_rows, "text"]))',
                          "Judged only on reviews written after all the reviews it was trained on, the classifier "
                          "tells positive from negative reviews with an accuracy of @FIG@."),
    ]
