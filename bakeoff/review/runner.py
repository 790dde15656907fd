"""Asking a model every item, K times, and grading what comes back.

Each sample is its own one-turn conversation. Its key is
`review/<item id>#<sample number>` (samples numbered from 1), so a scripted
backend can answer an item by its full key, or by `review/<item id>` alone
(the k-th such line answers the k-th sample).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from bakeoff.models.base import Completion, ModelBackend, turn_key
from bakeoff.review.grading import ItemAnswer, grade
from bakeoff.review.items import ReviewItem
from bakeoff.review.metrics import ReviewMetrics, compute_metrics
from bakeoff.review.prompt import PromptTemplate
from bakeoff.review.settings import ReviewSettings

OnAnswer = Callable[[ItemAnswer], None]
OnAsked = Callable[[ItemAnswer, dict], None]  # a freshly asked answer, with the model_info known so far


@dataclass(frozen=True)
class PriorAnswers:
    """What an interrupted start of the same review already has (bakeoff.review.journal)."""

    answers: Mapping[tuple[str, int], ItemAnswer]  # by (item id, 0-based sample)
    model_info: dict
    started_at: str | None


@dataclass(frozen=True)
class ReviewResult:
    backend: str
    settings: ReviewSettings
    items: tuple[ReviewItem, ...]
    answers: tuple[ItemAnswer, ...]
    metrics: ReviewMetrics
    started_at: str  # ISO 8601, UTC
    finished_at: str
    model_info: dict  # what the backend reported about the model (sha256, quantization...), from its first answer


def conversation_name(item: ReviewItem) -> str:
    return f"review/{item.id}"


def ask(
    backend: ModelBackend, item: ReviewItem, sample: int, settings: ReviewSettings, template: PromptTemplate
) -> tuple[ItemAnswer, Completion]:
    """One sample (0-based) of one item, graded, with the raw completion. Never raises for the model's silence."""
    key = turn_key(conversation_name(item), sample + 1)
    completion = backend.chat(template.messages(item), key=key, settings=settings.generation(sample))
    return grade(item, sample, key, completion), completion


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def run_review(
    backend: ModelBackend,
    items: Sequence[ReviewItem],
    settings: ReviewSettings,
    template: PromptTemplate,
    on_answer: OnAnswer | None = None,
    prior: PriorAnswers | None = None,
    on_asked: OnAsked | None = None,
) -> ReviewResult:
    """Every item, `settings.samples` times: sample 1 of every item first, then sample 2, ...

    Answers in `prior` are reused, not asked again; `on_asked` sees each one that is asked.
    """
    started = (prior and prior.started_at) or utc_now()
    answers = []
    model_info: dict = dict(prior.model_info) if prior else {}
    recorded = prior.answers if prior else {}
    # Samples outermost: every item gets its first answer before any item gets its second.
    # A resumed review keeps this order (reused answers in place), so its answers.jsonl is the same.
    for sample in range(settings.samples):
        for item in items:
            answer = recorded.get((item.id, sample))
            if answer is None:
                answer, completion = ask(backend, item, sample, settings, template)
                if not model_info and completion.model_info:
                    model_info = dict(completion.model_info)
                if on_asked is not None:
                    on_asked(answer, model_info)
            answers.append(answer)
            if on_answer is not None:
                on_answer(answer)
    return ReviewResult(
        backend=backend.identity,
        settings=settings,
        items=tuple(items),
        answers=tuple(answers),
        metrics=compute_metrics(items, answers),
        started_at=started,
        finished_at=utc_now(),
        model_info=model_info,
    )
