"""Waiting out an endpoint's rate limit, within a budget.

A hosted API (the frontier control of a batch) answers 429 when a key sends too much, often with `Retry-After`
in seconds or as an HTTP date; an overloaded server answers 503 with the same header. Neither says anything about
the model: the call is waited for and sent again, and when the waits would pass the budget the answer is recorded
`uncaptured` with reason `rate_limited` (bakeoff.records.enums.CaptureReason), never as the model's failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RATE_LIMITED = "rate_limited"  # the capture reason and error kind
DEFAULT_RATE_LIMIT_WAIT_S = 300.0  # all of one call's waits together
# A server answering `Retry-After: 0` forever would be asked forever without a count to stop at.
MAX_RATE_LIMIT_RETRIES = 30


def asks_to_wait(status: int, retry_after: str | None) -> bool:
    """429 always; 503 when it says how long to wait (a 503 without the header is a server error, retried as one)."""
    return status == 429 or (status == 503 and bool(retry_after))


def retry_after_s(value: str | None, now: float) -> float | None:
    """The seconds a `Retry-After` header asks for (delta-seconds, or an HTTP date measured from `now`, a Unix
    time); None when there is none or it reads as neither."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP dates are GMT
        return None
    return max(0.0, when.timestamp() - now)


@dataclass
class RateLimitWaits:
    """One call's waits on rate limits: each as the server asks (else doubling from `backoff_s`), until their sum
    would pass `budget_s`."""

    budget_s: float
    backoff_s: float
    waited_s: float = 0.0
    count: int = 0

    def next_wait(self, asked_s: float | None) -> float | None:
        """The seconds to wait before sending again; None when that would pass the budget (or the count)."""
        wait = asked_s if asked_s is not None else self.backoff_s * (2**self.count)
        if self.count >= MAX_RATE_LIMIT_RETRIES or self.waited_s + wait > self.budget_s:
            return None
        self.count += 1
        self.waited_s += wait
        return wait

    def gave_up(self, status: int, asked_s: float | None) -> str:
        """The error of a call given up on: what the server said, and the budget it would have passed."""
        asked = f"it asked for {asked_s:g} s more" if asked_s is not None else "it gave no Retry-After"
        return (f"HTTP {status}: rate limited; {self.count} waits ({self.waited_s:g} s) then {asked}, past the "
                f"{self.budget_s:g} s budget (rate_limit_wait_s)")
