"""Text fixtures: an inbox (spam or not), product reviews, support tickets.

Words are drawn from small class-tilted vocabularies so that a bag-of-words
model learns something real but not everything, and figures sit in a
believable range rather than at 99%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_SPAM = ("prize", "winner", "free", "claim", "offer", "cash", "urgent", "bonus", "deal", "click",
         "exclusive", "reward", "limited", "voucher", "unlock", "credit", "gift")
_HAM = ("meeting", "lunch", "report", "tomorrow", "project", "thanks", "agenda", "notes", "call", "draft",
        "invoice", "schedule", "review", "minutes", "slides", "budget", "deadline")
_COMMON = ("the", "your", "today", "please", "account", "update", "team", "now", "new", "week",
           "here", "details", "info", "time", "see", "link", "send", "reply", "message", "soon")


def _words(rng, own, other, n, own_share=0.3, other_share=0.12):
    kinds = rng.choice(3, n, p=[own_share, other_share, 1 - own_share - other_share])
    pools = (own, other, _COMMON)
    return [str(rng.choice(pools[k])) for k in kinds]


def messages(seed: int) -> dict[str, object]:
    """Messages labelled spam or ham; bulk senders send the same text many times."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for _ in range(360):
        spam = bool(rng.random() < 0.35)
        own, other = (_SPAM, _HAM) if spam else (_HAM, _SPAM)
        text = " ".join(_words(rng, own, other, int(rng.integers(6, 13))))
        copies = int(rng.choice([1, 1, 1, 2, 4])) if spam else 1
        texts += [text] * copies
        flipped = rng.random() < 0.06
        labels += ["spam" if spam ^ flipped else "ham"] * copies
    df = pd.DataFrame({"text": texts, "label": labels})
    spam = (df["label"] == "spam").to_numpy()
    # Set when a recipient presses "report spam", so only after the message was delivered.
    df["user_reported"] = np.where(spam, rng.random(len(df)) < 0.3, rng.random(len(df)) < 0.02).astype(int)
    df["has_link"] = np.where(spam, rng.random(len(df)) < 0.5, rng.random(len(df)) < 0.3).astype(int)
    return {"df": df.sample(frac=1.0, random_state=seed).reset_index(drop=True)}


_POS = ("great", "love", "sturdy", "perfect", "fast", "comfortable", "recommend", "excellent", "solid", "happy")
_NEG = ("broke", "refund", "slow", "cheap", "returned", "disappointed", "flimsy", "awful", "late", "noisy")
_PRODUCT = ("battery", "screen", "strap", "case", "charger", "lid", "handle", "cable", "box", "size")


def reviews(seed: int) -> dict[str, object]:
    """Product reviews; 120 authors write several each, in their own habitual words."""
    rng = np.random.default_rng(seed)
    rows = []
    dates = pd.date_range("2023-01-01", periods=365, freq="D")
    for author in range(120):
        habit = [str(w) for w in rng.choice(_PRODUCT + _COMMON, 3, replace=False)] + [f"u{seed:02d}{author:03d}x"]
        mood = rng.normal(0, 1.0)
        for _ in range(int(rng.integers(2, 6))):
            positive = bool(rng.random() < 1 / (1 + np.exp(-(0.4 + mood))))
            own, other = (_POS, _NEG) if positive else (_NEG, _POS)
            words = _words(rng, own, other, int(rng.integers(6, 12)), 0.25, 0.12) + list(rng.choice(habit, 2))
            rng.shuffle(words)
            rows.append({"author_id": f"A{author:03d}", "date": dates[int(rng.integers(0, 365))],
                         "text": " ".join(words), "positive": int(positive)})
    return {"df": pd.DataFrame(rows).sort_values("date").reset_index(drop=True)}


_TOPICS = {
    "billing": ("invoice", "charge", "refund", "payment", "card", "billed", "price"),
    "access": ("password", "login", "locked", "reset", "account", "code", "email"),
    "shipping": ("parcel", "delivery", "courier", "tracking", "address", "late", "box"),
}


def tickets(seed: int) -> dict[str, object]:
    """A year of support tickets in three categories; the words people use drift over the year."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range("2023-01-01", periods=365, freq="D")
    names = list(_TOPICS)
    rows = []
    for _ in range(700):
        day = int(rng.integers(0, 365))
        category = names[int(rng.choice(3, p=[0.4, 0.35, 0.25]))]
        own = _TOPICS[category]
        # A product launch mid-year brings new words that belong to every category.
        extra = ("app", "update", "version", "beta") if day > 180 else ("store", "branch", "phone", "letter")
        other = tuple(w for name in names if name != category for w in _TOPICS[name])
        words = _words(rng, own, other, int(rng.integers(5, 10)), 0.3, 0.15) + list(rng.choice(extra, 2))
        note = f"closed by {category} desk" if rng.random() < 0.25 else "closed"
        channel = str(rng.choice(["email", "chat", "phone"], p=[0.5, 0.3, 0.2]))
        rows.append({"created": dates[day], "channel": channel, "text": " ".join(words),
                     "resolution_note": note, "category": category})
    return {"df": pd.DataFrame(rows).sort_values("created").reset_index(drop=True)}


FIXTURES = {"messages": messages, "reviews": reviews, "tickets": tickets}
