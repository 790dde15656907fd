"""The metadata columns: sender, sender domain age, links, attachments, replies, arrival time.

All of them are known when a message arrives, and each carries a modest,
legitimate signal about the clean label, scaled by `metadata_signal`:
spam comes from younger domains, carries more links, fewer attachments, and
rarely continues an existing thread (`n_replies` counts earlier messages in
the same thread). The shifts are in log space so that the careful reference
(log1p, then scaling) can use them with a linear model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generators.spam_classifier import vocabulary as v

TRAIN_START = np.datetime64("2025-01-01T00:00:00", "s")
HOLDOUT_START = np.datetime64("2025-10-01T00:00:00", "s")
HOLDOUT_END = np.datetime64("2026-01-01T00:00:00", "s")

FREEMAIL_DOMAINS = ("postbox.com", "inboxly.net", "mailhub.org", "letterkit.com", "webpost.net")
HAM_TLDS = (".com", ".org", ".co.uk", ".de", ".com")
SPAM_TLDS = (".com", ".net", ".biz", ".info", ".top", ".xyz")
FREEMAIL_CHANCE = 0.45

# Ham baselines; spam shifts them by (multiplier ** metadata_signal).
DOMAIN_AGE_LOG_MEAN = 6.4  # about 600 days
DOMAIN_AGE_LOG_SD = 1.1
SPAM_DOMAIN_AGE_LOG_SHIFT = -0.8
LINKS_HAM_MEAN = 1.0
LINKS_SPAM_FACTOR = 1.9
ATTACHMENTS_HAM_MEAN = 0.45
ATTACHMENTS_SPAM_FACTOR = 0.5
REPLIES_HAM_MEAN = 0.9
REPLIES_SPAM_FACTOR = 0.45


@dataclass(frozen=True)
class Metadata:
    """Metadata columns for a block of messages (numpy arrays, one entry per message)."""

    sender: np.ndarray
    sender_domain_age_days: np.ndarray
    n_links: np.ndarray
    n_attachments: np.ndarray
    n_replies: np.ndarray


def arrival_times(n: int, start: np.datetime64, end: np.datetime64, rng: np.random.Generator) -> np.ndarray:
    """`n` sorted arrival times, uniform over [start, end), to the second."""
    span = int((end - start) / np.timedelta64(1, "s"))
    offsets = np.sort(rng.integers(0, span, n))
    return start + offsets.astype("timedelta64[s]")


def format_times(times: np.ndarray) -> np.ndarray:
    return np.datetime_as_string(times, unit="s").astype(object)


def _senders(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = labels.shape[0]
    first = np.array(v.words(v.FIRST_NAMES), dtype=object)
    last = np.array(v.words(v.LAST_NAMES), dtype=object)
    company = np.array([name.lower() for name in v.compounds(v.COMPANY_PREFIXES, v.COMPANY_SUFFIXES)], dtype=object)
    local = first[rng.integers(0, first.shape[0], n)] + "." + last[rng.integers(0, last.shape[0], n)]
    # Spam senders often carry digits; a few ham senders do too.
    digits = np.where(rng.random(n) < np.where(labels == 1, 0.5, 0.1), rng.integers(1, 999, n).astype(str), "")
    local = local + digits.astype(object)
    tld_ham = np.array(HAM_TLDS, dtype=object)[rng.integers(0, len(HAM_TLDS), n)]
    tld_spam = np.array(SPAM_TLDS, dtype=object)[rng.integers(0, len(SPAM_TLDS), n)]
    own_domain = company[rng.integers(0, company.shape[0], n)] + np.where(labels == 1, tld_spam, tld_ham)
    freemail = np.array(FREEMAIL_DOMAINS, dtype=object)[rng.integers(0, len(FREEMAIL_DOMAINS), n)]
    domain = np.where(rng.random(n) < FREEMAIL_CHANCE, freemail, own_domain)
    return local + "@" + domain


def build_metadata(labels: np.ndarray, signal: float, rng: np.random.Generator) -> Metadata:
    """Metadata for messages with these clean labels."""
    spam = labels == 1
    n = labels.shape[0]
    age_log_mean = DOMAIN_AGE_LOG_MEAN + np.where(spam, SPAM_DOMAIN_AGE_LOG_SHIFT * signal, 0.0)
    age = np.rint(np.expm1(rng.normal(age_log_mean, DOMAIN_AGE_LOG_SD, n).clip(0.0, 9.5))).astype(np.int64)
    links = rng.poisson(LINKS_HAM_MEAN * np.where(spam, LINKS_SPAM_FACTOR**signal, 1.0))
    attachments = rng.poisson(ATTACHMENTS_HAM_MEAN * np.where(spam, ATTACHMENTS_SPAM_FACTOR**signal, 1.0))
    replies = rng.poisson(REPLIES_HAM_MEAN * np.where(spam, REPLIES_SPAM_FACTOR**signal, 1.0))
    return Metadata(
        sender=_senders(labels, rng),
        sender_domain_age_days=age,
        n_links=links.astype(np.int64),
        n_attachments=attachments.astype(np.int64),
        n_replies=replies.astype(np.int64),
    )
